#!/usr/bin/env python3
"""The tests of bench/slab_colour.py's parsing and arguments, as TAP.

    python3 bench/tests/test_slab_colour.py

No QEMU: a hand-made console with two slab_info blocks, and the colours the
bench CPU's dump gives task_struct.
"""

import sys
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(TOP))
from bench import slab_colour as sc  # noqa: E402
from harness import facts, tap  # noqa: E402

# Two phases' blocks; kernel messages may share the console.  The last
# block counts.
CONSOLE = """ring tasks=4 rounds=10 switches=40 ctxt=41
slab_info mm_struct 1216 26 8 52 52
slab_info slab_colour: mm_struct: 3 colours x 64 B
slab_info task_colours: 3
slab_info task_step: 64
slab_info end
[   1.0] some kernel message
web concurrency=4 keepalive=0 requests=20
slab_info mm_struct 1216 26 8 78 78
slab_info task_struct 3264 10 8 80 80
slab_info files_cache 704 23 4 40 46
slab_info slab_colour: mm_struct: 3 colours x 64 B
slab_info task_colours: 3
slab_info task_step: 64
slab_info end
"""

t = tap.Tap()
caches, coloured, params, blocks = sc.slab_info(CONSOLE)
t(blocks == 2, "two slab_info blocks counted: %d" % blocks)
t(caches == {"mm_struct": (1216, 26, 8, 78, 78), "task_struct": (3264, 10, 8, 80, 80),
             "files_cache": (704, 23, 4, 40, 46)},
  "the last block's caches: %s" % caches)
t(coloured == ["mm_struct: 3 colours x 64 B"], "the kernel's slab_colour: lines: %s" % coloured)
t(params == {"task_colours": 3, "task_step": 64}, "task_struct's colours: %s" % params)
t(sc.slab_info("slab_info mm_struct 1 2 3 4 5\n")[3] == 0,
  "a block without its end line is not counted")
# The Skylake-Client dump: kcolour-probe recommends 3 colours on the 32 KiB
# 8-way L1D, 64-byte lines (docs/results/sweep.md; the kernel logs 3 x 64).
got = sc.task_colours(facts.path("bench-dump"))
t(got == (3, 64), "task_struct's colours on the bench CPU: %s" % (got,))
t(sc.case_args([], 3, 64) == "kstack_colour=task", "no candidate: task_struct colouring only")
t(sc.case_args(["mm_struct", "filp"], 3, 64) ==
  "kstack_colour=task slab_colour=3x64:mm_struct,filp", "candidates: one slab_colour= list")


class Phase:
    """A phase with L1D misses and conflict misses (SA - FA) per event."""

    def __init__(self, misses, conflicts):
        self.misses, self.counts = misses, {("L1D", "all"): {"sa_miss": misses,
                                                             "fa_miss": misses - conflicts}}

    def per(self, n):
        return n

    def rate(self, cache):
        return self.misses


# Winners, paired with the placebo: the layouts spread the figures by 30%,
# a candidate moves them by a few percent in every layout.
fig = sc.Figures.__new__(sc.Figures)
fig.layouts, fig.labels, fig.rows = [1, 2, 3], ["ring N=4", "web c=4 close"], [0, 1]
fig.names = ["placebo", "mm_struct", "filp", "inode_cache"]
spread = {1: 1.0, 2: 1.3, 3: 0.8}
effect = {"placebo": ((1.0, 1.0), (1.0, 1.0)), "mm_struct": ((0.95, 0.9), (1.0, 1.0)),
          "filp": ((0.9, 0.6), (1.05, 1.0)), "inode_cache": ((1.0, 1.0), (1.0, 1.0))}
fig.net = {"%s.L%d" % (c, lay): [Phase(100 * spread[lay] * (m + 0.001 * lay * (c == "inode_cache")),
                                       10 * spread[lay] * k)
                                 for m, k in rows]
           for c, rows in effect.items() for lay in fig.layouts}
ring = fig.pair("mm_struct", 0, sc.conflict)
t(fig.winners() == ["mm_struct"] and ring.verdict == "lower",
  "winners: lower than the placebo on the ring in every layout (%s) wins; one that raises a "
  "workload's L1D misses (filp) and one with no effect do not" % ring.interval(), fig.winners())
sys.exit(t.plan())
