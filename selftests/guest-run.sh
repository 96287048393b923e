# Guest side of selftests/run-selftests.sh: /run.sh of the one test
# initramfs.  The kernel command line picks what runs:
#     kcolour.tests=kstack,stress,upstream,hotplug,params,probe
# Each part prints "SUITE-BEGIN name" ... "SUITE-END name rc=N" for
# selftests/parse-results.py; the upstream programs print one
# "UPSTREAM name rc=N" line each (137: killed by the timeout).

DEBUGFS=/sys/kernel/debug/x86/kstack_colour
UPSTREAM_TIMEOUT=120

tests=$(sed -n 's/.*kcolour\.tests=\([^ ]*\).*/\1/p' /proc/cmdline)
[ -n "$tests" ] || tests=kstack,probe

suite_begin() { echo "SUITE-BEGIN $1"; }
suite_end() { echo "SUITE-END $1 rc=$2"; }

run_kstack() { /bin/kstack_colour_test; }
run_stress() { /bin/kstack_colour_stress; }
run_probe() { /bin/kcolour-probe --no-sysfs >/dev/null; }

# The parameters, and the task_struct slab's object size (its cost).
run_params() {
	[ -r "$DEBUGFS/params" ] || return 1
	sed 's/^/PARAMS /' "$DEBUGFS/params"
	awk '$1 == "task_struct" { print "SLAB task_struct objsize", $4, "objperslab", $5,
		"pagesperslab", $6 }' /proc/slabinfo
}

# Each upstream program on its own, in /tmp (some write files); the tail
# of a failure's output goes to the console for the summary.
run_upstream() {
	local prog name rc
	for prog in /upstream/*; do
		name=${prog##*/}
		if grep -qx "$name" /upstream.skip; then
			echo "# upstream: $name not run (see selftests/upstream-known.tsv)"
			continue
		fi
		# KILL: a hung test may not die of TERM.
		(cd /tmp && timeout -s KILL "$UPSTREAM_TIMEOUT" "$prog" >/tmp/out 2>&1)
		rc=$?
		if [ "$rc" != 0 ]; then
			tail -n 5 /tmp/out | sed "s/^/# $name: /"
		fi
		echo "UPSTREAM $name rc=$rc"
	done
	return 0
}

# CPU 1 offline and online again; its idle task's line before and after,
# then the kselftest pinned to CPU 1.
idle_line() { awk '$NF == "swapper/1" { print $2, $3, $4 }' "$DEBUGFS/tasks"; }

run_hotplug() {
	local online=/sys/devices/system/cpu/cpu1/online
	[ -w "$online" ] || { echo "# hotplug: no $online"; return 1; }
	echo "HOTPLUG before $(idle_line)"
	echo 0 >"$online" || return 1
	echo "HOTPLUG offline $(cat "$online") $(idle_line)"
	echo 1 >"$online" || return 1
	echo "HOTPLUG after $(idle_line)"
	taskset -c 1 /bin/kstack_colour_test
}

for t in $(echo "$tests" | tr ',' ' '); do
	suite_begin "$t"
	case $t in
	kstack | stress | upstream | hotplug | params | probe) "run_$t" ;;
	*) echo "# unknown test '$t' in kcolour.tests="; false ;;
	esac
	suite_end "$t" "$?"
done
