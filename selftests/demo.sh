#!/usr/bin/env bash
# Usage: selftests/demo.sh        (make demo [CPU=model] [N=tasks] [APPEND="kernel args"])
#
# The main job: builds the kcolour test kernel (or takes it from the image
# cache) and a busybox initramfs with the static kcolour-probe and
# kcolour-demo, boots it under QEMU TCG (-smp 2) on CPU (default
# Skylake-Client), and prints the kernel's boot line, the geometry it
# found next to the probe's decode and sysfs in the guest and QEMU's true
# geometry, and the colour histogram of N (default 64) forked tasks.
# Exits non-zero, saying which step, when anything fails or disagrees.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
OUT=$BUILD/demo
CPU=${CPU:-Skylake-Client}
N=${N:-64}
APPEND=${APPEND:-}
# The one test image: every feature built in, selected at boot.
FRAGMENTS=${FRAGMENTS:-qemu-test.config kcolour.config kcolour-task.config kcolour-test.config}

step() { echo "[demo] $*"; }
fail() { echo "error: demo: $*" >&2; exit 1; }

[[ $N =~ ^[0-9]+$ ]] && [ "$N" -ge 1 ] && [ "$N" -le 4096 ] || fail "N=$N: want a task count from 1 to 4096"
mkdir -p "$OUT"

step "kernel: $FRAGMENTS (progress in $OUT/kernel.log)"
FRAGMENTS=$FRAGMENTS bash "$ROOT/scripts/kernel-build.sh" >"$OUT/kernel.log" 2>&1 ||
	{ tail -n 20 "$OUT/kernel.log" >&2; fail "kernel build failed (log: $OUT/kernel.log)"; }
grep -E '^\[kernel-build\] (cache hit|built in|kernel:)' "$OUT/kernel.log" | sed 's/^/  /' || true
kernel=$(sed -n 's/^\[kernel-build\] kernel: //p' "$OUT/kernel.log" | tail -n 1)
[ -f "$kernel" ] || fail "the kernel build named no bzImage (log: $OUT/kernel.log)"

step "guest tools: static kcolour-probe and kcolour-demo"
make -s -C "$ROOT/tools-probe" guest OUT="$OUT/bin" || fail "building the guest tools failed"
bash "$ROOT/selftests/mkinitramfs.sh" "$OUT/initramfs.cpio.gz" \
	"$OUT/bin/kcolour-probe:/bin/kcolour-probe" "$OUT/bin/kcolour-demo:/bin/kcolour-demo" \
	"$ROOT/selftests/demo-guest.sh:/run.sh" >/dev/null || fail "building the initramfs failed"

log=$OUT/${CPU//[^A-Za-z0-9_.-]/_}.log
step "boot: -cpu $CPU -smp 2, $N tasks${APPEND:+, $APPEND} (console: $log)"
CPU=$CPU SMP=2 TIMEOUT=${TIMEOUT:-180} bash "$ROOT/selftests/qemu-run.sh" \
	"$kernel" "$OUT/initramfs.cpio.gz" "$log" \
	"kcolour_demo_tasks=$N" $APPEND >/dev/null || fail "the QEMU boot failed (see $log)"

echo
python3 "$ROOT/selftests/demo-report.py" "$log" "$CPU" "$N" || fail "the guest disagrees with what was expected (above)"
