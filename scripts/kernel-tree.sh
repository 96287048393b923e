#!/usr/bin/env bash
# Usage: scripts/kernel-tree.sh        (make tree [KSRC=/path] [FORCE=1])
#
# Lays the base kernel plus kernel-patches/series as git commits in
# build/linux.  The base commit is tagged kcolour-base; `make export`
# writes kcolour-base..HEAD back to kernel-patches/.
#
# Base: KSRC=/path (a git work tree: its HEAD) if set, else the tarball
# KERNEL_TARBALL (default /usr/src/linux-source-6.12.tar.xz), unpacked and
# committed once (as it is, minus Debian's ignore-everything .gitignore
# rule) into a cached bare repo under $KCOLOUR_CACHE/base/, then cloned.
#
# Refuses to replace a build/linux holding commits or changes that are not
# exported; FORCE=1 replaces it anyway (that work is then lost).
set -euo pipefail
# shellcheck source=scripts/kernel-lib.sh
. "$(dirname "$0")/kernel-lib.sh"

# Fixed dates make the base commit and the applied patches reproducible.
export GIT_COMMITTER_DATE="2000-01-01T00:00:00Z"

TMP=""
# Bump when the way the base repo is made changes: old repos are then unused.
BASE_FORMAT=2

# git on the base repo being made: bare, with a temporary work tree, so the
# cache holds no checkout.
base_git() { git --git-dir="$TMP/repo.git" --work-tree="$TMP/src" -c core.bare=false "$@"; }

# Unpack the tarball and commit it as one commit tagged kcolour-base.
make_base_repo() {
	local repo=$1
	mkdir -p "$KCOLOUR_CACHE/base"
	TMP=$(mktemp -d "$KCOLOUR_CACHE/base/.new.XXXXXX")
	trap 'rm -rf "$TMP"' EXIT
	say "first use of $(basename "$KERNEL_TARBALL"): unpacking it into a cached base repo (once)"
	mkdir "$TMP/src"
	tar -xf "$KERNEL_TARBALL" -C "$TMP/src" --strip-components=1
	# Debian's tarball ignores every top-level path (a rule of its packaging
	# repo): new files would be invisible to git status and git add.
	if [ -f "$TMP/src/.gitignore" ]; then
		sed -i '/^# Debian packaging/,/^!\/debian\/$/d' "$TMP/src/.gitignore"
	fi
	say "committing the base (once)"
	git init -q --bare -b base "$TMP/repo.git"
	base_git add -A -f
	GIT_AUTHOR_DATE=$GIT_COMMITTER_DATE base_git commit -q -m "kcolour base: $(basename "$KERNEL_TARBALL")" \
		-m "The tarball as it is, except for Debian's ignore-everything rule in .gitignore."
	base_git tag kcolour-base
	rm -f "$TMP/repo.git/index"
	say "packing the base (once)"
	base_git repack -q -a -d --window=0
	mv -T "$TMP/repo.git" "$repo" 2>/dev/null || say "another run made $repo first"
	rm -rf "$TMP"
	trap - EXIT
}

clone_base() {
	if [ -n "$KSRC" ]; then
		[ -z "$(git -C "$KSRC" status --porcelain --untracked-files=no | head -n 1)" ] ||
			say "warning: KSRC has uncommitted changes; only its HEAD is used"
		say "cloning KSRC=$KSRC"
		git clone -q --no-checkout "$KSRC" "$TREE"
		git -C "$TREE" tag -f kcolour-base "$(git -C "$KSRC" rev-parse HEAD)" >/dev/null
	else
		local repo
		repo=$KCOLOUR_CACHE/base/$(basename "$KERNEL_TARBALL" .tar.xz)-$(echo "$(base_id) $BASE_FORMAT" | sha256sum | cut -c1-12).git
		[ -d "$repo" ] || make_base_repo "$repo"
		say "cloning the cached base $repo"
		git clone -q --no-checkout "$repo" "$TREE"
	fi
	git -C "$TREE" config user.name "$GIT_AUTHOR_NAME"
	git -C "$TREE" config user.email "$GIT_AUTHOR_EMAIL"
	say "checking out the base"
	git -C "$TREE" checkout -q -b kcolour kcolour-base
}

apply_series() {
	local p n=0 total
	total=$(series_patches | wc -l)
	for p in $(series_patches); do
		n=$((n + 1))
		say "applying [$n/$total] $p"
		git -C "$TREE" -c commit.gpgSign=false am -q --committer-date-is-author-date "$PATCHES/$p" ||
			error "$p does not apply; see build/linux (git am --show-current-patch)"
	done
	[ "$total" -gt 0 ] || say "kernel-patches/series is empty or absent: the tree is the base"
}

main() {
	local reason start=$SECONDS
	[ $# -eq 0 ] || error "usage: scripts/kernel-tree.sh (takes no arguments; see the top of the file)"
	if [ -e "$TREE" ]; then
		reason=$(tree_unsaved)
		if [ -n "$reason" ] && [ "${FORCE:-0}" != 1 ]; then
			error "$reason; refusing to replace it (FORCE=1 make tree discards that work)"
		fi
		say "removing the old build/linux"
		rm -rf "$TREE"
	fi
	mkdir -p "$BUILD"
	clone_base
	apply_series
	state_write
	say "build/linux ready at $(git -C "$TREE" log -1 --format='%h %s') ($(fmt_time $((SECONDS - start))))"
}

main "$@"
