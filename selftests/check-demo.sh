#!/usr/bin/env bash
# make check's QEMU part of the kernel series: `make demo` on every CPU
# model of selftests/qemu-models.tsv (64 tasks, balanced histogram), then
# boots with colouring off and with bad kstack_colour= tokens.  Each
# boot's checks become TAP lines prefixed with the case.  Progress lines
# go out as "[demo-matrix] ...".
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
MODELS=${MODELS:-$(grep -v '^#' "$ROOT/selftests/qemu-models.tsv" | cut -f1)}
. "$ROOT/scripts/tap-lib.sh"

# run_case NAME [ENV=VALUE ...]: one demo boot; its TAP lines, renumbered.
# The balanced histogram is even only if no other task forked during the
# demo's forks (the kernel's own workers may), so a boot that fails on that
# alone is booted once more.
run_case() {
	local name=$1 out rc
	shift
	echo "[demo-matrix] $name"
	out=$(env "$@" bash "$ROOT/selftests/demo.sh" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && [ "$(grep '^not ok' <<<"$out" | grep -vc 'balanced: max - min')" -eq 0 ]; then
		echo "# $name: only the balanced spread failed; booting once more"
		grep '^not ok' <<<"$out" | sed 's/^/# first boot: /'
		out=$(env "$@" bash "$ROOT/selftests/demo.sh" 2>&1)
		rc=$?
	fi
	tap_forward "$name" <<<"$(grep -E '^(ok|not ok) ' <<<"$out")"
	[ $rc -eq 0 ] || { echo "$out" | tail -n 15 | sed 's/^/# /'; tap 1 "$name: make demo exited $rc"; }
}

while IFS= read -r model; do
	[ -n "$model" ] && run_case "$model" CPU="$model" N=64
done <<<"$MODELS"

run_case "kstack_colour=off" CPU=Skylake-Client N=16 APPEND="kstack_colour=off"

bad="kstack_colour=banana,policy=rr,colours=0,max_offset=2048,colours=99999,shift=63,policy=,step=100"
run_case "bad tokens" CPU=Skylake-Client N=16 APPEND="$bad"
log=$BUILD/demo/Skylake-Client.log
for tok in banana colours=0 colours=99999 shift=63 policy= step=100; do
	[ "$(grep -c "kstack_colour: ignoring '$tok' in kstack_colour=" "$log")" -ge 1 ]
	tap $? "bad tokens: one warning names '$tok'"
done
[ "$(grep -v '^D ' "$log" | grep -c "kstack_colour: ignoring")" -eq 6 ]
tap $? "bad tokens: exactly six warnings, no more"
grep -q 'shift 12: 3 colours x 1024 B, max 2048 B, policy rr (command line)' "$log"
tap $? "bad tokens: the valid ones around them apply (policy rr, max_offset=2048: 3 colours of the default 1 KiB step)"

tap_end
