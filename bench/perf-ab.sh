#!/usr/bin/env bash
# Usage: bench/perf-ab.sh   (make perf-ab [REPEATS=N] ...; no arguments)
#
# The hardware-counter A/B of kernel stack colouring, for a real machine
# booted into the patched kernel.  Runs the project's workloads
# (tools-probe/workloads: ring N for N in RING_NS, messaging, forkloop)
# under `perf stat -x,` counting L1-dcache-load-misses,
# L1-icache-load-misses, LLC-load-misses, cycles and instructions, with
# colouring off and on through the sysctl kernel.kstack_colour (0/1; it
# decides the colouring of tasks created after the write, so every run's
# tasks, which perf creates afresh, get the state just written).  Each case
# runs REPEATS times a state, interleaved off, on, off, on, ... (after a
# discarded warm-up pair) so that drift spreads over both, pinned to one
# CPU with taskset (on one CPU each pass of ring's token is one context
# switch, as in the cache simulator).  bench/perfab.py computes mean and
# sample standard deviation of every event and Welch's t-test of on
# against off.
#
# The rule: a difference is real when Welch's |t| > 3 (THRESHOLD), i.e. on's
# mean differs from off's by more than three combined standard errors
# sqrt(sd_off^2/n_off + sd_on^2/n_on) (so by more than two as well);
# otherwise it is noise.
#
# Steps, in order:
#   1. probe: `perf stat -x, -e EVENTS -- true`.  No perf, a perf failure
#      (perf_event_open, permissions) or an event <not supported> or
#      <not counted>: says the counters are not available here, what to
#      install or change, and exits 0 (a VM usually has no cache counters).
#   2. no KSTACK_COLOUR_SYSCTL: not a kcolour kernel, exit 1.  Not writable:
#      needs root, exit 1.
#   3. builds the workloads (make -C tools-probe/cachesim OUT=WORK/bin),
#      runs the cases, restores the sysctl's value (also on any error or
#      signal, by a trap) and writes WORK/results.md (the tables, also
#      printed on stdout), WORK/runs.csv (every run's counts), and raw/
#      (each run's perf CSV and workload output); runs.tsv lists the runs,
#      meta the machine.  Progress goes to stderr.
#
# Environment:
#   REPEATS=10        runs per state and case (at least 2)
#   WARMUP=1          discarded off/on pairs before each case's runs
#   RING_NS="2 4 8 16"  ring's task counts (empty: no ring)
#   RING_SWITCHES=200000  switches per ring run (rounds = RING_SWITCHES / N;
#                     about 0.3-1 s on current x86)
#   MSG_ARGS="1 10 5000"  messaging GROUPS FDS LOOPS (empty: no messaging)
#   FORKS=2000        forkloop's forks (empty: no forkloop)
#   EVENTS=cycles,instructions,L1-dcache-load-misses,L1-icache-load-misses,LLC-load-misses
#                     perf events, each required (where LLC-load-misses
#                     is <not supported>, as on many AMD CPUs, perf's
#                     generic cache-misses can stand in)
#   THRESHOLD=3       |t| above which a difference is real
#   PIN_CPU=N         the CPU to run on (default: the lowest this shell may
#                     use); PIN_CPU=none: no pinning
#   PERF=perf         the perf binary (the tests give a fake one)
#   KSTACK_COLOUR_SYSCTL=/proc/sys/kernel/kstack_colour  (the tests: a file)
#   WL_DIR=DIR        take ring, messaging and forkloop from DIR, no build
#   WORK=DIR          default build/perf-ab
# Exit status: 0 done, or no counters on this machine (nothing measured);
# 1 an error (not a kcolour kernel, not root, a run failed); 2 usage.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
PERFAB=$TOP/bench/perfab.py

