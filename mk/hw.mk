# The simulator against a real machine (hw/hw_check.py, docs/real-hardware.md).
#
#   make hw-kernels       the comparison set: facts.tsv's hw-kernel images with
#                         LOCALVERSION -kcolour-IMAGE (QUICK=1: make check's)
#   make hw-check         interleaved boots of each under KVM with the host's
#                         counters, the report with the simulator's prediction
#                         and the file to send back: build/hw-check/run
#                         (ROUNDS=10, SEED=1, SMP="1 2", KERNELS=, CMD="PROG ARGS",
#                         PIN_CPU=N, GENERIC=1, ACCEL=tcg, WORK=DIR;
#                         HOSTS=FILE: on each host of an sshloginfile, merged;
#                         QUICK=1: the flow under TCG on make check's images)
#   make hw-check-merge FILES="A.tar.gz B.tar.gz"   one table of sent-back files
#   make hw-check-test    its tests on canned perf output (TAP)

.PHONY: hw-kernels hw-check hw-check-merge hw-check-test

hw_flag = $(if $($(1)),$(2) "$($(1))")
HW_FLAGS = $(strip $(if $(QUICK),--quick) $(if $(GENERIC),--generic) \
	$(call hw_flag,ACCEL,--accel) $(call hw_flag,ROUNDS,--rounds) \
	$(call hw_flag,SEED,--seed) $(call hw_flag,SMP,--smp) \
	$(call hw_flag,KERNELS,--kernels) $(call hw_flag,CMD,--cmd) \
	$(call hw_flag,PIN_CPU,--pin-cpu) $(if $(WORK),--work "$(abspath $(WORK))"))

hw-kernels: deps-kernel ## [use] the kernels make hw-check compares (16 B, 64 B, the shipped profile, the series with colouring), distinct LOCALVERSIONs (QUICK=1)
	@python3 -m hw.hw_check kernels $(if $(QUICK),--quick)

hw-check: deps-bench probe-build ## [use] on a real machine with KVM: the simulator's predictions against its counters, paired over interleaved boots -> build/hw-check/run/report.md and a file to send back (HOSTS=FILE, QUICK=1, ROUNDS=, CMD=)
	@python3 -m hw.hw_check $(if $(HOSTS),fleet "$(abspath $(HOSTS))" $(foreach v,ROUNDS SEED SMP KERNELS CMD PIN_CPU GENERIC,$(if $($(v)),'$(v)=$($(v))')),check $(HW_FLAGS))

hw-check-merge: ## [use] one table of hw-check files sent back, a row a CPU (FILES=)
	@python3 -m hw.hw_check merge $(FILES)

hw-check-test: ## [check] hw-check's tests on canned Intel and AMD perf output
	@python3 hw/tests/test_hw_check.py

# make hw-check-lava OUT=DIR URL=... VENDOR=GenuineIntel FAMILY=6: the same
# plan as LAVA jobs for a KernelCI/LAVA lab (bare metal), one a boot in the
# seeded order, and the artifacts to serve at URL; the logs come back with
# make hw-check-lava-import OUT=DIR LOGS="..." [CPUID=FILE].
.PHONY: hw-check-lava hw-check-lava-import
hw-check-lava: deps-bench ## [use] make hw-check's plan as LAVA jobs for a lab (OUT=, URL=, VENDOR=, FAMILY=, ROUNDS=, KERNELS=)
	@python3 -m hw.hw_check lava "$(abspath $(or $(OUT),build/hw-check/lava))" --url "$(URL)" --vendor "$(VENDOR)" --family "$(FAMILY)" $(call hw_flag,ROUNDS,--rounds) $(call hw_flag,SEED,--seed) $(call hw_flag,KERNELS,--kernels) $(call hw_flag,CMD,--cmd) $(if $(GENERIC),--generic)

hw-check-lava-import: ## [use] the LAVA jobs' logs into the report and the file to send back (OUT=, LOGS=, CPUID=)
	@python3 -m hw.hw_check lava-import "$(abspath $(or $(OUT),build/hw-check/lava))" $(LOGS) $(call hw_flag,CPUID,--cpuid)
