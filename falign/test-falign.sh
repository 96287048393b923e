#!/usr/bin/env bash
# falign-report on objects whose answers are known by construction: assembly
# with functions of exact sizes at exact offsets (figures worked out by hand
# below), GCC's -falign-functions output checked against nm, bad and
# corrupted input.  TAP output.
#
# usage: falign/test-falign.sh [FALIGN-REPORT]   (default: falign/falign-report)
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOOL=$(realpath "${1:-$HERE/falign-report}")
[ -x "$TOOL" ] || { echo "Bail out! $TOOL is not built (make -C falign)"; exit 2; }
INPUTS=$HERE/tests
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# shellcheck source=SCRIPTDIR/../harness/tap.sh
. "$HERE/../harness/tap.sh"

# json FILE EXPR: a python expression over the parsed JSON as j, with the
# first file's report as f.
json() {
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
f = j["files"][0]
print(eval(sys.argv[2]))' "$1" "$2"
}

# expect FILE EXPR VALUE TEXT: one TAP line, EXPR over FILE must print VALUE.
expect() {
	local got
	got=$(json "$1" "$2" 2>&1)
	if [ "$got" = "$3" ]; then
		tap 0 "$4: $2 = $3"
	else
		tap 1 "$4: $2 = $3, got $got"
	fi
}

# place OFFSET SIZE: an object whose only function f has SIZE bytes at OFFSET
# of a line-aligned .text.
place() {
	local s=$TMP/place-$1-$2
	printf '\t.text\n\t.p2align 6\n\t.org %d\n' "$1" >"$s.s"
	printf '\t.type f, @function\nf:\n\t.skip %d\n\t.size f, %d\n' "$2" "$2" >>"$s.s"
	gcc -c "$s.s" -o "$s.o" && echo "$s.o"
}

# bad NAME FILE ARGS...: exit 2, a message on stderr naming FILE, nothing on stdout.
bad() {
	local name=$1 file=$2 rc
	shift 2
	"$TOOL" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	tap "$([ $rc -eq 2 ] && grep -qF -- "$file" "$TMP/err" && [ ! -s "$TMP/out" ]; echo $?)" \
		"bad input, $name: exit $rc, $(head -n 1 "$TMP/err" | head -c 150)"
}

# --- layout.s: every figure by hand -------------------------------------------
gcc -c "$INPUTS/layout.s" -o "$TMP/layout.o"
tap $? "assemble layout.s"
"$TOOL" --json "$TMP/layout.o" >"$TMP/layout.json"
tap $? "layout.o: exit 0"

# .text is 400 bytes (f_over ends at 388, asm_stub adds 12), .text.unlikely 20.
expect "$TMP/layout.json" "f['text_bytes']" 420 "two executable sections"
expect "$TMP/layout.json" "f['executable_sections']" 2 ".rodata is not executable"
# f_line f_small f_cross f_zero f_big f_over f_cold; f_data is in .rodata.
expect "$TMP/layout.json" "f['functions']" 7 "FUNC symbols of executable sections only"
expect "$TMP/layout.json" "f['aliases_dropped']" 1 "the alias f_cross_alias is counted once"
expect "$TMP/layout.json" "f['function_bytes']" 320 "64+24+40+0+100+72+20"
# .text gaps 64..80, 104..112, 152..192, 292..316, 388..400 (asm_stub).
expect "$TMP/layout.json" "(f['padding_bytes'], f['padding_gaps'], f['largest_gap'])" \
	"(100, 5, 40)" "padding 16+8+40+24+12 in 5 gaps"
# .text 0..388 plus .text.unlikely 0..20.
expect "$TMP/layout.json" "f['function_span']" 408 "span per section"
expect "$TMP/layout.json" "list(f['size_classes'].values())" "[1, 0, 2, 2, 2, 0, 0, 0, 0]" \
	"size classes: f_zero; f_small f_cold; f_line f_cross; f_big f_over"
# Shorter than 64: f_small 80..103, f_cross 112..151 (offset 48 of its line), f_cold 0..19.
expect "$TMP/layout.json" "(f['short_functions'], f['crossing'])" "(3, 1)" \
	"the 40-byte function at line offset 48 is the one crossing"
# f_cross needs 1 line and touches 2; f_over 316..387 needs 2 and touches 3.
expect "$TMP/layout.json" "f['over_lines']" 2 "f_cross and f_over touch a line too many"
# Starts 0 80 112 152 192 316 and f_cold's 0.
expect "$TMP/layout.json" "f['aligned']" "{'16': 5, '32': 3, '64': 3}" "start alignment counts"
# Touched 1+1+2+0+2+3+1, needed 1+1+1+0+2+2+1.
expect "$TMP/layout.json" "(f['lines_touched'], f['lines_lower_bound'])" "(10, 8)" \
	"lines touched and lower bound"