REPEATS=${REPEATS:-10}
WARMUP=${WARMUP:-1}
RING_NS=${RING_NS-2 4 8 16}
RING_SWITCHES=${RING_SWITCHES:-200000}
MSG_ARGS=${MSG_ARGS-1 10 5000}
FORKS=${FORKS-2000}
EVENTS=${EVENTS:-cycles,instructions,L1-dcache-load-misses,L1-icache-load-misses,LLC-load-misses}
THRESHOLD=${THRESHOLD:-3}
PIN_CPU=${PIN_CPU:-}
PERF=${PERF:-perf}
SYSCTL=${KSTACK_COLOUR_SYSCTL:-/proc/sys/kernel/kstack_colour}
WL_DIR=${WL_DIR:-}
WORK=${WORK:-$TOP/build/perf-ab}
PARANOID_FILE=/proc/sys/kernel/perf_event_paranoid

ORIG=""		# the sysctl's value at the start, once read: the trap restores it
TMP=""		# the probe's files
CASES=()	# "NAME WORKLOAD ARG..."

say() { echo "[perf-ab] $*" >&2; }
error() { echo "perf-ab: error: $*" >&2; exit 1; }
usage() { echo "perf-ab: $*" >&2; exit 2; }

# unavailable WHAT REASON: no counters here (WHAT: supported or available);
# say so, with advice, and exit 0.
unavailable() {
	local paranoid
	paranoid=$(cat "$PARANOID_FILE" 2>/dev/null || echo "?")
	echo "perf-ab: hardware cache counters are not $1 on this machine ($2);"
	echo "perf-ab needs real hardware with the patched kernel; no numbers produced."
	case $2 in
	*"not installed"*)
		echo "  Install perf: Debian: apt-get install linux-perf;" \
			"Ubuntu: apt-get install linux-tools-\$(uname -r); Fedora: dnf install perf."
		;;
	*)
		if [ "$(id -u)" -eq 0 ]; then
			echo "  Running as root: perf_event_paranoid ($paranoid) is not the cause."
		else
			echo "  perf_event_paranoid is $paranoid: as a user, kernel counts need 1 or less" \
				"(sysctl kernel.perf_event_paranoid=1);"
			echo "  or run as root (sudo make perf-ab), which switching the sysctl needs anyway."
		fi
		echo "  In a VM the host must expose the PMU (QEMU/KVM: -cpu host, vPMU on)."
		echo "  Where only LLC-load-misses is missing (many AMD CPUs), perf's generic"
		echo "  cache-misses can stand in: make perf-ab" \
			"EVENTS=cycles,instructions,L1-dcache-load-misses,L1-icache-load-misses,cache-misses"
		;;
	esac
	exit 0
}

# restore: put the sysctl back to ORIG, if it was read, and check; then
# forget ORIG.  Non-zero (with a warning) if that failed.
restore() {
	local now=""
	[ -n "$ORIG" ] || return 0
	if printf '%s\n' "$ORIG" 2>/dev/null >"$SYSCTL" &&
		now=$(cat "$SYSCTL" 2>/dev/null) && [ "$now" = "$ORIG" ]; then
		say "restored $SYSCTL to $ORIG"
		ORIG=""
		return 0
	fi
	echo "perf-ab: WARNING: could not restore $SYSCTL to $ORIG (it reads" \
		"'${now:-?}'); do it by hand" >&2
	ORIG=""
	return 1
}

# cleanup: the EXIT trap: restore the sysctl, remove the probe's files; keeps
# the exit status (1 if it was 0 but the restore failed).
cleanup() {
	local rc=$?
	[ -z "$TMP" ] || rm -rf "$TMP"
	restore || [ "$rc" -ne 0 ] || rc=1
	exit "$rc"
}

# set_colour 0|1: write the sysctl and check that it took.
set_colour() {
	local now
	printf '%s\n' "$1" 2>/dev/null >"$SYSCTL" || error "cannot write $1 to $SYSCTL"
	now=$(cat "$SYSCTL") || error "cannot read $SYSCTL"
	[ "$now" = "$1" ] || error "wrote $1 to $SYSCTL but it reads $now"
}

