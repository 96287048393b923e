# Guest side of selftests/matrix.py, /run.sh: the parts kcolour.tests=kstack,stress,upstream,
# hotplug,params,probe names, each between "SUITE-BEGIN name" and "SUITE-END name rc=N".
DEBUGFS=/sys/kernel/debug/x86/kstack_colour

# The parameters, and the task_struct slab's object size (its cost).
run_params() {
	[ -r "$DEBUGFS/params" ] || return 1
	sed 's/^/PARAMS /' "$DEBUGFS/params"
	awk '$1 == "task_struct" { print "SLAB task_struct objsize", $4, "objperslab", $5,
		"pagesperslab", $6 }' /proc/slabinfo
}

# Each upstream program on its own, in /tmp (some write files), as one
# "UPSTREAM name rc=N" line; the tail of a failure's output goes to the console.
# Those that bring the kernel down under TCG, coloured or not, do not run.
run_upstream() {
	local prog name rc
	for prog in /upstream/*; do
		name=${prog##*/}
		if grep -qE "^${name}[[:space:]]+skip[[:space:]]" /upstream-known.tsv; then
			echo "# upstream: $name not run (see selftests/upstream-known.tsv)"
			continue
		fi
		# 120 s, then KILL (rc 137): a hung test may not die of TERM.
		(cd /tmp && timeout -s KILL 120 "$prog" >/tmp/out 2>&1)
		rc=$?
		[ "$rc" = 0 ] || tail -n 5 /tmp/out | sed "s/^/# $name: /"
		echo "UPSTREAM $name rc=$rc"
	done
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

tests=$(sed -n 's/.*kcolour\.tests=\([^ ]*\).*/\1/p' /proc/cmdline)
for t in $(echo "${tests:-kstack,probe}" | tr ',' ' '); do
	echo "SUITE-BEGIN $t"
	case $t in
	kstack) /bin/kstack_colour_test ;;
	stress) /bin/kstack_colour_stress ;;
	probe) /bin/kcolour-probe --no-sysfs >/dev/null ;;
	upstream | hotplug | params) "run_$t" ;;
	*) echo "# unknown test '$t' in kcolour.tests="; false ;;
	esac
	echo "SUITE-END $t rc=$?"
done
