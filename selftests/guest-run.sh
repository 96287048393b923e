# shellcheck shell=dash # busybox sh in the guest: POSIX sh and local, as dash
# Guest side of selftests/matrix.py, /run.sh: the parts kcolour.tests=kstack,stress,
# stress-nomount,upstream,hotplug,params,probe names, each between "SUITE-BEGIN name"
# and "SUITE-END name rc=N".
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
	level_core1
	taskset -c 1 /bin/kstack_colour_test
	local rc=$?
	pkill -f 'sleep 900'
	return $rc
}

# The kselftest's spread needs its core's balanced counts within one of
# each other at rest.  The hotplug's exits of tasks homed on core 1 (CPU
# 1's workers) can leave them further apart, and balanced only levels the
# counts as tasks fork there: fork sleepers on CPU 1 until they are within
# one (a CI run failed every spread on CPU 1 once for want of this).
level_core1() {
	local n=0
	while [ $n -lt 32 ] && awk '$1 == "live_core1:" { lo = $2; hi = $2
		for (i = 3; i <= NF; i++) { if ($i < lo) lo = $i; if ($i > hi) hi = $i }
		found = 1 } END { exit !(found && hi - lo > 1) }' "$DEBUGFS/params"; do
		taskset -c 1 sh -c 'sleep 900 &'
		n=$((n + 1))
	done
	echo "# hotplug: $n sleepers forked on CPU 1 to level its counts: $(grep '^live_core1:' "$DEBUGFS/params")"
}

# What the stress kselftest may touch, to check that it leaves it as found:
# the cgroup2 mounts, this shell's cgroup, the root cgroup's controllers and
# children, and /tmp.  (Not the root's cgroup.procs: the pipeline's own
# processes are in it.)
cgroup_state() {
	{
		grep -c ' - cgroup2 ' /proc/self/mountinfo
		cat /proc/self/cgroup /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
		ls /sys/fs/cgroup /tmp 2>/dev/null
	} | md5sum | cut -c1-12
}
# kernel.kstack_colour before and after CMD, which may turn colouring on
# for its own tasks but must set it back: "SYSCTL before B after A".
keeps_sysctl() {
	local before rc
	before=$(cat /proc/sys/kernel/kstack_colour 2>/dev/null || echo none)
	"$@"
	rc=$?
	echo "SYSCTL before $before after $(cat /proc/sys/kernel/kstack_colour 2>/dev/null || echo none)"
	return $rc
}
run_stress() {
	local before rc
	before=$(cgroup_state)
	keeps_sysctl /bin/kstack_colour_stress
	rc=$?
	echo "STRESS cgroups before $before after $(cgroup_state)"
	return $rc
}

# The same without a cgroup2 mount: the kselftest mounts one where the
# shell cannot see it.
run_stress_nomount() {
	local rc
	umount /sys/fs/cgroup || return 1
	run_stress
	rc=$?
	mount -t cgroup2 cgroup2 /sys/fs/cgroup
	return $rc
}

tests=$(sed -n 's/.*kcolour\.tests=\([^ ]*\).*/\1/p' /proc/cmdline)
for t in $(echo "${tests:-kstack,probe}" | tr ',' ' '); do
	echo "SUITE-BEGIN $t"
	case $t in
	kstack) keeps_sysctl /bin/kstack_colour_test ;;
	probe) /bin/kcolour-probe --no-sysfs >/dev/null ;;
	stress | upstream | hotplug | params) "run_$t" ;;
	stress-nomount) run_stress_nomount ;;
	*) echo "# unknown test '$t' in kcolour.tests="; false ;;
	esac
	echo "SUITE-END $t rc=$?"
done
