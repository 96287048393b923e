#!/usr/bin/env bash
# make check's cheap tests of the function alignment choice (the full
# comparison builds whole kernels: make falign-report).  TAP on stdout.
#
#  1. Kconfig: olddefconfig on tinyconfig + qemu-test.config + each case of
#     selftests/falign-kconfig.tsv gives the values that file expects (the
#     choice, and the minimums other options force).
#  2. The packed rule, on a handful of objects compiled with the packed
#     choice: no function shorter than a line crosses one, except those
#     tools-probe/tests/falign-exceptions.txt lists with a reason.
#  3. The default choice changes nothing: the same objects compiled in the
#     base tree and in the patched tree get the same compiler flags and
#     the same falign-report figures.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/kernel-lib.sh
. "$ROOT/scripts/kernel-lib.sh"
. "$ROOT/scripts/tap-lib.sh"

WORK=$BUILD/falign-check
REPORT=$ROOT/tools-probe/falign-report
EXCEPTIONS=$ROOT/tools-probe/tests/falign-exceptions.txt
# Objects the series does not touch, from small to one of the largest.
OBJECTS=(lib/sort.o lib/string.o lib/kstrtox.o kernel/fork.o mm/slub.o fs/namei.o)

# configure TREE OBJDIR FRAGMENT...: tinyconfig + the fragments, olddefconfig.
configure() {
	local tree=$1 obj=$2
	shift 2
	mkdir -p "$obj"
	make -s -C "$tree" O="$obj" ARCH=x86_64 tinyconfig >/dev/null 2>&1 &&
		(cd "$tree" && scripts/kconfig/merge_config.sh -m -O "$obj" "$obj/.config" "$@") \
			>/dev/null 2>&1 &&
		make -s -C "$tree" O="$obj" ARCH=x86_64 olddefconfig >/dev/null 2>&1
}

# compile TREE OBJDIR FRAGMENT...: configure, then build OBJECTS.
compile() {
	local tree=$1 obj=$2
	shift 2
	configure "$tree" "$obj" "$@" &&
		make -s -C "$tree" O="$obj" ARCH=x86_64 CC="ccache gcc" -j"$(nproc)" \
			"${OBJECTS[@]}" >"$obj/compile.log" 2>&1
}

check_kconfig() {
	local name frags expect obj f sym want have bad
	while IFS=$'\t' read -r name frags expect; do
		[[ -z $name || $name == \#* ]] && continue
		echo "[falign-check] kconfig: $name" >&2
		# One object dir for all cases: kconfig's host tools build once.
		obj=$WORK/kconfig
		local -a files=("$FRAGDIR/qemu-test.config")
		rm -f "$obj/extra.config" "$obj/.config"
		mkdir -p "$obj"
		for f in $frags; do
			if [[ $f == CONFIG_* ]]; then
				echo "$f" >>"$obj/extra.config"
			else
				files+=("$FRAGDIR/$f")
			fi
		done
		[ -f "$obj/extra.config" ] && files+=("$obj/extra.config")
		if ! configure "$TREE" "$obj" "${files[@]}"; then
			tap 1 "kconfig $name: configures"
			continue
		fi
		bad=""
		for want in $expect; do
			sym=${want%%=*}
			have=$(grep -E "^($sym=|# $sym is not set)" "$obj/.config" || echo "$sym absent")
			if [ "${want#*=}" = n ]; then
				[[ $have == "# $sym is not set" || $have == "$sym absent" ]] || bad+=" $have"
			else
				[ "$have" = "$want" ] || bad+=" $have (want $want)"
			fi
		done
		tap "$([ -z "$bad" ] && echo 0 || echo 1)" "kconfig $name: $expect${bad:+ -- got:$bad}"
	done <"$ROOT/selftests/falign-kconfig.tsv"
}

# DIR: the short functions of OBJECTS (in DIR) that cross a line and that
# falign-exceptions.txt does not excuse (by object and section or function;
# object "*" for any).
unexcused_crossings() {
	(cd "$1" && "$REPORT" --list-crossing "${OBJECTS[@]}") | awk -v exc="$EXCEPTIONS" '
		BEGIN {
			FS = "\t"
			while ((getline l < exc) > 0)
				if (l !~ /^#/ && split(l, w, "\t") >= 3)
					excused[w[1] " " w[2]] = 1
			FS = " "
		}
		/^crossing / && !(($2 " " $3) in excused || ($2 " " $4) in excused ||
				      ("* " $3) in excused || ("* " $4) in excused) {
			print $2, $3, $4, $6 " B"
		}'
}

check_packed() {
	local obj=$WORK/packed left
	echo "[falign-check] packed: compiling ${#OBJECTS[@]} objects" >&2
	if ! compile "$TREE" "$obj" "$FRAGDIR/qemu-test.config" "$FRAGDIR/falign-64b-packed.config"; then
		tap 1 "packed: the objects compile (see $obj/compile.log)"
		return
	fi
	grep -q -- '-falign-functions=64 -flimit-function-alignment' "$obj/${OBJECTS[3]%/*}/.${OBJECTS[3]##*/}.cmd"
	tap $? "packed: -falign-functions=64 -flimit-function-alignment on the command line"
	left=$(unexcused_crossings "$obj")
	tap "$([ -z "$left" ] && echo 0 || echo 1)" \
		"packed: no function under 64 bytes crosses a line but the excused ones${left:+: $left}"
}

# Compiler flags of an object's .cmd, without the paths that differ by tree.
flags_of() {
	sed -n 's/^savedcmd_[^ ]* := //p' "$1" | tr ' ' '\n' |
		grep -v -e "$BUILD" -e '^-Wp,-MMD' -e '^-I' -e '^-include' -e '^-o$' -e '\.[cho]$' |
		grep -v '^$'
}

check_default() {
	local base=$WORK/default-base patched=$WORK/default-patched o left
	base_tree
	echo "[falign-check] default: compiling ${#OBJECTS[@]} objects in the base and the patched tree" >&2
	if ! compile "$BUILD/linux-base" "$base" "$FRAGDIR/qemu-test.config" ||
	   ! compile "$TREE" "$patched" "$FRAGDIR/qemu-test.config" "$FRAGDIR/falign-default.config"; then
		tap 1 "default: the objects compile in both trees (see $base/compile.log, $patched/compile.log)"
		return
	fi
	for o in "${OBJECTS[@]}"; do
		diff <(flags_of "$base/${o%/*}/.${o##*/}.cmd") <(flags_of "$patched/${o%/*}/.${o##*/}.cmd") \
			>/dev/null
		tap $? "default: $o gets the base kernel's compiler flags"
	done
	diff <(cd "$base" && "$REPORT" --json "${OBJECTS[@]}") \
		<(cd "$patched" && "$REPORT" --json "${OBJECTS[@]}") >/dev/null
	tap $? "default: falign-report gives the base kernel's figures for those objects"
	# The packed check above can fail: at 16 bytes, short functions do cross.
	left=$(unexcused_crossings "$patched" | wc -l)
	tap "$([ "$left" -gt 0 ] && echo 0 || echo 1)" \
		"default: $left short functions of those objects cross a line at 16 bytes (packed: none)"
}

[ -x "$REPORT" ] || make -s -C "$ROOT/tools-probe" falign-report || exit 1
[ -e "$TREE/Makefile" ] || "$ROOT/scripts/kernel-tree.sh" >&2 || exit 1
check_kconfig
check_packed
check_default
tap_end
