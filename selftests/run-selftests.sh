#!/usr/bin/env bash
# Usage: selftests/run-selftests.sh [check|full]     (make selftests, make check,
#                                                    make check-full)
#
# The selftest matrix of selftests/cases.tsv under QEMU TCG: the cases of
# the set (check: make check's; full: all of them), or only those whose
# name matches CASES="regex".  Every boot uses the one test image (every
# feature built in, selected at boot; the debug cases its KASAN + lockdep
# twin, built in its own object directory) and one initramfs holding
# busybox, the kstack_colour kselftests, the upstream x86 (32- and
# 64-bit), ptrace, breakpoints and clone3 selftests and kcolour-probe, all
# static;
# kcolour.tests= on the command line picks what runs (guest-run.sh).
#
# JOBS=2 boots run at once, each on one vCPU (the hotplug case has two).
# A progress line per boot; then the upstream programs are judged off
# against on (compare-upstream.py: a case "X/off" against "X" and every
# "X+variant"), and a summary table.  Logs and TAP in
# build/selftests/.  TAP on stdout; exit 1 on any failure.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
OUT=$BUILD/selftests
TREE=$BUILD/linux
SET=${1:-check}
JOBS=${JOBS:-2}
TEST_FRAGMENTS="qemu-test.config kcolour.config kcolour-task.config kcolour-test.config"
DEBUG_FRAGMENTS="$TEST_FRAGMENTS kcolour-debug.config"
SELFTESTS=$TREE/tools/testing/selftests
. "$ROOT/scripts/tap-lib.sh"

say() { echo "[selftests] $*"; }
bail() { echo "Bail out! $*"; exit 1; }

# The cases to run: "name<TAB>model<TAB>smp<TAB>image<TAB>append<TAB>tests<TAB>expect".
select_cases() {
	awk -F'\t' -v set="$SET" -v pick="${CASES:-}" '
		/^#/ || NF < 8 { next }
		(set == "full" || $1 == set) && (pick == "" || $2 ~ pick) {
			print $2 "\t" $3 "\t" $4 "\t" $5 "\t" $6 "\t" $7 "\t" $8
		}' "$ROOT/selftests/cases.tsv"
}

# build_image VAR WHAT FRAGMENTS [OBJNAME]: builds (or finds in the cache)
# an image in its own object directory (build/obj/OBJNAME, by default
# named after the fragments); its path goes into VAR.
build_image() {
	local log=$OUT/kernel-$2.log
	say "kernel: the $2 image (progress in $log)"
	NAME=${4:-} FRAGMENTS=$3 bash "$ROOT/scripts/kernel-build.sh" >"$log" 2>&1 ||
		bail "kernel build failed (see $log)"
	printf -v "$1" '%s' "$(sed -n 's/^\[kernel-build\] kernel: //p' "$log" | tail -n 1)"
}

# The guest programs, static: kcolour's kselftests and probe, and the
# upstream selftests (x86's in their 32- and 64-bit builds).
build_guest() {
	local bin=$OUT/bin upstream=$OUT/upstream hdr=$OUT/usr dir
	rm -rf "$bin" "$upstream"
	mkdir -p "$bin" "$upstream"
	say "guest programs: uapi headers, kselftests, upstream selftests, probe, static"
	make -s -C "$TREE" O="$OUT/hdr-obj" headers_install INSTALL_HDR_PATH="$hdr" \
		>"$OUT/guest-build.log" 2>&1 || bail "headers_install failed (see $OUT/guest-build.log)"
	local -a flags=(CC="gcc -static" KHDR_INCLUDES="-isystem $hdr/include")
	make -s -C "$SELFTESTS/kstack_colour" OUTPUT="$bin" "${flags[@]}" \
		>>"$OUT/guest-build.log" 2>&1 || bail "building the kselftests failed (see $OUT/guest-build.log)"
	make -s -C "$SELFTESTS/x86" all_32 all_64 OUTPUT="$upstream" "${flags[@]}" \
		>>"$OUT/guest-build.log" 2>&1 || bail "building the x86 selftests failed (see $OUT/guest-build.log)"
	for dir in ptrace breakpoints clone3; do
		make -s -C "$SELFTESTS/$dir" OUTPUT="$upstream" "${flags[@]}" \
			>>"$OUT/guest-build.log" 2>&1 || bail "building the $dir selftests failed (see $OUT/guest-build.log)"
	done
	# Programs that bring the kernel down under TCG with or without
	# colouring do not run (selftests/upstream-known.tsv says why).
	awk -F'\t' '!/^#/ && $2 == "skip" { print $1 }' "$ROOT/selftests/upstream-known.tsv" \
		>"$OUT/upstream.skip"
	make -s -C "$ROOT/tools-probe" guest OUT="$bin" >>"$OUT/guest-build.log" 2>&1 ||
		bail "building the guest probe failed (see $OUT/guest-build.log)"
	bash "$ROOT/selftests/mkinitramfs.sh" "$OUT/initramfs.cpio.gz" \
		"$ROOT/selftests/guest-run.sh:/run.sh" \
		"$bin/kstack_colour_test:/bin/kstack_colour_test" \
		"$bin/kstack_colour_stress:/bin/kstack_colour_stress" \
		"$bin/kcolour-probe:/bin/kcolour-probe" \
		"$upstream:/upstream" "$OUT/upstream.skip:/upstream.skip" >/dev/null ||
		bail "building the initramfs failed"
	say "initramfs: $(find "$upstream" -type f | wc -l) upstream programs"
}

