#!/usr/bin/env bash
# The kernel series as a maintainer would take them: every patch of every
# series (facts.tsv) applies to the base in order, is clean under
# checkpatch.pl --strict, carries a Signed-off-by of the project identity;
# each series has its cover letter, and one after the first applies to the
# base alone; the derivation the colouring adds is byte for byte the one
# tools-probe builds, and its Kconfig defaults (the default policy too) are
# that derivation's header's.  TAP output.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-$PWD/build}
CP=${KCOLOUR_CACHE:-$HOME/.cache/kcolour}/checkpatch
SHARED_FILES=(
	"arch/x86/include/asm/kcolour_geom.h tools-probe/include/asm/kcolour_geom.h"
	"arch/x86/kernel/cpu/kcolour_geom.c tools-probe/lib/kcolour_geom.c"
)
. harness/tap.sh

# header_define HEADER NAME: the value of `#define NAME VALUE`.
header_define() {
	awk -v name="$2" '$1 == "#define" && $2 == name { print $3; exit }' "$1" 2>/dev/null
}

# The series of facts.tsv, in the order make tree lays them: NAME DIR VERSION.
mapfile -t series < <(awk -F'\t' '$1 == "series" { print $2, $3, $4, $5 }' facts.tsv)
series_prefix() { [ "$1" = . ] || echo "$1/"; }
series_patches() { # DIR: its patches, relative to kernel-patches/
	sed 's/#.*//; /^[[:space:]]*$/d; s|^|'"$(series_prefix "$1")"'|' \
		"kernel-patches/$(series_prefix "$1")series" 2>/dev/null
}
patches=()
for s in "${series[@]}"; do
	# shellcheck disable=SC2086 # the line's fields, split on purpose
	set -- $s
	mapfile -t -O ${#patches[@]} patches < <(series_patches "$2")
done
[ ${#patches[@]} -gt 0 ] || { echo "Bail out! kernel-patches/ lists no patch"; exit 1; }
bash scripts/check-shared-style.sh >/dev/null 2>&1 # unpacks checkpatch into the cache

# 1. The series applies: a fresh base + series in a scratch tree (seconds,
#    from the cached base repository).
scratch=$BUILD/series-check
rm -rf "$scratch"
mkdir -p "$BUILD"
if BUILD=$scratch python3 -m harness tree --force >"$BUILD/series-check.log" 2>&1; then
	tap 0 "the ${#patches[@]} patches apply in order to the base"
else
	tail -n 5 "$BUILD/series-check.log" | sed 's/^/# /'
	tap 1 "the ${#patches[@]} patches apply in order to the base"
fi

# The base's version, from its Makefile: Debian updates linux-source-6.12
# within 6.12.y, and each cover letter must name the base it applies to.
base_version=$(git -C "$scratch/linux" show kcolour-base:Makefile 2>/dev/null |
	awk '$1 == "VERSION" { v = $3 } $1 == "PATCHLEVEL" { p = $3 }
	     $1 == "SUBLEVEL" { print v "." p "." $3; exit }')

# 2. Each patch: checkpatch --strict clean, signed off by the project.  A
#    backport in the stable format ("commit <sha> upstream.") trips two
#    checks by design: the bare sha of that line (GIT_COMMIT_ID), and shas
#    the base's one-commit history cannot know (UNKNOWN_COMMIT_ID); so does
#    the Fixes: tag of a fix for the stable tree, or its absence where the
#    fixed commit cannot be named from here (MISSING_FIXES_TAG).
# checkpatch FILE TEXT [OPTION...]: one TAP line, its report as diagnostics
# (less spdxcheck's noise about a missing python3-ply).
checkpatch() {
	local file=$1 text=$2 out
	shift 2
	out=$(cd "$CP" && ./scripts/checkpatch.pl --strict --no-tree -q "$@" "$OLDPWD/$file" 2>&1 |
		grep -v 'spdxcheck\|ply import\|ModuleNotFoundError\|from ply\|Traceback\|^  File')
	# shellcheck disable=SC2001 # a prefix on every line
	[ -z "$out" ] || echo "$out" | sed 's/^/# /'
	tap "$([ -z "$out" ]; echo $?)" "$text"
}
for p in "${patches[@]}"; do
	ignore=() what=""
	if grep -Eq '^commit [0-9a-f]{40} upstream\.$' "kernel-patches/$p"; then
		ignore=(--ignore "GIT_COMMIT_ID,UNKNOWN_COMMIT_ID") what=" (a stable backport)"
	elif grep -q '^Cc: stable@vger.kernel.org$' "kernel-patches/$p"; then
		# A fix for the stable tree: the commit its Fixes: tag names is
		# one the base's one-commit history cannot know, and without a
		# tag, the project could not name that commit here.
		ignore=(--ignore "UNKNOWN_COMMIT_ID,MISSING_FIXES_TAG") what=" (a stable fix)"
	fi
	checkpatch "kernel-patches/$p" "checkpatch --strict: $p$what" "${ignore[@]}"
	grep -q '^Signed-off-by: kcolour project <kcolour@example.org>$' "kernel-patches/$p"
	tap $? "Signed-off-by kcolour project: $p"
done

# 2b. Each series' cover letter: [PATCH vN 00/M] with M its patches ([PATCH
#     0/M] for a first version), every patch's subject in its shortlog, the
#     base named, checkpatch --strict clean.  A series after the first also
#     applies to the base with only the series it needs (facts.tsv NEEDS).
for s in "${series[@]}"; do
	# shellcheck disable=SC2086 # the line's fields, split on purpose
	set -- $s
	name=$1 dir=$2 version=$3 needs=$4
	mapfile -t own < <(series_patches "$dir")
	cover=kernel-patches/$(series_prefix "$dir")0000-cover-letter.patch
	tag=PATCH
	[ "$version" = 1 ] || tag="PATCH v$version"
	n=${#own[@]}
	num=$(printf "%0*d/%d" "${#n}" 0 "$n") # git format-patch's 00/22, 0/1
	grep -qF "Subject: [$tag $num] " "$cover" 2>/dev/null
	tap $? "$name series: the cover letter is [$tag $num]"
	missing=0
	for p in "${own[@]}"; do
		subject=$(sed -n 's/^Subject: \[PATCH\] //p' "kernel-patches/$p")
		tr -s ' \n' ' ' <"$cover" | grep -qF "$subject" || { echo "# not in the cover letter: $subject"; missing=1; }
	done
	tap $missing "$name series: the cover letter's shortlog names its ${#own[@]} patches"
	grep -qF "linux-source-6.12 ($base_version " "$cover" 2>/dev/null
	tap $? "$name series: the cover letter names the base, Debian's linux-source-6.12 ($base_version)"
	# It names upstream commits that the base's one-commit history cannot know.
	checkpatch "$cover" "$name series: checkpatch --strict: its cover letter" \
		--ignore UNKNOWN_COMMIT_ID
	[ "$s" = "${series[0]}" ] && continue
	under=() what="the base on their own"
	[ "$needs" = base ] || what="the base after the ${needs//+/ and } series"
	# What it needs (NAME+NAME...), and what that needs, laid in the order
	# make tree lays them.
	declare -A wanted=()
	read -r -a todo <<<"${needs//+/ }"
	while [ ${#todo[@]} -gt 0 ]; do
		n=${todo[0]} todo=("${todo[@]:1}")
		[ "$n" = base ] && continue
		wanted[$n]=1
		mapfile -t -O ${#todo[@]} todo < <(awk -F'\t' -v n="$n" '$1 == "series" && $2 == n {
			gsub(/\+/, " ", $5); k = split($5, w, " "); for (i = 1; i <= k; i++) print w[i] }' facts.tsv)
	done
	for t in "${series[@]}"; do
		# shellcheck disable=SC2086 # the line's fields, split on purpose
		set -- $t
		[ -n "${wanted[$1]:-}" ] || continue
		mapfile -t needed < <(series_patches "$2")
		under+=("${needed[@]}")
	done
	unset wanted
	# In an index of its own, no work tree: git apply --cached applies as
	# git am does (no three-way fallback), in seconds instead of a checkout.
	index=$BUILD/series-alone.index
	rm -f "$index"
	if GIT_INDEX_FILE=$index git -C "$scratch/linux" read-tree kcolour-base 2>/dev/null &&
		(for p in "${under[@]}" "${own[@]}"; do
			echo "applying $p"
			GIT_INDEX_FILE=$index git -C "$scratch/linux" apply --cached \
				"$PWD/kernel-patches/$p" || exit 1
		done) >"$BUILD/series-alone.log" 2>&1; then
		tap 0 "$name series: its ${#own[@]} patches apply to $what"
	else
		tail -n 5 "$BUILD/series-alone.log" | sed 's/^/# /'
		tap 1 "$name series: its ${#own[@]} patches apply to $what"
	fi
	rm -f "$index"
done

# 2c. No commit widens the task_struct usercopy whitelist (v4 widened it by
#     "usersize += room" for ten commits): at every commit of the laid
#     tree, the functions that compute it are the base's, and nothing adds
#     to usersize or useroffset (harness/series.py whitelist_widened()).
widened=$(python3 - "$scratch/linux" <<'PY' 2>&1
import sys
from harness.series import whitelist_widened
from harness.util import git
tree = sys.argv[1]
for c in git(tree, "rev-list", "--reverse", "kcolour-base..HEAD").split():
    for w in whitelist_widened(tree, c):
        print(git(tree, "log", "-1", "--format=%h %s", c) + ": " + w)
PY
)
# shellcheck disable=SC2001 # a prefix on every line
[ -z "$widened" ] || echo "$widened" | sed 's/^/# /'
tap "$([ -z "$widened" ]; echo $?)" "no commit of the ${#patches[@]} widens the task_struct usercopy whitelist"

# 3. tools-probe's copies of the derivation are the patched tree's, byte for
#    byte, the way perf's check-headers.sh checks tools/include.
for pair in "${SHARED_FILES[@]}"; do
	# shellcheck disable=SC2086 # the line's fields, split on purpose
	set -- $pair
	if [ -f "$scratch/linux/$1" ] && cmp -s "$scratch/linux/$1" "$2"; then
		tap 0 "$1 in the patched tree is $2, byte for byte"
	else
		diff -u "$2" "$scratch/linux/$1" 2>&1 | head -20 | sed 's/^/# /'
		tap 1 "$1 in the patched tree is $2, byte for byte"
	fi
done

# 4. The defaults kernel-parameters.txt gives for kstack_colour= are the
#    derivation's (no Kconfig option overrides them): what a kernel boots
#    with unless told otherwise is what kcolour-probe assumes.
params=$scratch/linux/Documentation/admin-guide/kernel-parameters.txt
geom_h=$scratch/linux/arch/x86/include/asm/kcolour_geom.h
# The kstack_colour= entry, flattened to one line.
entry=$(awk '/^\tkstack_colour=/ { p = 1 } p && /^\t[a-z]/ && !/^\tkstack_colour=/ { exit }
	p { printf "%s ", $0 }' "$params" 2>/dev/null | tr -s ' \t' ' ')
for check in "step=BYTES.*?Default \K[0-9]+|KCOLOUR_DEFAULT_STEP" \
	"max_offset=BYTES.*?Default \K[0-9]+|KCOLOUR_DEFAULT_MAX_OFFSET" \
	"max_offset=BYTES \(0\.\.\K[0-9]+|KCOLOUR_MAX_OFFSET_LIMIT" \
	"policy=[a-z|]+:.*?Default \K[a-z]+|KCOLOUR_DEFAULT_POLICY"; do
	doc=$(printf '%s' "$entry" | grep -oP "${check%|*}" | head -1)
	h=$(header_define "$geom_h" "${check##*|}")
	# A policy's macro is KCOLOUR_POLICY_RR where the text says rr.
	tap "$([ -n "$doc" ] && [ "$(printf %s "$doc" | tr '[:lower:]' '[:upper:]')" = "${h#KCOLOUR_POLICY_}" ]; echo $?)" \
		"kernel-parameters.txt's kstack_colour= ${check%%=*} ${doc:-(none)} is kcolour_geom.h ${check##*|} ${h:-(none)}"
done
rm -rf "$scratch"

tap_end
