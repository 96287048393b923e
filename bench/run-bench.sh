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
# shellcheck source=bench/bench-lib.sh
. "$TOP/bench/bench-lib.sh"

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
	full_workloads
	RESULTS=$TOP/docs/results
fi
WORK=${WORK:-$TOP/build/bench/$MODE}
CPU=Skylake-Client	# the plugin's default geometry is this model's
REPEAT_CASE=kcolour-on	# booted twice: the determinism check

# NAME KERNEL [KERNEL_ARG...]: the cases, in report order.
if [ "$MODE" = quick ]; then
	CASES=("kcolour-off test kstack_colour=off" "kcolour-on test")
	KCOLOUR_FRAGMENTS="qemu-test.config kcolour.config kcolour-task.config kcolour-test.config"
else
	CASES=(
		"kcolour-off test kstack_colour=off"
		"kcolour-on test"
		"base base"
		"base-rko base randomize_kstack_offset=on"
	)
	KCOLOUR_FRAGMENTS="qemu-test.config kcolour.config kcolour-task.config"
fi

# bench_boot INDEX TOTAL OUT CASE: boot() one case (a line of CASES).
bench_boot() {
	local index=$1 total=$2 out=$3 kernel start=$SECONDS
	local -a kargs
	read -ra kargs <<<"$4"
	kernel=${kargs[1]}
	boot "$out" "$kernel" "${kargs[@]:2}"
	say "$index/$total $out: ring N=$(echo "$RING_NS" | tr ' ' ,), messaging, forkloop ($((SECONDS - start))s)"
}

# Versions and commands for the report's header.
write_meta() {
	{
		meta_common
		echo "fragments_test=$KCOLOUR_FRAGMENTS"
		echo "fragments_base=qemu-test.config"
		local k
		for k in test $([ "$MODE" = quick ] || echo base); do
			kernel_meta "$k"
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
		bench_boot $i $total "${entry%% *}" "$entry"
		[ "${entry%% *}" != "$REPEAT_CASE" ] || repeat=$entry
	done
	bench_boot $total $total "$REPEAT_CASE.repeat" "$repeat"

	mkdir -p "$RESULTS"
	python3 "$TOP/bench/report.py" report "$WORK" "$RESULTS"
	say "report: ${RESULTS#"$TOP"/}/bench.md ($((SECONDS - start))s in all)"
	tap_forward bench <<<"$(python3 "$TOP/bench/report.py" check "$WORK")"
	tap_end
}

main "$@"
