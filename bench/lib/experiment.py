"""An experiment as a declaration and the one runner of its kind.  The
declaration says what differs from one experiment to the next; the runner is
the rest: the flags, the image(s), the boots, the checks, the record,
--report-only and --quick.  Two kinds:

- Experiment, run by main(): kernels x text layouts, one boot each at -smp 1
  under the cache simulator, raw figures a boot committed under
  docs/results/data/NAME/, and a page written from them alone (--quick:
  again from the committed figures, byte for byte).  bench/off_cost.py.
- Cases, run by cases_main(): cases (kernel arguments) x user-space layouts
  (bench_layout=N) on one image; a full run keeps its record
  (docs/results/data/NAME/, Run.keep()), which --report-only reads; --quick
  is the smoke run on make check's image.  bench/attribution.py.

    EXPERIMENT = Experiment(name="off-cost", page="off-cost.md", ...)

    def main(argv=None):
        return experiment.main(EXPERIMENT, __doc__, argv)

docs/harness.md names the one to copy."""

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Protocol, Sequence, Tuple

from bench.lib.probe import bench_caches, plugin_geometry
from bench.lib.record import work_dir
from bench.lib.runner import ROOT, Run, layout_boots, parser, run_args
from harness import tap
from harness.results import RESULTS


class Page(Protocol):
    """A report: its save(out) writes the page (and its plots) into out."""

    def save(self, out: Path) -> None: ...


@dataclass(frozen=True)
class Experiment:
    """What one experiment is; main() runs it."""

    name: str       # python3 -m bench run NAME, make bench-NAME, build/bench/NAME
    page: str       # the page it writes into docs/results/
    wset: str       # facts.tsv's workload set the guest runs
    # (key, label, fragments) of each kernel, the control first
    kernels: Sequence[Tuple[str, str, Sequence[str]]]
    # what each kernel's .config must hold (the bench boots "quiet")
    configs: Dict[str, Sequence[str]]
    seeds: Sequence[int]     # the text layouts (text-pads-SEED.config)
    data: Path               # the raw figures' directory
    # raw(run, seed): one layout's boots' raw files, written; their paths
    raw: Callable[[Run, str], List[Path]]
    # report(seeds): the page of the raw figures there are, None if none
    report: Callable[[List[str]], Optional[Page]]
    tables: Tuple[str, ...] = ()     # the plugin's PATH options (profile, conflicts)
    kargs: str = "bench_layout=1"    # the guest's kernel arguments
    timeout: int = 3600

    def key(self, kernel: str, seed: str) -> str:
        """A boot's and its image's name: KERNEL.SSEED."""
        return "%s.S%s" % (kernel, seed)


def main(exp: Experiment, doc: str, argv: Optional[List[str]] = None) -> int:
    p = parser(doc)
    p.add_argument("--layouts", metavar='"SEED ..."',
                   help="boot only these of the seeds (default all)")
    opts = p.parse_args(argv)
    seeds = [str(s) for s in exp.seeds]
    if opts.quick or opts.report_only:
        return report_only(exp, seeds, opts.report_only, opts.work, opts.out)
    todo = opts.layouts.split() if opts.layouts else seeds
    run = Run("bench-" + exp.name, exp.wset, opts.work or ROOT / "build/bench" / exp.name,
              exp.timeout, plugin_geometry(bench_caches()), tables=exp.tables,
              **run_args(opts))
    unknown = set(todo) - set(seeds)
    if unknown:
        run.bail("--layouts: %s: not one of the seeds (%s)" % (" ".join(sorted(unknown)),
                                                               " ".join(seeds)))
    boots = []
    for s in todo:
        for k, _, frags in exp.kernels:
            run.image(exp.key(k, s), "%s-%s" % (exp.name, k), list(frags) + ["text-pads-" + s])
            boots.append((exp.key(k, s), exp.key(k, s), exp.kargs))
    run.boot(exp.name, boots)
    if not run.check_boots([b[0] for b in boots]):
        return run.finish(None, RESULTS)
    labels = {k: label for k, label, _ in exp.kernels}
    for s in todo:
        for k in labels:
            config = (run.images[exp.key(k, s)].path / "config").read_text().splitlines()
            lacks = [c for c in exp.configs[k] if c not in config]
            run.tap(not lacks, "%s: the .config of %s" % (exp.key(k, s), labels[k]), lacks)
    written = [f for s in todo for f in exp.raw(run, s)]
    run.tap(all(f.exists() for f in written),
            "every boot's raw figures written to %s (%d files)" % (
                exp.data.relative_to(ROOT), len(written)))
    return run.finish(exp.report(seeds), RESULTS, whole=set(todo) == set(seeds))


