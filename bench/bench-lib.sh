# shellcheck shell=bash
# Shared by bench/run-bench.sh and bench/run-sweep.sh: source it, do not run it.
#
# The caller sets TOP, WORK (work dir, created), CPU (QEMU model), TIMEOUT
# (per boot), RING_NS, RING_SWITCHES, MSG_ARGS, FORKS (the guest's
# workloads) and optionally PLUGIN_ARGS (more kcolour-cachesim arguments,
# comma-separated, e.g. the extra geometries).

# The full workloads, the same in make bench and make bench-sweep so that
# their figures compare.
full_workloads() {
	RING_NS="2 4 6 8 12 16 24 32 64"
	RING_SWITCHES=19200	# per N; a multiple of every N
	MSG_ARGS="1 10 100"	# messaging GROUPS FDS LOOPS
	FORKS=1000
	TIMEOUT=2400
}

say() { echo "[${BENCH_PROG:-bench}] $*"; }
error() { echo "error: $*" >&2; exit 1; }

# get_kernel NAME [VAR=value...]: build (or take from the cache) a kernel
# with scripts/kernel-build.sh and copy bzImage, System.map and vmlinux to
# $WORK/kernel-NAME: the build dir may be rebuilt while QEMU runs.
get_kernel() {
	local name=$1 log=$WORK/kernel-$1.log dir
	shift
	say "kernel $name: ${*:+$* }scripts/kernel-build.sh"
	echo "$* bash scripts/kernel-build.sh" >>"$WORK/commands"
	# FRAGMENTS and NAME unset: the script's own default is the test image.
	env -u FRAGMENTS -u NAME -u BASE "$@" bash "$TOP/scripts/kernel-build.sh" 2>&1 | tee "$log" ||
		error "kernel $name: build failed (log: $log)"
	dir=$(sed -n 's/^\[kernel-build\] kernel: \(.*\)\/bzImage$/\1/p' "$log" | tail -n 1)
	[ -n "$dir" ] || error "kernel $name: no image (log: $log)"
	mkdir -p "$WORK/kernel-$name"
	cp -L "$dir/bzImage" "$dir/System.map" "$dir/vmlinux" "$WORK/kernel-$name/"
}

# The run's mode, date, tool versions and CPU model, for a report's header.
meta_common() {
	echo "mode=$MODE"
	echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "qemu=$(qemu-system-x86_64 --version | head -n 1)"
	echo "gcc=$(gcc --version | head -n 1)"
	echo "cpu=$CPU"
}

# The kernel's banner and how kernel-build.sh got it, for a report's header.
kernel_meta() {
	local k=$1
	echo "banner_$k=$(strings "$WORK/kernel-$k/vmlinux" | grep -m1 '^Linux version ')"
	echo "build_$k=$(grep -E '\] (cache hit|warning|cache miss)' "$WORK/kernel-$k.log" | head -n 1 | sed 's/^\[kernel-build\] //')"
}

# text=_text-_etext,data=_etext-_end for the plugin, from System.map.
layout_args() {
	local map=$1
	awk '$3 == "_text" { t = $1 } $3 == "_etext" { e = $1 } $3 == "_end" { d = $1 }
	     END { if (t && e && d) printf "text=%s-%s,data=%s-%s\n", t, e, e, d; else exit 1 }' "$map" ||
		error "$map lacks _text, _etext or _end"
}

# The guest's /run.sh: every workload in order, one marker phase each.
write_run_sh() {
	local n
	{
		echo "set -e"
		for n in $RING_NS; do echo "ring $n $((RING_SWITCHES / n))"; done
		echo "messaging $MSG_ARGS"
		echo "forkloop $FORKS"
	} >"$WORK/run.sh"
}

build_initramfs() {
	local bin=$WORK/bin
	make -s -C "$TOP/tools-probe/cachesim" OUT="$bin" all
	write_run_sh
	"$TOP/selftests/mkinitramfs.sh" "$WORK/initramfs.cpio.gz" \
		"$bin/ring:/bin/ring" "$bin/messaging:/bin/messaging" \
		"$bin/forkloop:/bin/forkloop" "$WORK/run.sh:/run.sh" >/dev/null
}

# boot OUT KERNEL [KERNEL_ARG...]: one deterministic boot of kernel
# $WORK/kernel-KERNEL with the plugin writing $WORK/OUT.txt; the console
# goes to OUT.log.  The command is appended to $WORK/commands.
#
# norandmaps: with user ASLR, each exec and fork lays out the address space
# anew from the guest's random stream, and how many page-table pages a fork
# allocates (and zeroes: clear_page alone is 4,100 counted instructions a
# page) varies with it; any change in the instruction stream, such as
# colouring, then draws different layouts.  Measured on forkloop (kcolour-
# cachesim profile=, tools-probe/cachesim/profile-diff.py): colouring on
# against off was -3.1% instructions per fork with ASLR, from 4,100 fewer
# in clear_page_erms alone, and +0.24% without, of which +0.20% is the
# balanced scan itself.
boot() {
	local out=$1 kdir=$WORK/kernel-$2 plugin status=0
	shift 2
	plugin=$WORK/bin/kcolour-cachesim.so,$(layout_args "$kdir/System.map")${PLUGIN_ARGS:+,$PLUGIN_ARGS},out=$WORK/$out.txt
	rm -f "$WORK/$out.txt"
	echo "CPU=$CPU DETERMINISTIC=1 TIMEOUT=$TIMEOUT QEMU_ARGS=\"-plugin $plugin\"" \
		"selftests/qemu-run.sh $kdir/bzImage $WORK/initramfs.cpio.gz $WORK/$out.log" \
		"nokaslr norandmaps quiet $*" | sed "s|$TOP/||g" >>"$WORK/commands"
	CPU=$CPU DETERMINISTIC=1 TIMEOUT=$TIMEOUT QEMU_ARGS="-plugin $plugin" \
		"$TOP/selftests/qemu-run.sh" "$kdir/bzImage" "$WORK/initramfs.cpio.gz" \
		"$WORK/$out.log" nokaslr norandmaps quiet "$@" >/dev/null 2>"$WORK/$out.err" || status=$?
	[ "$status" = 0 ] || { cat "$WORK/$out.err" >&2; error "boot $out failed (log: $WORK/$out.log)"; }
}
