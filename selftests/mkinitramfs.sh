#!/usr/bin/env bash
# Usage: selftests/mkinitramfs.sh OUTPUT.cpio.gz [SRC:DEST ...]
#
# Builds a gzip'd newc initramfs: Debian's static busybox with its applet
# links, an /init, and each SRC (file or directory) copied to DEST inside
# the image.  /init mounts proc, sysfs, devtmpfs, debugfs (and cgroup2 and
# tmpfs on /tmp), runs `sh /run.sh` if the image has one (else an
# interactive shell), prints the end marker
#     KCOLOUR-INIT-DONE rc=N
# (N: the exit status of /run.sh) and powers the machine off (`poweroff -f`
# when the kernel has ACPI, else `reboot -f`, which ends QEMU under
# -no-reboot).  selftests/qemu-run.sh waits for that marker.
#
# No root needed: files are staged in a temporary dir and archived with
# owner 0:0; /dev/console (needed before devtmpfs is mounted) is a device
# node written straight into a second, concatenated cpio archive.
# BUSYBOX=/path overrides /bin/busybox.
set -euo pipefail

BUSYBOX=${BUSYBOX:-/bin/busybox}
STAGE=""

error() { echo "error: $*" >&2; exit 1; }

usage() { sed -n '2,3s/^# //p' "$0" >&2; exit 2; }

check_busybox() {
	[ -x "$BUSYBOX" ] || error "$BUSYBOX not found (apt-get install busybox-static)"
	! ldd "$BUSYBOX" >/dev/null 2>&1 ||
		error "$BUSYBOX is not statically linked (apt-get install busybox-static)"
}

write_init() {
	cat >"$STAGE/init" <<'EOF'
#!/bin/sh
# kcolour initramfs /init (written by selftests/mkinitramfs.sh)
export PATH=/sbin:/bin:/usr/sbin:/usr/bin
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
mount -t tmpfs tmpfs /tmp
if [ -f /run.sh ]; then
	sh /run.sh
	rc=$?
else
	echo "no /run.sh: interactive shell; 'exit' powers off"
	setsid cttyhack sh
	rc=$?
fi
echo "KCOLOUR-INIT-DONE rc=$rc"
sync
if [ -d /sys/firmware/acpi ]; then poweroff -f; fi
reboot -f
EOF
	chmod 755 "$STAGE/init"
}

stage_busybox() {
	local applet
	mkdir -p "$STAGE"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,root,etc}
	cp "$BUSYBOX" "$STAGE/bin/busybox"
	for applet in $("$BUSYBOX" --list-full); do
		[ -e "$STAGE/$applet" ] || ln -s /bin/busybox "$STAGE/$applet"
	done
}

# SRC:DEST - a file, or a directory whose contents go under DEST.
stage_extra() {
	local src=${1%%:*} dest=${1#*:}
	[[ $1 == *:* && -n $src && -n $dest ]] || error "bad argument '$1' (want SRC:DEST)"
	[ -e "$src" ] || error "$src does not exist"
	dest=$STAGE/${dest#/}
	if [ -d "$src" ]; then
		mkdir -p "$dest"
		cp -a "$src/." "$dest/"
	else
		mkdir -p "$(dirname "$dest")"
		cp -a "$src" "$dest"
	fi
}

# One newc header (no data): NAME MODE [RDEV_MAJOR RDEV_MINOR], padded to 4.
newc_entry() {
	local name=$1 mode=$2 namesize=$((${#1} + 1))
	printf '070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%s\0' \
		0 "$mode" 0 0 1 0 0 0 0 "${3:-0}" "${4:-0}" $namesize 0 "$name"
	head -c $(((4 - (110 + namesize) % 4) % 4)) /dev/zero
}

archive() {
	local out=$1
	# Fixed timestamps and sorted names: the same inputs give the same image.
	find "$STAGE" -exec touch -h -d @0 {} +
	{
		(cd "$STAGE" && find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort |
			cpio --quiet -o -H newc --owner 0:0 --reproducible)
		newc_entry dev/console $((0020600)) 5 1
		newc_entry 'TRAILER!!!' 0
	} | gzip -9 -n >"$out.tmp"
	mv "$out.tmp" "$out"
}

main() {
	[ $# -ge 1 ] || usage
	local out=$1 arg
	shift
	case $out in -h | --help) usage ;; esac
	check_busybox
	STAGE=$(mktemp -d)
	trap 'rm -rf "$STAGE"' EXIT
	stage_busybox
	write_init
	for arg in "$@"; do stage_extra "$arg"; done
	mkdir -p "$(dirname "$out")"
	archive "$out"
	echo "initramfs: $out ($(du -k "$out" | cut -f1) KiB)"
}

main "$@"
