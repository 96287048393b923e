# The cache benchmark of kernel stack colouring and its experiments, each run
# by python3 -m bench run NAME (bench/__main__.py; python3 -m bench list).
#
#   make bench            every case and workload: docs/results/bench.md and its plots
#   make bench QUICK=1    the reduced set (make check's smoke test), results in
#                         build/bench/quick; docs/ is not touched
#   make bench-sweep      the sweep: grid of max_offset x step, the default chosen
#                         from it, policies, level 2, task_struct colouring,
#                         randomize_kstack_offset, other L1D/L2 geometries and the
#                         four function alignment kernels -> docs/results/sweep.md
#   make bench-sweep QUICK=1  its smoke run, results in build/bench/sweep-quick
#
# A full run of an experiment that keeps a record writes it to
# docs/results/data/NAME/ (what its page is computed from); REPORT_ONLY=1
# writes the page again from it (or from WORK=DIR), and python3 -m bench
# reports (make check's reports suite) holds every page to its record.

.PHONY: bench bench-sweep

bench: deps-bench probe-build ## [bench] cache-simulator benchmark of stack colouring -> docs/results/bench.md (QUICK=1: smoke run)
	@python3 -m bench run bench $(BENCH_FLAGS)

bench-sweep: deps-bench probe-build ## [bench] colouring parameter sweep, the default chosen from it -> docs/results/sweep.md (QUICK=1)
	@python3 -m bench run sweep $(BENCH_FLAGS) $(if $(filter-out 1,$(FALIGN)),--no-falign)

# make bench-attribution [QUICK=1]: the objects behind the direct map's L1D
# conflict misses, both sides of each, from the plugin's conflicts= and the
# bench kernel's page map (bench/attribution.py) -> docs/results/attribution.md
# (QUICK=1: build/bench/attribution-quick).
.PHONY: bench-attribution
bench-attribution: deps-bench probe-build ## [bench] which direct-map objects miss by conflict, and what evicts them -> docs/results/attribution.md (QUICK=1)
	@python3 -m bench run attribution $(BENCH_FLAGS)

# make bench-slab-colour [QUICK=1]: the attribution's next caches, each with
# its slabs coloured as task_struct's on top of kstack_colour=task, then the
# winners together (bench/slab_colour.py) -> docs/results/slab-colour.md
# (QUICK=1: build/bench/slab-colour-quick).
.PHONY: bench-slab-colour
bench-slab-colour: deps-bench probe-build ## [bench] which caches' slab colours help beyond task_struct -> docs/results/slab-colour.md (QUICK=1)
	@python3 -m bench run slab-colour $(BENCH_FLAGS)

# make bench-off-cost: the colouring built in and off against the same
# tree and configuration without it, paired over ten text layouts
# (bench/off_cost.py) -> docs/results/off-cost.md, raw figures in
# docs/results/data/off-cost/ (REPORT_ONLY=1 writes the page from them;
# QUICK=1 checks that it does, byte for byte).
.PHONY: bench-off-cost
bench-off-cost: deps-bench ## [bench] what carrying the colouring costs while it is off: instructions and cycles per switch, fork, message, request -> docs/results/off-cost.md (LAYOUTS=, QUICK=1)
	@python3 -m bench run off-cost $(BENCH_FLAGS) $(if $(LAYOUTS),--layouts "$(LAYOUTS)")

# make bench-cpus [QUICK=1]: stack colouring on the caches of facts.tsv's
# real CPUs (benchcpu), all simulated in every boot: off, a grid of colour
# counts x steps x policies, and each CPU's derived kstack_colour= line, in
# pick and scoring layouts -> docs/results/cpus.md (QUICK=1: three CPUs, two
# settings, build/bench/cpus-quick).  make bench-cpu DUMP=FILE: the same on
# one CPUID dump (`cpuid -r` or AIDA64, any machine's), build/bench/cpu-NAME.
.PHONY: bench-cpus bench-cpu
bench-cpus: deps-bench probe-build ## [bench] colouring settings on the caches of 17 real CPUs -> docs/results/cpus.md (QUICK=1)
	@python3 -m bench run cpus $(BENCH_FLAGS)

