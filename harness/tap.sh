# shellcheck shell=bash
# The shell TAP helper (harness/tap.py is Python's, harness/tap.h C's):
# source it, do not run it.
#
#   tap STATUS TEXT        one TAP line: "ok N - TEXT" when STATUS is 0
#   tap_skip TEXT REASON   "ok N - TEXT # SKIP REASON": a check that cannot
#                          run here; the suite runner counts it as a skip
#   tap_forward PREFIX     re-emit the ok / not ok / skip lines read on stdin
#                          as this script's own, TEXT prefixed with
#                          "PREFIX: "; other lines starting with "#" pass
#                          through.  Feed it with a redirection or a
#                          here-string, not a pipe (a pipe would count in a
#                          subshell)
#   tap_end                the plan line; returns non-zero on any failure

TAP_N=0
TAP_FAILED=0

tap() {
	TAP_N=$((TAP_N + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $TAP_N - $2"
	else
		echo "not ok $TAP_N - $2"
		TAP_FAILED=$((TAP_FAILED + 1))
	fi
}

tap_skip() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $1 # SKIP $2"
}

tap_forward() {
	local line
	while IFS= read -r line; do
		case $line in
		"ok "*" # SKIP"*)
			line=${line#ok * - }
			tap_skip "$1: ${line%% # SKIP*}" "${line#* # SKIP }"
			;;
		"ok "*) tap 0 "$1: ${line#ok * - }" ;;
		"not ok "*) tap 1 "$1: ${line#not ok * - }" ;;
		"Bail out!"*) tap 1 "$1: $line" ;;
		"#"*) echo "$line" ;;
		esac
	done
}

tap_end() {
	echo "1..$TAP_N"
	[ "$TAP_FAILED" -eq 0 ]
}
