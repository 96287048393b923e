#!/usr/bin/env bash
# Usage: scripts/kernel-bisect-check.sh     (make bisect-check [FRAGMENTS=...])
#
# Builds bzImage at every commit of the series in build/linux (base +
# kernel-patches/, `make tree` first if needed), with every fragment of the
# test image whose options that commit has, in its own object dir, and prints one line per commit: ok or
# FAIL, the subject and the compiler warnings counted.  The series bisects
# when every line is "ok" with 0 warnings.  Restores the branch at the end.
# About a minute a commit with a warm ccache, several without.
set -euo pipefail
. "$(dirname "$0")/kernel-lib.sh"

[ -d "$TREE/.git" ] || bash "$ROOT/scripts/kernel-tree.sh"
reason=$(tree_unsaved)
[ -z "$reason" ] || error "$reason"

branch=$(git -C "$TREE" symbolic-ref --short HEAD)
restore() { git -C "$TREE" checkout -q "$branch"; }
trap restore EXIT

failed=0
for c in $(git -C "$TREE" rev-list --reverse kcolour-base..HEAD); do
	git -C "$TREE" checkout -q "$c"
	# Every fragment whose options this commit already has.
	frags=qemu-test.config
	grep -q '^config KSTACK_COLOUR$' "$TREE/arch/x86/Kconfig" && frags+=" kcolour.config"
	grep -q '^config TASK_STRUCT_COLOUR$' "$TREE/arch/x86/Kconfig" && frags+=" kcolour-task.config"
	grep -q '^config KSTACK_COLOUR_KUNIT_TEST$' "$TREE/arch/x86/Kconfig" && frags+=" kcolour-test.config"
	# A checkout that is not the series is built as it is, and not cached.
	if FRAGMENTS=$frags NAME=bisect-check bash "$ROOT/scripts/kernel-build.sh" \
		>"$BUILD/bisect-check.log" 2>&1; then
		r=ok
	else
		r=FAIL
		failed=1
	fi
	if grep -q 'cache hit' "$BUILD/bisect-check.log"; then
		w="image cached from an earlier build of the whole series"
	else
		w="warnings: $(grep -c 'warning:' "$BUILD/obj/bisect-check/build.log" || true)"
	fi
	echo "$r $(git -C "$TREE" log -1 --format='%h %s' "$c") [$frags] ($w)"
done
exit $failed
