#!/usr/bin/env bash
# Usage: tools-probe/cachesim/run-e2e.sh [WORKLOAD ARGS...]   (default: ring 8 200)
#
# End-to-end check of the kcolour-cachesim plugin: builds the plugin and
# the workloads, packs the workloads into a busybox initramfs
# (selftests/mkinitramfs.sh), boots a kernel under deterministic QEMU TCG
# (selftests/qemu-run.sh DETERMINISTIC=1, kernel command line nokaslr) with
# the plugin RUNS times, shows the results of the first run, checks that
# every run gave identical counts, and boots once more without the plugin
# to compare run times (wall and QEMU CPU seconds).
#
# Environment:
#   KERNEL=build/obj/qemu-test+kcolour+kcolour-test/arch/x86/boot/bzImage
#   SYSTEM_MAP=<the kernel's System.map>  text/data boundaries for the plugin
#                       (default: System.map of the kernel's build or image dir)
#   SCRATCH=build/scratch-cachesim   work dir (the kernel is copied there)
#   RUNS=2              plugin runs to compare
#   PLUGIN_ARGS=""      extra plugin arguments, comma-separated (l1d_size=48K,...)
#   KERNEL_ARGS=""      more kernel arguments (e.g. kstack_colour=off)
#   CPU=Skylake-Client  TIMEOUT=900 MEM=512M   passed to qemu-run.sh
# Exit status: 0 when every run passed and the counts were identical.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
KERNEL=${KERNEL:-$TOP/build/obj/qemu-test+kcolour+kcolour-test/arch/x86/boot/bzImage}
SCRATCH=${SCRATCH:-$TOP/build/scratch-cachesim}
RUNS=${RUNS:-2}
export TIMEOUT=${TIMEOUT:-900}

error() { echo "error: $*" >&2; exit 1; }

find_system_map() {
	local dir
	dir=$(dirname "$KERNEL")
	for m in "$dir/System.map" "$dir/../../../System.map"; do
		[ -f "$m" ] && { echo "$m"; return; }
	done
	return 0
}

# text=_text-_etext,data=_etext-_end from System.map (hex without 0x).
layout_args() {
	local map=$1 text etext end
	text=$(awk '$3 == "_text" { print $1 }' "$map")
	etext=$(awk '$3 == "_etext" { print $1 }' "$map")
	end=$(awk '$3 == "_end" { print $1 }' "$map")
	if [ -z "$text" ] || [ -z "$etext" ] || [ -z "$end" ]; then
		error "$map lacks _text, _etext or _end"
	fi
	echo "text=$text-$etext,data=$etext-$end"
}

# boot NAME [QEMU_ARGS]: one deterministic boot.  Wall, user and system
# seconds (QEMU's CPU time counts; the machine may be busy) in $WORK/NAME.time.
boot() {
	local name=$1 status=0 wall user sys TIMEFORMAT='%R %U %S'
	local -a kargs
	read -ra kargs <<<"${KERNEL_ARGS:-}"
	{
		time DETERMINISTIC=1 QEMU_ARGS=${2:-} "$TOP/selftests/qemu-run.sh" \
			"$WORK/bzImage" "$WORK/initramfs.cpio.gz" "$WORK/$name.log" \
			nokaslr quiet "${kargs[@]}" >/dev/null 2>"$WORK/$name.err" || status=$?
	} 2>"$WORK/$name.time"
	if [ "$status" != 0 ]; then
		cat "$WORK/$name.err" >&2
		error "boot $name failed (log: $WORK/$name.log)"
	fi
	read -r wall user sys <"$WORK/$name.time"
	printf '%-10s wall %6.1f s  cpu %6.1f s   %s\n' "$name" "$wall" \
		"$(echo "$user + $sys" | bc)" \
		"$(grep -m1 -oE '(ring|messaging|forkloop) [a-z]+=.*' "$WORK/$name.log" || true)"
}

cpu_seconds() {
	local wall user sys
	read -r wall user sys <"$WORK/$1.time"
	echo "$user + $sys" | bc
}

main() {
	local -a workload=("$@")
	local map layout so i
	[ ${#workload[@]} -gt 0 ] || workload=(ring 8 200)
	command -v bc >/dev/null || error "bc not found (apt-get install bc)"
	[ -f "$KERNEL" ] || error "no kernel image $KERNEL (set KERNEL=)"
	map=${SYSTEM_MAP:-$(find_system_map)}
	[ -n "$map" ] || error "no System.map next to $KERNEL (set SYSTEM_MAP=)"

	WORK=$SCRATCH/e2e
	mkdir -p "$WORK"
	# Copies: the kernel build dir may be rebuilt while QEMU runs.
	cp "$KERNEL" "$WORK/bzImage"
	cp "$map" "$WORK/System.map"
	layout=$(layout_args "$WORK/System.map")

	make -s -C "$TOP/tools-probe/cachesim" OUT="$SCRATCH/out" all
	"$SCRATCH/out/test-cachesim" >"$WORK/unit.tap" || error "unit tests failed: $WORK/unit.tap"
	echo "unit tests: $(grep -c '^ok' "$WORK/unit.tap") passed"

	cat >"$WORK/run.sh" <<-EOF
		set -e
		${workload[*]}
	EOF
	"$TOP/selftests/mkinitramfs.sh" "$WORK/initramfs.cpio.gz" \
		"$SCRATCH/out/ring:/bin/ring" "$SCRATCH/out/messaging:/bin/messaging" \
		"$SCRATCH/out/forkloop:/bin/forkloop" "$WORK/run.sh:/run.sh" >/dev/null

	so=$SCRATCH/out/kcolour-cachesim.so
	echo "workload: ${workload[*]}; kernel: $KERNEL ${KERNEL_ARGS:-}"
	echo "plugin: $so,$layout${PLUGIN_ARGS:+,$PLUGIN_ARGS}"
	for i in $(seq 1 "$RUNS"); do
		rm -f "$WORK/cachesim-$i.txt"
		boot "plugin-$i" "-plugin $so,$layout${PLUGIN_ARGS:+,$PLUGIN_ARGS},out=$WORK/cachesim-$i.txt"
		[ -s "$WORK/cachesim-$i.txt" ] || error "plugin run $i wrote no results"
	done
	boot plain

	echo "whole boot, CPU time with the plugin / without: $(echo "scale=2; $(cpu_seconds plugin-1) / $(cpu_seconds plain)" | bc)"
	echo "----- results ($WORK/cachesim-1.txt) -----"
	cat "$WORK/cachesim-1.txt"
	for i in $(seq 2 "$RUNS"); do
		cmp -s "$WORK/cachesim-1.txt" "$WORK/cachesim-$i.txt" ||
			error "runs 1 and $i differ: diff $WORK/cachesim-1.txt $WORK/cachesim-$i.txt"
	done
	grep -q '^cachesim phase=0 complete=1 ' "$WORK/cachesim-1.txt" ||
		error "no complete phase: did the workload reach its marker?"
	echo "determinism: $RUNS runs gave identical counts"
}

main "$@"