check_args() {
	local v
	for v in REPEATS WARMUP RING_SWITCHES; do
		[[ ${!v} =~ ^[0-9]+$ ]] || usage "$v must be a non-negative integer, not '${!v}'"
	done
	[[ $FORKS =~ ^[0-9]*$ ]] || usage "FORKS must be a number of forks or empty, not '$FORKS'"
	[ "$REPEATS" -ge 2 ] || usage "REPEATS must be at least 2 (a standard deviation needs two runs)"
	[[ $THRESHOLD =~ ^[0-9]+([.][0-9]+)?$ ]] || usage "THRESHOLD must be a number, not '$THRESHOLD'"
	[[ $PIN_CPU =~ ^([0-9]+|none|)$ ]] || usage "PIN_CPU must be a CPU number or none, not '$PIN_CPU'"
	for v in $RING_NS; do
		if ! [[ $v =~ ^[0-9]+$ ]] || [ "$v" -lt 2 ] || [ "$v" -gt 64 ]; then
			usage "RING_NS: each N must be in 2..64, not '$v'"
		fi
		[ "$RING_SWITCHES" -ge "$v" ] || usage "RING_SWITCHES ($RING_SWITCHES) is below N=$v"
	done
}

# Step 1: are the counters there?
probe() {
	local csv=$TMP/probe.csv err=$TMP/probe.err reason rc=0
	command -v "$PERF" >/dev/null 2>&1 ||
		unavailable available "perf is not installed: '$PERF' not found"
	if ! "$PERF" stat -x, -o "$csv" -e "$EVENTS" -- true >/dev/null 2>"$err"; then
		reason=$(grep -v '^[[:space:]]*$' "$err" | head -n 3 | tr '\n' ' ' | sed 's/ *$//')
		unavailable available "perf stat failed: ${reason:-no message}"
	fi
	python3 "$PERFAB" probe "$csv" "$EVENTS" 2>"$err" || rc=$?
	case $rc in
	0) ;;
	3) unavailable supported "$(cat "$err")" ;;
	*) error "cannot read perf's probe output ($csv): $(cat "$err")" ;;
	esac
	say "counters: $EVENTS all counted"
}

# Step 2: a kcolour kernel, and the right to switch it.
check_sysctl() {
	local v
	[ -e "$SYSCTL" ] || error "not running a kcolour kernel: $SYSCTL does not exist" \
		"(boot the patched kernel, CONFIG_KSTACK_COLOUR=y; uname -r: $(uname -r))"
	[ -w "$SYSCTL" ] || error "cannot write $SYSCTL: switching colouring needs root" \
		"(sudo make perf-ab)"
	ORIG=$(cat "$SYSCTL")
	case $ORIG in
	0 | 1) ;;
	*) v=$ORIG; ORIG=""; error "$SYSCTL reads '$v', not 0 or 1" ;;
	esac
	say "$SYSCTL is $ORIG (restored at the end)"
}

build_workloads() {
	local wl
	if [ -z "$WL_DIR" ]; then
		WL_DIR=$WORK/bin
		say "building the workloads in ${WL_DIR#"$TOP"/}"
		make -s -C "$TOP/tools-probe/cachesim" OUT="$WL_DIR" all >&2 ||
			error "building the workloads failed (make -C tools-probe/cachesim OUT=$WL_DIR all)"
	fi
	for wl in ring messaging forkloop; do
		[ -x "$WL_DIR/$wl" ] || error "no workload $WL_DIR/$wl"
	done
}

