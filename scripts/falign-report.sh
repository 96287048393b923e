#!/usr/bin/env bash
# Usage: scripts/falign-report.sh      (make falign-report)
#
# Builds the kernel once per function alignment choice (tinyconfig +
# qemu-test.config + Kconfig-fragments/falign-*.config; images cached like
# every other, object dirs build/obj/falign-*), runs tools-probe's
# falign-report on each vmlinux and writes the comparison table, with the
# minimal-lines figures beside it, to docs/results/falign.md (OUT=file
# writes elsewhere).  A progress line per build.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
OUT=${OUT:-$ROOT/docs/results/falign.md}
WORK=$BUILD/falign-report
CHOICES=(default 32b 64b 64b-packed)
REPORT=$ROOT/tools-probe/falign-report

say() { echo "[falign-report] $*"; }

make -s -C "$ROOT/tools-probe" falign-report
mkdir -p "$WORK" "$(dirname "$OUT")"
for c in "${CHOICES[@]}"; do
	say "kernel: falign-$c (log: $WORK/kernel-$c.log)"
	NAME=falign-$c FRAGMENTS="qemu-test.config falign-$c.config" \
		bash "$ROOT/scripts/kernel-build.sh" >"$WORK/kernel-$c.log" 2>&1 ||
		{ tail -n 20 "$WORK/kernel-$c.log" >&2; exit 1; }
	dir=$(sed -n 's/^\[kernel-build\] kernel: //p' "$WORK/kernel-$c.log" | tail -n 1)
	"$REPORT" --json "$(dirname "$dir")/vmlinux" >"$WORK/$c.json"
	grep -E '^CONFIG_(FUNCTION_ALIGNMENT|CC_VERSION_TEXT)=' "$(dirname "$dir")/config" \
		>"$WORK/$c.config"
done
say "writing $OUT"
python3 "$ROOT/scripts/falign-table.py" "$WORK" "${CHOICES[@]}" >"$OUT"
cat "$OUT"
