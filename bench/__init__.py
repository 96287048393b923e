"""The cache benchmark of kcolour: experiments that boot kernels under the
cache simulator (bench/cachesim) and write a page of docs/results each.

One entry point, in kunit.py's shape:

    python3 -m bench list
    python3 -m bench run NAME [--quick] [--resume] [--report-only] [ARGS...]

bench/lib/ holds what every experiment shares (the runner, the cost model,
the paired statistics, the shared cases); each experiment is a module of its
own here (EXPERIMENTS in bench/__main__.py names them), which imports from
bench.lib and from no other experiment.
"""
