#!/usr/bin/env bash
# kcolour-probe as a user meets it: the live run, the sysfs cross-check (real
# and planted), every kind of bad input, the output modes, one colour as
# "off", --all-cpus, the options, the manual page and `make install`, and the
# README's JSON example.  TAP output.
#
# usage: test-cli.sh PROBE FIXTURES   (make check passes facts.tsv's fixtures)
set -uo pipefail

PROBE=$(realpath "${1:?usage: test-cli.sh PROBE FIXTURES}")
HERE=$(cd "$(dirname "$0")/.." && pwd)		# tools-probe
TOP=$(cd "$HERE/.." && pwd)
[ -x "$PROBE" ] || { echo "Bail out! $PROBE is not built"; exit 2; }
FIXTURES=${2:?usage: test-cli.sh PROBE FIXTURES}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# shellcheck source=SCRIPTDIR/../../harness/tap.sh
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

# bad_says NAME TEXT ARGS...: bad(), and the line says TEXT (a fixed string).
bad_says() {
	local name=$1 text=$2 rc
	shift 2
	"$PROBE" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	tap "$([ $rc -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && [ ! -s "$TMP/out" ] &&
		grep -qF -- "$text" "$TMP/err"; echo $?)" \
		"bad input, $name: exit 2, one line saying '$text': $(head -c 200 "$TMP/err")"
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
grep -Eq '^recommendation: (level [12], shift [0-9]+ |off, 1 colour \(level [12], shift [0-9]+,)' "$TMP/live.txt"
tap $? "live run prints a recommendation: $(grep '^recommendation' "$TMP/live.txt")"
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

# CPUID answers for the CPU it runs on: the live probe pins itself to CPU 0,
# the boot CPU, even when started elsewhere, or reads the CPU --cpu names.
grep -qx 'read on CPU 0 (pinned)' "$TMP/live.txt"
tap $? "live run reads CPU 0, pinned: $(sed -n 2p "$TMP/live.txt")"
tap "$(json "$TMP/live.json" "(j['cpu'], j['pinned'])" | grep -qx '(0, True)'; echo $?)" \
	"live --json: cpu 0, pinned"
ncpu=$(getconf _NPROCESSORS_ONLN)
if command -v taskset >/dev/null && [ "$ncpu" -ge 2 ]; then
	taskset -c 1 "$PROBE" --json --no-sysfs >"$TMP/t1.json"
	tap "$(json "$TMP/t1.json" "(j['cpu'], j['pinned'])" | grep -qx '(0, True)'; echo $?)" \
		"started on CPU 1 (taskset -c 1), it still reads CPU 0"
	"$PROBE" --cpu 1 --no-sysfs >"$TMP/cpu1.txt"
	rc=$?
	tap "$([ $rc -eq 0 ] && grep -qx 'read on CPU 1 (pinned)' "$TMP/cpu1.txt"; echo $?)" \
		"--cpu 1 on the live machine reads CPU 1"
else
	tap_skip "started on CPU 1 (taskset -c 1), it still reads CPU 0" "no taskset or one CPU"
	tap_skip "--cpu 1 on the live machine reads CPU 1" "no taskset or one CPU"
fi

