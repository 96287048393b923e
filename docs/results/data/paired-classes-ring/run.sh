set -e
. /bin/phases.sh
seed=$(sed -n 's/.*bench_layout=\([0-9]*\).*/\1/p' /proc/cmdline)
layout "${seed:-0}"
ring 4 1200
grep -E '^(enabled|colours|policy):' /sys/kernel/debug/x86/kstack_colour/params | sed 's/^/colour_info /'
ring 6 800
grep -E '^(enabled|colours|policy):' /sys/kernel/debug/x86/kstack_colour/params | sed 's/^/colour_info /'
ring 8 600
grep -E '^(enabled|colours|policy):' /sys/kernel/debug/x86/kstack_colour/params | sed 's/^/colour_info /'
ring 12 400
grep -E '^(enabled|colours|policy):' /sys/kernel/debug/x86/kstack_colour/params | sed 's/^/colour_info /'
ring 16 300
grep -E '^(enabled|colours|policy):' /sys/kernel/debug/x86/kstack_colour/params | sed 's/^/colour_info /'
ring 24 200
grep -E '^(enabled|colours|policy):' /sys/kernel/debug/x86/kstack_colour/params | sed 's/^/colour_info /'
