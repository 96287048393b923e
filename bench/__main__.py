"""python3 -m bench: list the experiments, or run one (make's bench targets
call this).

    python3 -m bench list
    python3 -m bench run NAME [--quick] [--resume] [--report-only] [ARGS...]
    python3 -m bench run NAME --help     # the experiment's own flags

Every experiment takes the flags of bench.lib.runner.options() (--quick,
--resume, --report-only, --jobs, --work, --pool) and its own; run passes
them on.  The exit status is the experiment's.
"""

import argparse
import importlib
import sys

# NAME: (module, the make target that runs it, what it writes).
EXPERIMENTS = {
    "bench": ("colouring", "make bench",
              "stack and task_struct colouring against off, paired -> bench.md"),
    "sweep": ("sweep", "make bench-sweep", "colour counts x steps under a ring -> sweep.md"),
    "cpus": ("cpus", "make bench-cpus / bench-cpu",
             "colouring on the caches of facts.tsv's real CPUs -> cpus.md"),
    "paired": ("paired_bench", "make bench-paired",
               "colouring against off and a placebo, per workload -> paired*.md"),
    "attribution": ("attribution", "make bench-attribution",
                    "who owns the direct map's L1D conflict misses -> attribution.md"),
    "l2-attribution": ("l2_attribution", "make bench-l2-attribution",
                       "who misses and evicts in the L2, by page frame -> l2-attribution.md"),
    "slab-colour": ("slab_colour", "make bench-slab-colour",
                    "which slab caches colouring helps -> slab-colour.md"),
    "off-cost": ("off_cost", "make bench-off-cost",
                 "what the colouring costs built in and off -> off-cost.md"),
    "forkrate": ("forkrate", "make bench-fork", "fork+exit throughput, off against on"),
    "perf-ab": ("perfab", "make perf-ab", "the A/B on a real machine, with perf stat"),
}


def split(argv):
    """(runner's arguments, experiment's): what follows NAME is the
    experiment's, "--" and all (perf-ab's -- CMD), untouched."""
    if argv[:1] == ["run"] and len(argv) > 1 and not argv[1].startswith("-"):
        return argv[:2], argv[2:]
    return argv, []


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(prog="python3 -m bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="the experiments, their make targets and pages")
    run = sub.add_parser("run", help="run one experiment (its flags follow its name)")
    run.add_argument("name", choices=sorted(EXPERIMENTS), metavar="NAME")
    mine, rest = split(argv)
    args = p.parse_args(mine)
    if args.command == "list":
        for name, (_, target, what) in EXPERIMENTS.items():
            print("%-21s %-34s %s" % (name, target, what))
        return 0
    module = importlib.import_module("bench." + EXPERIMENTS[args.name][0])
    return module.main(rest)


if __name__ == "__main__":
    sys.exit(main())
