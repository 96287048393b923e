#!/usr/bin/env bash
# The derivation shared with the kernel (kcolour_geom.[ch]) must pass the
# kernel's checkpatch --strict as it stands, since the series carries it
# unchanged; the probe's own decoder (kcolour_decode.[ch]) is held to the
# same style.  checkpatch comes from the base kernel (unpacked once into
# KCOLOUR_CACHE).  TAP output.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
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
# checkpatch_file FILE WHAT: one TAP line for FILE, WHAT saying whose it is.
checkpatch_file() {
	local out
	out=$(cd "$CP" && ./scripts/checkpatch.pl --strict --no-tree --show-types -q -f "$OLDPWD/$1" 2>&1)
	# shellcheck disable=SC2001 # a prefix on every line
	[ -z "$out" ] || echo "$out" | sed 's/^/# /'
	tap "$([ -z "$out" ]; echo $?)" "checkpatch --strict: $1 ($2)"
}
for f in tools-probe/include/asm/kcolour_geom.h tools-probe/lib/kcolour_geom.c; do
	checkpatch_file "$f" "shared with the kernel"
done
for f in tools-probe/include/kcolour_decode.h tools-probe/lib/kcolour_decode.c; do
	checkpatch_file "$f" "probe-only"
done
tap_end
