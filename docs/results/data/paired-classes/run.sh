set -e
. /bin/phases.sh
seed=$(sed -n 's/.*bench_layout=\([0-9]*\).*/\1/p' /proc/cmdline)
layout "${seed:-0}"
web 1 0 1
grep -E '^(enabled|colours|policy):' /sys/kernel/debug/x86/kstack_colour/params | sed 's/^/colour_info /'
web 4 0 200
grep -E '^(enabled|colours|policy):' /sys/kernel/debug/x86/kstack_colour/params | sed 's/^/colour_info /'
web 4 1 400
grep -E '^(enabled|colours|policy):' /sys/kernel/debug/x86/kstack_colour/params | sed 's/^/colour_info /'
hackbench process socket 1 20
grep -E '^(enabled|colours|policy):' /sys/kernel/debug/x86/kstack_colour/params | sed 's/^/colour_info /'
hackbench thread socket 4 10
grep -E '^(enabled|colours|policy):' /sys/kernel/debug/x86/kstack_colour/params | sed 's/^/colour_info /'
forkloop 200
grep -E '^(enabled|colours|policy):' /sys/kernel/debug/x86/kstack_colour/params | sed 's/^/colour_info /'
ring 8 600
grep -E '^(enabled|colours|policy):' /sys/kernel/debug/x86/kstack_colour/params | sed 's/^/colour_info /'
