# shellcheck shell=sh
# The bench's real-program phases, sourced by the guest's /run.sh (busybox
# sh): each function runs one program inside a marker window (window.c)
# and prints one key=value line, like the static workloads do.

WEB_ROOT=/srv/www
WEB_FILE=index.html
WEB_FILE_SIZE=4096

# lighttpd on 127.0.0.1:80 serving one static file, started outside any
# window: one worker process a CPU (server.max-worker) when there are more.
web_start() {
	ip link set lo up
	mkdir -p "$WEB_ROOT"
	head -c "$WEB_FILE_SIZE" /dev/zero | tr '\0' x >"$WEB_ROOT/$WEB_FILE"
	cpus=$(grep -c ^processor /proc/cpuinfo)
	{
		echo "server.document-root = \"$WEB_ROOT\""
		echo 'server.bind = "127.0.0.1"'
		echo 'server.port = 80'
		echo 'server.pid-file = "/tmp/lighttpd.pid"'
		echo 'server.errorlog = "/tmp/lighttpd.err"'
		echo 'server.upload-dirs = ( "/tmp" )'
		echo 'server.max-keep-alive-requests = 100000'
		echo 'index-file.names = ( "index.html" )'
		echo 'mimetype.assign = ( ".html" => "text/html" )'
		[ "$cpus" -gt 1 ] && echo "server.max-worker = $cpus"
	} >/etc/lighttpd.conf
	lighttpd -f /etc/lighttpd.conf || { cat /tmp/lighttpd.err; return 1; }
	# Serving, and warm: a few requests before the first window.
	ab -q -n 10 "http://127.0.0.1/$WEB_FILE" >/dev/null
}

# web CONCURRENCY KEEPALIVE REQUESTS: ab fetches the file REQUESTS times,
# CONCURRENCY at a time, with keep-alive when KEEPALIVE is 1.
web() {
	[ -e /tmp/lighttpd.pid ] || web_start
	ka=
	[ "$2" = 1 ] && ka=-k
	run=$(window -o /tmp/ab.out ab -q $ka -n "$3" -c "$1" "http://127.0.0.1/$WEB_FILE") ||
		{ cat /tmp/ab.out; return 1; }
	complete=$(sed -n 's/^Complete requests: *//p' /tmp/ab.out)
	failed=$(sed -n 's/^Failed requests: *//p' /tmp/ab.out)
	echo "web concurrency=$1 keepalive=$2 requests=$3 complete=${complete:--1}" \
		"failed=${failed:--1} size=$WEB_FILE_SIZE $run"
}

# hackbench process|thread pipe|socket GROUPS LOOPS: rt-tests' hackbench,
# FDS senders a group each writing LOOPS 100-byte messages to each of FDS
# receivers.
HACKBENCH_FDS=10
hackbench() {
	mode=-P threads=0
	[ "$1" = thread ] && mode=-T threads=1
	pipe='' pipes=0
	[ "$2" = pipe ] && pipe=-p pipes=1
	run=$(window -o /tmp/hackbench.out hackbench $mode $pipe -g "$3" -f "$HACKBENCH_FDS" \
		-l "$4") || { cat /tmp/hackbench.out; return 1; }
	echo "hackbench threads=$threads pipes=$pipes groups=$3 fds=$HACKBENCH_FDS loops=$4" \
		"messages=$(($3 * HACKBENCH_FDS * HACKBENCH_FDS * $4)) $run"
}

# cmd NAME -- PROGRAM [ARG...]: any program inside one marker window, one
# event a run, labelled NAME (facts.tsv's "cmd" workload lines; the bench
# copies PROGRAM and its libraries into the initramfs, bench/lib/runner.py).
cmd() {
	name=$1
	shift 2
	run=$(window -o /tmp/cmd.out "$@") || { cat /tmp/cmd.out; return 1; }
	echo "cmd name=$name runs=1 $run"
}

# slab_info: what make bench-slab-colour (bench/slab_colour.py) costs and
# checks slab colours with, each line "slab_info ...": a cache of
# /proc/slabinfo a line (NAME OBJSIZE OBJPERSLAB PAGESPERSLAB ACTIVE_OBJS
# NUM_OBJS), the kernel's "slab_colour:" lines (the bench kernel's
# slab_colour=, kernel-patches/bench) and task_struct's colours
# (kstack_colour's params); then "slab_info end".
slab_info() {
	[ -r /sys/kernel/debug/x86/kstack_colour/params ] ||
		mount -t debugfs none /sys/kernel/debug 2>/dev/null
	awk 'NR > 2 { print "slab_info", $1, $4, $5, $6, $2, $3 }' /proc/slabinfo
	dmesg | grep -o 'slab_colour: .*' | sed 's/^/slab_info /'
	grep '^task_' /sys/kernel/debug/x86/kstack_colour/params | sed 's/^/slab_info /'
	echo "slab_info end"
}

# page_map: the bench kernel's map of page frames to their owners
# (kernel-patches/bench, DEBUG_PAGE_MAP), one "page_map FIRST_PFN COUNT
# OWNER" line a run of frames, then "page_map end"; run after each phase by
# make bench-attribution (bench/attribution.py), which names the phase's
# conflict misses with it.
page_map() {
	[ -r /sys/kernel/debug/page_map ] ||
		mount -t debugfs none /sys/kernel/debug 2>/dev/null
	[ -r /sys/kernel/debug/page_map ] ||
		{ echo "page_map: no /sys/kernel/debug/page_map (CONFIG_DEBUG_PAGE_MAP)"; return 1; }
	sed 's/^/page_map /' /sys/kernel/debug/page_map
	echo "page_map end"
}
