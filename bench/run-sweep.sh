#!/usr/bin/env bash
# Usage: bench/run-sweep.sh   (make bench-sweep [QUICK=1])
#
# The parameter sweep of kernel stack colouring under the cache simulator
# (bench/run-bench.sh has the plugin, the workloads and the boot): one
# deterministic boot per case, every workload in each boot, two boots at a
# time (JOBS).  Every boot simulates, beside the model's own caches (L1D
# 32K 8-way, L2 4M 16-way), the other L1D and L2 geometries of
# $L1D_EXTRA / $L2_EXTRA on the same accesses.
#
#   1. grid    colouring off, a noise control (off again, only the memory
#              layout moved), then max_offset x step, balanced, level 1
#              (step <= max_offset; the colour count is then
#              min(way / step, max_offset / step + 1))
#   2. choose  bench/sweep.py picks step and max_offset from the grid by
#              the rule in its header (the 32K 8-way targets of issue 8)
#   3. around the choice: every other policy, level 2, task_struct
#              colouring, randomize_kstack_offset (alone and with the
#              choice), the choice with the shift the kernel derives
#              for the 32K 16-way (11) and 64K 2-way (15) L1Ds
#   4. falign  the four function alignment kernels of make falign-report
#              (qemu-test.config + falign-*.config, colouring not built in):
#              L1I misses per switch (FALIGN=0 skips them)
#
# bench/sweep.py then writes docs/results/sweep.md and its plots.
#
# QUICK=1 (make check's smoke run): the test image, ring N in {4,8},
# two grid points, the choice, rr, task_struct colouring and the 32K
# 16-way shift, no falign; results in build/bench/sweep-quick (docs/ is
# not touched).  It checks that the machinery works, not the numbers.
#
# Environment: QUICK=1, JOBS=2, FALIGN=0, WORK=DIR.
# Exit status: 0 when every boot completed and every check passed.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
BENCH_PROG=bench-sweep
# shellcheck source=scripts/tap-lib.sh
. "$TOP/scripts/tap-lib.sh"
# shellcheck source=bench/bench-lib.sh
. "$TOP/bench/bench-lib.sh"

QUICK=${QUICK:-}
JOBS=${JOBS:-2}
CPU=Skylake-Client
L1D_EXTRA=48K:12/32K:16/64K:2
L2_EXTRA=256K:4/512K:8/1M:16/2M:16
PLUGIN_ARGS="l1d_extra=$L1D_EXTRA,l2_extra=$L2_EXTRA"
if [ -n "$QUICK" ]; then
	MODE=quick
	RING_NS="4 8"
	RING_SWITCHES=1600
	MSG_ARGS="1 10 20"
	FORKS=100
	TIMEOUT=900
	MAX_OFFSETS="1024"
	STEPS="64 1024"
	FALIGN=0
	RESULTS=$TOP/build/bench/sweep-quick/results
	# The test image: make check has built it anyway.
	FRAGMENTS_SWEEP="qemu-test.config kcolour.config kcolour-task.config kcolour-test.config"
else
	MODE=full
	full_workloads
	MAX_OFFSETS="256 512 1024 2048 4096"
	STEPS="64 128 256 512 1024"
	FALIGN=${FALIGN:-1}
	RESULTS=$TOP/docs/results
	# Both colourings built in, both off unless the command line says so.
	FRAGMENTS_SWEEP="qemu-test.config kcolour.config kcolour-task.config"
fi
WORK=${WORK:-$TOP/build/bench/sweep-$MODE}
FALIGN_CHOICES="default 32b 64b 64b-packed"

