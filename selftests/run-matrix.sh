#!/usr/bin/env bash
# Usage: selftests/run-matrix.sh      (make check-full)
#
# The wide matrix of the kernel's own tests (KUnit + the kstack_colour
# kselftest, see run-selftests.sh): every CPU model of qemu-models.tsv
# plus Cascadelake-Server, then one boot per boot-parameter case on
# Skylake-Client.  TAP on stdout, a progress line per case.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/tap-lib.sh"


# run_case NAME MODEL APPEND [ALLOW_SKIP]
run_case() {
	local name=$1 model=$2 append=$3 allow=${4:-} out
	echo "[matrix] $name"
	out=$(MODELS=$model APPEND=$append ALLOW_SKIP=$allow bash "$ROOT/selftests/run-selftests.sh" 2>&1)
	tap_forward "$name" <<<"$(grep -E '^(ok|not ok|Bail out!) ' <<<"$out")"
}

while IFS= read -r model; do
	[ -n "$model" ] && run_case "$model" "$model" ""
done < <(grep -v '^#' "$ROOT/selftests/qemu-models.tsv" | cut -f1; echo Cascadelake-Server)

run_case "kstack_colour=off" Skylake-Client "kstack_colour=off" 1
run_case "manual shift=14,colours=9" Skylake-Client "kstack_colour=shift=14,colours=9"
for policy in addr mod rr balanced; do
	run_case "policy=$policy" Skylake-Client "kstack_colour=policy=$policy"
done
run_case "wide step=256" Skylake-Client "kstack_colour=step=256"
run_case "max_offset=2048" Skylake-Client "kstack_colour=max_offset=2048"
run_case "level=2" Skylake-Client "kstack_colour=level=2,policy=mod"
run_case "bad tokens" Skylake-Client \
	"kstack_colour=banana,policy=rr,colours=0,max_offset=2048,colours=99999,shift=63,policy=,step=100"

tap_end
