#!/usr/bin/env bash
# Usage: scripts/kernel-build.sh   (make kernel [FRAGMENTS="a.config b.config"] [NAME=x] [BASE=1])
#
# Builds bzImage from build/linux: tinyconfig, then the fragments (names in
# Kconfig-fragments/, default qemu-test.config) merged with merge_config.sh,
# in the object dir build/obj/NAME (NAME defaults to the fragment names
# joined by '+').  Fails naming every CONFIG_ line a fragment asks for that
# did not end up in .config.
#
# Finished images are cached under $KCOLOUR_CACHE/images/KEY, KEY being a
# hash of the base, every series patch, the fragments, this script and the
# compiler: a hit skips the build and needs no tree.  build/linux is made
# (`make tree`) when missing or older than kernel-patches/; when it holds
# unexported work, that working tree is built and the image is not cached.
# The result is linked at build/kernel/NAME/{bzImage,config,vmlinux,System.map}.
set -euo pipefail
# shellcheck source=scripts/kernel-lib.sh
. "$(dirname "$0")/kernel-lib.sh"

IMAGES=$KCOLOUR_CACHE/images
ARTIFACTS=(arch/x86/boot/bzImage .config vmlinux System.map)

image_key() {
	local f
	{
		echo "kcolour image v1"
		echo "series $(series_digest)"
		for f in $(fragment_files); do
			echo "fragment $(basename "$f")"
			cat "$f"
		done
		cat "$ROOT/scripts/kernel-build.sh" "$ROOT/scripts/kernel-lib.sh"
		gcc --version | head -n 1
	} | sha256sum | cut -c1-16
}

# tinyconfig + fragments.  An unchanged .config keeps its old timestamp, so
# an incremental build stays incremental.
configure() {
	local log=$OBJ/configure.log
	local -a frags
	mapfile -t frags < <(fragment_files)
	[ -f "$OBJ/.config" ] && cp -p "$OBJ/.config" "$OBJ/.config.kcolour-prev"
	say "configuring: tinyconfig + $FRAGMENTS"
	{
		kmake tinyconfig
		(cd "$TREE" && scripts/kconfig/merge_config.sh -m -O "$OBJ" "$OBJ/.config" "${frags[@]}")
		kmake olddefconfig
	} >"$log" 2>&1 || { tail -n 20 "$log" >&2; error "configuration failed (log: $log)"; }
	if cmp -s "$OBJ/.config" "$OBJ/.config.kcolour-prev" 2>/dev/null; then
		mv "$OBJ/.config.kcolour-prev" "$OBJ/.config"
	else
		rm -f "$OBJ/.config.kcolour-prev"
	fi
	verify_config
}

# Every CONFIG_ line the fragments ask for (the last fragment wins) must be
# in .config: merge_config.sh drops values whose dependencies are unmet.
verify_config() {
	local f line sym missing=()
	local -A want=()
	for f in $(fragment_files); do
		while IFS= read -r line; do
			if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=n$ || $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set ]]; then
				want[${BASH_REMATCH[1]}]=n
			elif [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)= ]]; then
				want[${BASH_REMATCH[1]}]=$line
			fi
		done <"$f"
	done
	for sym in "${!want[@]}"; do
		if [ "${want[$sym]}" = n ]; then
			grep -q "^$sym=" "$OBJ/.config" && missing+=("# $sym is not set (have: $(grep "^$sym=" "$OBJ/.config"))")
		else
			grep -qxF "${want[$sym]}" "$OBJ/.config" ||
				missing+=("${want[$sym]} (have: $(grep -E "^($sym=|# $sym is not set)" "$OBJ/.config" || echo absent))")
		fi
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	printf 'error:   %s\n' "${missing[@]}" | sort >&2
	error "${#missing[@]} fragment line(s) did not survive into .config (unmet dependencies?); see $OBJ/.config"
}

# Build bzImage in the background, printing progress every 30 s.
build() {
	local log=$OBJ/build.log start=$SECONDS last=$SECONDS pid rc=0
	say "building bzImage with -j$(nproc) (log: $log)"
	kmake -j"$(nproc)" bzImage >"$log" 2>&1 &
	pid=$!
	trap 'kill $pid 2>/dev/null' EXIT
	while kill -0 $pid 2>/dev/null; do
		sleep 2
		if [ $((SECONDS - last)) -ge 30 ]; then
			last=$SECONDS
			say "$(fmt_time $((SECONDS - start))) elapsed, $(grep -c '^  [A-Z]' "$log") objects built"
		fi
	done
	wait $pid || rc=$?
	trap - EXIT
	if [ $rc -ne 0 ]; then
		grep -E 'error|Error' "$log" | head -n 20 >&2 || true
		tail -n 20 "$log" >&2
		error "kernel build failed (log: $log)"
	fi
	say "built in $(fmt_time $((SECONDS - start))) ($(grep -c '^  [A-Z]' "$log") objects)"
}

# Copy the artifacts into DIR (created fresh).
collect() {
	local dir=$1 a
	mkdir -p "$dir"
	for a in "${ARTIFACTS[@]}"; do
		cp "$OBJ/$a" "$dir/$(basename "${a#.}")"
	done
}

store() {
	local key=$1 tmp
	mkdir -p "$IMAGES"
	tmp=$(mktemp -d "$IMAGES/.new.XXXXXX")
	collect "$tmp"
	{
		echo "built $(date -u +%FT%TZ) from $(git -C "$TREE" log -1 --format='%h %s')"
		echo "base $(base_id)"
		echo "patches $(series_patches | tr '\n' ' ')"
		echo "fragments $FRAGMENTS"
	} >"$tmp/info"
	rm -rf "${IMAGES:?}/$key"
	mv -T "$tmp" "$IMAGES/$key"
}

publish() {
	local src=$1 out=$BUILD/kernel/$NAME
	mkdir -p "$BUILD/kernel"
	rm -rf "$out"
	if [ -n "$src" ]; then ln -s "$src" "$out"; else collect "$out"; fi
	say "kernel: $out/bzImage"
}

main() {
	local key="" start=$SECONDS reason
	[ $# -eq 0 ] || error "usage: make kernel [FRAGMENTS=\"a.config b.config\"] [NAME=x] (no arguments)"
	fragment_files >/dev/null
	reason=$([ -n "$BASE" ] || tree_unsaved)
	if [ -d "$TREE/.git" ] && [ -n "$reason" ]; then
		say "warning: $reason: building that working tree, not caching the image"
	else
		key=$(image_key)
		if [ -f "$IMAGES/$key/bzImage" ]; then
			say "cache hit: $IMAGES/$key ($(sed -n 's/^built //p' "$IMAGES/$key/info"))"
			publish "$IMAGES/$key"
			return
		fi
		say "cache miss: image key $key"
		if [ -n "$BASE" ]; then
			base_tree
		elif ! tree_current; then
			say "build/linux is missing or older than kernel-patches/: running make tree"
			"$ROOT/scripts/kernel-tree.sh"
		fi
	fi
	export CCACHE_DIR=$KCOLOUR_CACHE/ccache CCACHE_BASEDIR=$BUILD
	mkdir -p "$OBJ"
	exec 9>"$OBJ.lock"
	flock -n 9 || { say "waiting for another build in $OBJ"; flock 9; }
	configure
	build
	if [ -n "$key" ]; then
		store "$key"
		publish "$IMAGES/$key"
	else
		publish ""
	fi
	say "done in $(fmt_time $((SECONDS - start)))"
}

main "$@"
