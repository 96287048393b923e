# Suite runner for make check: source it, do not run it.
#
# suite NAME CMD...  runs CMD, keeps its output in $LOGDIR/NAME.tap and
# counts its TAP lines.  A suite that exits non-zero without a "not ok"
# line (a crash, a missing tool) counts as one failure of its own, so
# nothing can fail silently.  summary prints a table and the closing line
# "N passed, N failed" and returns non-zero on any failure.

LOGDIR=${LOGDIR:-build/test-logs}
mkdir -p "$LOGDIR"
SUITES=()
TOTAL_PASS=0
TOTAL_FAIL=0

suite() {
	local name=$1 log="$LOGDIR/$1.tap" rc=0 pass fail start secs
	shift
	start=$(date +%s)
	echo "== $name: $*"
	# Progress lines ("[step] ...") of long suites show as they come.
	"$@" 2>&1 | tee "$log" | grep --line-buffered -E '^\[[a-z-]+\] ' | sed 's/^/   /'
	rc=${PIPESTATUS[0]}
	pass=$(grep -c '^ok ' "$log" || true)
	fail=$(grep -c '^not ok ' "$log" || true)
	if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
		fail=1
		echo "not ok - $name exited with status $rc" >>"$log"
	fi
	if [ "$rc" -eq 0 ] && [ "$pass" -eq 0 ]; then
		fail=$((fail + 1))
		echo "not ok - $name ran no test" >>"$log"
	fi
	secs=$(($(date +%s) - start))
	grep -E '^(not ok|# )' "$log" | grep -v '^# ok' | head -40 || true
	echo "   $name: $pass passed, $fail failed (${secs}s, log $log)"
	SUITES+=("$(printf '%-22s %5d %5d %6ss' "$name" "$pass" "$fail" "$secs")")
	TOTAL_PASS=$((TOTAL_PASS + pass))
	TOTAL_FAIL=$((TOTAL_FAIL + fail))
}

summary() {
	local s
	echo
	printf '%-22s %5s %5s %7s\n' suite pass fail time
	for s in "${SUITES[@]}"; do echo "$s"; done
	echo
	echo "$TOTAL_PASS passed, $TOTAL_FAIL failed"
	[ "$TOTAL_FAIL" -eq 0 ]
}
