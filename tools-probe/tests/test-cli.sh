#!/usr/bin/env bash
# kcolour-probe as a user meets it: the live run, the sysfs cross-check (real
# and planted), every kind of bad input, and the output modes.  TAP output.
#
# usage: test-cli.sh PROBE FIXTURES   (make check passes facts.tsv's fixtures)
set -uo pipefail

PROBE=$(realpath "${1:?usage: test-cli.sh PROBE FIXTURES}")
[ -x "$PROBE" ] || { echo "Bail out! $PROBE is not built"; exit 2; }
FIXTURES=${2:?usage: test-cli.sh PROBE FIXTURES}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. "$(dirname "$0")/../../harness/tap.sh"

# json FILE EXPR: evaluate a python expression over the parsed JSON as j.
json() {
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# bad NAME ARGS...: must exit 2 with exactly one line on stderr and nothing on stdout.
bad() {
	local name=$1 rc
	shift
	"$PROBE" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	tap "$([ $rc -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && [ ! -s "$TMP/out" ]; echo $?)" \
		"bad input, $name: exit 2, one line: $(head -c 150 "$TMP/err")"
}

# A raw `cpuid -r` dump from "leaf subleaf eax ebx ecx edx" lines on stdin.
raw_dump() {
	echo "CPU 0:"
	while read -r leaf sub a b c d; do
		printf '   0x%08x 0x%02x: eax=0x%08x ebx=0x%08x ecx=0x%08x edx=0x%08x\n' \
			"$leaf" "$sub" "$a" "$b" "$c" "$d"
	done
}

# Plant a cache directory: "index level type size ways line sets" lines on stdin.
fake_sysfs() {
	local root=$1 i level type size ways line sets d
	while read -r i level type size ways line sets; do
		d=$root/devices/system/cpu/cpu0/cache/index$i
		mkdir -p "$d"
		echo "$level" >"$d/level"; echo "$type" >"$d/type"; echo "$size" >"$d/size"
		echo "$ways" >"$d/ways_of_associativity"; echo "$line" >"$d/coherency_line_size"
		echo "$sets" >"$d/number_of_sets"
	done
}

# --- the live machine --------------------------------------------------------
"$PROBE" >"$TMP/live.txt" 2>"$TMP/live.err"
tap $? "live run exits 0"
grep -q '^recommendation: level [12], shift [0-9]*' "$TMP/live.txt"
tap $? "live run prints a recommendation"
"$PROBE" --json >"$TMP/live.json" 2>/dev/null
tap "$(json "$TMP/live.json" "int(len(j['caches']) > 0 and j['recommendation']['colours'] >= 1)" | grep -qx 1; echo $?)" \
	"live --json parses and finds caches"
real=/sys/devices/system/cpu/cpu0/cache
if [ -d "$real" ]; then
	tap "$(json "$TMP/live.json" "int(j['sysfs']['available'] and j['sysfs']['mismatches'] == [])" | grep -qx 1; echo $?)" \
		"live sysfs cross-check agrees on this machine: $(json "$TMP/live.json" "j['sysfs']['mismatches']")"
else
	tap_skip "live sysfs cross-check agrees on this machine" "this kernel shows no $real"
fi

# --- a planted sysfs mismatch -------------------------------------------------
# Copy this machine's cache directory (or, where it has none, write the
# probe's own decode as one), then change one field of index0.
if [ -d "$real" ]; then
	for d in "$real"/index*; do
		i=${d##*index}
		echo "$i $(cat "$d/level") $(cat "$d/type") $(cat "$d/size") $(cat "$d/ways_of_associativity") $(cat "$d/coherency_line_size") $(cat "$d/number_of_sets")"
	done
else
	json "$TMP/live.json" "'\\n'.join('%d %d %s %dK %d %d %d' % (i, c['level'], c['type'].capitalize(), c['size'] // 1024, c['ways'], c['line'], c['sets']) for i, c in enumerate(j['caches']))"
fi >"$TMP/real.txt"
awk '$1 == 0 { $5 = $5 * 2 } { print }' "$TMP/real.txt" | fake_sysfs "$TMP/planted"
"$PROBE" --json --sysfs-root "$TMP/planted" >"$TMP/planted.json"
tap "$(json "$TMP/planted.json" "len(j['sysfs']['mismatches'])" | grep -qx 1; echo $?)" \
	"one planted mismatch, one reported: $(json "$TMP/planted.json" "j['sysfs']['mismatches']")"
"$PROBE" --sysfs-root "$TMP/planted" | grep -q '^sysfs: disagrees: L1 .* ways: CPUID'
tap $? "table output names the disagreeing field"
"$PROBE" --strict --sysfs-root "$TMP/planted" >/dev/null
tap "$([ $? -eq 1 ]; echo $?)" "--strict exits 1 on a disagreement"
"$PROBE" --strict --sysfs-root "$TMP/nonexistent" >"$TMP/none.txt"
tap "$([ $? -eq 0 ] && grep -q 'not available' "$TMP/none.txt"; echo $?)" \
	"absent sysfs tree: said, not an error"

# Linux 6.12's legacy-AMD bug: an 8-way L1D through the L2 table shows 16-way.
raw_dump >"$TMP/epyc.raw" <<'EOF'
0x00000000 0 0xd 0x68747541 0x444d4163 0x69746e65
0x80000000 0 0x8000001f 0 0 0
0x80000005 0 0 0 0x20080140 0x40040140
0x80000006 0 0 0 0x02006140 0x00808140
EOF
fake_sysfs "$TMP/epyc-sysfs" <<'EOF'
0 1 Data 32K 16 64 32
1 1 Instruction 64K 4 64 256
2 2 Unified 512K 8 64 1024
3 3 Unified 16384K 16 64 16384
EOF
"$PROBE" --json --cpuid-file "$TMP/epyc.raw" --sysfs-root "$TMP/epyc-sysfs" >"$TMP/epyc.json"
tap "$(json "$TMP/epyc.json" "j['sysfs']['mismatches']" | grep -q "L1 data ways: CPUID 8 (0x80000005), sysfs 16" &&
	json "$TMP/epyc.json" "len(j['sysfs']['mismatches'])" | grep -qx 2; echo $?)" \
	"EPYC-style dump vs Linux 6.12 sysfs: the 16-way L1D (and its 32 sets) reported"

# --- the no-information case -----------------------------------------------------
raw_dump >"$TMP/noinfo.raw" <<'EOF'
0x00000000 0 0x1 0x68747541 0x444d4163 0x69746e65
0x80000000 0 0x80000004 0 0 0
EOF
"$PROBE" --json --cpuid-file "$TMP/noinfo.raw" >"$TMP/noinfo.json"
tap "$(json "$TMP/noinfo.json" "(len(j['caches']), j['recommendation']['fallback'], j['recommendation']['shift'])" |
	grep -qx '(0, True, 12)'; echo $?)" "no cache information: safe default shift 12, said so"
