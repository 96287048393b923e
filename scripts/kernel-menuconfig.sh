#!/usr/bin/env bash
# Usage: scripts/kernel-menuconfig.sh    (make menuconfig [FRAGMENTS=...] [NAME=x])
#
# Runs menuconfig on build/linux in the object dir `make kernel` uses for
# the same FRAGMENTS/NAME (build/obj/NAME), then prints what changed.
# `make kernel` regenerates .config from tinyconfig + the fragments, so a
# change is kept only by adding the printed lines to a fragment in
# Kconfig-fragments/.
set -euo pipefail
# shellcheck source=scripts/kernel-lib.sh
. "$(dirname "$0")/kernel-lib.sh"

main() {
	[ $# -eq 0 ] || error "usage: make menuconfig [FRAGMENTS=...] [NAME=x] (no arguments)"
	[ -d "$TREE/.git" ] || error "no build/linux (make tree, or make kernel, first)"
	[ -f "$OBJ/.config" ] || error "no $OBJ/.config: run 'make kernel' with the same FRAGMENTS/NAME first"
	cp "$OBJ/.config" "$OBJ/.config.before-menuconfig"
	kmake menuconfig
	if cmp -s "$OBJ/.config.before-menuconfig" "$OBJ/.config"; then
		say "no change"
	else
		say "changes (add them to a fragment in Kconfig-fragments/ to keep them):"
		"$TREE/scripts/diffconfig" "$OBJ/.config.before-menuconfig" "$OBJ/.config"
	fi
}

main "$@"
