#!/usr/bin/env bash
# make deps: install the Debian packages the project needs (or a part of
# them), only those that are missing, and say which.  Safe to run again:
# with nothing missing it only checks.  Needs root (or sudo) when something is missing.
set -euo pipefail

# The packages by part, so that a target installs what it runs (make
# deps-PART; make deps takes them all).  One group a line: what needs it,
# then the packages.
usage() {
	echo "usage: deps.sh [PART...]   parts: probe, kernel (and probe), bench or checkers (and kernel); default: all" >&2
	exit 2
}
PACKAGES=()
part_packages() {
	case "$1" in
	probe) PACKAGES+=(
		# kcolour-probe, its tests and fuzzing
		gcc make libc6-dev python3 cpuid clang libclang-rt-14-dev
	) ;;
	kernel) PACKAGES+=(
		# kernel tree, build and checkpatch
		linux-source-6.12 git flex bison bc libelf-dev libssl-dev libncurses-dev
		xz-utils ccache cpio gzip perl python3-ply
		# headers_install (the selftests' uapi headers) copies with rsync
		rsync
		# QEMU runs, initramfs; GNU parallel, the harness's second job pool
		qemu-system-x86 busybox-static parallel
		# the upstream selftests, static (x86's ptrace_syscall needs a 32-bit
		# capable compiler even in its 64-bit build; clone3 needs libcap)
		gcc-multilib libc6-dev-i386 libcap-dev
		# copied into the reliability guests (make reliability)
		trinity stress-ng
		# make deb: bindeb-pkg, and Debian's own kernel configs to start from
		dpkg-dev fakeroot kmod linux-config-6.12
	) ;;
	bench) PACKAGES+=(
		# plots
		gnuplot-nox
		# the bench's real programs, copied into its guest (facts.tsv's guest lines)
		lighttpd apache2-utils rt-tests
		# the code-layout decision's programs no profile saw (facts.tsv
		# layout-decision: redis and its load generator, a tcc build)
		redis-tools tcc
		# make perf-ab, and its run in a guest (perf and Debian's python3.11)
		linux-perf python3.11
	) ;;
	checkers) PACKAGES+=(
		# make check's pyflakes suite, mypy on the harness and bench/lib, and
		# shellcheck on every shell file
		python3-pyflakes mypy shellcheck
		# the function alignment's Kconfig cases under clang (kCFI needs clang 16)
		clang-16 lld-16 llvm-16
		# the kernel's static checkers (make static-check): sparse, coccicheck
		# (whose OCaml-scripted rules need the compiler and findlib)
		sparse coccinelle ocaml-nox ocaml-findlib
	) ;;
	*) echo "deps: no part '$1'" >&2; usage ;;
	esac
}
# A part takes the parts it builds on: the kernel needs the compiler, the
# bench and the checkers a kernel.
[ $# -gt 0 ] || set -- checkers bench
declare -A taken=()
parts=()
take() {
	case "$1" in
	kernel) take probe ;;
	bench | checkers) take kernel ;;
	esac
	[ -n "${taken[$1]:-}" ] && return
	taken[$1]=1
	parts+=("$1")
	part_packages "$1"
}
for part in "$@"; do
	take "$part"
done

missing=()
for pkg in "${PACKAGES[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$pkg")
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "deps (${parts[*]}): all ${#PACKAGES[@]} packages present"
	exit 0
fi

echo "deps: installing ${missing[*]}"
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
# lighttpd is only copied into the bench's guest: keep its package from
# starting a server on this host (policy-rc.d, Debian's switch for that),
# unless the machine already has a policy of its own.
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\n# kcolour make deps: start no services\nexit 101\n' |
		$SUDO tee /usr/sbin/policy-rc.d >/dev/null
	$SUDO chmod 755 /usr/sbin/policy-rc.d
	trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
fi
# A fresh machine has no package lists yet; refresh them once, quietly.
if ! $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
	echo "deps: refreshing package lists"
	$SUDO apt-get update -q >/dev/null
	$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" ||
		{ echo "error: apt-get could not install: ${missing[*]}" >&2; exit 1; }
fi
echo "deps: installed ${#missing[@]} package(s)"
