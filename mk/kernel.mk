# Kernel tree, build and boot targets (included by the top Makefile); each
# is an entry point over harness/ (python3 -m harness: harness/series.py lays and
# exports the tree, harness/kernel.py builds and caches the images).
#
#   make tree                 base kernel + kernel-patches/series as commits in build/linux
#                             (KSRC=/path/to/git/tree for another base, FORCE=1 to discard work)
#   make export               build/linux's commits since kcolour-base -> kernel-patches/
#   make kernel               an image of facts.tsv (IMAGE=test, the default) or of
#                             FRAGMENTS="a.config b.config" -> build/kernel/NAME/
#   make menuconfig           menuconfig on build/linux in that image's object dir
#   make initramfs            busybox initramfs -> build/initramfs.cpio.gz (INITRAMFS_FILES="src:dest ...")
#   make kernel-smoke         the image without colouring, booted under Skylake-Client and EPYC
#   make static-check         the kernel's static checkers on what the series touch
#   make reliability          trinity, fork storms and memory (SET=check|full|memory)

IMAGE ?= test
FRAGMENTS ?=
INITRAMFS_FILES ?=
HARNESS := python3 -m harness
IMAGE_ARGS = $(if $(FRAGMENTS),$(NAME) --fragments "$(FRAGMENTS)",$(IMAGE))

.PHONY: tree export kernel menuconfig initramfs kernel-smoke

tree: ## [series] base kernel + every series as git commits in build/linux (FORCE=1, KSRC=)
	@$(HARNESS) tree $(if $(filter 1,$(FORCE)),--force)

export: ## [series] write build/linux's commits back to kernel-patches/
	@$(HARNESS) export

kernel: ## [use] build an image of facts.tsv (IMAGE=test|bench|debug|off|base|falign-*, or FRAGMENTS=...)
	@$(HARNESS) image $(IMAGE_ARGS)

menuconfig: ## [use] menuconfig on the patched tree, in the object dir of IMAGE=
	@$(HARNESS) menuconfig $(IMAGE_ARGS)

initramfs: ## [series] busybox initramfs -> build/initramfs.cpio.gz (INITRAMFS_FILES="src:dest ...")
	@$(HARNESS) initramfs $(BUILD)/initramfs.cpio.gz $(INITRAMFS_FILES)

kernel-smoke: ## [check] the image without colouring, booted on two CPU models
	@python3 -m selftests.smoke $(if $(SMOKE_CPUS),--cpus "$(SMOKE_CPUS)")

.PHONY: demo
DEMO_FLAGS = $(strip $(if $(CPU),--cpu "$(CPU)") $(if $(N),--tasks $(N)) \
	$(if $(APPEND),--append "$(APPEND)") $(if $(TIMEOUT),--timeout $(TIMEOUT)))

# The main job: see selftests/demo.py (CPU=model N=tasks APPEND="args").
demo: deps-kernel ## [use] main job: build the patched kernel, boot it under QEMU, show what it chose (CPU=model N=tasks APPEND=args)
	@python3 -m selftests.demo $(DEMO_FLAGS)

.PHONY: selftests

# The selftest matrix of selftests/cases.tsv under QEMU: SET=check (make
# check's cases) or SET=full; CASES=regex picks cases by name.
SET ?= check
selftests: deps-bench ## [check] the selftest matrix under QEMU (SET=check|full, CASES=regex)
	@python3 -m selftests.matrix $(SET) $(if $(CASES),--cases '$(CASES)') $(if $(JOBS),--jobs $(JOBS))

.PHONY: bisect-check

# Every commit of the series builds on its own (not in make check: minutes a commit).
bisect-check: ## [check] build every commit of the series on its own, built in and as modules
	@$(HARNESS) bisect-check

.PHONY: reliability

# trinity and fork storms on the KASAN + lockdep image, and the memory with
# 10,000 threads: SET=check (make check's minute each) or SET=full.
# PUBLISH=1 (SET=check): the consoles kept in docs/results/data/reliability/
# and docs/results/reliability.md written from them; REPORT_ONLY=1 again.
reliability: deps-kernel ## [check] trinity and fork storms, memory with 10,000 threads (SET=check|full|memory; PUBLISH=1, REPORT_ONLY=1: docs/results/reliability.md)
	@python3 -m selftests.reliability $(SET) $(if $(PUBLISH),--publish) $(if $(REPORT_ONLY),--report-only)

.PHONY: static-check

# sparse, W=1, kernel-doc, coccicheck and get_maintainer.pl on what the series
# touch, against the base kernel (scripts/check_static.py; make check runs it
# with coccicheck on the new files only).
static-check: deps-checkers ## [check] sparse, W=1, kernel-doc, coccicheck, get_maintainer.pl on what the series touch
	@python3 -m scripts.check_static full

.PHONY: falign-report

