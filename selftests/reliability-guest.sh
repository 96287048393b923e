# shellcheck shell=dash # busybox sh in the guest: POSIX sh and local, as dash
# Guest side of selftests/reliability.py, /run.sh.  The kernel command line
# names the part and its size:
#   kcolour.rel=trinity kcolour.n=SYSCALLS kcolour.seed=SEED
#   kcolour.rel=storm kcolour.secs=SECONDS
#   kcolour.rel=memory kcolour.n=THREADS
# Each part prints lines the host parses: TRINITY, STORM, MEM, and COUNTS
# from colour-counts.
SYSCTL=/proc/sys/kernel/kstack_colour
CG=/sys/fs/cgroup

arg() { tr ' ' '\n' </proc/cmdline | sed -n "s/^kcolour\.$1=//p"; }

# The per-colour live counts against the task listings (colour-counts.c),
# and every deepest-stack figure of the boot: the kernel prints them at
# KERN_INFO, which the console stops showing once /init quietens it.
check_counts() {
	dmesg | grep 'used greatest stack depth' | sed 's/^/STACK /'
	colour-counts live tasks
	# shellcheck disable=SC2012 # counts PID directories, whose names are digits
	echo "TASKS $(ls -d /proc/[0-9]* | wc -l)"
}

# An unprivileged user for the fuzzer and the storm.
add_nobody() {
	printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/tmp/nobody:/bin/sh\n' \
		>/etc/passwd
	printf 'root:x:0:\nnogroup:x:65534:\n' >/etc/group
	mkdir -p /tmp/nobody && chown 65534:65534 /tmp/nobody
}

run_trinity() {
	local n seed start rc
	n=$(arg n) seed=$(arg seed)
	add_nobody
	start=$(date +%s)
	# Its output goes to the console: its progress lines show a slow run.
	{ su -s /bin/sh nobody -c "cd /tmp/nobody && exec trinity -q -l off \
		--disable-fds=sockets -C 2 -N $n -s $seed" </dev/null 2>&1
	  echo $? >/tmp/trinity.rc; } | sed 's/^/# trinity: /'
	rc=$(cat /tmp/trinity.rc)
	echo "TRINITY rc=$rc secs=$(($(date +%s) - start))"
	pkill -9 -u 65534 2>/dev/null
	check_counts
}

# The storm's churn: the sysctl flipped every 100 ms, CPUs 1..N-1 offline
# and online in turn; each counts its rounds in /tmp.
flip_sysctl() {
	local n=0
	while :; do
		echo 0 >$SYSCTL; sleep 0.1; echo 1 >$SYSCTL; sleep 0.1
		n=$((n + 1)); echo $n >/tmp/flips
	done
}
hotplug_cpus() {
	local c n=0
	while :; do
		for c in /sys/devices/system/cpu/cpu[1-9]*; do
			echo 0 >"$c/online" && sleep 0.3 && echo 1 >"$c/online" &&
				n=$((n + 1)) && echo $n >/tmp/hotplugs
		done
	done
}

# What the storm may change in the cgroup tree, to check that it leaves it
# as found: the root's controllers and children.
cgroup_state() { { cat $CG/cgroup.subtree_control; ls $CG; } | md5sum | cut -c1-12; }

run_storm() {
	local secs orig flip hot start rc c before pids_on=
	secs=$(arg secs) orig=$(cat $SYSCTL) before=$(cgroup_state)
	add_nobody
	# A pids cgroup of its own whose pids.max makes forks fail; removed
	# after, and the pids controller turned off again if it was off.
	grep -q pids $CG/cgroup.subtree_control ||
		{ echo +pids >$CG/cgroup.subtree_control && pids_on=1; }
	mkdir $CG/kcolour-storm && echo 48 >$CG/kcolour-storm/pids.max || return 1
	flip_sysctl & flip=$!
	hotplug_cpus & hot=$!
	start=$(date +%s)
	sh -c "echo \$\$ >$CG/kcolour-storm/cgroup.procs && exec su -s /bin/sh nobody -c \
		'cd /tmp/nobody && exec stress-ng --fork 2 --fork-max 16 --vfork 2 --vfork-max 16 \
		--clone 2 --clone-max 16 --exec 2 --exec-max 16 --pthread 2 --pthread-max 16 \
		--timeout ${secs}s --metrics-brief'" >/tmp/storm.out 2>&1 </dev/null
	rc=$?
	kill $flip $hot
	wait $flip $hot 2>/dev/null
	for c in /sys/devices/system/cpu/cpu[1-9]*; do echo 1 >"$c/online"; done
	echo "$orig" >$SYSCTL
	echo "STORM rc=$rc secs=$(($(date +%s) - start)) failed_forks=$(awk '$1 == "max" { print $2 }' \
		$CG/kcolour-storm/pids.events) flips=$(cat /tmp/flips) hotplugs=$(cat /tmp/hotplugs)" \
		"cpus=$(cat /sys/devices/system/cpu/online)"
	sed 's/^/# stress-ng: /' /tmp/storm.out
	sleep 1
	rmdir $CG/kcolour-storm
	[ -n "$pids_on" ] && echo -pids >$CG/cgroup.subtree_control
	echo "STORM cgroups before $before after $(cgroup_state)"
	check_counts
}

mem() {
	awk -v when="$1" '
		FILENAME == "/proc/meminfo" && $1 ~ /^(KernelStack|Slab|SUnreclaim|MemFree):$/ {
			v[substr($1, 1, length($1) - 1)] = $2 }
		FILENAME == "/proc/slabinfo" && $1 == "task_struct" { ts = $2 " " $4 }
		END { printf "MEM %s KernelStack=%d Slab=%d SUnreclaim=%d MemFree=%d task_struct=%s\n",
		      when, v["KernelStack"], v["Slab"], v["SUnreclaim"], v["MemFree"], ts }' \
		/proc/meminfo /proc/slabinfo
}

run_memory() {
	local n pid tries=0
	n=$(arg n)
	echo 3 >/proc/sys/vm/drop_caches
	mem before
	/bin/threads "$n" >/tmp/threads.out 2>&1 &
	pid=$!
	until grep -q live /tmp/threads.out; do
		kill -0 $pid 2>/dev/null || { cat /tmp/threads.out; return 1; }
		tries=$((tries + 1))
		[ $tries -ge 600 ] && return 1
		sleep 1
	done
	mem with
	# shellcheck disable=SC2012 # counts TID directories, whose names are digits
	echo "THREADS $(ls /proc/$pid/task | wc -l)"
	check_counts
	kill $pid
}

part=$(arg rel)
echo "RELIABILITY $part"
"run_$part"
