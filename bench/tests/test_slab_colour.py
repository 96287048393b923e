#!/usr/bin/env python3
"""The tests of bench/slab_colour.py's parsing and arguments, as TAP.

    python3 bench/tests/test_slab_colour.py

No QEMU: a hand-made console with two slab_info blocks, and the colours the
bench CPU's dump gives task_struct.
"""

import sys
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(TOP), str(TOP / "bench")]
import slab_colour as sc  # noqa: E402
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
sys.exit(t.plan())
