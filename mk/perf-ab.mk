# The hardware-counter A/B of kernel stack colouring (bench/perfab.py), for
# a real machine booted into the patched kernel; run it as root.
#
#   make perf-ab         perf stat of the workloads, kernel.kstack_colour off
#                        against on: build/perf-ab/results.md (REPEATS=N,
#                        RING_NS=..., EVENTS=...: see its docstring).
#                        Without hardware counters (a VM) it says so, exit 0
#   make perf-ab-test    its tests on canned perf output and a fake perf (TAP)

.PHONY: perf-ab perf-ab-test

perf-ab: ## perf stat A/B of colouring off against on, on real hardware, as root -> build/perf-ab
	@python3 bench/perfab.py

perf-ab-test: ## perf-ab's tests on canned perf stat output
	@python3 bench/tests/test-perfab.py
