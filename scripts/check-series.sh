#!/usr/bin/env bash
# The kernel series as a maintainer would take it: every patch in
# kernel-patches/series applies to the base in order, is clean under
# checkpatch.pl --strict, carries a Signed-off-by of the project identity,
# and the decoder it adds is byte for byte the one tools-probe builds.
# TAP output.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/kernel-lib.sh
CP=$KCOLOUR_CACHE/checkpatch
SHARED_FILES=(
	"arch/x86/include/asm/kcolour_geom.h tools-probe/include/asm/kcolour_geom.h"
	"arch/x86/kernel/cpu/kcolour_geom.c tools-probe/lib/kcolour_geom.c"
)
. scripts/tap-lib.sh

mapfile -t patches < <(series_patches)
[ ${#patches[@]} -gt 0 ] || { echo "Bail out! kernel-patches/series lists no patch"; exit 1; }
bash scripts/check-shared-style.sh >/dev/null 2>&1 # unpacks checkpatch into the cache

# 1. The series applies: a fresh base + series in a scratch tree (seconds,
#    from the cached base repository).
scratch=$BUILD/series-check
rm -rf "$scratch"
if BUILD=$scratch FORCE=1 bash scripts/kernel-tree.sh >"$BUILD/series-check.log" 2>&1; then
	tap 0 "the ${#patches[@]} patches apply in order to the base"
else
	tail -n 5 "$BUILD/series-check.log" | sed 's/^/# /'
	tap 1 "the ${#patches[@]} patches apply in order to the base"
fi

# 2. Each patch: checkpatch --strict clean, signed off by the project.
for p in "${patches[@]}"; do
	out=$(cd "$CP" && ./scripts/checkpatch.pl --strict --no-tree -q "$OLDPWD/kernel-patches/$p" 2>&1 |
		grep -v 'spdxcheck\|ply import\|ModuleNotFoundError\|from ply\|Traceback\|^  File')
	[ -z "$out" ] || echo "$out" | sed 's/^/# /'
	tap "$([ -z "$out" ]; echo $?)" "checkpatch --strict: $p"
	grep -q '^Signed-off-by: kcolour project <kcolour@example.org>$' "kernel-patches/$p"
	tap $? "Signed-off-by kcolour project: $p"
done

# 3. The decoder in the patched tree is tools-probe's, byte for byte.
for pair in "${SHARED_FILES[@]}"; do
	set -- $pair
	if [ -f "$scratch/linux/$1" ] && cmp -s "$scratch/linux/$1" "$2"; then
		tap 0 "$1 in the patched tree is $2, byte for byte"
	else
		diff -u "$2" "$scratch/linux/$1" 2>&1 | head -20 | sed 's/^/# /'
		tap 1 "$1 in the patched tree is $2, byte for byte"
	fi
done
rm -rf "$scratch"

tap_end
