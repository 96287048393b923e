# The cache benchmark of kernel stack colouring (bench/run-bench.sh).
#
#   make bench            every case and N: docs/results/bench.md and its plots
#   make bench QUICK=1    the reduced set (make check's smoke test), results in
#                         build/bench/quick; docs/ is not touched
#   make bench-sweep      the parameter sweep: docs/results/sweep.md and its plots
#   make bench-sweep QUICK=1  its smoke run, results in build/bench/sweep-quick

.PHONY: bench

bench: deps
	@QUICK=$(QUICK) bash bench/run-bench.sh

.PHONY: bench-sweep

# The parameter sweep (bench/run-sweep.sh): grid of max_offset x step, the
# default chosen from it, policies, level 2, task_struct colouring,
# randomize_kstack_offset, other L1D/L2 geometries and the four function
# alignment kernels -> docs/results/sweep.md (QUICK=1: make check's smoke run).
bench-sweep: deps
	@QUICK=$(QUICK) bash bench/run-sweep.sh