def report_only(exp: Experiment, seeds: List[str], into_results: bool,
                work: Optional[Path], out: Optional[Path] = None) -> int:
    """--report-only: the page from the committed raw figures, into docs/results
    (or --out DIR); --quick: into the work dir, held byte for byte to the
    committed page (TAP)."""
    report = exp.report(seeds)
    if report is None:
        print("error: no raw figures in %s" % exp.data.relative_to(ROOT), file=sys.stderr)
        return 1
    if into_results:
        (out or RESULTS).mkdir(parents=True, exist_ok=True)
        report.save(out or RESULTS)
        print((out or RESULTS) / exp.page)
        return 0
    out = Path(work or ROOT / "build/bench" / (exp.name + "-quick"))
    out.mkdir(parents=True, exist_ok=True)
    report.save(out)
    t = tap.Tap()
    page = RESULTS / exp.page
    t(page.exists() and (out / exp.page).read_bytes() == page.read_bytes(),
      "docs/results/%s is what its raw figures give, byte for byte (%d files in %s)" % (
          exp.page, len(list(exp.data.glob("*.tsv"))), exp.data.relative_to(ROOT)))
    return t.plan()


@dataclass(frozen=True)
class Cases:
    """Cases x user-space layouts on one image; cases_main() runs it."""

    name: str       # python3 -m bench run NAME, make bench-NAME, its record's name
    wset: str       # facts.tsv's workload set; --quick: quick_wset
    quick_wset: str
    cases: Sequence[Tuple[str, str]]        # (case, its kernel arguments)
    layouts: Sequence[int]                  # bench_layout=N, each case in each
    quick_cases: Sequence[str]              # --quick: these cases...
    quick_layouts: Sequence[int]            # ...in these layouts
    # report(run, cases, layouts): the page of the run's boots
    report: Callable[[Run, Sequence[Tuple[str, str]], Sequence[int]], Page]
    # checks(run, cases, layouts): the experiment's own checks of the boots
    # (TAP), all well
    checks: Callable[[Run, Sequence[Tuple[str, str]], Sequence[int]], bool] = \
        lambda run, cases, layouts: True
    image: str = "bench"
    after_each: str = ""             # a guest command after every workload
    tables: Tuple[str, ...] = ()     # the plugin's PATH options (conflicts, profile)


def cases_main(exp: Cases, doc: str, argv: Optional[List[str]] = None) -> int:
    opts = parser(doc).parse_args(argv)
    quick = opts.quick
    cases = [c for c in exp.cases if c[0] in exp.quick_cases] if quick else list(exp.cases)
    layouts = list(exp.quick_layouts if quick else exp.layouts)
    run = Run("bench-" + exp.name, exp.quick_wset if quick else exp.wset,
              work_dir(opts, exp.name + ("-quick" if quick else "")),
              plugin_args=plugin_geometry(bench_caches()), after_each=exp.after_each,
              tables=exp.tables, record=exp.name, **run_args(opts))
    run.image(exp.image, exp.image)
    boots = layout_boots(cases, layouts, exp.image)
    run.boot("cases", boots)
    names = [b[0] for b in boots]
    ok = run.check_boots(names) and exp.checks(run, cases, layouts)
    return run.finish(exp.report(run, cases, layouts) if ok else None)
