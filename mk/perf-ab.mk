# The A/B of kernel stack colouring on a real machine (bench/perfab.py),
# booted into the patched kernel; run it as root (docs/real-hardware.md).
#
#   make perf-ab         perf stat of the bundled workloads, or of CMD="PROG
#                        ARGS" (perfab.py's -- CMD), kernel.kstack_colour off
#                        and on alternating, paired 95% intervals:
#                        build/perf-ab/results.md (REPEATS=N, EVENTS=...,
#                        RESTART="systemctl restart lighttpd": its docstring).
#                        Without a PMU (a VM), the software events
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
	$(call perfab_flag,RESTART,--restart) \
	$(call perfab_flag,PIN_CPU,--pin-cpu) \
	$(call perfab_flag,PERF,--perf) \
	$(call perfab_flag,WL_DIR,--wl-dir) \
	$(call perfab_flag,KSTACK_COLOUR_SYSCTL,--sysctl) \
	$(call perfab_flag,SYSTEM_WIDE,--system-wide) \
	$(call perfab_flag,PARAMS,--params) \
	$(call perfab_flag,WORK,--work))

perf-ab: ## [use] perf stat A/B of colouring off against on (CMD="PROG ARGS" for your own), as root -> build/perf-ab
	@python3 -m bench run perf-ab $(PERFAB_FLAGS) $(if $(CMD),-- $(CMD))

perf-ab-test: ## [check] perf-ab's tests on canned perf stat output
	@python3 bench/tests/test_perfab.py
