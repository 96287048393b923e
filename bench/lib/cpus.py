"""A real CPU as the bench simulates it: its caches from its CPUID dump
(kcolour-probe), the line the kernel derives on it, and the cost model on
the plugin's cpus= hierarchy of it."""

from pathlib import Path
from typing import Dict, Tuple

from bench.lib.cost import Latency, Rates
from bench.lib.probe import probe_caches, probe_cmdline
from harness import facts

# the model's L1I stands in, and the report says so.
MODEL_L1I = facts.default_model()[1]["L1I"]


def hierarchy(caches: Dict[str, Tuple[int, int, int]]) -> str:
    """The plugin's cpus= item of caches: L1D-L1I-L2, each SIZE:WAYS:LINE."""
    return "-".join("%d:%d:%d" % caches[c] for c in ("L1D", "L1I", "L2"))


class Cpu:
    """One real CPU, a core of logical-CPU block cpu of its dump: its caches
    (probe --json) and the line the kernel derives on the boot CPU, block 0
    (--cmdline): on a hybrid part the other core type runs with that line."""

    def __init__(self, name: str, cpu_set: str, dump: Path, cpu: int = 0) -> None:
        self.name, self.set, self.dump, self.cpu = name, cpu_set, dump, cpu
        self.caches = probe_caches(dump, cpu)
        self.l1i_stand_in = "L1I" not in self.caches
        self.caches.setdefault("L1I", MODEL_L1I)
        self.derived = probe_cmdline(dump)

    def hierarchy(self) -> str:
        """The plugin's cpus= item of this CPU's caches."""
        return hierarchy(self.caches)

    def geometry(self, cache: str) -> str:
        size, ways, _ = self.caches[cache]
        return "%s %d-way" % ("%dK" % (size >> 10) if size < 1 << 20 or size % (1 << 20)
                              else "%dM" % (size >> 20), ways)


def cpu_cycles(p: Rates, i: int, lat: Latency) -> float:
    """bench.py's cycle model on the caches of the plugin's cpus= hierarchy i."""
    miss = {c: p.rate("cpu%d-%s" % (i + 1, c)) for c in ("L1D", "L1I", "L2")}
    return p.insns * lat["cpi"] + (miss["L1D"] + miss["L1I"]) * lat["L2"] + miss["L2"] * lat["L3"]
