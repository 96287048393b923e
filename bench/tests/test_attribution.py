#!/usr/bin/env python3
"""The tests of bench/attribution.py's join, as TAP.

    python3 bench/tests/test_attribution.py

No QEMU: a hand-made console with two page maps and a conflicts= file, joined
and tallied; the answers are worked out by hand in the comments.
"""

import collections
import sys
import tempfile
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(TOP))
from bench import attribution as at  # noqa: E402
from bench.lib import pagemap  # noqa: E402
from harness import tap  # noqa: E402

# Frames 100-107 a task_struct slab, 108 a page table, 110-111 free; the
# second map after the next phase.  Kernel messages and the escape codes of
# the firmware may share the console.
CONSOLE = """\x1b[2Jring tasks=4 rounds=10 switches=40 ctxt=41
page_map 0 100 reserved
page_map 100 8 slab:task_struct
page_map 108 1 pgtable
page_map 110 2 free
[   1.0] some kernel message
page_map end
forkloop forks=5 ctxt=11
page_map 0 200 other
page_map end
"""
# Phase 0: 6 direct-map conflict misses.  Victim 0x64000 is frame 100
# (task_struct) line 0, set 0; 0x64040 line 1, set 1; 0x6c000 frame 108
# (page table), set 0; 0x6e000 frame 110 (free).
CONFLICTS = """conflicts phase=0 all=9 direct=6 unknown=1 pairs=4
conflict phase=0 victim=0x64000 evictor=0x6c000 n=2
conflict phase=0 victim=0x64040 evictor=stack-top n=1
conflict phase=0 victim=0x6c000 evictor=? n=1
conflict phase=0 victim=0x6e000 evictor=0x64000 n=2
conflicts phase=1 all=0 direct=0 unknown=0 pairs=0
"""


class FakePhase:
    def __init__(self, events, sa, fa):
        self.unit = ("switch", events)
        self.counts = {("L1D", "direct"): {"sa_miss": sa, "fa_miss": fa}}


def main():
    t = tap.Tap()
    maps = pagemap.page_maps(CONSOLE)
    t(len(maps) == 2, "page_maps: two maps, one per 'page_map end' (%d)" % len(maps))
    m = maps[0]
    t([m.owner(p) for p in (0, 99, 100, 107, 108, 109, 111, 112)] ==
      ["reserved", "reserved", "slab:task_struct", "slab:task_struct", "pgtable", "unmapped",
       "free", "unmapped"], "PageMap.owner: run edges, the hole at 109 and past the end")
    t(maps[1].owner(150) == "other" and not m.problems(), "the second map; runs ascend")
    t(pagemap.PageMap([(0, 10, "a"), (5, 1, "b")]).problems() != [],
      "PageMap.problems: overlapping runs are reported")
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "c").write_text(CONFLICTS)
        conf = at.read_conflicts(Path(d) / "c")
    head, pairs = conf[0]
    t(head == {"all": 9, "direct": 6, "unknown": 1, "pairs": 4} and len(pairs) == 4 and
      conf[1][1] == [], "read_conflicts: the heads and the pairs of both phases")
    tl = at.Tally()
    tl.add(FakePhase(40, 10, 6), conf[0], m, 64, 64)
    want = {("task_struct", "page table"): 2, ("task_struct", "(stack top)"): 1,
            ("page table", "evictor unknown"): 1, ("free page", "task_struct"): 2}
    t(dict(tl.pairs) == want, "Tally: both sides named by the map, a region, unknown, freed")
    t(dict(tl.sets[("task_struct", "page table")]) == {0: 2} and
      dict(tl.sets[("task_struct", "(stack top)")]) == {1: 1},
      "Tally: the L1D set of each victim line (0x64000 set 0, 0x64040 set 1)")
    # Named on both sides: the 3 task_struct misses; not the unknown
    # evictor (1) nor the freed page (2).
    t(tl.named() == 3 and abs(tl.share(tl.named()) - 0.5) < 1e-9,
      "Tally.named: 3 of 6 (%d)" % tl.named())
    t((tl.direct, tl.events, tl.sa_fa) == (6, 40, 4), "Tally: direct 6, events 40, SA - FA 4")
    t(tl.by_victim() == {"task_struct": 3, "page table": 1, "free page": 2},
      "Tally.by_victim: sums over the evictors")
    t(at.sets_str(collections.Counter({5: 3, 1: 2, 9: 1, 7: 1, 2: 1})) == "5 (5, 1, 9, 7, ...)",
      "sets_str: how many, the busiest four first")
    with tempfile.TemporaryDirectory() as d:
        dat, png = Path(d) / "a.dat", Path(d) / "a.png"
        dat.write_text("# columns: task_struct | other objects\n"
                       "0 40.0 60.0  # hackbench process pipe g=1 off\n"
                       "1 20.0 50.0  # hackbench process pipe g=1 on\n")
        at.draw(dat, png)
        t(png.read_bytes()[:4] == b"\x89PNG", "draw: the plot from the .dat alone")
    results = TOP / "docs/results/attribution.dat"
    t(results.read_text().startswith("# columns: "),
      "docs/results/attribution.dat names its columns (draw can redraw it)")
    return t.plan()


if __name__ == "__main__":
    sys.exit(main())
