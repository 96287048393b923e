"""The page map the bench kernel prints (/sys/kernel/debug/page_map, the
bench series), and the check that a boot's page maps and conflict pairs
add up: who owns each page frame a conflict miss names."""

import bisect
import re
from collections.abc import Iterable

from bench.lib.data import conflict_problems, read_conflicts
from bench.lib.runner import Run, table_path

PAGE_SHIFT = 12
KINDS = {"pgtable": "page table", "anon": "anonymous page", "file": "page cache",
         "percpu": "per-CPU area", "reserved": "reserved at boot", "other": "untyped kernel page",
         "free": "free page", "unmapped": "not in the map"}
MAP_LINE = re.compile(r"page_map (\d+) (\d+) (\S+)\s*$")
# A run of page frames the map prints: (first pfn, count, owner).
Frames = tuple[int, int, str]


class PageMap:
    """One reading of /sys/kernel/debug/page_map: runs of (first pfn, count,
    owner), ascending."""

    def __init__(self, runs: list[Frames]) -> None:
        self.runs = runs
        self.starts = [r[0] for r in runs]

    def problems(self) -> list[str]:
        return ["runs overlap or descend at pfn %d" % b[0]
                for a, b in zip(self.runs, self.runs[1:]) if b[0] < a[0] + a[1]]

    def owner(self, pfn: int) -> str:
        i = bisect.bisect_right(self.starts, pfn) - 1
        if i >= 0 and pfn < self.runs[i][0] + self.runs[i][1]:
            return self.runs[i][2]
        return "unmapped"


def page_maps(console: str) -> list[PageMap]:
    """The page maps a console printed, in order (each ends at "page_map end")."""
    maps: list[PageMap] = []
    runs: list[Frames] = []
    for line in console.splitlines():
        if line.rstrip().endswith("page_map end"):
            maps.append(PageMap(runs))
            runs = []
            continue
        m = MAP_LINE.search(line)
        if m:
            runs.append((int(m.group(1)), int(m.group(2)), m.group(3)))
    return maps


def owner_name(owner: str) -> str:
    return owner[len("slab:"):] if owner.startswith("slab:") else KINDS.get(owner, owner)


def check(run: Run, names: Iterable[str], table: str = "conflicts") -> bool:
    """TAP: a page map and a conflicts head (of the plugin's table option,
    conflicts or l2_conflicts) per phase; the pairs add up."""
    for n in names:
        problems: list[str]
        b, problems = run.boots[n], []
        maps = page_maps(run.console(n))
        conf = read_conflicts(table_path(run.work, n, table))
        if len(maps) != len(b):
            problems.append("%d page maps for %d phases" % (len(maps), len(b)))
        for i, p in enumerate(b):
            problems += ["phase %d: %s" % (i, x) for x in
                         conflict_problems(table, p, conf.get(i, ({}, [])))]
            if i < len(maps):
                problems += maps[i].problems()
        run.tap(not problems, "%s: a page map and %s pairs for each of %d phases, adding "
                "up to the plugin's counts" % (n, table.replace("_", " ")[:-1], len(b)),
                problems[:10])
    return not run.tap.failed
