# SPDX-License-Identifier: GPL-2.0
"""Helpers shared by the python checks in this directory (stdlib only).

    Tap        TAP printer: tap(good, text, diag) prints "ok N - text" or
               "not ok N - text" and a "#   " line per diagnostic;
               tap.plan() prints "1..N".  tap.n and tap.failed count.
    cache_name(level, type)
               "L1D", "L1I", "L2", "L3", "L1T" (trace).
    run_probe(probe, path, *extra_args)
               the "caches" list of `PROBE --cpuid-file PATH --json ARGS`;
               raises ProbeError if the probe does not run, exits non-zero
               or prints JSON without a usable "caches" list.
    FIXTURES   $FIXTURES, else ../shared/fixtures/cpuid beside the repo root.

The scripts import this with their own directory put first on sys.path,
so they run from any directory.
"""

import json
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(os.environ.get("FIXTURES") or ROOT.parent / "shared/fixtures/cpuid")

TYPE_SUFFIX = {"data": "D", "instruction": "I", "unified": "", "trace": "T"}


def cache_name(level, ctype):
    """L1D, L1I, L2, L3, L1T (trace); L2?TYPE for a type not listed."""
    return "L%d%s" % (level, TYPE_SUFFIX.get(ctype, "?" + str(ctype)))


class ProbeError(RuntimeError):
    """kcolour-probe did not run, failed, or printed unusable JSON."""


def run_probe(probe, path, *extra_args):
    """The cache dicts of `PROBE --cpuid-file PATH --json EXTRA_ARGS...`.

    Every entry has a level and a type that cache_name() accepts."""
    cmd = [str(probe), "--cpuid-file", str(path), "--json"] + [str(a) for a in extra_args]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ProbeError("probe did not run: %s" % e) from e
    if out.returncode:
        raise ProbeError("probe exit %d: %s" % (out.returncode, out.stderr.strip()[:300]))
    try:
        caches = json.loads(out.stdout)["caches"]
        if not isinstance(caches, list):
            raise TypeError('"caches" is not a list')
        for c in caches:
            cache_name(c["level"], c["type"])
    except (ValueError, KeyError, TypeError) as e:
        raise ProbeError("bad probe JSON: %s" % e) from e
    return caches


class Tap:
    """TAP lines, numbered from 1; the plan goes last (plan())."""

    def __init__(self):
        self.n = self.failed = 0

    def __call__(self, good, text, diag=()):
        """One test line, then one "#   " line per diagnostic; returns good."""
        self.n += 1
        self.failed += not good
        print("%sok %d - %s" % ("" if good else "not ", self.n, text))
        for d in diag:
            print("#   " + d)
        return good

    def plan(self):
        print("1..%d" % self.n)
