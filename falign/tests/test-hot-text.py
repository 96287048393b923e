#!/usr/bin/env python3
"""falign/hot_text.py on hand-made input: a System.map, simulator profile
lines and perf script lines whose functions are known; the profile format
written, read back, and refused where it is wrong.  TAP."""
import io
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[1]), str(HERE.parent)]
import hot_text  # noqa: E402
from harness import tap  # noqa: E402

SYSTEM_MAP = """ffffffff81000000 T _stext
ffffffff81000000 T startup_64
ffffffff81001000 t do_one
ffffffff81001040 T do_two
ffffffff81001100 t do_three.constprop.0
ffffffff81002000 T _etext
"""
# pc, insns: do_two 300 + 50, do_one 100, do_three.constprop.0 20, user 999.
PROFILE = """profile phase=0 pc=ffffffff81001040 insns=300 execs=3
profile phase=0 pc=ffffffff81001000 insns=100 execs=1
profile phase=1 pc=ffffffff81001080 insns=50 execs=1
profile phase=1 pc=ffffffff81001100 insns=20 execs=2
profile phase=1 pc=401000 insns=999 execs=9
"""
PERF = "ffffffff81001004\nffffffff81001100\n ffffffff81001108\n\nffffffff81001110\n"


def main():
    t = tap.Tap()
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        (d / "System.map").write_text(SYSTEM_MAP)
        (d / "prof").write_text(PROFILE)
        (d / "perf").write_text(PERF)
        sim = hot_text.from_sim(d / "System.map", [d / "prof"])
        want = {"do_two": 350, "do_one": 100, "do_three.constprop.0": 20, "[user]": 999}
        t(sim == want, "from_sim: instructions per function over every phase",
          diag=[] if sim == want else [str(sim)])
        out = io.StringIO()
        hot_text.write(out, sim, "a test")
        (d / "p").write_text(out.getvalue())
        rows = hot_text.read(d / "p")
        want = [(350, "do_two"), (100, "do_one"), (20, "do_three.constprop.0")]
        t(rows == want, "write then read: hottest first, user space left out, GCC's clone "
          "names kept", diag=[] if rows == want else [str(rows)])
        t(out.getvalue().splitlines()[1] == "# source: a test", "the header says the source")
        perf = hot_text.from_perf(d / "System.map", d / "perf")
        want = {"do_three.constprop.0": 3, "do_one": 1}
        t(perf == want, "from_perf: samples per function", diag=[] if perf == want else [str(perf)])
        (d / "garbage").write_text("ffffffff81001004\nnot an address\n")
        try:
            hot_text.from_perf(d / "System.map", d / "garbage")
            t(False, "from_perf refuses a line that is no address")
        except hot_text.Error as e:
            t("garbage:2:" in str(e), "from_perf refuses a line that is no address: %s" % e)
        for name, text, want in (
                ("no tab", "12 do_one\n", ":1: not COUNT<TAB>FUNCTION"),
                ("a count that is no number", "# c\nx\tdo_one\n", ":2: not COUNT<TAB>FUNCTION"),
                ("a name that is no C name", "1\tdo one\n", ":1: not COUNT<TAB>FUNCTION"),
                ("a function twice", "2\tdo_one\n1\tdo_one\n", ":2: do_one again (line 1)"),
                ("no function", "# only a comment\n", "no function in it")):
            (d / "bad").write_text(text)
            try:
                hot_text.read(d / "bad")
                t(False, "read refuses %s" % name)
            except hot_text.Error as e:
                t(want in str(e), "read refuses %s: %s" % (name, e))
        rc = hot_text.main(["check", str(d / "bad")])
        t(rc == 1, "hot_text.py check exits 1 on a bad profile")
        rc = hot_text.main(["check", str(hot_text.DEFAULT)])
        t(rc == 0, "the shipped profile %s reads" % hot_text.DEFAULT.name)
    return t.plan()


if __name__ == "__main__":
    sys.exit(main())
