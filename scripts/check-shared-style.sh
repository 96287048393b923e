#!/usr/bin/env bash
# The decoder shared with the kernel must pass the kernel's checkpatch
# --strict as it stands, since the series carries it unchanged.  checkpatch
# comes from the base kernel (unpacked once into KCOLOUR_CACHE).  TAP output.
set -uo pipefail
cd "$(dirname "$0")/.."
KCOLOUR_CACHE=${KCOLOUR_CACHE:-$HOME/.cache/kcolour}
TARBALL=${KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
CP=$KCOLOUR_CACHE/checkpatch

if [ ! -x "$CP/scripts/checkpatch.pl" ]; then
	mkdir -p "$CP"
	tar -xJf "$TARBALL" -C "$CP" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch' ||
		{ echo "Bail out! cannot unpack checkpatch from $TARBALL"; exit 2; }
fi

. harness/tap.sh
for f in tools-probe/include/asm/kcolour_geom.h tools-probe/lib/kcolour_geom.c; do
	out=$(cd "$CP" && ./scripts/checkpatch.pl --strict --no-tree --show-types -q -f "$OLDPWD/$f" 2>&1)
	[ -z "$out" ] || echo "$out" | sed 's/^/# /'
	tap "$([ -z "$out" ]; echo $?)" "checkpatch --strict: $f"
done
tap_end