# From 0, 16-byte starts: f_line 0..63, f_small 64..87, f_cross would be
# 96..135 so moves to 128..167, f_big would be 176..275 so moves to 192..291,
# f_over 304..375, f_cold 384..403.
expect "$TMP/layout.json" "f['minimal_lines_layout']" "{'bytes': 404, 'lines_touched': 8}" \
	"minimal-lines layout reaches the lower bound"
# Packed: 0..63, 64..87, 96..135 (2 lines), 144..243, 256..327, 336..355.
expect "$TMP/layout.json" "f['packed_layout']" "{'bytes': 356, 'lines_touched': 9}" "packed layout"
expect "$TMP/layout.json" "f['underaligned_functions']" 1 "f_cold's section is aligned to 16 only"

# With 64-byte starts both layouts are the same: 0, 64, 128, 192, 320, 448+20.
"$TOOL" --json --min-align=64 "$TMP/layout.o" >"$TMP/layout64.json"
expect "$TMP/layout64.json" "(f['minimal_lines_layout'], f['packed_layout'])" \
	"({'bytes': 468, 'lines_touched': 8}, {'bytes': 468, 'lines_touched': 8})" "--min-align=64"
# With 32-byte lines: f_line 0..63 2 lines, f_small 80..103 2 (crosses 96),
# f_cross 112..151 2, f_big 192..291 4, f_over 316..387 4, f_cold 1; only
# f_small and f_cold are shorter than a line.
"$TOOL" --json --line=32 "$TMP/layout.o" >"$TMP/layout32.json"
expect "$TMP/layout32.json" \
	"(f['lines_touched'], f['short_functions'], f['crossing'], f['aligned'])" \
	"(15, 2, 1, {'16': 5, '32': 3})" "--line=32"

"$TOOL" "$TMP/layout.o" >"$TMP/layout.txt"
grep -q '^  note: 1 functions are in sections aligned to less than 64 bytes' "$TMP/layout.txt"
tap $? "the text output says when a section is aligned below the line"
grep -q 'crossing *1 of 3 functions shorter than a line cross' "$TMP/layout.txt"
tap $? "the text output has the crossing count"

"$TOOL" --list-crossing "$TMP/layout.o" | grep '^crossing ' >"$TMP/crossing.txt"
[ "$(cat "$TMP/crossing.txt")" = "crossing $TMP/layout.o .text f_cross 0x70 40" ]
tap $? "--list-crossing names f_cross, its section, offset and size, and nothing else"

# --- single functions placed by hand ------------------------------------------
# OFFSET SIZE CROSSING LINES OVER
while read -r off size crossing lines over; do
	obj=$(place "$off" "$size") || { tap 1 "assemble a $size-byte function at $off"; continue; }
	"$TOOL" --json "$obj" >"$TMP/one.json"
	expect "$TMP/one.json" "(f['crossing'], f['lines_touched'], f['over_lines'])" \
		"($crossing, $lines, $over)" "$size bytes at offset $off"
done <<'EOF'
48 40 1 2 1
0 64 0 1 0
8 64 0 2 1
24 40 0 1 0
60 4 0 1 0
62 4 1 2 1
0 65 0 2 0
64 1 0 1 0
EOF

# An alias of size 0 at the same address as a sized function: the sized one stays.
cat >"$TMP/alias.s" <<'EOF'
	.text
	.p2align 6
	.type a, @function
	.type b, @function
a:
b:
	.skip 32
	.size a, 0
	.size b, 32
EOF
gcc -c "$TMP/alias.s" -o "$TMP/alias.o" && "$TOOL" --json "$TMP/alias.o" >"$TMP/alias.json"
expect "$TMP/alias.json" "(f['functions'], f['aliases_dropped'], f['function_bytes'])" \
	"(1, 1, 32)" "of two aliases the sized one is kept"

"$TOOL" --json "$TMP/layout.o" "$TMP/alias.o" >"$TMP/two.json"
expect "$TMP/two.json" "[x['functions'] for x in j['files']]" "[7, 1]" "two files, one JSON object"

# --- more sections than ELF's 16-bit section index holds ------------------------
# 65400 16-byte functions, each in its own section: the symbols of the later
# ones name their section through .symtab_shndx.  Each touches one line, as
# linked or packed back to back at 16-byte starts.
python3 - "$TMP/many.s" <<'EOF'
import sys
with open(sys.argv[1], "w") as out:
	for i in range(65400):
		out.write('\t.section .text.f%d,"ax",@progbits\n\t.type f%d, @function\n'
			  'f%d:\n\t.skip 16\n\t.size f%d, 16\n' % (i, i, i, i))
