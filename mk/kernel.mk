# Kernel tree, build and boot targets (included by the top Makefile).
#
#   make tree                 base kernel + kernel-patches/series as commits in build/linux
#                             (KSRC=/path/to/git/tree for another base, FORCE=1 to discard work)
#   make export               build/linux's commits since kcolour-base -> kernel-patches/
#   make kernel               bzImage -> build/kernel/NAME/ (FRAGMENTS="a.config b.config", NAME=)
#   make menuconfig           menuconfig on build/linux in the same object dir
#   make initramfs            busybox initramfs -> build/initramfs.cpio.gz (INITRAMFS_FILES="src:dest ...")
#   make kernel-smoke         build qemu-test, boot it under Skylake-Client and EPYC, show cache sysfs

# The one test image: every feature built in and selected at boot.
FRAGMENTS ?= qemu-test.config kcolour.config kcolour-task.config kcolour-test.config
INITRAMFS_FILES ?=
export FRAGMENTS

.PHONY: tree export kernel menuconfig initramfs kernel-smoke

tree:
	@bash scripts/kernel-tree.sh

export:
	@bash scripts/kernel-export.sh

kernel:
	@bash scripts/kernel-build.sh

menuconfig:
	@bash scripts/kernel-menuconfig.sh

initramfs:
	@bash selftests/mkinitramfs.sh $(BUILD)/initramfs.cpio.gz $(INITRAMFS_FILES)

kernel-smoke:
	@bash selftests/kernel-smoke.sh

.PHONY: demo

# The main job: see selftests/demo.sh (CPU=model N=tasks APPEND="args").
demo: deps
	@bash selftests/demo.sh

.PHONY: selftests

# The selftest matrix of selftests/cases.tsv under QEMU: SET=check (make
# check's cases) or SET=full; CASES=regex picks cases by name.
SET ?= check
selftests: deps
	@bash selftests/run-selftests.sh $(SET)

.PHONY: bisect-check

# Every commit of the series builds on its own (not in make check: minutes a commit).
bisect-check:
	@bash scripts/kernel-bisect-check.sh

.PHONY: falign-report

# One kernel per function alignment choice, compared (docs/results/falign.md).
falign-report: deps
	@bash scripts/falign-report.sh
