#!/usr/bin/env python3
"""falign/hot_text.py on hand-made input: a System.map, simulator profile
lines and perf script lines whose functions are known; the profile format
written, read back, and refused where it is wrong.  Then the kernel's own
scripts/generate_hot_text_lds.sh (the falign series, from build/linux) on
small objects built with -ffunction-sections and linked with ld -r as
vmlinux.o is: the profile's functions first, in its order, each on the
fewest lines its size allows, the chosen one of two static functions of one
name, the rest folded back.  And the first line of falign/layouts.py's
page: the make command that ran it.  TAP."""
import io
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
from falign import hot_text, layouts  # noqa: E402
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
# perf script -F ip: do_one 1, do_three.constprop.0 3, a user sample.
PERF = "ffffffff81001004\nffffffff81001100\n ffffffff81001108\n\nffffffff81001110\n4010a0\n"
# The first 40 samples of perf-profile-guest's perf record -e cpu-clock:k -g
# (a fork and exec loop in the test image), perf script's default format
# with call graphs, and -G -F ip,sym.
CANNED = HERE / "perf-script-default.txt", HERE / "perf-script-ip-sym.txt"
# perf script's default format without call graphs: a kernel sample, a
# module's, a user one.
PERF_FLAT = "".join("    sh   120 [000]    12.34567%d:     250000 cpu-clock:k:  %s\n" % (i, sample)
                    for i, sample in enumerate((
                        "ffffffff81001044 do_two+0x4 ([kernel.kallsyms])",
                        "ffffffffa0001000 nft_do_chain+0x0 ([nf_tables])",
                        "    7f0012345678 __libc_start_main+0x80 (/usr/lib/libc.so.6)")))


