#!/usr/bin/env bash
# make perf-ab on this machine, as make check runs it: it must end with its
# results or with the exit status of the reason it cannot (perfab.py's
# docstring), saying why.  The measurement it could not make is a skip, not
# a pass.  TAP output.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. harness/tap.sh
log=build/perf-ab-here.log
mkdir -p build
python3 -m bench run perf-ab --repeats 3 >"$log" 2>&1
rc=$?
why=$(grep -m1 'perf-ab: error' "$log")
case $rc in
0)
	[ -s build/perf-ab/results.md ]
	tap $? "make perf-ab here: colouring off against on, measured (build/perf-ab/results.md)"
	;;
3 | 4 | 5 | 6)
	tap 0 "make perf-ab on a machine it cannot measure says why, exit $rc: $why"
	tap_skip "perf-ab: colouring off against on, measured" "$why"
	;;
*)
	tap 1 "make perf-ab here: exit $rc: $(tail -n 3 "$log" | tr '\n' ' ')"
	;;
esac
tap_end
