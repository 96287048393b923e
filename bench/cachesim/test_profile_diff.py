#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of profile_diff.py on tiny canned inputs; TAP output, exit
status 1 on any failure."""
import contextlib
import io
import os
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.cachesim import profile_diff as pd  # noqa: E402
from harness import tap  # noqa: E402

ok = tap.Tap()


# Build A: foo, bar, baz.  Build B: bar moved up 0x40, a new function qux.
MAP_A = """\
ffffffff81000000 T _text
ffffffff81000000 T startup_64
ffffffff81000100 t foo
ffffffff81000200 T bar
ffffffff81000200 T __entry_text_start
ffffffff81000280 D not_text
ffffffff81000300 W baz
ffffffff81000400 T _etext
"""
MAP_B = """\
ffffffff81000000 T _text
ffffffff81000000 T startup_64
ffffffff81000100 t foo
ffffffff81000240 T bar
ffffffff81000300 W baz
ffffffff81000380 t qux
ffffffff81000400 T _etext
"""
# Phase 0: foo 100, bar 50 (two TBs), user 7.  Phase 1 only in A: foo 1000.
PROF_A = """\
profile phase=0 pc=0x0000000000401000 insns=7 execs=1
profile phase=0 pc=0xffffffff81000104 insns=100 execs=10
profile phase=0 pc=0xffffffff81000200 insns=30 execs=3
profile phase=0 pc=0xffffffff81000290 insns=20 execs=2
profile phase=1 pc=0xffffffff81000100 insns=1000 execs=1
"""
# Phase 0: foo 100, bar 80, baz 40, qux 10, user 7.
PROF_B = """\
profile phase=0 pc=0x0000000000401000 insns=7 execs=1
profile phase=0 pc=0xffffffff81000100 insns=100 execs=10
profile phase=0 pc=0xffffffff81000240 insns=80 execs=8
profile phase=0 pc=0xffffffff81000300 insns=40 execs=4
profile phase=0 pc=0xffffffff81000390 insns=10 execs=1
"""


def test_lookup():
    s = pd.Symbols(MAP_A.splitlines())
    ok(s.lookup(0xffffffff81000100) == "foo", "lookup: a symbol's own address")
    ok(s.lookup(0xffffffff810001ff) == "foo", "lookup: the last byte before the next symbol")
    ok(s.lookup(0xffffffff81000290) == "bar", "lookup: data symbols are skipped")
    ok(s.lookup(0xffffffff81000310) == "baz", "lookup: weak text symbols count")
    ok(s.lookup(0xffffffff81000000) == "startup_64", "lookup: a function beats the _text marker")
    ok(s.lookup(0xffffffff81000200) == "bar", "lookup: a function beats a __*_start marker")
    ok(s.lookup(0xfffffffe00000000) == "[unknown]", "lookup: below every symbol")
    ok(s.lookup(0x401000) == "[user]", "lookup: user space")


def test_diff():
    a = pd.by_function(pd.Symbols(MAP_A.splitlines()), [
        (0xffffffff81000104, 100), (0xffffffff81000200, 30), (0xffffffff81000290, 20)])
    ok(a == {"foo": 100, "bar": 50}, "by_function: bar's two TBs summed (%s)" % a)
    rows = pd.diff(a, {"foo": 90, "bar": 80, "qux": 10})
    ok(rows == [("bar", 50, 80, 30), ("foo", 100, 90, -10), ("qux", 0, 10, 10)],
       "diff: by |B-A|, then name (%s)" % rows)


def run(args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = pd.main(args)
    return status, out.getvalue().splitlines()


def test_main(tmp):
    paths = {}
    for name, text in (("map_a", MAP_A), ("prof_a", PROF_A), ("map_b", MAP_B), ("prof_b", PROF_B)):
        paths[name] = os.path.join(tmp, name)
        with open(paths[name], "w") as f:
            f.write(text)
    files = [paths["map_a"], paths["prof_a"], paths["map_b"], paths["prof_b"]]

    status, lines = run(["--phase", "0", "--top", "3"] + files)
    ok(status == 0 and len(lines) == 6, "main: header, totals, column line and 3 rows")
    ok("A 157  B 237  B-A +80 (+50.96% of A)" in lines[1], "main: totals (%s)" % lines[1])
    rows = [line.split() for line in lines[3:]]
    ok(rows == [["0", "40", "+40", "+25.48%", "baz"],
                ["50", "80", "+30", "+19.11%", "bar"],
                ["0", "10", "+10", "+6.37%", "qux"]],
       "main: largest B-A first, share of A's total (%s)" % rows)

    status, lines = run(files + ["--phase", "0", "--per", "10", "--top", "1"])
    ok(lines[-1].split() == ["0.0", "4.0", "+4.0", "+25.48%", "baz"],
       "main: --per divides (%s)" % lines[-1])

    status, lines = run(files)
    ok("A 1157  B 237" in lines[1], "main: all phases by default (%s)" % lines[1])

    try:
        with contextlib.redirect_stdout(io.StringIO()):
            pd.main(["--phase", "1"] + files)
        ok(False, "main: a phase missing from B is an error")
    except SystemExit as e:
        ok("no phase 1" in str(e), "main: a phase missing from B is an error (%s)" % e)


def main():
    test_lookup()
    test_diff()
    with tempfile.TemporaryDirectory() as tmp:
        test_main(tmp)
    return ok.plan()


if __name__ == "__main__":
    sys.exit(main())
