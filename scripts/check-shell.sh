#!/usr/bin/env bash
# Every tracked shell script is clean under shellcheck: the files named *.sh
# and those whose #! line names sh, bash or dash, each checked from the top
# of the clone with -x (so that the files it sources resolve, as its
# "# shellcheck source=" directives name them).  A script that must keep a
# pattern shellcheck warns about says so on the line before, with the
# reason: "# shellcheck disable=SCxxxx # why".  TAP output, shellcheck's
# findings as diagnostics.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. harness/tap.sh

if ! command -v shellcheck >/dev/null; then
	tap_skip "shellcheck" "shellcheck not installed (make deps)"
	tap_end
	exit 0
fi

# is_shell FILE: a file of the work tree named *.sh, or whose first line is
# a #! naming sh, bash or dash; not a run's record (docs/results/data/:
# data, such as the /run.sh a guest ran, kept as it was).
SHEBANG='^#!.*(/|[[:space:]])(sh|bash|dash)([[:space:]]|$)'
is_shell() {
	local first=
	[ -f "$1" ] || return 1
	case $1 in
	docs/results/data/*) return 1 ;;
	*.sh) return 0 ;;
	esac
	IFS= read -r first 2>/dev/null <"$1"
	[[ $first =~ $SHEBANG ]]
}

files=()
while IFS= read -r -d '' f; do
	is_shell "$f" && files+=("$f")
done < <(git ls-files -z)
[ ${#files[@]} -gt 0 ] || { echo "Bail out! git ls-files lists no shell script"; exit 1; }

for f in "${files[@]}"; do
	out=$(shellcheck -x -f gcc "$f" 2>&1)
	rc=$?
	# shellcheck disable=SC2001 # a prefix on every line
	[ -z "$out" ] || echo "$out" | sed 's/^/# /'
	tap $rc "shellcheck $f"
done
tap_end
