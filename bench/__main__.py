"""python3 -m bench: list the experiments, or run one (make's bench targets
call this).

    python3 -m bench list
    python3 -m bench run NAME [--quick] [--resume] [--report-only] [--out DIR] [ARGS...]
    python3 -m bench run NAME --help     # the experiment's own flags
    python3 -m bench reports [NAME...]   # each page again from its record (TAP)

Every experiment takes the flags of bench.lib.runner.options() (--quick,
--resume, --report-only, --work, --out, --jobs, --pool) and its own; run passes
them on.  The exit status is the experiment's.
"""

import argparse
import importlib
import shutil
import subprocess
import sys
from pathlib import Path

from bench.lib import record
from bench.lib.record import RECORDS, ROOT
from harness import tap
from harness.results import RESULTS

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


def recorded():
    """{record: python3 -m's arguments that write its page} of every
    committed record: a run's (its argv file: bench run NAME ..., or
    another module's), or a declaration's raw figures (off-cost's: NAME)."""
    out = {}
    for d in sorted(RECORDS.iterdir()):
        if d.suffix in (".new", ".old"):     # record.write() half done
            continue
        if (d / "argv").exists():
            out[d.name] = (d / "argv").read_text().splitlines()
        elif d.name in EXPERIMENTS:
            out[d.name] = ["bench", "run", d.name]
    return out


def differing(files):
    """The names of files whose namesake in docs/results is missing or not
    the same: a page or its data byte for byte; a plot is drawn from its
    .dat by gnuplot, whose bytes depend on the fonts a machine has, so a plot
    only has to be a PNG."""
    def same(f):
        ours = RESULTS / f.name
        if f.suffix == ".png":
            return ours.exists() and f.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        return ours.exists() and ours.read_bytes() == f.read_bytes()
    return [f.name for f in files if not same(f)]


def snapshot(d):
    """{name: bytes} of a record's files (bench reports holds it unchanged)."""
    return {f.name: f.read_bytes() for f in sorted(d.iterdir()) if f.is_file()}


def reports(names, out):
    """Each committed record (docs/results/data/NAME) writes its page again
    (--report-only --work RECORD --out out/NAME): the page and its data are
    the committed ones, byte for byte (differing()).  TAP."""
    t = tap.Tap()
    records = recorded()
    for name in names or records:
        into, kept = out / name, RECORDS / name
        shutil.rmtree(into, ignore_errors=True)
        before = snapshot(kept)
        r = subprocess.run([sys.executable, "-m"] + records[name] +
                           ["--report-only", "--work", str(kept), "--out", str(into)],
                           capture_output=True, text=True, cwd=ROOT)
        written = sorted(into.glob("*")) if into.is_dir() else []
        differ = differing(written)
        # The files the run's page was (a run's record lists them), every one written again.
        if (kept / "pages").exists():
            differ += ["%s not written" % f for f in (kept / "pages").read_text().split()
                       if f not in {w.name for w in written}]
        elif (kept / "argv").exists():
            differ.append("the record has no pages file (its run's page was not written)")
        if snapshot(kept) != before:
            differ.append("the record changed (a replay writes nothing into it)")
        t(r.returncode == 0 and written and not differ,
          "%s: %s again from %s, byte for byte%s" % (
              name, ", ".join(f.name for f in written) or "no page",
              kept.relative_to(ROOT),
              " (a plot: a PNG)" if any(f.suffix == ".png" for f in written) else ""),
          (["differ: " + " ".join(differ)] if differ else []) +
          ([] if r.returncode == 0 else (r.stdout + r.stderr).splitlines()[-10:]))
    return t.plan()


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(prog="python3 -m bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="the experiments, their make targets and pages")
    run = sub.add_parser("run", help="run one experiment (its flags follow its name)")
    run.add_argument("name", choices=sorted(EXPERIMENTS), metavar="NAME")
    rep = sub.add_parser("reports", help="each page again from its committed record, "
                         "held byte for byte to docs/results (TAP)")
    rep.add_argument("names", nargs="*", metavar="NAME",
                     help="these records (default: every one)")
    rep.add_argument("--out", type=Path, default=ROOT / "build/bench/reports",
                     help="where the pages go (default build/bench/reports)")
    mine, rest = split(argv)
    args = p.parse_args(mine)
    if args.command == "reports":
        unknown = [n for n in args.names if n not in recorded()]
        if unknown:
            p.error("reports: no record %s in %s" % (" ".join(unknown),
                                                      RECORDS.relative_to(ROOT)))
        return reports(args.names, args.out.resolve())
    if args.command == "list":
        for name, (_, target, what) in EXPERIMENTS.items():
            print("%-21s %-34s %s" % (name, target, what))
        return 0
    module = importlib.import_module("bench." + EXPERIMENTS[args.name][0])
    record.ARGV[:] = [args.name] + rest
    return module.main(rest)


if __name__ == "__main__":
    sys.exit(main())