EOF
gcc -c "$TMP/many.s" -o "$TMP/many.o" && "$TOOL" --json "$TMP/many.o" >"$TMP/many.json"
expect "$TMP/many.json" \
	"(f['functions'], f['function_bytes'], f['lines_touched'], f['packed_layout'])" \
	"(65400, 1046400, 65400, {'bytes': 1046400, 'lines_touched': 65400})" \
	"65400 sections: extended section indices"
rm -f "$TMP/many.s" "$TMP/many.o"

# --- GCC's function alignment, checked against nm -----------------------------
# nm_figures OBJ: "crossing lines" from nm -S alone (one .text, so offsets
# are comparable), counting each address once with its largest size.
nm_figures() {
	nm -S --defined-only "$1" | python3 -c '
import sys
size = {}
for l in sys.stdin:
	p = l.split()
	if len(p) == 4 and p[2] in "Tt":
		a = int(p[0], 16)
		size[a] = max(size.get(a, 0), int(p[1], 16))
crossing = sum(1 for a, s in size.items() if 0 < s < 64 and a // 64 != (a + s - 1) // 64)
lines = sum((a + s - 1) // 64 - a // 64 + 1 for a, s in size.items() if s)
print(crossing, lines)'
}

for flags in "-falign-functions=64 -flimit-function-alignment" "-falign-functions=16"; do
	# shellcheck disable=SC2086 # the flags are words
	gcc -O2 $flags -c "$INPUTS/sizes.c" -o "$TMP/sizes.o" ||
		{ tap 1 "compile sizes.c $flags"; continue; }
	"$TOOL" --json "$TMP/sizes.o" >"$TMP/sizes.json"
	read -r nm_crossing nm_lines < <(nm_figures "$TMP/sizes.o")
	expect "$TMP/sizes.json" "(f['crossing'], f['lines_touched'])" "($nm_crossing, $nm_lines)" \
		"$flags: crossing and lines agree with nm -S"
	case $flags in
	*limit*)
		expect "$TMP/sizes.json" \
			"(f['crossing'], f['lines_touched'] == f['lines_lower_bound'])" \
			"(0, True)" "$flags: no short function crosses a line"
		;;
	*)
		echo "# $flags: $nm_crossing of" \
			"$(json "$TMP/sizes.json" "f['short_functions']") short functions cross"
		;;
	esac
done

# --- bad input ----------------------------------------------------------------
bad "missing file" "$TMP/nonexistent" "$TMP/nonexistent"
echo "not an object" >"$TMP/text.txt"
bad "a text file" "$TMP/text.txt" "$TMP/text.txt"
: >"$TMP/empty"
bad "an empty file" "$TMP/empty" "$TMP/empty"
cp "$TMP/layout.o" "$TMP/stripped.o" && strip "$TMP/stripped.o"
bad "stripped object" "$TMP/stripped.o" "$TMP/stripped.o"
grep -q 'no .symtab' "$TMP/err"
tap $? "stripped object: the message says there is no .symtab"
head -c 300 "$TMP/layout.o" >"$TMP/truncated.o"
bad "truncated object" "$TMP/truncated.o" "$TMP/truncated.o"
grep -q 'truncated' "$TMP/err"
tap $? "truncated object: the message says so"
bad "a directory" "$TMP" "$TMP"
bad "one bad file among good ones" "$TMP/nonexistent" "$TMP/layout.o" "$TMP/nonexistent"
bad "--line not a power of two" "--line" --line=48 "$TMP/layout.o"
bad "--min-align too big" "--min-align" --min-align=8192 "$TMP/layout.o"
bad "no file" "no file"

# Corrupt layout.o at random (seeded) places: any exit but 0 or 2 is a crash.
python3 - "$TMP/layout.o" "$TMP/fuzz" <<'EOF'
import os, random, sys
data = open(sys.argv[1], "rb").read()
os.mkdir(sys.argv[2])
rng = random.Random(1)
for i in range(300):
	b = bytearray(data)
	for _ in range(rng.randint(1, 8)):
		b[rng.randrange(len(b))] = rng.randrange(256)
	open(os.path.join(sys.argv[2], "%03d.o" % i), "wb").write(b)
EOF
crashes=0
for f in "$TMP"/fuzz/*.o; do
	"$TOOL" --json "$f" >/dev/null 2>&1
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 2 ]; then
		crashes=$((crashes + 1))
		echo "# $(basename "$f"): exit $rc"
	fi
done
tap "$crashes" "300 corrupted objects: each exits 0 or 2 ($crashes did not)"

tap_end