# One kernel per function alignment choice, its text and the cache lines it
# touches (falign/falign-report) -> docs/results/falign.md and its record
# (OUT=DIR: the page there, no record; REPORT_ONLY=1: the page from the record).
falign-report: deps-kernel ## [bench] one kernel per function alignment choice, its text and the lines it touches -> docs/results/falign.md (OUT=, REPORT_ONLY=1)
	@python3 -m falign.report $(if $(OUT),--out "$(abspath $(OUT))") $(if $(REPORT_ONLY),--report-only)

# make falign-layouts [QUICK=1]: each function alignment choice in three text
# layouts (the bench series' seeded pads), booted under the cache simulator:
# L1I misses, median and range (falign/layouts.py) ->
# docs/results/falign-layouts.md (QUICK=1: build/bench/falign-layouts-quick).
.PHONY: falign-layouts
falign-layouts: deps-bench probe-build ## [bench] L1I misses of each alignment choice in three text layouts -> docs/results/falign-layouts.md (QUICK=1, CHOICES=)
	@python3 -m falign.layouts $(BENCH_FLAGS) $(if $(CHOICES),--choices "$(CHOICES)") $(if $(PAGE),--page $(PAGE))

# make falign-calibration: make falign-layouts on 16, 64 and 1 byte (no
# alignment, the bench series' DEBUG_FUNCTION_ALIGN_1B): the simulator's
# 64 B / 1 B L1I ratio beside the published hardware figures (facts.tsv
# calibration) -> docs/results/falign-calibration.md.
.PHONY: falign-calibration
falign-calibration: deps-bench probe-build ## [bench] 64 B against 1 B (no alignment) in three text layouts, beside the published hardware figures -> docs/results/falign-calibration.md
	@python3 -m falign.layouts $(BENCH_FLAGS) --choices "falign-default falign-64b falign-1b" --page falign-calibration

# make falign-train-profiles: hot-text profiles trained on the programs of
# facts.tsv hot-text-programs (one boot of the test image), one on all of them
# and one without each workload the layouts score (facts.tsv falign-profile
# HELD-OUT), each workload's part by count and by density (SELECT), in
# that order or in C3's order of its calls (ORDER), into falign/profiles/
# (each header names the workloads and the image it was trained on).  It rewrites the committed
# profiles, programs-density.profile among them, the one the pre-registered
# decision scored: commit a retrained one only with a new decision.
HOT_TEXT_PROGRAMS = --work build/bench/hot-text-programs
.PHONY: falign-train-profiles
falign-train-profiles: deps-bench probe-build ## [bench] train again the hot-text profiles falign-profiles scores (on all programs, without each scored workload, by count and by density, in C3's order) -> falign/profiles/*.profile
	@python3 -m falign.hot_text $(RUN_FLAGS) $(HOT_TEXT_PROGRAMS) --select count --out falign/profiles/programs.profile
	@awk -F'\t' '$$1 == "falign-profile" { sub("^falign-ordered-", "", $$2); print $$2, $$4, $$5, $$6 }' \
		facts.tsv | while read -r name held select order; do \
		python3 -m falign.hot_text --report-only $(HOT_TEXT_PROGRAMS) --select $$select --order $$order \
			$$([ "$$held" = - ] || echo --leave-out $$held) \
			--out falign/profiles/$$name.profile || exit 1; done

# make falign-profiles: the committed profiles of falign/profiles/ (make
# falign-train-profiles trains them) each scored in three text layouts
# beside 16 B, 64 B and falign-ordered (the shipped profile), paired, each held-out
# workload against the profile that never saw it ->
# docs/results/falign-profiles.md and its record.  It trains nothing, so
# the page is the committed profiles' score.  REPORT_ONLY=1, RESUME=1 and
# WORK= pass on.
FALIGN_PROFILE_CHOICES = falign-default falign-64b falign-ordered $(shell awk -F'\t' '$$1 == "falign-profile" { print $$2 }' facts.tsv)
.PHONY: falign-profiles
falign-profiles: deps-bench probe-build ## [bench] the committed hot-text profiles (on all programs, without each scored workload, by count and by density, in C3's order) scored against 16 B, 64 B and the shipped profile in three text layouts -> docs/results/falign-profiles.md
	@python3 -m falign.layouts $(BENCH_FLAGS) --choices "$(FALIGN_PROFILE_CHOICES)" --page falign-profiles --target falign-profiles

