# SPDX-License-Identifier: GPL-2.0
"""Helpers shared by the python checks in this directory (stdlib only).

    Tap        harness/tap.py's TAP printer, re-exported.
    cache_name(level, type)
               "L1D", "L1I", "L2", "L3", "L1T" (trace).
    run_probe(probe, path, *extra_args)
               the "caches" list of `PROBE --cpuid-file PATH --json ARGS`;
               raises ProbeError if the probe does not run, exits non-zero
               or prints JSON without a usable "caches" list.
    FIXTURES   facts.tsv's fixtures path ($FIXTURES overrides).

The scripts import this with their own directory put first on sys.path,
so they run from any directory.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from harness import facts  # noqa: E402
from harness.tap import Tap  # noqa: E402

__all__ = ["FIXTURES", "ProbeError", "Tap", "cache_name", "probe_arg", "run_probe"]  # Tap: re-exported

FIXTURES = facts.path("fixtures")

TYPE_SUFFIX = {"data": "D", "instruction": "I", "unified": "", "trace": "T"}


def cache_name(level, ctype):
    """L1D, L1I, L2, L3, L1T (trace); L2?TYPE for a type not listed."""
    return "L%d%s" % (level, TYPE_SUFFIX.get(ctype, "?" + str(ctype)))


class ProbeError(RuntimeError):
    """kcolour-probe did not run, failed, or printed unusable JSON."""


def probe_arg(argv, usage):
    """The probe binary argv[1] names, or None once the usage or its absence
    is said on stderr."""
    if len(argv) < 2:
        print("usage: %s %s" % (argv[0], usage), file=sys.stderr)
        return None
    if not (os.path.isfile(argv[1]) and os.access(argv[1], os.X_OK)):
        print("%s: probe binary %s is missing (build it: make -C tools-probe)"
              % (argv[0], argv[1]), file=sys.stderr)
        return None
    return argv[1]


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
