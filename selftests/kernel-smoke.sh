#!/usr/bin/env bash
# Usage: selftests/kernel-smoke.sh       (make kernel-smoke)
#
# Builds (or takes from the image cache) the qemu-test kernel of the
# current tree (base + kernel-patches/series, which may be empty), boots
# it under each CPU model in SMOKE_CPUS (default: Skylake-Client EPYC) and
# prints `uname -r` and cpu0's cache geometry from sysfs.  Fails when a
# boot fails or the guest shows no cache information.  Logs go to
# build/smoke/.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
OUT=$BUILD/smoke
SMOKE_CPUS=${SMOKE_CPUS:-Skylake-Client EPYC}

error() { echo "error: $*" >&2; exit 1; }

write_run_sh() {
	cat >"$OUT/run.sh" <<'EOF'
# kernel-smoke guest script (selftests/kernel-smoke.sh)
echo "smoke: uname -r: $(uname -r)"
echo "smoke: cpus online: $(cat /sys/devices/system/cpu/online)"
n=0
for d in /sys/devices/system/cpu/cpu0/cache/index*; do
	[ -d "$d" ] || continue
	line="smoke: $(basename "$d"):"
	for f in level type size ways_of_associativity coherency_line_size number_of_sets; do
		line="$line $f=$(cat "$d/$f" 2>/dev/null || echo '?')"
	done
	echo "$line"
	n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "smoke: no cache information in sysfs"; exit 1; }
EOF
}

main() {
	local cpu failed=()
	[ $# -eq 0 ] || error "usage: make kernel-smoke (no arguments; SMOKE_CPUS=\"...\" picks the models)"
	FRAGMENTS=qemu-test.config NAME=qemu-test bash "$ROOT/scripts/kernel-build.sh"
	mkdir -p "$OUT"
	write_run_sh
	bash "$ROOT/selftests/mkinitramfs.sh" "$OUT/initramfs.cpio.gz" "$OUT/run.sh:/run.sh"
	for cpu in $SMOKE_CPUS; do
		echo "=== kernel-smoke: -cpu $cpu"
		CPU=$cpu bash "$ROOT/selftests/qemu-run.sh" "$BUILD/kernel/qemu-test/bzImage" \
			"$OUT/initramfs.cpio.gz" "$OUT/${cpu%%,*}.log" >/dev/null || failed+=("$cpu")
		sed -n 's/^smoke: /  /p' "$OUT/${cpu%%,*}.log"
	done
	[ ${#failed[@]} -eq 0 ] || error "kernel-smoke failed under: ${failed[*]} (logs in $OUT/)"
	echo "kernel-smoke: passed (${SMOKE_CPUS// /, })"
}

main "$@"