# make falign-decision [LAYOUTS="S ..."] [QUICK=1]: the code-layout decision,
# pre-registered in docs/results/protocol-layout.md: five kernels in ten
# fresh text layouts, three L2s on the same boots, each boot's raw figures
# into docs/results/data/falign-decision/ as it ends (falign/decision.py) ->
# docs/results/falign-decision.md.  FREEZE=1 writes the pins of its inputs,
# once, in a commit before the first boot; LAYOUTS= boots some seeds (a
# session's share); REPORT_ONLY=1 writes the page from the raw files alone.
.PHONY: falign-decision
falign-decision: deps-bench probe-build ## [bench] the pre-registered code-layout decision: 5 kernels, 10 fresh layouts, 3 L2s -> docs/results/falign-decision.md (LAYOUTS=, QUICK=1, FREEZE=1)
	@python3 -m falign.decision $(BENCH_FLAGS) $(if $(LAYOUTS),--layouts "$(LAYOUTS)") $(if $(FREEZE),--freeze)

# make falign-sham: the decision's sham profile, drawn (seed 55) from the
# .text.NAME sections of the image without colouring (HOT_TEXT_ORDER: its
# object dir's vmlinux.a; a cached image is built again for it), as many
# bytes as the shipped profile's -> falign/profiles/sham.profile.
.PHONY: falign-sham
falign-sham: deps-kernel ## [bench] the code-layout decision's sham profile -> falign/profiles/sham.profile
	@o=build/obj/off; [ -e $$o/vmlinux.a ] || { o=build/obj-rebuild/off; \
		python3 -m harness image off --rebuild >/dev/null; } && \
	python3 -m falign.hot_text sham --like falign/profiles/programs-density.profile \
		--objects $$o/vmlinux.a $$o/lib/lib.a $$o/arch/x86/lib/lib.a --seed 55 \
		--out falign/profiles/sham.profile

# make falign-cold-parts [IMAGE=test]: what GCC splits hot from cold within
# functions without profile feedback: the .cold parts of an image's vmlinux,
# and a probe file's cold branches (falign/cold_parts.py) ->
# docs/results/gcc-cold-parts.md.
.PHONY: falign-cold-parts
falign-cold-parts: deps-kernel ## [bench] what GCC splits hot from cold within functions, without profile feedback -> docs/results/gcc-cold-parts.md (IMAGE=, REPORT_ONLY=1)
	@python3 -m falign.cold_parts $(if $(IMAGE),--image $(IMAGE)) $(if $(REPORT_ONLY),--report-only)

# make hot-text-profile: a hot-text profile from one boot of the test image
# under the cache simulator's instruction profile on the programs of
# facts.tsv hot-text-programs, each workload's part by density ->
# build/hot-text.profile (OUT=), for a kernel build's make
# HOT_TEXT_PROFILE=FILE (the project's own: falign/profiles/programs-density.profile;
# falign/hot_text.py).  FROM=FILE: from a real machine's `perf script`
# output instead (SYSTEM_MAP= the map of the kernel that ran).
.PHONY: hot-text-profile
hot-text-profile: $(if $(FROM),,deps-bench probe-build) ## [use] a hot-text profile from the programs under the simulator, or FROM=FILE a real machine's perf script -> build/hot-text.profile (OUT=), for make HOT_TEXT_PROFILE=FILE
	@python3 -m falign.hot_text $(if $(FROM),perf '$(FROM)' $(if $(SYSTEM_MAP),--system-map '$(SYSTEM_MAP)'),$(RUN_FLAGS) $(HOT_TEXT_PROGRAMS) $(if $(WORKLOADS),--workloads $(WORKLOADS))) $(if $(ROOM),--room $(ROOM)) $(if $(OUT),--out '$(OUT)')

.PHONY: deb

# Debian packages of base + every series for a real machine (harness/deb.py,
# docs/real-hardware.md): from CONFIG=FILE or the running kernel's
# /boot/config-*, LOCALMODCONFIG=1 for only the modules loaded here.
deb: deps-kernel ## [use] Debian packages of the patched kernel -> build/deb (CONFIG=FILE, LOCALMODCONFIG=1, LOCALVERSION=-kcolour-X, FRAGMENTS=, HOT_TEXT_PROFILE=FILE)
	@$(HARNESS) deb $(if $(CONFIG),--config '$(CONFIG)') $(if $(LOCALMODCONFIG),--localmodconfig) $(if $(LOCALVERSION),--localversion '$(LOCALVERSION)') $(if $(FRAGMENTS),--fragments '$(FRAGMENTS)') $(if $(HOT_TEXT_PROFILE),--hot-text-profile '$(HOT_TEXT_PROFILE)')

.PHONY: host-boot

# The patched kernel on this machine's own userspace, its / read-only over
# virtio-9p as virtme-ng does it (selftests/host_root.py, facts.tsv's
# hostroot image); by default the kselftests and KUnit's debugfs results.
host-boot: deps-kernel ## [use] the patched kernel on this machine's userspace (9p root): kselftests and KUnit, or CMD="PROG ARGS"
	@python3 -m selftests.host_root $(if $(APPEND),--append '$(APPEND)') $(if $(CPU),--cpu '$(CPU)') $(if $(CMD),-- $(CMD))
