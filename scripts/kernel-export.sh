#!/usr/bin/env bash
# Usage: scripts/kernel-export.sh        (make export)
#
# Writes the commits kcolour-base..HEAD of build/linux to
# kernel-patches/NNNN-subject.patch plus kernel-patches/series, and
# removes .patch files the series no longer lists.  The output is stable:
# exporting unchanged commits again gives byte-identical files (zero
# commit ids in the From line, no signature, fixed abbreviation, and no
# global git settings).  Uncommitted changes are not exported.
set -euo pipefail
# shellcheck source=scripts/kernel-lib.sh
. "$(dirname "$0")/kernel-lib.sh"

TMP=""

# Global and system git settings (diff.algorithm, format.*...) would change
# the output from one machine to the next: ignore them.
format_patches() {
	GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 \
		git -C "$TREE" -c core.abbrev=12 format-patch -q --zero-commit --no-signature \
		--abbrev=12 --no-cover-letter --no-thread --no-numbered -o "$TMP" kcolour-base..HEAD
}

# Move the new patches into kernel-patches/, touching only changed files.
install_patches() {
	local p changed=0
	local -a new
	mapfile -t new < <(cd "$TMP" && find . -maxdepth 1 -name '*.patch' -printf '%f\n' | LC_ALL=C sort)
	mkdir -p "$PATCHES"
	for p in "${new[@]}"; do
		cmp -s "$TMP/$p" "$PATCHES/$p" && continue
		mv "$TMP/$p" "$PATCHES/$p"
		say "wrote kernel-patches/$p"
		changed=$((changed + 1))
	done
	for p in "$PATCHES"/*.patch; do
		[ -e "$p" ] || continue
		printf '%s\n' "${new[@]}" | grep -qxF -- "$(basename "$p")" && continue
		rm -- "$p"
		say "removed stale kernel-patches/$(basename "$p")"
	done
	printf '%s\n' "${new[@]}" | sed '/^$/d' >"$TMP/series"
	cmp -s "$TMP/series" "$PATCHES/series" || mv "$TMP/series" "$PATCHES/series"
	say "${#new[@]} patch(es) in kernel-patches/series, $changed changed"
}

main() {
	[ $# -eq 0 ] || error "usage: scripts/kernel-export.sh (takes no arguments)"
	[ -d "$TREE/.git" ] || error "no build/linux (make tree first)"
	git -C "$TREE" rev-parse -q --verify kcolour-base >/dev/null ||
		error "build/linux has no kcolour-base tag (was it made by 'make tree'?)"
	[ -z "$(git -C "$TREE" status --porcelain | head -n 1)" ] ||
		say "warning: build/linux has uncommitted changes; they are not exported"
	TMP=$(mktemp -d)
	trap 'rm -rf "$TMP"' EXIT
	format_patches
	install_patches
	state_write
}

main "$@"
