"""The plugin's output as data: a boot's files read back (Boot, the
Phases of NAME.txt paired with the workload lines of the console NAME.log;
read_conflicts() of its conflict tables), the caches, regions and workload
events they name (CACHES, REGIONS, UNITS), the checks of a conflict table
against its phase (conflict_problems()) and a boot's phases net of ab's
start-up (net()).
"""

import re
from pathlib import Path
from typing import Any

from bench.lib.report import fmt

CACHES = ("L1D", "L1I", "L2")
# The plugin's regions, then their sum: the report's names.
REGIONS = {"stack-top": "stack top", "stack-rest": "stack rest", "direct": "direct map",
           "ktext": "kernel text", "kdata": "kernel data", "user": "user", "other": "other",
           "all": "all"}
# Each workload's event: (its name, the key of its count in the workload's line).
UNITS = {"ring": ("switch", "switches"), "forkloop": ("fork", "forks"),
         "messaging": ("message", "messages"), "hackbench": ("message", "messages"),
         "web": ("request", "requests"), "cmd": ("run", "runs")}
# A workload's key=value line: numbers, and the name of a cmd workload.
CMD_NAME = r"[A-Za-z][\w-]*"
# Searched, not matched: the first line follows the firmware's escape codes
# on the same console line ("...\x1b[2Jring tasks=2 ...").
WORKLOAD_RE = re.compile(r"(%s)((?: (?:name=%s|[a-z]+=-?[0-9]+))+)\s*$"
                         % ("|".join(list(UNITS) + ["layout"]), CMD_NAME))


def parse_kv(text):
    return {k: int(v) if re.fullmatch(r"-?[0-9]+", v) else v
            for k, v in (item.split("=", 1) for item in text.split())}


# The plugin's conflict tables (bench/cachesim/README.md, conflicts=): its
# option, and the cache and region whose conflict pairs it keeps.
CONFLICTS = {"conflicts": ("L1D", "direct"), "text_conflicts": ("L1I", "ktext"),
             "l2_conflicts": ("L2", "watched")}


# A phase's conflict table: (head {all, REGION, unknown, pairs}, [(victim, evictor, n, ...)]).
Conflicts = tuple[dict[str, int], list[tuple[Any, ...]]]


def read_conflicts(path: Path | str, regions: bool = False) -> dict[int, Conflicts]:
    """{phase: (head {all, REGION, unknown, pairs}, [(victim, evictor, n)])}
    of a conflicts=, text_conflicts= or l2_conflicts= file; victim an int,
    evictor as written (an address, a region or ?).  regions: each pair also
    has an l2_conflicts= file's victim_region and evictor_region."""
    out: dict[int, Conflicts] = {}
    for line in Path(path).read_text().splitlines():
        words = line.split()
        kv = dict(w.split("=", 1) for w in words[1:])
        head, pairs = out.setdefault(int(kv["phase"]), ({}, []))
        if words[0].endswith("conflicts"):
            head.update((k, int(v)) for k, v in kv.items() if k != "phase")
        else:
            pairs.append((int(kv["victim"], 16), kv["evictor"], int(kv["n"])) + (
                (kv.get("victim_region", "?"), kv.get("evictor_region", "?"))
                if regions else ()))
    return out


def conflict_problems(kind: str, phase: "Phase", conflicts: Conflicts) -> list[str]:
    """What does not add up in one phase's conflict table against the
    phase's own counts (a list, empty if all does)."""
    cache, region = CONFLICTS[kind]
    head, pairs = conflicts
    if not head:
        return ["no %s line" % kind.replace("_", "-")]
    out = []
    if sum(x[2] for x in pairs) != head[region] or len(pairs) != head["pairs"]:
        out.append("the pairs do not add up to %s=%d" % (region, head[region]))
    if sum(x[2] for x in pairs if x[1] == "?") != head["unknown"]:
        out.append("unknown evictors do not add up")
    # Per access, SA miss and FA hit; sa - fa nets out the reverse.
    c = phase.counts[(cache, "all")]
    if not head[region] <= head["all"] or head["all"] < c["sa_miss"] - c["fa_miss"]:
        out.append("all=%d %s=%d against sa-fa %d" % (head["all"], region, head[region],
                                                      c["sa_miss"] - c["fa_miss"]))
    return out


class Phase:
    """One workload run: its plugin counts and what the workload printed."""

    def __init__(self, workload: str, info: dict[str, Any], head: dict[str, Any],
                 counts: dict[tuple[str, str], dict[str, Any]]) -> None:
        self.workload = workload
        self.info = info        # the workload's key=value line
        self.head = head        # the plugin's phase line (insns, complete)
        self.counts = counts    # (cache, region) -> {accesses, sa_miss, fa_miss}
        # The denominator of per-event figures: (name, count), the count an int
        # of the workload line (Any: info.get() is None where a line lacks it).
        self.unit: tuple[str, Any] = (UNITS[workload][0], info.get(UNITS[workload][1]))

    @property
    def start_up(self) -> bool:
        """ab's start-up alone: the one-request web run, which every other web
        phase is net of (net())."""
        return self.workload == "web" and self.info["requests"] == 1

    @property
    def label(self) -> str:
        i = self.info
        if self.workload == "ring":
            return "ring N=%d" % i["tasks"]
        if self.start_up:
            return "web start-up (1 request)"
        if self.workload == "web":
            return "web c=%d %s" % (i["concurrency"], "keep-alive" if i["keepalive"] else "close")
        if self.workload == "hackbench":
            return "hackbench %s %s g=%d" % ("thread" if i["threads"] else "process",
                                            "pipe" if i["pipes"] else "socket", i["groups"])
        if self.workload == "cmd":
            return i["name"]
        return self.workload

    def minus(self, other: "Phase") -> "Phase":
        """This phase less another of the same workload: every count and the
        events (web: less the one-request run, ab's start-up)."""
        key = UNITS[self.workload][1]
        info = dict(self.info, **{key: self.info[key] - other.info[key]})
        head = dict(self.head, insns=self.head["insns"] - other.head["insns"])
        counts = {cr: {k: v - other.counts[cr].get(k, 0) if isinstance(v, int) else v
                       for k, v in c.items()} for cr, c in self.counts.items()}
        return Phase(self.workload, info, head, counts)

    def per(self, value: float) -> float:
        return value / self.unit[1]

    @property
    def insns(self) -> float:
        return self.per(self.head["insns"])

    def rate(self, cache: str, region: str = "all", kind: str = "sa_miss") -> float:
        """Misses per event."""
        return self.per(self.counts[(cache, region)][kind])

    def sa_fa(self, cache: str, region: str) -> str:
        """Misses per event, set-associative (fully associative in brackets)."""
        return "%s (%s)" % (fmt(self.rate(cache, region)), fmt(self.rate(cache, region, "fa_miss")))


class Boot(list):
    """One boot's Phases, paired in order with the workload lines of its
    console STEM.log; .config and .phases ({n: (head, counts)}) as the plugin
    wrote them to STEM.txt, .raw that file's bytes."""

    def __init__(self, stem):
        txt = Path(str(stem) + ".txt")
        self.raw = txt.read_bytes() if txt.exists() else b""
        self.config: dict[str, Any] = {}
        self.phases: dict[int, tuple[dict[str, Any], dict[tuple[str, str], dict[str, Any]]]] = {}
        for words in (line.split() for line in self.raw.decode().splitlines()):
            kv = parse_kv(" ".join(words[2 if words[1] == "config" else 1:]))
            if words[1] == "config":
                self.config = kv
                continue
            head, counts = self.phases.setdefault(kv["phase"], ({}, {}))
            if "cache" in kv:
                counts[(kv["cache"], kv["region"])] = kv
            else:
                head.update(kv)
        console = Path(str(stem) + ".log").read_text(errors="replace")
        self.lines = [(m.group(1), parse_kv(m.group(2))) for m in
                      map(WORKLOAD_RE.search, console.splitlines()) if m]
        self.layout: dict[str, Any] = next((kv for wl, kv in self.lines if wl == "layout"), {})
        self.lines = [(wl, kv) for wl, kv in self.lines if wl != "layout"]
        super().__init__(Phase(wl, info, *self.phases[i])
                         for i, (wl, info) in enumerate(self.lines) if i in self.phases)

    def of(self, workload):
        return [p for p in self if p.workload == workload]

    def event(self, e):
        """The Phase of ring N (an int) or of a workload (a name)."""
        return next(p for p in self if
                    (p.info.get("tasks") == e if isinstance(e, int) else p.workload == e))

    def insns(self, workload):
        """Instructions per event, every phase of the workload pooled."""
        phases = self.of(workload)
        return sum(p.head["insns"] for p in phases) / sum(p.unit[1] for p in phases)



def net(boot):
    """A boot's Phases, each web phase less the boot's one-request web phase
    (ab's exec and start-up, inside every web window) where there is one."""
    start = [q for q in boot if q.start_up]
    return [p.minus(start[0]) if p.workload == "web" and start and p is not start[0] else p
            for p in boot]
