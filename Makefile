# kcolour: every entry point.  `make help` lists them.
#
# Paths: build/ holds everything made inside the clone (ignored by git);
# KCOLOUR_CACHE (outside the clone) holds what is worth keeping between
# clones: the unpacked base kernel and finished kernel images, keyed by
# the inputs of the build (harness/kernel.py).

FIXTURES      ?= $(abspath $(shell awk -F'\t' '$$1 == "path" && $$2 == "fixtures" { print $$3 }' facts.tsv))
BUILD         := $(CURDIR)/build
KCOLOUR_CACHE ?= $(HOME)/.cache/kcolour
export FIXTURES BUILD KCOLOUR_CACHE

.PHONY: all help deps probe check check-full

# Bare make installs nothing: it lists the entry points.
all: help

help:
	@echo "make demo        main job: build the patched kernel, boot it under QEMU, show what it chose"
	@echo "make deps        install the Debian packages the project needs"
	@echo "make probe       build kcolour-probe (a C compiler is all it needs) and show this machine's caches"
	@echo "make check       run every test (ends with 'N passed, N failed, N skipped')"
	@echo "make check-full  make check plus the heavy sweeps (full selftest matrix, 600 s fuzzing)"
	@echo "make selftests   the selftest matrix under QEMU (SET=check|full, CASES=regex)"
	@echo "make bisect-check  build every commit of the series on its own"
	@echo "make static-check  sparse, W=1, kernel-doc, coccicheck, get_maintainer.pl on what the series touch"
	@echo "make reliability  trinity and fork storms (SET=full: on the KASAN + lockdep image), memory with 10,000 threads (SET=check|full)"
	@echo "make falign-report  one kernel per function alignment choice, compared, and across text layouts (docs/results/falign.md)"
	@echo "make falign-layouts  L1I misses of each alignment choice in three text layouts -> docs/results/falign-layouts.md (QUICK=1)"
	@echo "make hot-text-profile  the kernel functions the ring and the fork loop run, hottest first -> build/linux/arch/x86/hot-text.profile (the series' default profile)"
	@echo "make bench       cache-simulator benchmark of stack colouring -> docs/results/bench.md (QUICK=1: smoke test)"
	@echo "make perf-ab     perf stat A/B of colouring off/on on real hardware, as root -> build/perf-ab (make perf-ab-test: its tests)"
	@echo "make bench-sweep colouring parameter sweep, the default chosen from it -> docs/results/sweep.md (QUICK=1: smoke run)"
	@echo "make bench-cpus  colouring settings on the caches of 17 real CPUs -> docs/results/cpus.md (QUICK=1: smoke run)"
	@echo "make bench-cpu DUMP=FILE  the same on one CPUID dump, any machine's (QUICK=1)"
	@echo "make bench-attribution  which direct-map objects miss by conflict, and what evicts them -> docs/results/attribution.md (QUICK=1)"
	@echo "make bench-slab-colour  which caches' slab colours help beyond task_struct -> docs/results/slab-colour.md (QUICK=1)"
	@echo "make tree        base kernel + series as git commits in build/linux"
	@echo "make export      write build/linux's commits back to kernel-patches/"
	@echo "make kernel      build an image of facts.tsv (IMAGE=test|bench|debug|off|base|falign-*, or FRAGMENTS=...)"
	@echo "make menuconfig  menuconfig on the patched tree"
	@echo "make initramfs   busybox initramfs (INITRAMFS_FILES=\"src:dest ...\")"
	@echo "make kernel-smoke  the image without colouring, booted on two CPU models"

deps:
	@bash scripts/deps.sh

include mk/*.mk
