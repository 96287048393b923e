"""The caches the bench simulates, as kcolour-probe decodes a CPUID dump:
a dump's caches (probe_caches()), the line the kernel derives on it
(probe_cmdline()), the bench CPU's (bench_caches(), facts.tsv's bench-dump)
and the plugin arguments that simulate them (plugin_geometry())."""

import json
import subprocess
import sys
from pathlib import Path
from typing import Mapping, Sequence

from harness import facts, util

ROOT = facts.ROOT


def probe(dump: Path | None, *args: str) -> str:
    """kcolour-probe's output on a CPUID dump (None: this machine's CPU);
    util.Error with its message."""
    where = ["--cpuid-file", str(dump)] if dump is not None else []
    out = subprocess.run([str(ROOT / "tools-probe/kcolour-probe")] + where + ["--no-sysfs"] +
                         list(args), capture_output=True, text=True)
    if out.returncode:
        raise util.Error("kcolour-probe %s: %s" % (" ".join(where) or "on this CPU",
                                                    out.stderr.strip()))
    return out.stdout


def probe_cmdline(dump: Path | None, cpu: int = 0) -> str:
    """The kstack_colour= line the probe derives for a dump's CPU (its
    logical-CPU block cpu)."""
    return probe(dump, "--cpu", str(cpu), "--cmdline").strip()


def probe_caches(dump: Path | None, cpu: int = 0) -> dict[str, tuple[int, int, int]]:
    """{"L1D": (size, ways, line), "L1I": ..., "L2": ...} of a CPUID dump
    (its logical-CPU block cpu; None: this machine's CPU cpu), as
    kcolour-probe decodes it (the simulator models that CPU's caches)."""
    names = {(1, "data"): "L1D", (1, "instruction"): "L1I", (2, "unified"): "L2"}
    caches = json.loads(probe(dump, "--cpu", str(cpu), "--json"))["caches"]
    return {names[(c["level"], c["type"])]: (c["size"], c["ways"], c["line"])
            for c in caches if (c["level"], c["type"]) in names}


def bench_caches() -> dict[str, tuple[int, int, int]]:
    """probe_caches() of facts.tsv's bench-dump, the CPU the bench simulates;
    kcolour-probe's error and exit 2 where it cannot decode it."""
    try:
        return probe_caches(facts.path("bench-dump"))
    except util.Error as e:
        print("error: %s" % e, file=sys.stderr)
        sys.exit(2)


def plugin_geometry(caches: Mapping[str, Sequence[int]]) -> str:
    """The plugin arguments that simulate caches (probe_caches())."""
    return ",".join("%s=%s" % (c.lower(), ":".join("%d" % x for x in g))
                    for c, g in sorted(caches.items()))