case_file() { echo "$OUT/cases/${1//[^A-Za-z0-9_.+=-]/_}"; }

# run_case NAME MODEL SMP IMAGE APPEND TESTS EXPECT: one boot, its TAP in
# FILE.tap, its upstream results in FILE.upstream, a line in FILE.summary.
run_case() {
	local name=$1 model=$2 smp=$3 image=$4 append=$5 tests=$6 expect=$7
	local file kernel mem=512M timeout=600 rc start=$SECONDS
	file=$(case_file "$name")
	kernel=$TEST_KERNEL
	if [ "$image" = debug ]; then
		kernel=$DEBUG_KERNEL mem=1G timeout=900
	fi
	[ "$append" = - ] && append=""
	[ "$expect" = - ] && expect=""
	# shellcheck disable=SC2086 # the kernel arguments are words
	CPU=$model SMP=$smp MEM=$mem TIMEOUT=$timeout bash "$ROOT/selftests/qemu-run.sh" \
		"$kernel" "$OUT/initramfs.cpio.gz" "$file.log" $append "kcolour.tests=$tests" \
		>/dev/null 2>&1
	rc=$?
	{
		tap "$rc" "boots and runs the tests to the end (qemu-run exit $rc)"
		python3 "$ROOT/selftests/parse-results.py" "$file.log" --upstream "$file.upstream" \
			${expect:+--expect "$expect"} \
			$([[ $append == *kstack_colour=off* ]] && echo --allow-skip)
	} >"$file.tap"
	printf '%-32s %6d %6d %5ds\n' "$name" "$(grep -c '^ok' "$file.tap")" \
		"$(grep -c '^not ok' "$file.tap")" $((SECONDS - start)) >"$file.summary"
}

mkdir -p "$OUT/cases"
rm -f "$OUT"/cases/*
mapfile -t cases < <(select_cases)
[ ${#cases[@]} -gt 0 ] || bail "no case of set '$SET' matches CASES='${CASES:-}'"
build_image TEST_KERNEL test "$TEST_FRAGMENTS"
DEBUG_KERNEL=""
if printf '%s\n' "${cases[@]}" | cut -f4 | grep -qx debug; then
	build_image DEBUG_KERNEL debug "$DEBUG_FRAGMENTS" debug
fi
# The selftest sources live in the patched tree; an image cache hit does
# not need the tree, so lay it when it is missing.
if [ ! -d "$SELFTESTS/kstack_colour" ]; then
	say "tree: base + series (for the selftest sources)"
	bash "$ROOT/scripts/kernel-tree.sh" >"$OUT/tree.log" 2>&1 || bail "make tree failed (see $OUT/tree.log)"
fi
build_guest

say "${#cases[@]} boots, $JOBS at a time"
started=0
done_count=0
report_done() {
	local f
	for f in "$OUT"/cases/*.summary; do
		[ -e "$f" ] && [ ! -e "$f.shown" ] || continue
		done_count=$((done_count + 1))
		say "$done_count/${#cases[@]} $(cat "$f")"
		touch "$f.shown"
	done
}
for c in "${cases[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
		wait -n
		report_done
	done
	IFS=$'\t' read -r name model smp image append tests expect <<<"$c"
	run_case "$name" "$model" "$smp" "$image" "$append" "$tests" "$expect" &
	started=$((started + 1))
done
wait
report_done

summary=()
for c in "${cases[@]}"; do
	name=${c%%$'\t'*}
	file=$(case_file "$name")
	tap_forward "$name" <"$file.tap"
	summary+=("$(cat "$file.summary")")
done

# The differential: X/off against X, and against each X+variant (X+task).
for c in "${cases[@]}"; do
	name=${c%%$'\t'*}
	off=$(case_file "$name")
	[[ $name == */off ]] && [ -s "$off.upstream" ] || continue
	for d in "${cases[@]}"; do
		on=${d%%$'\t'*}
		[[ $on == "${name%/off}" || $on == "${name%/off}+"* ]] || continue
		file=$(case_file "$on")
		[ -s "$file.upstream" ] || continue
		python3 "$ROOT/selftests/compare-upstream.py" "$on" "$off.upstream" "$file.upstream" \
			>"$file.compare"
		tap_forward "upstream off vs on" <"$file.compare"
		summary+=("$(printf '%-32s %6d %6d' "$on: upstream off vs on" \
			"$(grep -c '^ok' "$file.compare")" "$(grep -c '^not ok' "$file.compare")")")
	done
done

echo "# $(printf '%-32s %6s %6s %6s' case passed failed time)"
for s in "${summary[@]}"; do echo "# $s"; done
tap_end