make_cases() {
	local n
	for n in $RING_NS; do
		CASES+=("ring-$n ring $n $((RING_SWITCHES / n))")
	done
	[ -z "$MSG_ARGS" ] || CASES+=("messaging messaging $MSG_ARGS")
	[ -z "$FORKS" ] || CASES+=("forkloop forkloop $FORKS")
	[ ${#CASES[@]} -gt 0 ] || usage "no cases (RING_NS, MSG_ARGS and FORKS are all empty)"
}

# run_one CASE STATE REP: one perf stat run; REP 0 is a warm-up (not listed).
run_one() {
	local name=$1 state=$2 rep=$3 base words wl pin=()
	local -a cmd
	read -ra words <<<"${CASE_LINE[$name]}"
	wl=${words[1]}
	cmd=("$WL_DIR/$wl" "${words[@]:2}")
	[ "$PIN_CPU" = none ] || pin=(taskset -c "$PIN_CPU")
	base=raw/$name-$state-$rep
	if [ "$state" = on ]; then set_colour 1; else set_colour 0; fi
	if ! "${pin[@]}" "$PERF" stat -x, -o "$WORK/$base.csv" -e "$EVENTS" -- "${cmd[@]}" \
		>"$WORK/$base.out" 2>"$WORK/$base.err"; then
		sed 's/^/    /' "$WORK/$base.err" | tail -n 5 >&2
		error "$name ($state, run $rep) failed: ${pin[*]} $PERF stat ... -- ${cmd[*]}"
	fi
	[ "$rep" -eq 0 ] ||
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$wl" "$wl ${words[*]:2}" "$state" "$rep" \
			"$base.csv" "$base.out" >>"$WORK/runs.tsv"
}

write_meta() {
	local cpu
	cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
	{
		echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "kernel=$(uname -r)"
		echo "cpu=${cpu:-$(uname -m)}"
		echo "perf=$("$PERF" version 2>/dev/null | head -n 1)"
		echo "pin=$([ "$PIN_CPU" = none ] && echo "no CPU (PIN_CPU=none)" || echo "CPU $PIN_CPU (taskset)")"
		echo "paranoid=$(cat "$PARANOID_FILE" 2>/dev/null || echo "?")"
		echo "events=$EVENTS"
		echo "repeats=$REPEATS"
		echo "warmup=$WARMUP"
		echo "sysctl=$SYSCTL (was $ORIG)"
	} >"$WORK/meta"
}

main() {
	local entry name i start=$SECONDS t0
	declare -gA CASE_LINE=()
	[ $# -eq 0 ] || usage "usage: make perf-ab (settings in the environment; see bench/perf-ab.sh)"
	check_args
	trap cleanup EXIT
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/perf-ab.XXXXXX")
	probe
	check_sysctl
	if [ -z "$PIN_CPU" ]; then
		PIN_CPU=$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')
	fi
	[ "$PIN_CPU" = none ] || command -v taskset >/dev/null ||
		error "taskset not found (apt-get install util-linux), or PIN_CPU=none"
	make_cases
	build_workloads
	rm -rf "$WORK/raw" "$WORK/results.md" "$WORK/runs.csv"
	mkdir -p "$WORK/raw" || error "cannot create $WORK/raw"
	printf 'case\tworkload\tcmd\tstate\trep\tcsv\tout\n' >"$WORK/runs.tsv"
	write_meta
	say "${#CASES[@]} cases x $REPEATS runs x off/on (+$WARMUP warm-up pair each)"
	for entry in "${CASES[@]}"; do
		name=${entry%% *}
		CASE_LINE[$name]=$entry
		t0=$SECONDS
		for ((i = 0; i < WARMUP; i++)); do
			run_one "$name" off 0
			run_one "$name" on 0
		done
		for ((i = 1; i <= REPEATS; i++)); do
			run_one "$name" off "$i"
			run_one "$name" on "$i"
		done
		say "$name: ${entry#* } done ($((SECONDS - t0)) s)"
	done
	restore || exit 1
	python3 "$PERFAB" report "$WORK" --threshold "$THRESHOLD" ||
		error "the report failed (the runs are in ${WORK#"$TOP"/})"
	say "results: ${WORK#"$TOP"/}/results.md, runs.csv, raw/ ($((SECONDS - start)) s)"
}

main "$@"
