#!/usr/bin/env bash
# make perf-ab on this machine, as make check runs it.  On a VM without
# hardware counters the tool must say so and exit 0; the measurement it
# could not make is a skip, not a pass.  Where the counters exist, it must
# produce its results.  TAP output.
set -uo pipefail
cd "$(dirname "$0")/../.."
. harness/tap.sh
log=build/perf-ab-here.log
mkdir -p build
python3 bench/perfab.py >"$log" 2>&1
rc=$?
if grep -q 'no numbers produced' "$log"; then
	tap "$rc" "make perf-ab without hardware counters: it says so and exits 0 (exit $rc)"
	tap_skip "perf-ab: colouring off against on, measured" "no hardware counters here: $(head -n 1 "$log")"
elif grep -q 'not running a kcolour kernel\|switching colouring needs root' "$log"; then
	tap 0 "make perf-ab on a machine it cannot measure says why: $(grep -m1 error "$log")"
	tap_skip "perf-ab: colouring off against on, measured" "$(grep -m1 error "$log")"
else
	tap "$rc" "make perf-ab with hardware counters: exits 0 (exit $rc)"
	[ -s build/perf-ab/results.md ]
	tap $? "perf-ab: colouring off against on, measured (build/perf-ab/results.md)"
fi
tap_end
