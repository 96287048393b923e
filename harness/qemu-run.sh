#!/usr/bin/env bash
# Usage: harness/qemu-run.sh KERNEL INITRD LOG [KERNEL_ARG ...]
#
# Boots KERNEL with INITRD (see harness/qemu.py initramfs()) under QEMU TCG,
# console on ttyS0, echoed and saved to LOG.  Extra arguments are appended
# to the kernel command line "console=ttyS0 panic=-1".
#
# Environment:
#   CPU=MODEL           QEMU -cpu model (options allowed: "Conroe,level=2");
#                       default facts.tsv's model-default
#   SMP=2               virtual CPUs (1 under DETERMINISTIC=1), one per
#                       socket: the test kernel has no ACPI, and SeaBIOS's
#                       MP table lists one CPU per package (a full -smp spec
#                       with ',' is passed as is)
#   MEM=512M            guest memory
#   TIMEOUT=180         seconds before QEMU is killed
#   DETERMINISTIC=1     -icount shift=0,sleep=off, fixed RTC and
#                       -cpu CPU,-rdrand,-rdseed (repeatable simulation runs;
#                       under icount QEMU runs every vCPU in turn on one thread)
#   SINGLE_THREAD=1     -accel tcg,thread=single: every vCPU on one host
#                       thread, without icount's determinism (a plugin
#                       with shared state and several vCPUs needs it)
#   ACCEL=kvm           KVM instead of TCG (CPU=host,pmu=on for the host's
#                       CPU and its counters, make hw-check); needs /dev/kvm
#   PIN_CPU=N           run QEMU on host CPU N only (taskset)
#   QEMU_ARGS="..."     more QEMU arguments (e.g. -plugin ...)
#
# Exit status: 0 when the initramfs printed "KCOLOUR-INIT-DONE rc=0";
# 1 when /run.sh failed (rc != 0) or the kernel logged a BUG/Oops/panic;
# 2 when the marker never came (timeout, panic, hang; the last lines of the
# log are shown).
set -euo pipefail

CPU=${CPU:-$(awk -F'\t' '$1 == "model-default" { print $2 }' "$(dirname "$0")/../facts.tsv")}
[ -n "$CPU" ] || { echo "qemu-run.sh: no CPU= and no model-default line in facts.tsv" >&2; exit 2; }
SMP=${SMP:-$([ "${DETERMINISTIC:-0}" = 1 ] && echo 1 || echo 2)}
MEM=${MEM:-512M}
TIMEOUT=${TIMEOUT:-180}
MARKER=KCOLOUR-INIT-DONE

error() { echo "error: $1" >&2; exit "${2:-1}"; }

usage() { sed -n '2,5s/^# \{0,1\}//p' "$0" >&2; exit 2; }

qemu_args() {
	local cpu=$CPU smp=$SMP
	[[ $smp == *,* ]] || smp=$smp,sockets=$smp,cores=1,threads=1
	local -a det=()
	if [ "${DETERMINISTIC:-0}" = 1 ]; then
		cpu=$cpu,-rdrand,-rdseed
		# shellcheck disable=SC2054 # the commas are QEMU's
		det=(-icount shift=0,sleep=off -rtc clock=vm,base=2020-01-01T00:00:00)
	fi
	local accel=${ACCEL:-tcg}
	[ "${SINGLE_THREAD:-0}" = 1 ] && accel=tcg,thread=single
	printf '%s\n' -accel "$accel" -m "$MEM" -smp "$smp" -cpu "$cpu" "${det[@]}" \
		-nographic -no-reboot -nic none
}

# Fail (2) with the end of the log when the marker never came.
check_log() {
	local log=$1 status=$2 rc
	# The marker is a kernel log record when the guest's lines go through
	# /dev/kmsg (harness/qemu.py's INIT): with PRINTK_TIME it has a stamp.
	if ! grep -Eq "^(\[[ 0-9.]+\] )?$MARKER rc=" "$log"; then
		echo "----- last lines of $log -----" >&2
		tail -n 25 "$log" >&2
		[ "$status" = 124 ] && error "no end marker: QEMU killed after ${TIMEOUT}s ($CPU)" 2
		grep -q 'Kernel panic' "$log" && error "no end marker: kernel panic ($CPU): $(grep -m1 'Kernel panic' "$log")" 2
		error "no end marker: the guest stopped before /init finished ($CPU; QEMU exit $status)" 2
	fi
	if grep -Eq '^(\[[ 0-9.]+\] )?(BUG: |Oops: |Kernel panic - not syncing)' "$log"; then
		grep -E '^(\[[ 0-9.]+\] )?(BUG: |Oops: |Kernel panic - not syncing)' "$log" >&2
		error "the kernel reported a BUG/Oops/panic ($CPU; log: $log)"
	fi
	rc=$(sed -En "s/^(\[[ 0-9.]+\] )?$MARKER rc=([0-9]*).*/\2/p" "$log" | tail -n 1)
	[ "$rc" = 0 ] || error "/run.sh exited with rc=$rc ($CPU; log: $log)"
}

main() {
	[ $# -ge 3 ] || usage
	local kernel=$1 initrd=$2 log=$3 status=0
	shift 3
	[ -f "$kernel" ] || error "no kernel image $kernel (make kernel)"
	[ -f "$initrd" ] || error "no initramfs $initrd"
	command -v qemu-system-x86_64 >/dev/null || error "qemu-system-x86_64 not found (apt-get install qemu-system-x86)"
	mkdir -p "$(dirname "$log")"
	local -a args extra
	mapfile -t args < <(qemu_args)
	read -ra extra <<<"${QEMU_ARGS:-}"
	local -a pin=()
	[ -n "${PIN_CPU:-}" ] && pin=(taskset -c "$PIN_CPU")
	echo "qemu: -cpu $CPU, timeout ${TIMEOUT}s, log $log"
	# stdin from /dev/null: an unattended run must not grab the terminal.
	timeout -k 5 "$TIMEOUT" "${pin[@]}" qemu-system-x86_64 "${args[@]}" "${extra[@]}" \
		-kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 $*" </dev/null 2>&1 | tee "$log" || status=${PIPESTATUS[0]}
	sed -i 's/\r$//' "$log"
	check_log "$log" "$status"
}

main "$@"
