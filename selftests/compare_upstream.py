"""The upstream selftests judged differentially: every program that passes (exit 0) with
kstack_colour=off must pass with colouring on (same image, model and run); those failing
in both, and those upstream-known.tsv keeps from running, are listed with its reason.

usage: python3 -m selftests.compare_upstream NAME OFF.upstream ON.upstream
       (parse_results.py --upstream's files; from the top of the tree, not by its path)
"""
import sys
from pathlib import Path

from harness.tap import Tap

ROOT = Path(__file__).resolve().parents[1]

RC_MEANING = {1: "failed", 4: "skipped", 134: "aborted", 137: "killed by the timeout",
              139: "segfault"}


def describe(rc):
    return "rc=%d, %s" % (rc, RC_MEANING.get(rc, "failed"))


def compare(emit, name, off, on):
    """The differential of two {prog: rc} on the Tap emit."""
    rows = (x.rstrip("\n").split("\t", 2) for x in open(ROOT / "selftests/upstream-known.tsv")
            if x.strip() and not x.startswith("#"))
    known = {prog: (action, reason) for prog, action, reason in rows}  # upstream-known.tsv
    emit(len(off) > 0 and sorted(off) == sorted(on),
         "%s: upstream programs ran in both boots (%d off, %d on)" % (name, len(off), len(on)))
    passing = sorted(p for p, rc in off.items() if rc == 0)
    for prog in passing:
        emit(on.get(prog) == 0, "%s: %s passes with kstack_colour=off and on%s"
             % (name, prog, "" if on.get(prog) == 0 else " (on: %s)" % describe(on.get(prog, -1))))
    both = sorted(p for p, rc in off.items() if rc != 0 and on.get(p, 0) != 0)
    for prog in both:
        emit.diag("%s: fails in both: %s (off %s; on %s): %s" % (
            name, prog, describe(off[prog]), describe(on[prog]),
            known.get(prog, ("", "reason not known"))[1]))
    for prog in sorted(p for p, rc in off.items() if rc != 0 and on.get(p) == 0):
        emit.diag("%s: %s fails with colouring off (%s) but passes on"
                  % (name, prog, describe(off[prog])))
    skipped = sorted(p for p, (action, _) in known.items() if action == "skip")
    for prog in skipped:
        emit.diag("%s: not run: %s: %s" % (name, prog, known[prog][1]))
    emit.diag("%s: %d upstream programs pass in both, %d fail in both, %d not run"
              % (name, len(passing), len(both), len(skipped)))


def read_results(path):
    try:
        return {prog: int(rc) for prog, rc in (line.split() for line in open(path))}
    except (OSError, ValueError):
        return {}


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    t = Tap()
    compare(t, sys.argv[1], read_results(sys.argv[2]), read_results(sys.argv[3]))
    sys.exit(t.plan())