# The brand string in the header and in --json is CPUID's (0x80000002-4):
# the same as the probe's decode of `cpuid -1 -r` on this CPU.
if command -v cpuid >/dev/null && taskset -c 0 cpuid -1 -r >"$TMP/self.raw" 2>/dev/null; then
	"$PROBE" --json --cpuid-file "$TMP/self.raw" >"$TMP/self.json"
	brand=$(json "$TMP/live.json" "j['brand']")
	tap "$([ "$brand" = "$(json "$TMP/self.json" "j['brand']")" ] && [ "$brand" != None ] &&
		head -1 "$TMP/live.txt" | grep -qF "CPU: $brand ("; echo $?)" \
		"live brand string, in the header and --json, is the one of \`cpuid -1 -r\`: '$brand'"
	tap "$(python3 -c 'import json,sys; a, b = (json.load(open(f)) for f in sys.argv[1:]); sys.exit(a["caches"] != b["caches"] or a["recommendation"] != b["recommendation"])' \
		"$TMP/live.json" "$TMP/self.json"; echo $?)" \
		"live decode equals the decode of this CPU's \`cpuid -1 -r\` dump"
else
	tap_skip "live brand string is the one of \`cpuid -1 -r\`" "no cpuid tool"
	tap_skip "live decode equals the decode of this CPU's \`cpuid -1 -r\` dump" "no cpuid tool"
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
mkdir -p "$TMP/nocache/devices/system/cpu"
"$PROBE" --sysfs-root "$TMP/nocache" >"$TMP/none.txt"
rc=$?
tap "$([ $rc -eq 0 ] && grep -q 'not available' "$TMP/none.txt"; echo $?)" \
	"a sysfs tree without cache directories: said, not an error"
"$PROBE" --strict --sysfs-root "$TMP/nocache" >/dev/null 2>"$TMP/none.err"
tap "$([ $? -eq 2 ] && grep -q -- '--strict: nothing to check against in .*/cpu0/cache (cannot open it)' "$TMP/none.err"; echo $?)" \
	"--strict where sysfs has no cache directory: exit 2, said ($(cat "$TMP/none.err"))"
mkdir -p "$TMP/noindex/devices/system/cpu/cpu0/cache"
"$PROBE" --strict --sysfs-root "$TMP/noindex" >/dev/null 2>"$TMP/noindex.err"
tap "$([ $? -eq 2 ] && grep -q -- '--strict: nothing to check against in .*/cpu0/cache (no index entries)' "$TMP/noindex.err"; echo $?)" \
	"--strict where the cache directory holds no index: exit 2, said ($(cat "$TMP/noindex.err"))"

# Linux 6.12's legacy-AMD bug: an 8-way L1D through the L2 table shows 16-way.
# (Complete as a dump must be: every leaf leaf 0 and 0x80000000 promise.)
raw_dump >"$TMP/epyc.raw" <<'EOF'
0x00000000 0 0x1 0x68747541 0x444d4163 0x69746e65
0x00000001 0 0x00800f12 0 0 0
0x80000000 0 0x80000006 0 0 0
0x80000001 0 0 0 0 0
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
0x00000001 0 0 0 0 0
0x80000000 0 0x80000004 0 0 0
0x80000001 0 0 0 0 0
0x80000002 0 0 0 0 0
0x80000003 0 0 0 0 0
0x80000004 0 0 0 0 0
EOF
"$PROBE" --json --cpuid-file "$TMP/noinfo.raw" >"$TMP/noinfo.json"
tap "$(json "$TMP/noinfo.json" "(len(j['caches']), j['recommendation']['fallback'], j['recommendation']['shift'])" |
	grep -qx '(0, True, 12)'; echo $?)" "no cache information: safe default shift 12, said so"
"$PROBE" --cpuid-file "$TMP/noinfo.raw" | grep -q 'note: no cache information'
tap $? "no cache information: a note line in the table"
"$PROBE" --cpuid-file "$TMP/noinfo.raw" --cmdline >"$TMP/noinfo.cmdline" 2>/dev/null
grep -qx 'kstack_colour=on,level=auto,shift=12,colours=3,step=1024,max_offset=2048,policy=rr' "$TMP/noinfo.cmdline"
tap $? "no cache information: --cmdline targets level=auto (the recommendation's level 0), not level=1: $(cat "$TMP/noinfo.cmdline")"

# --- output modes agree with each other ---------------------------------------
sky=$FIXTURES/GenuineIntel00406E3_Skylake.cpuid-r.txt
"$PROBE" --json --cpuid-file "$sky" >"$TMP/sky.json"
rec=$(json "$TMP/sky.json" "'shift=%d,colours=%d,step=%d,max_offset=%d,policy=%s' % tuple(j['recommendation'][k] for k in ('shift','colours','step','max_offset','policy'))")
"$PROBE" --cmdline --cpuid-file "$sky" 2>/dev/null | grep -q "^kstack_colour=on,level=1,$rec\$"
tap $? "--cmdline matches --json ($rec)"
tap "$([ "$(json "$TMP/sky.json" "j['recommendation']['cmdline']")" = "$("$PROBE" --cmdline --cpuid-file "$sky" 2>/dev/null)" ]; echo $?)" \
	"--json's recommendation.cmdline is --cmdline's line"
# --kconfig: what a distribution wants, colouring decided at boot on the
# machine it boots; no parameter is fixed in Kconfig (series v6 has none).
"$PROBE" --kconfig --cpuid-file "$sky" >"$TMP/sky-auto.config" 2>/dev/null
grep -qx 'CONFIG_KSTACK_COLOUR=y' "$TMP/sky-auto.config" && grep -qx '# CONFIG_KSTACK_COLOUR_DEFAULT_ON is not set' "$TMP/sky-auto.config" &&
	! grep -q '^CONFIG_KSTACK_COLOUR_DEFAULT_ON' "$TMP/sky-auto.config" &&
	[ "$(grep -c '^CONFIG_' "$TMP/sky-auto.config")" = 1 ] &&
	grep -qx "# this CPU (.*) would get kstack_colour=on,level=1,$rec" "$TMP/sky-auto.config"
tap $? "--kconfig: built in, off at boot, no other symbol, and a comment with this CPU's kstack_colour="
"$PROBE" --kconfig --cpuid-file "$sky" --policy balanced --step 128 --max-offset 1024 --level 2 >"$TMP/sky-asked.config" 2>/dev/null
grep -q '^# this CPU (.*) would get kstack_colour=on,level=2,shift=16,colours=.*,step=128,max_offset=1024,policy=balanced$' "$TMP/sky-asked.config" &&
	[ "$(grep -v '^# this CPU' "$TMP/sky-asked.config")" = "$(grep -v '^# this CPU' "$TMP/sky-auto.config")" ]
tap $? "--kconfig with parameters asked: the same fragment, the comment's kstack_colour= has them (policy balanced, step 128, max offset 1024, level 2)"
# Every symbol either fragment sets is one the series' Kconfig defines.
syms=$(cat "$TMP/sky-auto.config" "$TMP/sky-asked.config" |
	sed -n 's/^\(# \)\{0,1\}CONFIG_\([A-Z0-9_]*\)[= ].*/\2/p' | sort -u)
if ls "$TOP"/kernel-patches/[0-9]*.patch >/dev/null 2>&1; then
	missing=$(for sym in $syms; do
		grep -qx "+config $sym" "$TOP"/kernel-patches/[0-9]*.patch || echo "$sym"
	done)
	tap "$([ -n "$syms" ] && [ -z "$missing" ]; echo $?)" \
		"every symbol --kconfig prints is defined by the series' Kconfig ($(wc -w <<<"$syms") symbols; missing: ${missing:-none})"
else
	tap_skip "every symbol --kconfig prints is defined by the series' Kconfig" "no kernel-patches/"
fi
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
"$PROBE" --help >"$TMP/help.txt" 2>"$TMP/help.err"
rc=$?
tap "$([ $rc -eq 0 ] && [ ! -s "$TMP/help.err" ] &&
	grep -q "^  --max-offset BYTES stack budget (default $d_max, at most $d_limit)\$" "$TMP/help.txt" &&
	grep -q "^  --step BYTES       colour step, a multiple of $d_min (default $d_step: the hot\$" "$TMP/help.txt" &&
	grep -q "^  --policy P         addr, mod, rr or balanced (default $d_policy)\$" "$TMP/help.txt" &&
	grep -q "^  --level L          auto, 1 or 2 (default auto)\$" "$TMP/help.txt"; echo $?)" \
	"--help shows the header's defaults: max offset $d_max, at most $d_limit, step $d_step, a multiple of $d_min"
"$PROBE" -h >"$TMP/h.txt" 2>"$TMP/h.err"
rc=$?
tap "$([ $rc -eq 0 ] && [ ! -s "$TMP/h.err" ] && cmp -s "$TMP/h.txt" "$TMP/help.txt" &&
	grep -q '^usage: kcolour-probe' "$TMP/h.txt"; echo $?)" "-h is --help: usage on stdout, exit 0"
"$PROBE" --version >"$TMP/version.txt" 2>"$TMP/version.err"
rc=$?
tap "$([ $rc -eq 0 ] && [ ! -s "$TMP/version.err" ] && grep -Eqx 'kcolour-probe [0-9]+\.[0-9]+' "$TMP/version.txt"; echo $?)" \
	"--version: one line on stdout, exit 0: $(cat "$TMP/version.txt")"
"$PROBE" -V 2>&1 | cmp -s - "$TMP/version.txt"
tap $? "-V is --version"
# Every option of --help, and only those, is an option the probe takes.
opts=$(grep -o -- '--[a-z][a-z-]*' "$TMP/help.txt" | sort -u)
unknown=$(for opt in $opts; do
	"$PROBE" "$opt" </dev/null >/dev/null 2>"$TMP/err"
	grep -q "unknown option" "$TMP/err" && echo "$opt"
done)
tap "$([ -n "$opts" ] && [ -z "$unknown" ]; echo $?)" \
	"every option --help names is known to the probe ($(wc -w <<<"$opts"); unknown: ${unknown:-none})"

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
0x00000001 0 0x00000f51 0 0 0
0x80000000 0 0x80000006 0 0 0
0x80000001 0 0 0 0 0
0x80000005 0 0 0 0x20000140 0x20080100
0x80000006 0 0 0 0 0
EOF
bad_says "0 ways, 0 line" "CPU 0: impossible cache geometry" --cpuid-file "$TMP/zeroways.raw"
raw_dump >"$TMP/overflow.raw" <<'EOF'
0x00000000 0 0x4 0x756e6547 0x6c65746e 0x49656e69
0x00000001 0 0x000906e9 0 0 0
0x00000002 0 0x00000001 0 0 0
0x00000004 0 0x121 0xffffffff 0xffffffff 0
0x80000000 0 0x80000000 0 0 0
EOF
bad_says "sets overflow" "CPU 0: impossible cache geometry" --cpuid-file "$TMP/overflow.raw"
bad "--max-offset not a number" --max-offset banana
bad "--max-offset too large" --max-offset 99999
bad "--step not a multiple of 64" --step 100
bad_says "--step 0" "--step: '0' is not a number from 64 to 4096" --step 0
bad_says "--step 5000" "--step: '5000' is not a number from 64 to 4096" --step 5000
bad_says "--kconfig=frozen (gone with the Kconfig overrides)" "--kconfig=frozen: the kernel has no Kconfig overrides to fix since series v6; --cmdline prints this CPU's parameters as kstack_colour=" --kconfig=frozen
bad "--policy unknown" --policy banana
bad_says "--level 3" "--level: '3' is not auto, 1 or 2" --level 3
bad_says "--level 0 (auto is spelt auto)" "--level: '0' is not auto, 1 or 2" --level 0
bad_says "--json with --kconfig" "--json and --kconfig are different outputs: give one" --json --kconfig
bad_says "--kconfig with --cmdline" "--kconfig and --cmdline are different outputs" --kconfig --cmdline
bad_says "--sysfs-root on a missing directory" "--sysfs-root: no directory $TMP/nonexistent/devices/system/cpu" --sysfs-root "$TMP/nonexistent"
bad_says "--strict on a dump without --sysfs-root" "--strict: no sysfs cross-check to be strict about (a dump is checked only with --sysfs-root DIR)" --strict --cpuid-file "$sky"
bad_says "--strict with --no-sysfs" "--strict: no sysfs cross-check to be strict about (--no-sysfs)" --strict --no-sysfs
bad_says "--cpu of a CPU this process cannot run on" "--cpu 65535: cannot run on that CPU" --cpu 65535
bad "stray argument" extra
bad_says "an unknown option" "unknown option '--no-such-option' (see --help)" --no-such-option
bad_says "an unknown short option" "unknown option '-x'" -x
bad_says "an ambiguous abbreviation" "ambiguous option '--s'" --s
bad_says "an option without its argument" "option '--cpuid-file' needs an argument" --cpuid-file
bad_says "an argument to an option that takes none" "option '--json' takes no argument" --json=yes
bad_says "--kconfig=banana" "--kconfig takes no value (got 'banana')" --kconfig=banana
bad_says "--all-cpus with --cmdline" "--all-cpus goes with the table or --json" --all-cpus --cmdline
bad_says "--all-cpus with --kconfig" "--all-cpus goes with the table or --json" --all-cpus --kconfig

# --- dumps that leave out leaves the decoder does not read ------------------------
# cpuid and other tools leave out leaves they do not know: the highest basic
# leaf missing is a warning, and the dump decodes as the whole one does.
grep -v '^ *0x00000016 0x' "$sky" >"$TMP/no16"
"$PROBE" --cpuid-file "$TMP/no16" --cmdline >"$TMP/no16.out" 2>"$TMP/no16.err"
rc=$?
tap "$([ $rc -eq 0 ] && cmp -s "$TMP/no16.out" <("$PROBE" --cpuid-file "$sky" --cmdline 2>/dev/null) &&
	grep -q 'warning: .*lacks leaf 0x16, the highest that leaf 0 names' "$TMP/no16.err"; echo $?)" \
	"a dump without its highest basic leaf: a warning, and the same line as the whole dump ($(head -c 120 "$TMP/no16.err"))"
tap "$([ "$(grep -c warning "$TMP/no16.err")" -eq 1 ]; echo $?)" "the warning is given once"

# --- dumps cut short ------------------------------------------------------------
# A dump cut at a line boundary parses: it must still be refused, not decoded
# as a CPU without caches.  Every fixture still decodes (fixtures, dump-unit).
head -3 "$sky" >"$TMP/cut3"
bad_says "a dump cut to 3 lines" "CPU 0 block is incomplete (cut short?): no leaf 0x2, which leaf 0 promises (highest basic leaf 0x16)" \
	--cpuid-file "$TMP/cut3"
bad_says "a dump cut to 3 lines, --json" "incomplete" --cpuid-file "$TMP/cut3" --json
bad_says "a dump cut to 3 lines, --cmdline" "incomplete" --cpuid-file "$TMP/cut3" --cmdline
grep -v ' 0x8' "$sky" >"$TMP/noext"
bad_says "a dump without its extended leaves" "no leaf 0x80000000, which every CPU with leaf 4 has" --cpuid-file "$TMP/noext"
grep -v '^   0x80000008 ' "$sky" >"$TMP/cutext"
"$PROBE" --cpuid-file "$TMP/cutext" --cmdline >"$TMP/cutext.out" 2>"$TMP/cutext.err"
rc=$?
tap "$([ $rc -eq 0 ] && [ -s "$TMP/cutext.out" ] &&
	grep -q 'warning: .*lacks leaf 0x80000008, the highest that leaf 0x80000000 names' "$TMP/cutext.err"; echo $?)" \
	"a dump without its highest extended leaf, which the decoder does not read: a warning, decoded"
grep -v '^   0x80000006 ' "$sky" >"$TMP/no6"
bad_says "a dump without 0x80000006, which the decoder reads" "no leaf 0x80000006, which leaf 0x80000000 promises" --cpuid-file "$TMP/no6"
adl=$FIXTURES/instlatx64/GenuineIntel00906A2_AlderLakeP_00_CPUID.txt
awk '/CPUID 00000007/ { exit } { print }' "$adl" >"$TMP/adl-cut"
bad_says "an AIDA64 dump cut inside its first block" "CPU 0 block is incomplete" --cpuid-file "$TMP/adl-cut"
awk '/Logical CPU #5 / { n++ } n && /CPUID 80000000/ { exit } { print }' "$adl" >"$TMP/adl-cut5"
bad_says "an AIDA64 dump cut inside block 5: --cpu 5" "CPU 5 block is incomplete" --cpuid-file "$TMP/adl-cut5" --cpu 5
"$PROBE" --cpuid-file "$TMP/adl-cut5" --cpu 4 --json >/dev/null
tap $? "the same file's complete block 4 still decodes"
bad_says "--all-cpus over a dump with a cut block" "CPU 5 block is incomplete" --cpuid-file "$TMP/adl-cut5" --all-cpus
printf 'CPU 0:\n' >"$TMP/header-only"
bad_says "a header and nothing else" "CPU 0 block has no leaf 0" --cpuid-file "$TMP/header-only"
printf '\0\0\0\0\n\0' >"$TMP/nuls"
bad "NUL bytes" --cpuid-file "$TMP/nuls"
"$PROBE" --cpuid-file "$FIXTURES/GenuineIntel0000683_P3_Coppermine.cpuid-r.txt" --json >"$TMP/p3.json"
rc=$?
tap "$([ $rc -eq 0 ] && json "$TMP/p3.json" "j['brand']" | grep -qx None &&
	"$PROBE" --cpuid-file "$FIXTURES/GenuineIntel0000683_P3_Coppermine.cpuid-r.txt" | head -1 | grep -q '^CPU: GenuineIntel family 0x6 model 0x8,'; echo $?)" \
	"a Pentium III (highest leaf 3, no extended leaves, no brand string) is complete: decodes, brand null"

# --- the brand string -------------------------------------------------------------
"$PROBE" --cpuid-file "$sky" | head -1 | grep -qx 'CPU: Intel(R) Core(TM) i7-6500U CPU @ 2.50GHz (GenuineIntel family 0x6 model 0x4e), max leaf 0x16, max extended leaf 0x80000008'
tap $? "Skylake's header carries its brand string"
tap "$(json "$TMP/sky.json" "j['brand']" | grep -qx 'Intel(R) Core(TM) i7-6500U CPU @ 2.50GHz'; echo $?)" \
	"--json: Skylake's brand, trimmed"
"$PROBE" --cpuid-file "$sky" | sed -n 2p | grep -qx "read from $sky, CPU block 0"
tap $? "the header says which dump and block it read"

# --- one colour is off, everywhere ---------------------------------------------------
# Alder Lake P's block 0 is a P-core: a 48K 12-way L1D, where colouring was
# measured to gain nothing (1 colour).
"$PROBE" --cpuid-file "$adl" >"$TMP/adl.txt"
grep -A1 '^recommendation:' "$TMP/adl.txt" >"$TMP/adl.rec"
tap "$(grep -qx 'recommendation: off, 1 colour (level 1, shift 12, max offset 2048 B, policy rr)' "$TMP/adl.rec" &&
	sed -n 2p "$TMP/adl.rec" | grep -q '^note: 1 colour is no colouring: colouring stack tops measured no gain on an L1 of this geometry (12-way, 4K way); kstack_colour=on,colours=3 colours it anyway$'; echo $?)" \
	"one colour: the recommendation says off, and the note why right below it on stdout"
tap "$([ "$(grep -c '^  [a-z]* *off: 1 colour$' "$TMP/adl.txt")" -eq 4 ] && ! grep -Eq '^  [a-z]+ +[0-9]+ colours' "$TMP/adl.txt"; echo $?)" \
	"one colour: every policy reads off, none claims more colours"
grep -qx 'boot parameter: kstack_colour=off' "$TMP/adl.txt"
tap $? "one colour: the table's boot parameter is kstack_colour=off"
"$PROBE" --cpuid-file "$adl" --cmdline >"$TMP/adl.cmdline" 2>"$TMP/adl.cmdline.err"
rc=$?
tap "$([ $rc -eq 0 ] && [ "$(cat "$TMP/adl.cmdline")" = kstack_colour=off ] &&
	grep -q '^note: 1 colour is no colouring: ' "$TMP/adl.cmdline.err"; echo $?)" \
	"one colour: --cmdline prints exactly kstack_colour=off (the note on stderr)"
"$PROBE" --cpuid-file "$adl" --json >"$TMP/adl.json"
tap "$(json "$TMP/adl.json" "(j['recommendation']['colours'], j['recommendation']['off'], j['recommendation']['cmdline'], sorted(set(j['policies'].values())), bool(j['recommendation']['off_reason']))" |
	grep -qx "(1, True, 'kstack_colour=off', \[1\], True)"; echo $?)" \
	"one colour: --json says off, with the reason, the off line, and 1 colour for every policy"
"$PROBE" --cpuid-file "$adl" --kconfig >"$TMP/adl-auto.config"
tap "$(grep -qx '# CONFIG_KSTACK_COLOUR_DEFAULT_ON is not set' "$TMP/adl-auto.config" &&
	grep -q '^# this CPU (12th Gen Intel(R) Core(TM) i7-12700H) would get kstack_colour=off: colouring stack tops measured no gain' "$TMP/adl-auto.config"; echo $?)" \
	"one colour: --kconfig is the same fragment, and says this CPU would get kstack_colour=off"
# The other ways to one colour, each with its reason.
"$PROBE" --cpuid-file "$sky" --max-offset 0 >"$TMP/one-budget.txt"
"$PROBE" --cpuid-file "$sky" --step 4096 --max-offset 4096 >"$TMP/one-step.txt"
"$PROBE" --cpuid-file "$sky" --policy mod --max-offset 1024 >"$TMP/one-mod.txt"
tap "$(grep -qx 'note: 1 colour is no colouring: a max offset of 0 B leaves no room for a second colour 1024 B down' "$TMP/one-budget.txt" &&
	grep -qx 'note: 1 colour is no colouring: a step of 4096 B spans the whole 4K way: no second colour' "$TMP/one-step.txt" &&
	grep -qx 'note: 1 colour is no colouring: policy mod takes an odd colour count: 2 rounds down to 1' "$TMP/one-mod.txt" &&
	grep -qx 'boot parameter: kstack_colour=off' "$TMP/one-budget.txt" &&
	grep -qx 'boot parameter: kstack_colour=off' "$TMP/one-step.txt" &&
	grep -qx 'boot parameter: kstack_colour=off' "$TMP/one-mod.txt"; echo $?)" \
	"one colour from --max-offset 0, --step 4096 or mod's rounding: off, each with its reason"
# No fixture's --cmdline says on with one colour; --json agrees with it.
wrong=
for f in "$FIXTURES"/*.txt "$FIXTURES"/instlatx64/*.txt; do
	line=$("$PROBE" --cpuid-file "$f" --cmdline 2>/dev/null)
	"$PROBE" --cpuid-file "$f" --json >"$TMP/f.json" 2>/dev/null
	case $line in
	kstack_colour=off) want="(1, True)" ;;
	kstack_colour=on,*) want="(${line#*,colours=}"; want="${want%%,*}, False)" ;;
	*) want=bad ;;
	esac
	if echo "$line" | grep -q 'colours=1,' || [ "$(json "$TMP/f.json" "(j['recommendation']['colours'], j['recommendation']['off'])")" != "$want" ] ||
		[ "$(json "$TMP/f.json" "j['recommendation']['cmdline']")" != "$line" ]; then
		wrong="$wrong $(basename "$f")"
	fi
done
tap "$([ -z "$wrong" ]; echo $?)" "every fixture: --cmdline is off for one colour, never on,...,colours=1, and --json agrees (wrong:${wrong:- none})"

# --- --all-cpus ----------------------------------------------------------------------
"$PROBE" --cpuid-file "$adl" --all-cpus >"$TMP/adl-all.txt"
rc=$?
tap "$([ $rc -eq 0 ] && grep -qx 'all CPUs of the dump: 2 kinds of core' "$TMP/adl-all.txt" &&
	grep -qx 'core type Core: CPUs 0-11 (12)' "$TMP/adl-all.txt" && grep -qx 'core type Atom: CPUs 12-19 (8)' "$TMP/adl-all.txt"; echo $?)" \
	"--all-cpus on Alder Lake P: 12 Core and 8 Atom CPUs"
tap "$(grep -qx 'the kernel would derive here: off, 1 colour (level 1, shift 12, max offset 2048 B, policy rr)' "$TMP/adl-all.txt" &&
	grep -qx 'the kernel would derive here: level 1, shift 12 (STACK_SHIFT_BITS), 3 colours x 1024 B, max offset 2048 B, policy rr' "$TMP/adl-all.txt"; echo $?)" \
	"--all-cpus: what the kernel would derive on each core type (off on the P-cores, 3 colours on the E-cores)"
tap "$(grep -qx 'note: the kernel derives once, on the boot CPU (CPU 0), and every CPU runs with that: kstack_colour=off' "$TMP/adl-all.txt" &&
	grep -qx 'note: CPUs 12-19 (Atom) would derive kstack_colour=on,level=1,shift=12,colours=3,step=1024,max_offset=2048,policy=rr on their own' "$TMP/adl-all.txt"; echo $?)" \
	"--all-cpus: the kernel derives once, on the boot CPU, said, and what the E-cores lose"
"$PROBE" --cpuid-file "$adl" --all-cpus --json >"$TMP/adl-all.json"
tap "$(json "$TMP/adl-all.json" "[(g['core_type'], g['cpus'][0], len(g['cpus']), g['recommendation']['colours'], g['caches'][0]['size']) for g in j['core_types']] + [j['core_type']]" |
	grep -qx "\[('Core', 0, 12, 1, 49152), ('Atom', 12, 8, 3, 32768), 'Core'\]"; echo $?)" \
	"--all-cpus --json: core_types Core (0-11, 48K L1D, 1 colour) and Atom (12-19, 32K L1D, 3 colours)"
"$PROBE" --all-cpus --no-sysfs >"$TMP/live-all.txt"
rc=$?
tap "$([ $rc -eq 0 ] && grep -Eq "^(core type [A-Za-z0-9]+: )?CPUs? [0-9,-]+ \([0-9]+\)\$" "$TMP/live-all.txt" &&
	[ "$(sed -n 's/.*CPUs\{0,1\} [0-9,-]* (\([0-9]*\))$/\1/p' "$TMP/live-all.txt" | paste -sd+ | bc)" -eq "$ncpu" ] &&
	grep -q '^note: .*the boot CPU (CPU 0)' "$TMP/live-all.txt"; echo $?)" \
	"--all-cpus on this machine: all $ncpu CPUs grouped, the boot-CPU note"
"$PROBE" --all-cpus --json --no-sysfs >"$TMP/live-all.json"
tap "$(json "$TMP/live-all.json" "sum(len(g['cpus']) for g in j['core_types'])" | grep -qx "$ncpu"; echo $?)" \
	"--all-cpus --json on this machine: every CPU in core_types"

# --- the manual page and make install -------------------------------------------------
MAN=$HERE/kcolour-probe.1
if command -v groff >/dev/null; then
	groff -man -Tutf8 -ww "$MAN" >"$TMP/man.txt" 2>"$TMP/man.err"
	rc=$?
	tap "$([ $rc -eq 0 ] && [ ! -s "$TMP/man.err" ] && [ -s "$TMP/man.txt" ]; echo $?)" \
		"kcolour-probe.1 renders with groff -man -ww, no warning: $(head -c 200 "$TMP/man.err")"
else
	tap_skip "kcolour-probe.1 renders with groff -man -ww, no warning" "no groff"
fi
sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$MAN" >"$TMP/man.src"
awk '/^\.TP/ { getline; print }' "$TMP/man.src" >"$TMP/man.tags"	# each entry's tag line
undocumented=$(for opt in $opts; do
	grep -q -- "$opt\b" "$TMP/man.tags" || echo "$opt"
done)
tap "$([ -z "$undocumented" ] && grep -q '^\.SH OPTIONS' "$MAN" && grep -q '^\.SH EXIT STATUS' "$MAN" &&
	grep -q '^\.SH EXAMPLES' "$MAN" && grep -q '^\.SH OUTPUT' "$MAN"; echo $?)" \
	"kcolour-probe.1 documents every --help option in a .TP entry, the output, exit status and examples (missing: ${undocumented:-none})"
man_version=$(sed -n 's/^\.TH .*"kcolour-probe \([0-9.]*\)".*/\1/p' "$MAN")
tap "$([ "kcolour-probe $man_version" = "$(cat "$TMP/version.txt")" ]; echo $?)" \
	"kcolour-probe.1's .TH version is --version's ($man_version)"
make -s -C "$HERE" install DESTDIR="$TMP/root" PREFIX=/usr >"$TMP/install.log" 2>&1
rc=$?
tap "$([ $rc -eq 0 ] && [ -x "$TMP/root/usr/bin/kcolour-probe" ] &&
	cmp -s "$MAN" "$TMP/root/usr/share/man/man1/kcolour-probe.1" &&
	[ "$(stat -c %a "$TMP/root/usr/share/man/man1/kcolour-probe.1")" = 644 ] &&
	"$TMP/root/usr/bin/kcolour-probe" --version | cmp -s - "$TMP/version.txt"; echo $?)" \
	"make install DESTDIR=... PREFIX=/usr: bin/kcolour-probe and share/man/man1/kcolour-probe.1 under DESTDIR"
make -s -C "$HERE" install DESTDIR="$TMP/root2" >"$TMP/install2.log" 2>&1
rc=$?
tap "$([ $rc -eq 0 ] && [ -x "$TMP/root2/usr/local/bin/kcolour-probe" ] &&
	[ -f "$TMP/root2/usr/local/share/man/man1/kcolour-probe.1" ]; echo $?)" \
	"make install: PREFIX defaults to /usr/local"
if command -v man >/dev/null; then
	MANWIDTH=80 man -l "$TMP/root/usr/share/man/man1/kcolour-probe.1" 2>"$TMP/manl.err" | grep -Eq 'kcolour-probe +- +decode +the +CPU +cache +geometry'
	rc=$?
	tap "$([ $rc -eq 0 ] && [ ! -s "$TMP/manl.err" ]; echo $?)" "man -l reads the installed page"
else
	tap_skip "man -l reads the installed page" "no man"
fi

# --- the README's --json example is the probe's real output -----------------------------
readme=$TOP/README.md
awk '/^## kcolour-probe/ { inside = 1 } inside && /^    \{$/ { on = 1 } on { print substr($0, 5) } on && /^    \}$/ { exit }' \
	"$readme" >"$TMP/readme.json"
(cd "$FIXTURES" && "$PROBE" --cpuid-file GenuineIntel00406E3_Skylake.cpuid-r.txt --json) >"$TMP/readme-real.json"
diffs=$(python3 - "$TMP/readme.json" "$TMP/readme-real.json" <<'PY'
import json, sys

def walk(a, b, path="$"):
    """Every place the README's example and the real output differ."""
    if type(a) is not type(b):
        return ["%s: %s in the README, %s for real" % (path, type(a).__name__, type(b).__name__)]
    if isinstance(a, dict):
        out = ["%s.%s: missing in the README" % (path, k) for k in b if k not in a]
        out += ["%s.%s: not in the real output" % (path, k) for k in a if k not in b]
        if list(a) != list(b) and not out:
            out.append("%s: keys in another order" % path)
        return out + [d for k in a if k in b for d in walk(a[k], b[k], "%s.%s" % (path, k))]
    if isinstance(a, list):
        if len(a) != len(b):
            return ["%s: %d items in the README, %d for real" % (path, len(a), len(b))]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in walk(x, y, "%s[%d]" % (path, i))]
    return [] if a == b else ["%s: %r in the README, %r for real" % (path, a, b)]

try:
    readme = json.load(open(sys.argv[1]))
except ValueError as e:
    print("the README's example is not JSON: %s" % e)
    sys.exit()
print("; ".join(walk(readme, json.load(open(sys.argv[2])))[:5]))
PY
)
tap "$([ -s "$TMP/readme.json" ] && [ -z "$diffs" ]; echo $?)" \
	"README's --json example is the probe's output on the Skylake fixture: keys, order and values (${diffs:-same})"

tap_end