"$PROBE" --cpuid-file "$TMP/noinfo.raw" | grep -q 'note: no cache information'
tap $? "no cache information: a note line in the table"

# --- output modes agree with each other ---------------------------------------
sky=$FIXTURES/GenuineIntel00406E3_Skylake.cpuid-r.txt
"$PROBE" --json --cpuid-file "$sky" >"$TMP/sky.json"
rec=$(json "$TMP/sky.json" "'shift=%d,colours=%d,step=%d,max_offset=%d,policy=%s' % tuple(j['recommendation'][k] for k in ('shift','colours','step','max_offset','policy'))")
"$PROBE" --cmdline --cpuid-file "$sky" | grep -q "^kstack_colour=on,level=1,$rec\$"
tap $? "--cmdline matches --json ($rec)"
"$PROBE" --kconfig --cpuid-file "$sky" >"$TMP/sky.config"
grep -q '^CONFIG_KSTACK_COLOURS=3$' "$TMP/sky.config" && grep -q '^CONFIG_KSTACK_COLOUR_SHIFT=12$' "$TMP/sky.config" &&
	grep -q '^CONFIG_KSTACK_COLOUR_STEP=1024$' "$TMP/sky.config" &&
	grep -q '^CONFIG_KSTACK_COLOUR_MAX_OFFSET=2048$' "$TMP/sky.config" &&
	grep -q '^CONFIG_KSTACK_COLOUR_POLICY_BALANCED=y$' "$TMP/sky.config"
tap $? "--kconfig for Skylake: the defaults, shift 12, 3 colours x 1024 B, max 2048 B, balanced"
"$PROBE" --json --cpuid-file "$sky" --policy addr --step 64 --max-offset 2048 >"$TMP/sky2.json"
tap "$(json "$TMP/sky2.json" "(j['recommendation']['colours'], j['recommendation']['policy'])" |
	grep -qx "(32, 'addr')"; echo $?)" "--policy addr --step 64 --max-offset 2048: 33 rounded down to 32 colours"
"$PROBE" --json --cpuid-file "$sky" --level 2 >"$TMP/sky3.json"
tap "$(json "$TMP/sky3.json" "(j['recommendation']['level'], j['recommendation']['shift'])" |
	grep -qx "(2, 16)"; echo $?)" "--level 2 on Skylake (256K 4-way L2): shift 16"
"$PROBE" --cpuid-file "$FIXTURES/instlatx64/GenuineIntel00406E3_Skylake_CPUID.txt" --cpu 3 --json >"$TMP/cpu3.json"
tap $? "--cpu 3 of an AIDA64 dump"

