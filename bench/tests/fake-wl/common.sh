# shellcheck shell=bash
# Sourced by the fake workloads (bench/tests/fake-wl), not run.
#   FAKE_WL_FAIL=NAME   workload NAME fails (exit 1, a message on stderr)
#   FAKE_WL_SLEEP=S     every workload sleeps S seconds first

# fake_wl NAME: the common part of workload NAME.
fake_wl() {
	[ -z "${FAKE_WL_SLEEP:-}" ] || sleep "$FAKE_WL_SLEEP"
	if [ "${FAKE_WL_FAIL:-}" = "$1" ]; then
		echo "$1: fake failure (FAKE_WL_FAIL=$1)" >&2
		exit 1
	fi
}
