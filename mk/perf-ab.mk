# The hardware-counter A/B of kernel stack colouring (bench/perfab.py), for
# a real machine booted into the patched kernel; run it as root.
#
#   make perf-ab         perf stat of the workloads, kernel.kstack_colour off
#                        against on: build/perf-ab/results.md (REPEATS=N,
#                        RING_NS=..., EVENTS=...: see its docstring).
#                        Without hardware counters (a VM) it says so, exit 0
#   make perf-ab-test    its tests on canned perf output and a fake perf (TAP)

.PHONY: perf-ab perf-ab-test

# Each setting given (an empty one too: RING_NS= means no ring case) becomes
# perfab.py's flag of the same name (perfab.py --help).
perfab_flag = $(if $(filter undefined default,$(origin $(1))),,$(2) "$($(1))")
PERFAB_FLAGS = $(strip $(call perfab_flag,REPEATS,--repeats) \
	$(call perfab_flag,WARMUP,--warmup) \
	$(call perfab_flag,RING_NS,--ring-ns) \
	$(call perfab_flag,RING_SWITCHES,--ring-switches) \
	$(call perfab_flag,MSG_ARGS,--msg-args) \
	$(call perfab_flag,FORKS,--forks) \
	$(call perfab_flag,EVENTS,--events) \
	$(call perfab_flag,THRESHOLD,--threshold) \
	$(call perfab_flag,PIN_CPU,--pin-cpu) \
	$(call perfab_flag,PERF,--perf) \
	$(call perfab_flag,WL_DIR,--wl-dir) \
	$(call perfab_flag,KSTACK_COLOUR_SYSCTL,--sysctl) \
	$(call perfab_flag,WORK,--work))

perf-ab: ## perf stat A/B of colouring off against on, on real hardware, as root -> build/perf-ab
	@python3 bench/perfab.py $(PERFAB_FLAGS)

perf-ab-test: ## perf-ab's tests on canned perf stat output
	@python3 bench/tests/test_perfab.py
