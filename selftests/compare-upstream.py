#!/usr/bin/env python3
"""Judge upstream selftests differentially: off against on.

Every upstream program that passes (exit 0) on a boot with
kstack_colour=off must also pass on the boot with colouring on: same
image, same CPU model, same run.  Programs that fail in both are listed
with the reason from selftests/upstream-known.tsv where it is known;
they are not counted as passes.  The programs that file keeps from running
are listed with its reason.  Prints TAP.

usage: compare-upstream.py NAME OFF.upstream ON.upstream
  (files of "prog rc" lines, written by parse-results.py --upstream)
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools-probe/tests"))
from probelib import Tap  # noqa: E402

KNOWN = ROOT / "selftests/upstream-known.tsv"
RC_MEANING = {1: "failed", 4: "skipped", 134: "aborted", 137: "killed by the timeout",
              139: "segfault"}


def read_results(path):
    results = {}
    try:
        for line in open(path):
            prog, rc = line.split()
            results[prog] = int(rc)
    except (OSError, ValueError):
        pass
    return results


def known_reasons():
    """{program: (action, reason)} of upstream-known.tsv."""
    known = {}
    for line in open(KNOWN):
        if line.strip() and not line.startswith("#"):
            prog, action, reason = line.rstrip("\n").split("\t", 2)
            known[prog] = (action, reason)
    return known


def describe(rc):
    return "rc=%d, %s" % (rc, RC_MEANING.get(rc, "failed"))


def main(name, off_path, on_path):
    emit = Tap()
    off, on = read_results(off_path), read_results(on_path)
    known = known_reasons()
    emit(len(off) > 0 and sorted(off) == sorted(on),
         "%s: upstream programs ran in both boots (%d off, %d on)" % (name, len(off), len(on)))
    passing = sorted(p for p, rc in off.items() if rc == 0)
    for prog in passing:
        emit(on.get(prog) == 0, "%s: %s passes with kstack_colour=off and on%s"
             % (name, prog, "" if on.get(prog) == 0 else " (on: %s)" % describe(on.get(prog, -1))))
    both = sorted(p for p, rc in off.items() if rc != 0 and on.get(p, 0) != 0)
    for prog in both:
        print("# %s: fails in both: %s (off %s; on %s): %s" % (
            name, prog, describe(off[prog]), describe(on[prog]),
            known.get(prog, ("", "reason not known"))[1]))
    for prog in sorted(p for p, rc in off.items() if rc != 0 and on.get(p) == 0):
        print("# %s: %s fails with colouring off (%s) but passes on" % (name, prog, describe(off[prog])))
    skipped = sorted(p for p, (action, _) in known.items() if action == "skip")
    for prog in skipped:
        print("# %s: not run: %s: %s" % (name, prog, known[prog][1]))
    print("# %s: %d upstream programs pass in both, %d fail in both, %d not run"
          % (name, len(passing), len(both), len(skipped)))
    emit.plan()


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
