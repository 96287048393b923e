#!/usr/bin/env bash
# Fuzz the dump parser + decoder + derivation with libFuzzer for a bounded
# time, seeded with the fixtures.  TAP output; a crash, a sanitizer report
# or a broken invariant fails (the reproducer is kept in the work dir).
# SECONDS is the fuzzing in all, spread over the cores (libFuzzer's -fork):
# 60 on 2 cores is 30 s of two fuzzers.
#
# usage: fuzz.sh FIXTURES WORKDIR [SECONDS]
set -uo pipefail
FIXTURES=${1:?usage: fuzz.sh FIXTURES WORKDIR [SECONDS]}
WORK=${2:?usage: fuzz.sh FIXTURES WORKDIR [SECONDS]}
SECONDS_MAX=${3:-60}
JOBS=$(nproc)
HERE=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/../../harness/tap.sh
. "$HERE/../harness/tap.sh"

mkdir -p "$WORK/corpus" "$WORK/seeds"
if ! clang -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all -I"$HERE/include" -I"$HERE" -o "$WORK/fuzz-dump" \
	"$HERE/tests/fuzz-dump.c" "$HERE/cpuid_dump.c" "$HERE/lib/kcolour_decode.c" \
	"$HERE/lib/kcolour_geom.c" 2>"$WORK/build.log"; then
	sed 's/^/# /' "$WORK/build.log"
	tap 1 "build the libFuzzer target"
	tap_end
	exit 1
fi
tap 0 "build the libFuzzer target"

# Seeds: the first 8 KiB of every fixture, CPU byte 0 in front.
for f in "$FIXTURES"/*.txt "$FIXTURES"/instlatx64/*.txt; do
	{ printf '\0'; head -c 8192 "$f"; } >"$WORK/seeds/$(basename "$f")"
done

cd "$WORK" || exit 1
./fuzz-dump -runs=0 seeds >replay.log 2>&1
tap $? "every fixture seed runs clean"
fork=()
[ "$JOBS" -gt 1 ] && fork=(-fork="$JOBS")
./fuzz-dump "${fork[@]}" -max_total_time=$((SECONDS_MAX / JOBS)) -max_len=16384 -timeout=10 \
	-rss_limit_mb=1024 -print_final_stats=1 corpus seeds >fuzz.log 2>&1
rc=$?
# The final statistics: a plain run's, or the last line of a -fork run's.
grep -E "^(Done|stat::)" fuzz.log | sed "s/^/# /"
grep -E "^#[0-9]+: cov:" fuzz.log | tail -n 1 | sed "s/^/# /"
tap $rc "${SECONDS_MAX}s of fuzzing ($JOBS at a time): no crash, leak or broken invariant"
tap_end
