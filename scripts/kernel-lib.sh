# Shared helpers for scripts/kernel-*.sh: source it, do not run it.
#
# Paths come from the environment the top Makefile exports (BUILD,
# KCOLOUR_CACHE) and fall back to the same defaults when a script is run
# by hand.  Base kernel: KSRC=/path/to/git/tree if set, else the tarball
# KERNEL_TARBALL (default: Debian's linux-source-6.12).

shopt -s inherit_errexit

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
KCOLOUR_CACHE=${KCOLOUR_CACHE:-$HOME/.cache/kcolour}
PATCHES=$ROOT/kernel-patches
FRAGDIR=$ROOT/Kconfig-fragments
TREE=$BUILD/linux
STATE=$TREE/.git/kcolour-state
KERNEL_TARBALL=${KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
KSRC=${KSRC:-}

# The kernel build: its fragments (names in Kconfig-fragments/), its name
# (default: the fragment names joined by '+') and its object directory.
# The object dir sits beside build/linux so that, with CCACHE_BASEDIR=build,
# every compiler command is the same in any clone at any path: ccache then
# hits across clones (it would not with an object dir at a fixed path
# outside the clone, since kbuild names sources by absolute path).
# The one test image: every feature built in and selected at boot.
# BASE=1 builds the base kernel without the series (the bench compares
# against it) from build/linux-base, a work tree of build/linux at the
# kcolour-base tag, and names it "base+FRAGMENTS".
BASE=${BASE:-}
FRAGMENTS=${FRAGMENTS:-qemu-test.config kcolour.config kcolour-task.config kcolour-test.config}
NAME=${NAME:-${BASE:+base+}$(for f in $FRAGMENTS; do basename "$f" .config; done | paste -sd+)}
OBJ=${KCOLOUR_OBJ:-$BUILD/obj}/$NAME
[ -z "$BASE" ] || TREE=$BUILD/linux-base

# Every commit the project makes in a kernel tree carries this identity.
export GIT_AUTHOR_NAME="kcolour project" GIT_AUTHOR_EMAIL="kcolour@example.org"
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL

PROG=$(basename "$0" .sh)

say() { echo "[$PROG] $*"; }
error() { echo "error: $*" >&2; exit 1; }

# The patch names listed in kernel-patches/series, in order (none if the
# file is empty or absent).  Blank lines and '#' comments are skipped.
series_patches() {
	local line
	[ -z "$BASE" ] && [ -f "$PATCHES/series" ] || return 0
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line%%#*}
		line=${line//[[:space:]]/}
		[ -n "$line" ] || continue
		[ -f "$PATCHES/$line" ] || error "kernel-patches/series lists $line, which does not exist"
		echo "$line"
	done <"$PATCHES/series"
}

# One string naming the base kernel exactly enough to key caches on.
base_id() {
	if [ -n "$KSRC" ]; then
		git -C "$KSRC" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
			error "KSRC=$KSRC is not a git work tree (commit it first: git init && git add -A && git commit)"
		echo "git $(git -C "$KSRC" rev-parse 'HEAD^{tree}')"
	else
		[ -f "$KERNEL_TARBALL" ] || error "no base kernel: $KERNEL_TARBALL is missing (apt-get install linux-source-6.12, or set KSRC=)"
		echo "tarball $(basename "$KERNEL_TARBALL") $(stat -c '%s %Y' "$KERNEL_TARBALL")"
	fi
}

# A digest of the base and of every patch in the series, in order: what
# build/linux holds right after `make tree`.
series_digest() {
	local p
	{
		base_id
		for p in $(series_patches); do
			echo "patch $p"
			cat "$PATCHES/$p"
		done
	} | sha256sum | cut -c1-64
}

# Record that build/linux's HEAD is exactly base + series (after `make tree`
# or `make export`).
state_write() {
	printf 'head %s\ndigest %s\n' "$(git -C "$TREE" rev-parse HEAD)" "$(series_digest)" >"$STATE"
}

state_field() { sed -n "s/^$1 //p" "$STATE" 2>/dev/null; }

# Why build/linux holds work that kernel-patches/ does not: prints the
# reason, or nothing when the tree can be recreated without loss.
tree_unsaved() {
	[ -d "$TREE/.git" ] || return 0
	if [ ! -f "$STATE" ]; then
		echo "build/linux has no record of a finished 'make tree' (did one fail?)"
	elif [ "$(git -C "$TREE" rev-parse HEAD)" != "$(state_field head)" ]; then
		echo "build/linux has commits that are not exported (run 'make export')"
	elif [ -n "$(git -C "$TREE" status --porcelain | head -n 1)" ]; then
		echo "build/linux has uncommitted changes (commit them, then 'make export')"
	fi
}

# True when build/linux is exactly base + the current series.
tree_current() {
	[ -d "$TREE/.git" ] && [ -z "$(tree_unsaved)" ] &&
		[ "$(state_field digest)" = "$(series_digest)" ]
}

# Absolute paths of the fragments, in order.
fragment_files() {
	local f
	for f in $FRAGMENTS; do
		[ -f "$FRAGDIR/$f" ] || f=$f.config
		[ -f "$FRAGDIR/$f" ] || error "no fragment Kconfig-fragments/$f"
		echo "$FRAGDIR/$f"
	done
}

# build/linux-base: the base kernel, a work tree of build/linux's base tag.
base_tree() {
	local base=$BUILD/linux-base
	[ -e "$base/Makefile" ] && return 0
	[ -d "$BUILD/linux/.git" ] || "$ROOT/scripts/kernel-tree.sh"
	say "base tree: work tree of build/linux at kcolour-base in $base"
	git -C "$BUILD/linux" worktree prune
	git -C "$BUILD/linux" worktree add -q --detach "$base" kcolour-base ||
		error "cannot add the base work tree $base"
}

kmake() {
	make -C "$TREE" ARCH=x86_64 O="$OBJ" CC="ccache gcc" HOSTCC="ccache gcc" "$@"
}

# "1m05s" from a number of seconds.
fmt_time() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }
