"""The cost model: estimated cycles per event from a boot's counts.

Instructions at the bench CPU's base CPI, an L1 miss costs an L2 hit, an L2
miss an L3 hit, no overlap between misses (facts.tsv's `latency` row; the
pages state the figures at 0.5x and 1.5x the latencies, lat_scale).  Misses
are the model-free figure; cycles carry the model's bounds.
"""

from typing import Protocol, TypedDict

from harness import facts


class Latency(TypedDict):
    """latency(): the base CPI, the L2 and L3 hit latencies in cycles, their source."""
    cpi: float
    L2: float
    L3: float
    source: str


class Rates(Protocol):
    """What cycles() reads of a Phase (data.Phase, off_cost's Counts)."""

    @property
    def insns(self) -> float: ...

    def rate(self, cache: str, region: str = ..., kind: str = ...) -> float: ...


def latency() -> Latency:
    """facts.tsv's cycle model for the bench's CPU: {cpi, L2, L3, source}."""
    (cpi, l2, l3, source), = [r[1:] for r in facts.rows("latency") if r[0] == "bench"]
    return {"cpi": float(cpi), "L2": float(l2), "L3": float(l3), "source": source}


def cycles(p: Rates, lat: Latency, kind: str = "sa_miss", cpi_scale: float = 1.0,
           lat_scale: float = 1.0) -> float:
    """Estimated cycles per event of a Phase: instructions x base CPI, an L1
    miss costs an L2 hit, an L2 miss an L3 hit; no overlap between misses."""
    l1 = p.rate("L1D", kind=kind) + p.rate("L1I", kind=kind)
    return p.insns * lat["cpi"] * cpi_scale + lat_scale * (l1 * lat["L2"] +
                                                           p.rate("L2", kind=kind) * lat["L3"])
