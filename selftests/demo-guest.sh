# shellcheck shell=sh
# Guest side of selftests/demo.py, its /run.sh; tagged lines: D (kernel log), K (debugfs
# params), F (a sysfs cache index), P (the probe's JSON), and T, H, Z from kcolour-demo.
set -u
dbg=/sys/kernel/debug/x86/kstack_colour

dmesg | grep 'kstack_colour:' | sed 's/^/D /'
[ -r "$dbg/params" ] || { echo "demo: $dbg/params missing: kernel built without CONFIG_KSTACK_COLOUR or debugfs"; exit 1; }
sed 's/^/K /' "$dbg/params"
for d in /sys/devices/system/cpu/cpu0/cache/index*; do
	[ -d "$d" ] || continue
	echo "F $(cat "$d/level") $(cat "$d/type") $(cat "$d/size") $(cat "$d/ways_of_associativity") $(cat "$d/coherency_line_size") $(cat "$d/number_of_sets")"
done
/bin/kcolour-probe --json --no-sysfs | sed 's/^/P /' || { echo "demo: kcolour-probe failed"; exit 1; }
/bin/kcolour-demo "${kcolour_demo_tasks:-64}" || { echo "demo: kcolour-demo failed"; exit 1; }
