"""make check's suite runner: every suite a command whose TAP (stdout) goes
to build/test-logs/NAME.tap and whose stderr to NAME.err; its progress
lines there ("[step] ...") show as they come, after the minutes and
seconds since the suite started (so a log shows where the time goes).  A suite
that exits non-zero without a failed test, or that runs no test, counts as
one failure of its own, so nothing fails silently.  The closing line is
"N passed, N failed, N skipped"; a skip is a check whose environment
cannot run it, never a pass.

A background suite (a kernel build) runs beside the suites after it, on the
core that single-threaded suites leave idle; a suite that needs its image
waits on the image's lock (kernel.image), then finds it cached."""

import concurrent.futures
import os
import re
import subprocess
import sys
import threading
import time
from typing import Any, Dict, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Tuple

from . import facts, tap, util

PROGRESS = re.compile(r"^\[[\w.+=/-]+\] ")
LOGDIR = facts.ROOT / "build/test-logs"   # python3 -m harness check --logdir DIR


def say(line: str) -> None:
    """A line of make check's output in one write: a background suite's
    lines come from another thread, and print() writes the newline apart."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def run_suite(name: str, cmd: Sequence[str], env: Optional[Mapping[str, str]] = None,
              background: bool = False) -> Tuple[int, int, int, float]:
    """(passed, failed, skipped, seconds) of one suite; a background one's
    progress lines are marked with its name."""
    LOGDIR.mkdir(parents=True, exist_ok=True)
    log = LOGDIR / (name + ".tap")
    start = time.time()
    what = " ".join(os.path.basename(c) if c == sys.executable else c for c in cmd)
    say("== %s%s: %s" % (name, " (in the background)" if background else "",
                         what if len(what) < 100 else what[:96] + " ..."))
    mark = "(%s) " % name if background else ""
    with open(log, "w") as out:
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE, text=True, cwd=facts.ROOT,
                             env=dict(os.environ, **(env or {})), stdin=subprocess.DEVNULL)
        err_lines: List[str] = []

        def relay() -> None:
            assert p.stderr is not None  # stderr=subprocess.PIPE
            with open(LOGDIR / (name + ".err"), "w") as err:
                for line in p.stderr:
                    err_lines.append(line)
                    err.write(line)
                    if PROGRESS.match(line):
                        sys.stdout.write("   %6s %s%s" % (util.fmt_time(time.time() - start),
                                                         mark, line))
                        sys.stdout.flush()
        t = threading.Thread(target=relay)
        t.start()
        rc = p.wait()
        t.join()
    text = log.read_text(errors="replace").splitlines()
    results = tap.parse(text)
    passed, failed, skipped = tap.counts(results)
    extra = []
    if rc and not failed:
        extra.append("not ok - %s exited with status %d" % (name, rc))
    if not rc and not passed and not failed:
        extra.append("not ok - %s ran no test" % name)
    if extra:
        failed += len(extra)
        # Why it exited shows in make check's own output, not only in the log.
        extra += ["# stderr: " + l.rstrip("\n") for l in err_lines[-20:]]
        with open(log, "a") as out:
            out.write("\n".join(extra) + "\n")
    stripped = [l.lstrip() for l in text + extra]
    shown = [l for l in stripped if l.startswith("not ok") or
             (l.startswith("# ") and not l.startswith(("# ok", "# Subtest:")))] + \
        ["skip: " + r.text + " # " + r.reason for r in results if r.skip]
    for l in shown[:40]:
        say(l)
    secs = time.time() - start
    say("   %s: %d passed, %d failed, %d skipped (%ds, log %s)"
        % (name, passed, failed, skipped, secs, os.path.relpath(log, facts.ROOT)))
    return passed, failed, skipped, secs


class Suite(NamedTuple):
    """A suite of suites.py: background=True starts it at its place, beside
    the suites after it."""
    name: str
    cmd: List[str]
    env: Optional[Dict[str, str]] = None
    background: bool = False


def main(suites: Iterable[Sequence[Any]]) -> int:
    """Run the suites ((name, cmd[, env[, background]])) in order; print the
    table, in that order, and the closing line."""
    todo = [Suite(*s) for s in suites]
    with concurrent.futures.ThreadPoolExecutor() as pool:
        # In order: a background suite is submitted at its place, the others run there.
        runs = [pool.submit(run_suite, s.name, s.cmd, s.env, True) if s.background
                else run_suite(s.name, s.cmd, s.env) for s in todo]
        results = [r.result() if isinstance(r, concurrent.futures.Future) else r for r in runs]
    rows: List[str] = []
    total = [0, 0, 0]
    for s, (p, f, k, secs) in zip(todo, results):
        rows.append("%-22s %5d %5d %5d %6ds" % (s.name, p, f, k, secs))
        total = [total[0] + p, total[1] + f, total[2] + k]
    print()
    print("%-22s %5s %5s %5s %7s" % ("suite", "pass", "fail", "skip", "time"))
    print("\n".join(rows))
    print()
    print("%d passed, %d failed, %d skipped" % tuple(total))
    return 1 if total[1] else 0