# run_cases STAGE FILE: boot every case of FILE (lines NAME KERNEL
# [KERNEL_ARG...]), $JOBS at a time, and append them to $WORK/cases.
run_cases() {
	local stage=$1 file=$2 total i=0 name kernel rest failed=() start=$SECONDS
	local -a args
	total=$(wc -l <"$file")
	cat "$file" >>"$WORK/cases"
	while read -r name kernel rest; do
		read -ra args <<<"$rest"
		while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
		i=$((i + 1))
		say "$stage $i/$total: $name ${args[*]:-} ($((SECONDS - start))s)"
		rm -f "$WORK/$name.ok"
		(boot "$name" "$kernel" "${args[@]}" && : >"$WORK/$name.ok") &
	done <"$file"
	wait
	while read -r name _; do
		[ -e "$WORK/$name.ok" ] || failed+=("$name")
	done <"$file"
	[ ${#failed[@]} = 0 ] || error "$stage: boot failed: ${failed[*]} (logs in $WORK)"
	say "$stage: $total boots in $((SECONDS - start))s"
}

colour_args() { echo "kstack_colour=on,step=$1,max_offset=$2,policy=${3:-balanced},level=${4:-1}"; }

grid_cases() {
	local m s
	echo "off sweep kstack_colour=off"
	# The noise control: task=on is inert with colouring off (no room is
	# made), so this is off again with a longer command line, which moves
	# early boot allocations and with them where everything lands.
	echo "off-control sweep kstack_colour=off,task=on"
	for m in $MAX_OFFSETS; do
		for s in $STEPS; do
			[ "$s" -le "$m" ] || continue
			echo "m$m-s$s sweep $(colour_args "$s" "$m")"
		done
	done
}

# around_cases STEP MAX_OFFSET: the stage-3 cases around the choice.
around_cases() {
	local s=$1 m=$2 p
	local c
	c=$(colour_args "$s" "$m")
	if [ "$MODE" = quick ]; then
		echo "chosen-rr sweep $(colour_args "$s" "$m" rr)"
		echo "chosen+task sweep $c,task=on"
		echo "chosen-shift11 sweep $c,shift=11"
		return
	fi
	for p in addr mod rr; do echo "chosen-$p sweep $(colour_args "$s" "$m" $p)"; done
	for p in balanced addr mod; do echo "chosen-l2-$p sweep $(colour_args "$s" "$m" $p 2)"; done
	echo "chosen+task sweep $c,task=on"
	echo "rko sweep kstack_colour=off randomize_kstack_offset=on"
	echo "chosen+rko sweep $c randomize_kstack_offset=on"
	echo "chosen-shift11 sweep $c,shift=11"
	echo "chosen-shift15 sweep $c,shift=15"
}

write_meta() {
	{
		meta_common
		echo "fragments_sweep=$FRAGMENTS_SWEEP"
		echo "l1d_extra=$L1D_EXTRA"
		echo "l2_extra=$L2_EXTRA"
		echo "max_offsets=$MAX_OFFSETS"
		echo "steps=$STEPS"
		echo "falign=$([ "$FALIGN" = 1 ] && echo "$FALIGN_CHOICES")"
		kernel_meta sweep
		if [ "$FALIGN" = 1 ]; then
			local c
			for c in $FALIGN_CHOICES; do kernel_meta "falign-$c"; done
		fi
	} >"$WORK/meta"
}

# The falign-report figures (text size, lines touched) of each alignment kernel.
falign_figures() {
	local c
	make -s -C "$TOP/tools-probe" falign-report
	for c in $FALIGN_CHOICES; do
		"$TOP/tools-probe/falign-report" --json "$WORK/kernel-falign-$c/vmlinux" \
			>"$WORK/falign-$c.json" || error "falign-report failed on falign-$c"
	done
}

main() {
	local start=$SECONDS c choice step max_offset
	[ $# -eq 0 ] || error "usage: make bench-sweep [QUICK=1] (no arguments)"
	command -v gnuplot >/dev/null || error "gnuplot not found (apt-get install gnuplot-nox)"
	rm -rf "$WORK"
	mkdir -p "$WORK"
	echo "make bench-sweep${QUICK:+ QUICK=1}   # bench/run-sweep.sh, which runs:" >"$WORK/commands"
	: >"$WORK/cases"
	build_initramfs
	get_kernel sweep FRAGMENTS="$FRAGMENTS_SWEEP"
	if [ "$FALIGN" = 1 ]; then
		for c in $FALIGN_CHOICES; do
			get_kernel "falign-$c" NAME="falign-$c" FRAGMENTS="qemu-test.config falign-$c.config"
		done
		falign_figures
	fi
	write_meta

	grid_cases >"$WORK/cases-grid"
	run_cases grid "$WORK/cases-grid"

	choice=$(python3 "$TOP/bench/sweep.py" choose "$WORK") || error "sweep.py choose failed"
	echo "$choice" >"$WORK/choice"
	read -r step max_offset _ <<<"$choice"
	say "choice: step $step B, max_offset $max_offset B ($(cut -d' ' -f3- <<<"$choice"))"

	around_cases "$step" "$max_offset" >"$WORK/cases-around"
	run_cases around "$WORK/cases-around"

	if [ "$FALIGN" = 1 ]; then
		for c in $FALIGN_CHOICES; do echo "falign-$c falign-$c"; done >"$WORK/cases-falign"
		run_cases falign "$WORK/cases-falign"
	fi

	mkdir -p "$RESULTS"
	python3 "$TOP/bench/sweep.py" report "$WORK" "$RESULTS"
	say "report: ${RESULTS#"$TOP"/}/sweep.md ($((SECONDS - start))s in all)"
	tap_forward bench-sweep <<<"$(python3 "$TOP/bench/sweep.py" check "$WORK")"
	tap_end
}

main "$@"