# --- the defaults are the header's ------------------------------------------------
# Read from kcolour_geom.h, the header the kernel series carries, not typed here.
HDR=$(dirname "$0")/../include/asm/kcolour_geom.h
macro() {
	awk -v name="$1" '$1 == "#define" && $2 == name { print $3; found = 1; exit }
		END { exit !found }' "$HDR"
}
d_step=$(macro KCOLOUR_DEFAULT_STEP) && d_max=$(macro KCOLOUR_DEFAULT_MAX_OFFSET) &&
	d_limit=$(macro KCOLOUR_MAX_OFFSET_LIMIT) && d_min=$(macro KCOLOUR_MIN_STEP) &&
	d_shift=$(macro KCOLOUR_FALLBACK_SHIFT)
tap $? "kcolour_geom.h defines the defaults: step $d_step, max offset $d_max (at most $d_limit), min step $d_min, fallback shift $d_shift"
tap "$(json "$TMP/sky.json" "tuple(j['defaults'][k] for k in ('step','max_offset','max_offset_limit','min_step','fallback_shift'))" |
	grep -qx "($d_step, $d_max, $d_limit, $d_min, $d_shift)"; echo $?)" \
	"--json defaults block is the header's: $(json "$TMP/sky.json" "j.get('defaults')")"
d_policy=$(json "$TMP/sky.json" "j['defaults']['policy']")
tap "$(json "$TMP/sky.json" "(j['defaults']['level'], j['recommendation']['policy'], j['recommendation']['step'], j['recommendation']['max_offset'])" |
	grep -qx "('auto', '$d_policy', $d_step, $d_max)"; echo $?)" \
	"--json defaults are what a run without options uses: level auto, policy $d_policy, step $d_step, max offset $d_max"
"$PROBE" --help >"$TMP/help.txt"
tap "$([ $? -eq 0 ] &&
	grep -q "^  --max-offset BYTES stack budget (default $d_max, at most $d_limit)\$" "$TMP/help.txt" &&
	grep -q "^  --step BYTES       colour step, a multiple of $d_min (default $d_step: the hot\$" "$TMP/help.txt" &&
	grep -q "^  --policy P         addr, mod, rr or balanced (default $d_policy)\$" "$TMP/help.txt" &&
	grep -q "^  --level L          auto, 1 or 2 (default auto)\$" "$TMP/help.txt"; echo $?)" \
	"--help shows the header's defaults: max offset $d_max, at most $d_limit, step $d_step, a multiple of $d_min"
"$PROBE" --no-such-option >"$TMP/out" 2>"$TMP/err"
tap "$([ $? -eq 2 ] && [ ! -s "$TMP/out" ] && sed -n '/^usage: kcolour-probe/,$p' "$TMP/err" | cmp -s - "$TMP/help.txt"; echo $?)" \
	"an unknown option: exit 2, the --help text on stderr"

# --- bad input ---------------------------------------------------------------------
bad "missing file" --cpuid-file "$TMP/does-not-exist"
: >"$TMP/empty"
bad "empty file" --cpuid-file "$TMP/empty"
printf 'hello\nworld\n' >"$TMP/junk"
bad "unknown format" --cpuid-file "$TMP/junk"
head -c 2000 /dev/urandom >"$TMP/random"
bad "random bytes" --cpuid-file "$TMP/random"
head -3 "$sky" >"$TMP/trunc"
printf '   0x00000004 0x00: eax=0x1c004121 ebx=0x01c0\n' >>"$TMP/trunc"
bad "truncated line" --cpuid-file "$TMP/trunc"
sed 's/eax=0x76036301/eax=0x7603630g/' "$sky" >"$TMP/badhex"
bad "bad hex" --cpuid-file "$TMP/badhex"
bad "CPU block absent" --cpuid-file "$sky" --cpu 99
raw_dump >"$TMP/zeroways.raw" <<'EOF'
0x00000000 0 0x1 0x68747541 0x444d4163 0x69746e65
0x80000000 0 0x80000006 0 0 0
0x80000005 0 0 0 0x20000140 0x20080100
EOF
bad "0 ways, 0 line" --cpuid-file "$TMP/zeroways.raw"
raw_dump >"$TMP/overflow.raw" <<'EOF'
0x00000000 0 0x4 0x756e6547 0x6c65746e 0x49656e69
0x00000004 0 0x121 0xffffffff 0xffffffff 0
EOF
bad "sets overflow" --cpuid-file "$TMP/overflow.raw"
bad "--max-offset not a number" --max-offset banana
bad "--max-offset too large" --max-offset 99999
bad "--step not a multiple of 64" --step 100
bad "--policy unknown" --policy banana
bad "--level 3" --level 3
bad "--cpu without a file" --cpu 1
bad "stray argument" extra

tap_end