def perf_tests(t, d):
    """from_perf and hot_text.py perf: make hot-text-profile FROM=FILE."""
    perf, source = hot_text.from_perf(d / "perf", d / "System.map")
    want = {"do_three.constprop.0": 3, "do_one": 1}
    t(perf == want and "1 in user space" in source,
      "-F ip with a System.map: samples per function, user space left out (%s)" % source,
      diag=[] if perf == want else [str(perf)])
    (d / "flat").write_text(PERF_FLAT)
    perf, source = hot_text.from_perf(d / "flat")
    t(perf == {"do_two": 1} and "1 in user space, 1 in modules" in source,
      "the default format: perf's symbol, modules and user space left out (%s)" % source,
      diag=[str(perf)] if perf != {"do_two": 1} else [])
    graphs, _ = hot_text.from_perf(CANNED[0])
    flat, _ = hot_text.from_perf(CANNED[1])
    t(graphs == flat and sum(flat.values()) == 40,
      "a real perf script with call graphs counts each sample's leaf, as -F ip,sym does: "
      "40 samples, %d functions" % len(flat), diag=[] if graphs == flat else [
          str(graphs.most_common(5)), str(flat.most_common(5))])
    real = CANNED[0].read_text()
    shifted = "".join("%016x\n" % (int(line, 16) + (64 << 20))
                      for line in PERF.split() if int(line, 16) >> 63)
    for name, content, want in (
            ("an empty file", "", "empty, no samples"),
            ("a blank file", "\n\n", "empty, no samples"),
            ("a file cut off mid-line", real[:len(real) // 2].rstrip("\n")[:-7],
             "ends in the middle of this line: truncated?"),
            ("perf.data itself", b"PERFILE2\x68\x00\x00\x00", "is perf.data itself"),
            ("a binary file", b"\x7fELF\x02\x01\x01\x00\xff\xfe", "not text"),
            ("a hot-text profile instead", "# a profile\n12\tdo_one\n", ":1: not a perf script "
             "sample"),
            ("a System.map instead", SYSTEM_MAP, ":1: not a perf script sample"),
            ("user space alone", "4010a0 main\n", "1 samples, none in the kernel's text"),
            ("addresses and no System.map", PERF, "4 with no symbol, and no System.map"),
            ("KASLR-moved addresses", shifted, "outside")):
        f = d / "bad-perf"
        (f.write_bytes if isinstance(content, bytes) else f.write_text)(content)
        try:
            hot_text.from_perf(f, d / "System.map" if name == "KASLR-moved addresses" else None)
            t(False, "from_perf refuses %s" % name)
        except hot_text.Error as e:
            t(want in str(e) and str(f) in str(e), "from_perf refuses %s: %s" % (name, e))
    out = d / "perf.profile"
    rc = hot_text.main(["perf", str(CANNED[0]), "--out", str(out)])
    rows = hot_text.read(out) if rc == 0 else []
    t(rc == 0 and sum(n for n, _, _ in rows) == 40 and rows == sorted(
        rows, key=lambda r: (-r[0], r[1])), "hot_text.py perf FILE: a profile of the 40 samples, "
      "hottest first (%d functions)" % len(rows))
    rc = hot_text.main(["perf", str(d / "perf"), "--system-map", str(d / "System.map"),
                        "--room", "64", "--out", str(out)])
    text = out.read_text() if rc == 0 else ""
    t(rc == 0 and "# perf: " in text and [f for _, f, _ in hot_text.read(out)] == [
        "do_one", "do_three.constprop.0"], "with a System.map: the part that fits the room, by "
      "density, first (do_one's 64 bytes), then the rest")
    rc = hot_text.main(["perf", str(d / "no-such-file"), "--out", str(out)])
    t(rc == 1, "hot_text.py perf exits 1 on a missing file")


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
        want = [(350, "do_two", None), (100, "do_one", None), (20, "do_three.constprop.0", None)]
        t(rows == want, "write then read: hottest first, user space left out, GCC's clone "
          "names kept", diag=[] if rows == want else [str(rows)])
        t(out.getvalue().splitlines()[1] == "# source: a test", "the header says the source")
        phase = hot_text.from_sim(d / "System.map", [d / "prof"], 1)
        want = {"do_two": 50, "do_three.constprop.0": 20, "[user]": 999}
        t(phase == want, "from_sim of one phase (workload)",
          diag=[] if phase == want else [str(phase)])
        # Hot sets: A's do_two + do_one (192 + 64 bytes), B's do_three (3840);
        # A's is the smaller, so it goes first; in 200 bytes only do_two fits.
        size = hot_text.sizes(d / "System.map")
        want = {"do_one": 64, "do_two": 192, "do_three.constprop.0": 3840}
        t(all(size.get(f) == n for f, n in want.items()), "sizes: bytes to the next symbol",
          diag=[] if all(size.get(f) == n for f, n in want.items()) else [str(size)])
        work = [("B", {"do_three.constprop.0": 1000}), ("A", {"do_two": 500, "do_one": 10})]
        total = {"do_three.constprop.0": 1000, "do_two": 500, "do_one": 10}
        for room, want in ((200, ["do_two", "do_three.constprop.0", "do_one"]),
                           (4000, ["do_two", "do_one", "do_three.constprop.0"])):
            out = io.StringIO()
            hot_text.write(out, total, "a test", work, size, room)
            (d / "g").write_text(out.getvalue())
            rows = [name for _, name, _ in hot_text.read(d / "g")]
            t(rows == want, "write, workloads in %d bytes: the smaller hot set first, as much "
              "of each as fits, then the rest by count" % room,
              diag=[] if rows == want else [str(rows)])
        heads = [line for line in out.getvalue().splitlines()[2:] if line.startswith("#")]
        want = ["# A: 2 of its hot set's 2 functions, 256 of 256 bytes, 100.0% of its kernel "
                "instructions; COUNT: its instructions",
                "# B: 1 of its hot set's 1 functions, 3840 of 3840 bytes, 100.0% of its kernel "
                "instructions; COUNT: its instructions",
                "# the rest; COUNT: the instructions of all"]
        t(heads == want, "a comment names each workload's part", diag=[] if heads == want else heads)
        # By count, the hottest function (3840 bytes) fills 300 bytes first
        # and nothing fits; by density the two small ones fit, the most
        # instructions a byte first.
        c = {"do_three.constprop.0": 1000, "do_two": 500, "do_one": 300}
        parts = {sel: [f for f, _ in hot_text.hot_set(c, size, 300, sel)[2]]
                 for sel in hot_text.SELECTS}
        want = {"count": [], "density": ["do_one", "do_two"]}
        t(parts == want, "hot_set: by count the hottest first up to the first that does not fit; "
          "by density the most instructions a byte first, each that fits",
          diag=[] if parts == want else [str(parts)])
        out = io.StringIO()
        hot_text.write(out, c, "a test", [("A", c)], size, 300, "density")
        heads = [line for line in out.getvalue().splitlines() if line.startswith("# A")]
        want = ["# A: 2 of its hot set's 3 functions, the most instructions a byte first, "
                "256 of 4096 bytes, 44.4% of its kernel instructions; COUNT: its instructions"]
        t(heads == want, "write by density: the comment says so",
          diag=[] if heads == want else heads)
        # Calls: entries into a function's first byte from another function's
        # TB; a return or branch into the middle, recursion and user space are
        # no calls.
        (d / "calls").write_text(
            "profile phase=0 pc=ffffffff81001000 insns=1 execs=1\n"
            "entry phase=0 from=0xffffffff81001040 to=0xffffffff81001000 count=7\n"
            "entry phase=0 from=0xffffffff81001100 to=0xffffffff81001000 count=2\n"
            "entry phase=0 from=0xffffffff81001000 to=0xffffffff81001060 count=7\n"
            "entry phase=0 from=0xffffffff81001044 to=0xffffffff81001040 count=3\n"
            "entry phase=1 from=0x401000 to=0xffffffff81001100 count=9\n"
            "entry phase=1 from=0xffffffff81001040 to=0xffffffff81001100 count=4\n")
        calls = hot_text.calls_from_sim(d / "System.map", [d / "calls"])
        want = {("do_two", "do_one"): 7, ("do_three.constprop.0", "do_one"): 2,
                ("do_two", "do_three.constprop.0"): 4}
        t(calls == want, "calls_from_sim: entries at a function's first byte from another "
          "function, summed over the phases", diag=[] if calls == want else [str(calls)])
        one = hot_text.calls_from_sim(d / "System.map", [d / "calls"], 1)
        t(one == {("do_two", "do_three.constprop.0"): 4}, "calls_from_sim of one phase",
          diag=[] if len(one) == 1 else [str(one)])
        (d / "badcall").write_text("entry phase=0 from=0xzz to=0x1 count=1\n")
        try:
            hot_text.calls_from_sim(d / "System.map", [d / "badcall"])
            t(False, "calls_from_sim refuses a malformed entry line")
        except SystemExit as e:
            t("badcall:1: not an entry line" in str(e),
              "calls_from_sim refuses a malformed entry line: %s" % e)
        # C3: hottest first, each function after its most frequent caller's
        # cluster while the two fit in the limit; the clusters by density.
        part = [("main", 100), ("leaf", 90), ("mid", 80), ("lone", 70), ("big", 60)]
        sz = {"main": 100, "leaf": 50, "mid": 100, "lone": 10, "big": 4000}
        cg = {("main", "mid"): 9, ("mid", "leaf"): 8, ("main", "leaf"): 3, ("mid", "big"): 5,
              ("lone", "lone"): 4, ("nobody", "main"): 9}
        order = [f for f, _ in hot_text.c3(part, sz, cg)]
        want = ["lone", "main", "mid", "leaf", "big"]
        t(order == want, "c3: leaf follows its most frequent caller mid, and mid main; big "
          "would take the cluster past a page and stays alone; clusters by density",
          diag=[] if order == want else [str(order)])
        order = [f for f, _ in hot_text.c3(part, sz, {})]
        t(order == ["lone", "leaf", "main", "mid", "big"], "c3 without calls: each function alone, by density",
          diag=[] if order[0] == "lone" else [str(order)])
        out = io.StringIO()
        hot_text.write(out, dict(part), "a test", [("A", dict(part))], sz, 10000, "density",
                       {"A": cg})
        lines = out.getvalue().splitlines()
        heads = [line for line in lines if line.startswith("# A")]
        rows = [line.split("\t")[1] for line in lines[3:8]]
        t(rows == want and "in C3's order of its calls" in heads[0],
          "write with calls: each part in C3's order, and its comment says so",
          diag=[] if rows == want else [str(rows)] + heads)
        from collections import Counter
        byw = {"web": Counter(a=5, b=1), "ring": Counter(b=2, c=3)}
        kept, counts = hot_text.leave_out(byw, ["web"], Counter(a=5, b=3, c=3, boot=9))
        t(kept == {"ring": Counter(b=2, c=3)} and counts == Counter(b=2, c=3),
          "leave_out: the workload and its counts gone from the parts and from the rest",
          diag=[] if counts == Counter(b=2, c=3) else [str(kept), str(counts)])
        kept, counts = hot_text.leave_out(byw, [], Counter(a=5, boot=9))
        t(kept == byw and counts == Counter(a=5, boot=9), "leave_out of nothing: all counts")
        try:
            hot_text.leave_out(byw, ["webb"], Counter())
            t(False, "leave_out refuses a name that is no workload")
        except hot_text.Error as e:
            t("webb" in str(e) and "ring, web" in str(e),
              "leave_out refuses a name that is no workload: %s" % e)
        perf_tests(t, d)
        for name, text, want in (
                ("no tab", "12 do_one\n", ":1: not COUNT<TAB>FUNCTION"),
                ("a count that is no number", "# c\nx\tdo_one\n", ":2: not COUNT<TAB>FUNCTION"),
                ("a name that is no C name", "1\tdo one\n", ":1: not COUNT<TAB>FUNCTION"),
                ("a function twice", "2\tdo_one\n1\tdo_one\n", ":2: do_one again (line 1)"),
                ("an object that is no .o", "1\tdo_one\tkernel/fork.c\n", ":1: not COUNT"),
                ("a fourth column", "1\tdo_one\ta.o\tx\n", ":1: not COUNT"),
                ("no function", "# only a comment\n", "no function in it")):
            (d / "bad").write_text(text)
            try:
                hot_text.read(d / "bad")
                t(False, "read refuses %s" % name)
            except hot_text.Error as e:
                t(want in str(e), "read refuses %s: %s" % (name, e))
        (d / "objs").write_text("2\tdup\ta.o\n1\tdup\tsub/b.o\n")
        rows = hot_text.read(d / "objs")
        t(rows == [(2, "dup", "a.o"), (1, "dup", "sub/b.o")],
          "read keeps the OBJECT column: one name in two objects",
          diag=[] if rows == [(2, "dup", "a.o"), (1, "dup", "sub/b.o")] else [str(rows)])
        rc = hot_text.main(["check", str(d / "bad")])
        t(rc == 1, "hot_text.py check exits 1 on a bad profile")
        rc = hot_text.main(["check", str(hot_text.PROJECT)])
        t(rc == 0, "the project's profile %s reads" % hot_text.PROJECT.name)
        generator(t, d)
    # A falign page's first line: make falign-layouts with its variables,
    # or the target that ran it (make falign-profiles), whose recipe holds them.
    got = [layouts.command(layouts.arg_parser().parse_args(a)) for a in
           ([], ["--quick"], ["--choices", "a b", "--page", "x"],
            ["--choices", "a b", "--page", "x", "--target", "x"])]
    want = ["make falign-layouts", "make falign-layouts QUICK=1",
            'make falign-layouts CHOICES="a b" PAGE=x', "make x"]
    t(got == want, "falign.layouts.command(): the page names the make target that ran it",
      diag=[] if got == want else [str(got)])
    return t.plan()


GEN = hot_text.HERE.parent / "build/linux/scripts/generate_hot_text_lds.sh"
LINE = 64
# Functions of known sizes (.skip), two static ones named dup, a cold one.
SOURCES = {
    "kernel/alpha.c": """#define F(n, b) void n(void) { asm volatile(".skip " #b ", 0x90"); }
F(a40, 40) F(a30, 30) F(a70, 70) F(cold_fold, 10)
static __attribute__((noinline)) int dup(int x) { asm volatile(".skip 20, 0x90"); return x; }
int use_a(int x) { return dup(x); }
__attribute__((cold)) void a_cold(void) { asm volatile(".skip 9, 0x90"); }
""",
    "lib/beta.c": """#define F(n, b) void n(void) { asm volatile(".skip " #b ", 0x90"); }
F(b50, 50) F(b8, 8)
static __attribute__((noinline)) int dup(int x) { asm volatile(".skip 33, 0x90"); return x + 1; }
int use_b(int x) { return dup(x); }
""",
}
GEN_PROFILE = "# hottest first\n9\ta40\n8\tb50\n7\tdup\tlib/beta.o\n6\ta30\n5\tnot_there\n" \
    "4\ta70\n3\tb8\n2\ta_cold\n"
ORDER = ["a40", "b50", "dup", "a30", "a70", "b8"]


def readelf(opt, d):
    return subprocess.run(["readelf", opt, "out.o"], cwd=d, text=True, capture_output=True,
                          check=True).stdout


def generator(t, d):
    """The kernel's generator and ld -r on objects whose sizes are known."""
    if not GEN.exists():
        t.skip("generate_hot_text_lds.sh", "no %s (make tree)" % GEN)
        return
    for src, text in SOURCES.items():
        (d / src).parent.mkdir(exist_ok=True)
        (d / src).write_text(text)
        subprocess.run(["gcc", "-O2", "-ffunction-sections", "-falign-functions=16",
                        "-fno-asynchronous-unwind-tables", "-c", src, "-o", src[:-2] + ".o"],
                       cwd=d, check=True)
    # Thin archives as kbuild makes them: vmlinux.a at the top, lib/lib.a below.
    subprocess.run(["ar", "cDPrST", "vmlinux.a", "kernel/alpha.o"], cwd=d, check=True)
    subprocess.run(["ar", "cDPrST", "lib/lib.a", "lib/beta.o"], cwd=d, check=True)
    (d / "gen.prof").write_text(GEN_PROFILE)

    def gen(profile, *flags):
        return subprocess.run(["sh", str(GEN)] + list(flags) +
                              ["readelf", profile, "6", "vmlinux.a", "lib/lib.a"],
                              cwd=d, capture_output=True, text=True)
    r = gen("gen.prof")
    t(r.returncode == 0, "generate_hot_text_lds.sh writes a script", diag=r.stderr.splitlines())
    (d / "hot.lds").write_text(r.stdout)
    ld = subprocess.run(["ld", "-r", "-T", "hot.lds", "--whole-archive", "vmlinux.a", "lib/lib.a",
                         "-o", "out.o"],
                        cwd=d, capture_output=True, text=True)
    t(ld.returncode == 0, "ld -r links with it", diag=ld.stderr.splitlines())
    if ld.returncode:
        return
    secs, syms = {}, []
    for m in re.finditer(r"^\s*\[\s*(\d+)\]\s+(\S+)", readelf("-SW", d), re.M):
        secs[int(m.group(1))] = m.group(2)
    for w in map(str.split, readelf("-sW", d).splitlines()):
        if len(w) == 8 and w[3] == "FUNC" and w[6].isdigit():
            syms.append((w[7], int(w[1], 16), int(w[2]), int(w[6])))
    names = {sec for sec in secs.values()}
    hot = sorted((addr, name, size) for name, addr, size, ndx in syms
                 if ndx in secs and secs[ndx] == ".text.hot..profile")
    got = [name for _, name, _ in hot]
    t(got == ORDER, "the profile's functions first, in its order, from both archives, "
      "lib/beta.o's dup only, the missing and the cold one skipped", diag=[] if got == ORDER else ["got %s" % got])
    over = [(n, a, s) for a, n, s in hot if (a + s - 1) // LINE - a // LINE + 1 > -(-s // LINE)]
    t(hot and not over, "each touches the fewest lines its size allows",
      diag=[str(over)] if over else [])
    moved, needless = 0, []
    for (a, na, sa), (b, nb, sb) in zip(hot, hot[1:]):
        packed = -(-(a + sa) // 16) * 16        # where 16-byte alignment puts it
        if b != packed:
            moved += 1
            if b != -(-packed // LINE) * LINE or \
                    (packed + sb - 1) // LINE - packed // LINE + 1 == -(-sb // LINE):
                needless.append(nb)
    t(moved and not needless, "moved to the next line only where it would touch one more: "
      "%d of %d" % (moved, len(hot) - 1), diag=["needless: %s" % needless] if needless else [])
    t(".text" in names and ".text.unlikely" in names and
      not [n for n in names if n.startswith(".text.") and n not in (".text.unlikely",
                                                                     ".text.hot..profile")],
      "the rest folded back into .text and .text.unlikely",
      diag=[] if ".text" in names else sorted(names)[:20])
    line_align(t, d, gen)
    sham(t, d)
    (d / "bad.prof").write_text("9\ta40\nx\ta30\n")
    r = gen("bad.prof")
    t(r.returncode == 1 and "bad.prof:2:" in r.stderr, "a bad profile line fails the build, "
      "named: %s" % r.stderr.strip())
    (d / "lib/lib.a").write_text("!<thin>\ngarbage")
    r = gen("gen.prof")
    t(r.returncode == 1 and "readelf failed" in r.stderr, "objects readelf cannot read fail "
      "the build: %s" % r.stderr.strip().splitlines()[-1:])
    r = gen("missing.prof")
    t(r.returncode == 1 and "cannot read" in r.stderr, "a missing profile fails the build: %s"
      % r.stderr.strip())


def hot_functions(d, lds):
    """[(address, name)] of the hot section's functions after ld -r with lds."""
    subprocess.run(["ld", "-r", "-T", lds, "--whole-archive", "vmlinux.a", "lib/lib.a", "-o",
                    "out.o"], cwd=d, check=True, capture_output=True)
    secs = {int(m.group(1)): m.group(2)
            for m in re.finditer(r"^\s*\[\s*(\d+)\]\s+(\S+)", readelf("-SW", d), re.M)}
    return sorted((int(w[1], 16), w[7]) for w in map(str.split, readelf("-sW", d).splitlines())
                  if len(w) == 8 and w[3] == "FUNC" and w[6].isdigit() and
                  secs.get(int(w[6])) == ".text.hot..profile")


def line_align(t, d, gen):
    """--line-align (the bench series' DEBUG_HOT_TEXT_LINE_ALIGN): every
    function of the profile starts a line, in the same order."""
    r = gen("gen.prof", "--line-align")
    (d / "lines.lds").write_text(r.stdout)
    hot = hot_functions(d, "lines.lds") if r.returncode == 0 else []
    t([n for _, n in hot] == ORDER and all(a % LINE == 0 for a, _ in hot),
      "--line-align: the profile's functions in its order, each at the start of a line",
      diag=["%s at %#x" % (n, a) for a, n in hot if a % LINE] + r.stderr.splitlines())


def sham(t, d):
    """hot_text.py sham on the same archives: random functions, none of the
    profile's, as many bytes as it places, the same for the same seed."""
    secs = hot_text.text_sections([d / "vmlinux.a", d / "lib/lib.a"])
    t(("dup", "lib/beta.o") in secs and ("dup", "kernel/alpha.o") in secs and
      ("b50", "lib/beta.o") in secs and not any(n.startswith("unlikely") for n, _ in secs),
      "text_sections names each function by its object, as the build's script does: %s"
      % sorted(secs)[:4])
    (d / "small.prof").write_text("1\tb8\n1\ta30\n")
    want = hot_text.placed_bytes(hot_text.read(d / "small.prof"), secs)
    outs = []
    for name, seed in (("s1", 7), ("s2", 7), ("s3", 8)):
        rc = hot_text.main(["sham", "--like", str(d / "small.prof"), "--objects",
                            str(d / "vmlinux.a"), str(d / "lib/lib.a"), "--seed", str(seed),
                            "--out", str(d / name)])
        outs.append((rc, hot_text.read(d / name) if rc == 0 else []))
    drawn = [(f, o) for _, f, o in outs[0][1]]
    got = sum(secs[k] for k in drawn)
    t(all(rc == 0 for rc, _ in outs) and drawn and set(drawn) <= set(secs) and
      want <= got < want + max(secs.values()) and outs[0][1] == outs[1][1],
      "sham: %d functions of the archives', %d bytes for the profile's %d, the same for the "
      "same seed" % (len(drawn), got, want))
    t(outs[0][1] != outs[2][1] or len(secs) < 4, "sham: another seed draws others")
    (d / "all.prof").write_text("".join("1\t%s\t%s\n" % k for k in sorted(secs)) +
                                "1\tdup\n")
    rc = hot_text.main(["sham", "--like", str(d / "all.prof"), "--objects", str(d / "vmlinux.a"),
                        str(d / "lib/lib.a"), "--seed", "1", "--out", str(d / "big")])
    t(rc == 1, "sham: a profile that places more bytes than the archives hold is an error")


if __name__ == "__main__":
    sys.exit(main())
