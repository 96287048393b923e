# The cache benchmark of kernel stack colouring (bench/run-bench.sh).
#
#   make bench            every case and N: docs/results/bench.md and its plots
#   make bench QUICK=1    the reduced set (make check's smoke test), results in
#                         build/bench/quick; docs/ is not touched

.PHONY: bench

bench: deps
	@QUICK=$(QUICK) bash bench/run-bench.sh