bench-cpu: deps-bench probe-build ## [bench] the same on one CPUID dump, any machine's (DUMP=FILE, QUICK=1)
	@test -n "$(DUMP)" || { echo "usage: make bench-cpu DUMP=FILE [QUICK=1]" >&2; exit 2; }
	@python3 -m bench run cpus --dump "$(abspath $(DUMP))" $(BENCH_FLAGS)

# make bench-fork: fork+exit throughput with kernel stack colouring off
# against on (the kernel.kstack_colour sysctl switched between rounds), as a
# ratio within one boot at -smp 2 on multi-threaded TCG (bench/forkrate.py,
# bench/workloads/forkrate.c); results in build/bench/fork/results.md.
#   FORKS=2000 ROUNDS=8 JOBS=2   forks per worker, timed rounds, workers
#   IMAGE=bzImage|name           another kernel (default facts.tsv's bench)
#   APPEND="args"                more kernel arguments (kstack_colour=task, ...)
#   TIMEOUT=600 WORK=DIR           the boot's timeout, the work dir (python3 -m bench run forkrate --help)
.PHONY: bench-fork
# IMAGE only when given (mk/kernel.mk's default is make kernel's test image).
FORK_FLAGS = $(strip $(if $(FORKS),--forks $(FORKS)) $(if $(ROUNDS),--rounds $(ROUNDS)) \
	$(if $(JOBS),--jobs $(JOBS)) $(if $(TIMEOUT),--timeout $(TIMEOUT)) \
	$(if $(WORK),--work "$(abspath $(WORK))") $(if $(APPEND),--append "$(APPEND)") \
	$(if $(filter command line environment,$(origin IMAGE)),--image "$(IMAGE)"))
bench-fork: deps-bench ## [bench] fork and exit throughput, colouring off against on in one boot -> build/bench/fork/results.md (IMAGE=, FORKS=, ROUNDS=)
	@python3 -m bench run forkrate $(FORK_FLAGS)

# make bench-paired [QUICK=1] [LAYOUTS=N] [IMAGE=NAME]: stack colouring at
# its defaults and a placebo against off, in the same layouts, paired 95%
# intervals (bench/paired_bench.py) -> docs/results/paired.md
# (QUICK=1: build/bench/paired-quick).
.PHONY: bench-paired
bench-paired: deps-bench probe-build ## [bench] colouring and a placebo against off, paired intervals over layouts -> docs/results/paired.md (QUICK=1, LAYOUTS=N, WORKLOADS=SET, CLASSES=1: each L1D class -> paired-classes.md)
	@python3 -m bench run paired $(BENCH_FLAGS) $(if $(LAYOUTS),--layouts $(LAYOUTS)) $(if $(IMAGE),--image $(IMAGE)) $(if $(WORKLOADS),--workloads $(WORKLOADS)) $(if $(CLASSES),--classes) $(if $(PUBLISH),--publish)

# make bench-paired-ring: the ring against N (facts.tsv paired-ring), each L1D
# class paired -> docs/results/paired-classes-ring.md: what decides the rule
# that leaves L1Ds of more than 8 ways uncoloured (30 boots, about 17 minutes).
.PHONY: bench-paired-ring
bench-paired-ring: deps-bench probe-build ## [bench] the ring of N = 4..24 tasks, colouring and a placebo against off, each L1D class paired -> docs/results/paired-classes-ring.md
	@python3 -m bench run paired $(BENCH_FLAGS) --classes --image test --workloads paired-ring --publish

# make bench-l2-attribution [QUICK=1]: both sides of the L2's conflict
# misses by physical page frame owner, on the 256K 4-way and 8-way L2s
# (bench/l2_attribution.py) -> docs/results/l2-attribution.md
# (QUICK=1: build/bench/l2-attribution-quick).
.PHONY: bench-l2-attribution
bench-l2-attribution: deps-bench probe-build ## [bench] who misses and who evicts in the L2, by page frame owner -> docs/results/l2-attribution.md (QUICK=1)
	@python3 -m bench run l2-attribution $(BENCH_FLAGS) $(if $(IMAGE),--image $(IMAGE))
