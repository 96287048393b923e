#!/usr/bin/env bash
# Usage: selftests/run-selftests.sh [MODEL ...]     (make selftests [MODELS="..."])
#
# Runs the kernel's own tests of kstack colouring under QEMU TCG: boots the
# one test image (every feature built in) with an initramfs holding
# busybox, the kstack_colour kselftest built static and the static
# kcolour-probe, once per CPU model (default: a leaf-4 model, a
# 0x80000005/6 model and the no-information model).  The KUnit suite runs
# at boot; the kselftest runs from /run.sh.  Each boot's results are
# parsed from the console into build/selftests/MODEL.tap; a progress line
# per boot, then a summary table.  TAP for make check on stdout; exit 1 on
# any failure.  APPEND="args" adds kernel arguments to every boot;
# ALLOW_SKIP=1 lets the kselftest skip (for boots with colouring off).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
OUT=$BUILD/selftests
TREE=$BUILD/linux
DEFAULT_MODELS=("Skylake-Client" "EPYC" "qemu64,level=1,xlevel=0x80000004")
[ $# -gt 0 ] && MODELS=("$@") || read -r -a MODELS <<<"${MODELS:-${DEFAULT_MODELS[*]}}"
. "$ROOT/scripts/tap-lib.sh"

say() { echo "[selftests] $*"; }
bail() { echo "Bail out! $*"; exit 1; }

mkdir -p "$OUT"
say "kernel: the test image (progress in $OUT/kernel.log)"
bash "$ROOT/scripts/kernel-build.sh" >"$OUT/kernel.log" 2>&1 || bail "kernel build failed (see $OUT/kernel.log)"
kernel=$(sed -n 's/^\[kernel-build\] kernel: //p' "$OUT/kernel.log" | tail -n 1)

# The kselftest sources live in the patched tree; an image cache hit does
# not need the tree, so lay it when it is missing.
if [ ! -d "$TREE/tools/testing/selftests/kstack_colour" ]; then
	say "tree: base + series (for the kselftest sources)"
	bash "$ROOT/scripts/kernel-tree.sh" >"$OUT/tree.log" 2>&1 || bail "make tree failed (see $OUT/tree.log)"
fi
say "kselftest kstack_colour, static"
mkdir -p "$OUT/bin"
make -s -C "$TREE/tools/testing/selftests/kstack_colour" OUTPUT="$OUT/bin" LDFLAGS=-static \
	>"$OUT/ksft-build.log" 2>&1 || bail "building the kselftest failed (see $OUT/ksft-build.log)"
make -s -C "$ROOT/tools-probe" guest OUT="$OUT/bin" || bail "building the guest probe failed"

cat >"$OUT/run.sh" <<'EOF'
# Guest side of selftests/run-selftests.sh.
echo "KSFT-BEGIN"
/bin/kstack_colour_test
echo "KSFT-END rc=$?"
/bin/kcolour-probe --no-sysfs >/dev/null
echo "PROBE rc=$?"
EOF
bash "$ROOT/selftests/mkinitramfs.sh" "$OUT/initramfs.cpio.gz" "$OUT/run.sh:/run.sh" \
	"$OUT/bin/kstack_colour_test:/bin/kstack_colour_test" \
	"$OUT/bin/kcolour-probe:/bin/kcolour-probe" >/dev/null || bail "building the initramfs failed"

summary=()
for model in "${MODELS[@]}"; do
	name=${model//[^A-Za-z0-9_.-]/_}
	log=$OUT/$name.log
	start=$(date +%s)
	CPU=$model SMP=2 TIMEOUT=${TIMEOUT:-240} bash "$ROOT/selftests/qemu-run.sh" "$kernel" \
		"$OUT/initramfs.cpio.gz" "$log" ${APPEND:-} >/dev/null 2>&1
	rc=$?
	python3 "$ROOT/selftests/parse-results.py" "$log" ${ALLOW_SKIP:+--allow-skip} >"$OUT/$name.tap"
	say "$model: boot exit $rc, $(grep -c '^ok' "$OUT/$name.tap") passed," \
		"$(grep -c '^not ok' "$OUT/$name.tap") failed ($(($(date +%s) - start))s)"
	tap "$rc" "$model: boots and runs the tests to the end"
	tap_forward "$model" <"$OUT/$name.tap"
	summary+=("$(printf '%-34s %6d %6d' "$model" "$(grep -c '^ok' "$OUT/$name.tap")" \
		"$(grep -c '^not ok' "$OUT/$name.tap")")")
done

echo "# $(printf '%-34s %6s %6s' model passed failed)"
for s in "${summary[@]}"; do echo "# $s"; done
tap_end
