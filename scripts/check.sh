#!/usr/bin/env bash
# make check: every test, as suites of TAP; ends with "N passed, N failed".
# FULL=1 (make check-full) runs the heavy variants: longer fuzzing, and
# the selftests on every model and boot-parameter case.
# Kernel images are cached outside the clone (KCOLOUR_CACHE), keyed by the
# series and the fragments, so a second run only boots.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/tap-suite.sh

FIXTURES=${FIXTURES:-../shared/fixtures/cpuid}
FUZZ_SECONDS=${FUZZ_SECONDS:-$([ -n "${FULL:-}" ] && echo 600 || echo 60)}
T=tools-probe/tests
CFLAGS_TEST="-O2 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-missing-field-initializers -Itools-probe/include -Itools-probe"

[ -d "$FIXTURES" ] || { echo "error: no fixtures at $FIXTURES (../shared beside the clone?)" >&2; exit 2; }

# single DESCRIPTION CMD...: one TAP line for a command's exit status.
single() {
	local what=$1
	shift
	if "$@"; then echo "ok 1 - $what"; else echo "not ok 1 - $what"; fi
	echo "1..1"
}

build() {
	make -s -C tools-probe &&
	cc $CFLAGS_TEST -o $T/test-geom $T/test-geom.c tools-probe/lib/kcolour_geom.c &&
	cc $CFLAGS_TEST -o $T/test-dump $T/test-dump.c tools-probe/cpuid_dump.c &&
	echo "ok 1 - probe and unit tests build with -Werror"
}

suite build build
suite geom-unit $T/test-geom
suite dump-unit env FIXTURES="$FIXTURES" $T/test-dump
suite probe-cli bash $T/test-cli.sh tools-probe/kcolour-probe "$FIXTURES"
suite fixtures python3 $T/check-fixtures.py tools-probe/kcolour-probe
suite cpuid-tool python3 $T/check-cpuid-tool.py tools-probe/kcolour-probe
suite leaf2-table python3 $T/check-leaf2-table.py tools-probe/kcolour-probe
suite shared-style bash scripts/check-shared-style.sh
suite fuzz bash $T/fuzz.sh "$FIXTURES" build/fuzz "$FUZZ_SECONDS"
suite falign-report single "falign-report builds with -Werror" make -s -C tools-probe falign-report
suite falign-unit bash $T/test-falign.sh tools-probe/falign-report
suite cachesim-unit make -s -C tools-probe/cachesim check OUT="$PWD/build/cachesim"

# The kernel series: applies, checkpatch, the shared decoder; then the
# feature-off image boots, the test image runs the demo on every model, and
# the selftest matrix runs (selftests/cases.tsv: make check's cases, or all).
suite series bash scripts/check-series.sh
suite falign-check bash scripts/check-falign.sh
suite kernel-off single "series applied, colouring not built: builds and boots (Skylake-Client, EPYC)" \
	bash selftests/kernel-smoke.sh
suite kernel-test single "the test image (every feature built in) builds" bash scripts/kernel-build.sh
suite demo-matrix bash selftests/check-demo.sh
suite selftests bash selftests/run-selftests.sh "$([ -n "${FULL:-}" ] && echo full || echo check)"
# The cache simulator bench and the sweep, reduced (make bench and make
# bench-sweep run them whole); perf-ab's parsing and statistics on canned
# perf stat output, and its run here (no counters on a VM: it says so).
suite bench-quick env QUICK=1 bash bench/run-bench.sh
suite bench-sweep-quick env QUICK=1 bash bench/run-sweep.sh
suite perf-ab-unit python3 bench/tests/test-perfab.py
suite perf-ab-here single "make perf-ab on this VM: no hardware counters, it says so and exits 0" \
	sh -c 'mkdir -p build && bash bench/perf-ab.sh >build/perf-ab-here.log 2>&1 &&
		grep -q "no numbers produced" build/perf-ab-here.log'

summary
