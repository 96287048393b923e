#!/usr/bin/env bash
# Usage: bench/run-bench.sh   (make bench [QUICK=1])
#
# The cache benchmark of kernel stack colouring.  Builds the kcolour-cachesim
# plugin and the guest workloads (tools-probe/cachesim), gets the kernels
# (scripts/kernel-build.sh), packs one initramfs whose /run.sh runs every
# workload, each in its own marker phase, and boots it once per case under
# deterministic QEMU TCG (selftests/qemu-run.sh DETERMINISTIC=1,
# Skylake-Client: 32K 8-way L1D) with the plugin:
#
#   kcolour-off  qemu-test + kcolour.config, kstack_colour=off
#   kcolour-on   the same image, colouring on (its default)
#   base         the base kernel without the series, qemu-test.config
#   base-rko     the base kernel, randomize_kstack_offset=on
#
# The series' image is qemu-test + kcolour.config, not the test image:
# that one adds KUnit and DEBUG_STACK_USAGE (a stack scan at every exit,
# +6.7% instructions per fork), which the base kernel does not have.
#
# then boots test-on a second time to check that the simulation is
# deterministic.  bench/report.py turns the plugin outputs into
# docs/results/bench.md and its plots; the checks end the run as TAP.
#
# QUICK=1: the smoke test make check runs: ring N in {2,8,16} and smaller
# counts, on the test image (which make check has built anyway) off and
# on, and no base kernel; results in build/bench/quick (docs/ is not
# touched).
#
# Environment: QUICK=1, WORK=DIR (default build/bench/full or build/bench/quick).
# Exit status: 0 when every check passed.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/tap-lib.sh
. "$TOP/scripts/tap-lib.sh"

QUICK=${QUICK:-}
if [ -n "$QUICK" ]; then
	MODE=quick
	RING_NS="2 8 16"
	RING_SWITCHES=1600	# per N; a multiple of every N
	MSG_ARGS="1 10 20"	# messaging GROUPS FDS LOOPS
	FORKS=100
	TIMEOUT=600
	RESULTS=$TOP/build/bench/quick
else
	MODE=full
	RING_NS="2 4 6 8 12 16 24 32 64"
	RING_SWITCHES=19200
	MSG_ARGS="1 10 100"
	FORKS=1000
	TIMEOUT=2400
	RESULTS=$TOP/docs/results
fi
WORK=${WORK:-$TOP/build/bench/$MODE}
CPU=Skylake-Client	# the plugin's default geometry is this model's
REPEAT_CASE=kcolour-on	# booted twice: the determinism check

# NAME KERNEL [KERNEL_ARG...]: the cases, in report order.
if [ "$MODE" = quick ]; then
	CASES=("kcolour-off test kstack_colour=off" "kcolour-on test")
	KCOLOUR_FRAGMENTS="qemu-test.config kcolour.config kcolour-test.config"
else
	CASES=(
		"kcolour-off test kstack_colour=off"
		"kcolour-on test"
		"base base"
		"base-rko base randomize_kstack_offset=on"
	)
	KCOLOUR_FRAGMENTS="qemu-test.config kcolour.config"
fi

say() { echo "[bench] $*"; }
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

# boot INDEX TOTAL OUT CASE: one deterministic boot of a case (a line of
# CASES) with the plugin writing $WORK/OUT.txt; the console goes to OUT.log.
boot() {
	local index=$1 total=$2 out=$3 kernel kdir plugin start=$SECONDS status=0
	local -a kargs
	read -r _ kernel _ <<<"$4"
	read -ra kargs <<<"$4"
	kargs=("${kargs[@]:2}")
	kdir=$WORK/kernel-$kernel
	plugin=$WORK/bin/kcolour-cachesim.so,$(layout_args "$kdir/System.map"),out=$WORK/$out.txt
	rm -f "$WORK/$out.txt"
	echo "CPU=$CPU DETERMINISTIC=1 TIMEOUT=$TIMEOUT QEMU_ARGS=\"-plugin $plugin\"" \
		"selftests/qemu-run.sh $kdir/bzImage $WORK/initramfs.cpio.gz $WORK/$out.log" \
		"nokaslr quiet ${kargs[*]}" | sed "s|$TOP/||g" >>"$WORK/commands"
	CPU=$CPU DETERMINISTIC=1 TIMEOUT=$TIMEOUT QEMU_ARGS="-plugin $plugin" \
		"$TOP/selftests/qemu-run.sh" "$kdir/bzImage" "$WORK/initramfs.cpio.gz" \
		"$WORK/$out.log" nokaslr quiet "${kargs[@]}" >/dev/null 2>"$WORK/$out.err" || status=$?
	[ "$status" = 0 ] || { cat "$WORK/$out.err" >&2; error "boot $out failed (log: $WORK/$out.log)"; }
	say "$index/$total $out: ring N=$(echo "$RING_NS" | tr ' ' ,), messaging, forkloop ($((SECONDS - start))s)"
}

# Versions and commands for the report's header.
write_meta() {
	{
		echo "mode=$MODE"
		echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "qemu=$(qemu-system-x86_64 --version | head -n 1)"
		echo "gcc=$(gcc --version | head -n 1)"
		echo "cpu=$CPU"
		echo "fragments_test=$KCOLOUR_FRAGMENTS"
		echo "fragments_base=qemu-test.config"
		local k
		for k in test $([ "$MODE" = quick ] || echo base); do
			echo "banner_$k=$(strings "$WORK/kernel-$k/vmlinux" | grep -m1 '^Linux version ')"
			echo "build_$k=$(grep -E '\] (cache hit|warning|cache miss)' "$WORK/kernel-$k.log" | head -n 1 | sed 's/^\[kernel-build\] //')"
		done
	} >"$WORK/meta"
}

main() {
	local start=$SECONDS i=0 total entry repeat=""
	[ $# -eq 0 ] || error "usage: make bench [QUICK=1] (no arguments)"
	command -v gnuplot >/dev/null || error "gnuplot not found (apt-get install gnuplot-nox)"
	rm -rf "$WORK"
	mkdir -p "$WORK"
	echo "make bench${QUICK:+ QUICK=1}   # bench/run-bench.sh, which runs:" >"$WORK/commands"
	build_initramfs
	get_kernel test FRAGMENTS="$KCOLOUR_FRAGMENTS"
	[ "$MODE" = quick ] || get_kernel base BASE=1 FRAGMENTS=qemu-test.config
	write_meta

	printf '%s\n' "${CASES[@]}" >"$WORK/cases"
	echo "$REPEAT_CASE" >"$WORK/repeat"
	total=$((${#CASES[@]} + 1))
	for entry in "${CASES[@]}"; do
		i=$((i + 1))
		boot $i $total "${entry%% *}" "$entry"
		[ "${entry%% *}" != "$REPEAT_CASE" ] || repeat=$entry
	done
	boot $total $total "$REPEAT_CASE.repeat" "$repeat"

	mkdir -p "$RESULTS"
	python3 "$TOP/bench/report.py" report "$WORK" "$RESULTS"
	say "report: ${RESULTS#"$TOP"/}/bench.md ($((SECONDS - start))s in all)"
	tap_forward bench <<<"$(python3 "$TOP/bench/report.py" check "$WORK")"
	tap_end
}

main "$@"
