#!/usr/bin/env python3
"""The harness on its own: the TAP writer and reader (skip, nesting, bail
out), the suite runner's counting, facts.tsv, the fragment check, and the
pool's job lines.  TAP output."""

import io
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from harness import check, facts, kernel, qemu, tap  # noqa: E402

t = tap.Tap()


def written(fn):
    out = io.StringIO()
    w = tap.Tap(out)
    fn(w)
    return out.getvalue()


# The writer.
text = written(lambda w: (w(True, "a"), w(False, "b", diag=["why"]), w.skip("c", "no KVM"),
                          w.plan()))
t(text == "ok 1 - a\nnot ok 2 - b\n#   why\nok 3 - c # SKIP no KVM\n1..3\n",
  "writer: ok, not ok with a diagnostic, skip, the plan last", [repr(text)])


def nested(w):
    with w.sub("boot X") as s:
        s(True, "inner 1")
        s(False, "inner 2")
    w(True, "after")
    w.plan()


text = written(nested)
t(text.splitlines()[:4] == ["# Subtest: boot X", "    ok 1 - inner 1", "    not ok 2 - inner 2",
                            "    1..2"] and "not ok 1 - boot X" in text,
  "writer: a subtest is indented, planned, and its summary fails with it", [repr(text)])

# The reader.
res = tap.parse(text.splitlines())
t(tap.counts(res) == (2, 1, 0), "reader: leaves only: a subtest's summary line is not counted "
  "again (%s)" % (tap.counts(res),))
res = tap.parse(["ok 1 - x # SKIP not here", "ok 2 - y # skip lower case", "ok 3 - z",
                 "not ok 4 - w # TODO later", "Bail out! no disk", "1..4"])
t(tap.counts(res) == (1, 2, 2), "reader: skips counted apart, TODO still fails, a bail out "
  "fails (%s)" % (tap.counts(res),))
t(res[0].reason == "not here" and res[0].text == "x", "reader: the skip's text and reason")
res = tap.parse(["    ok 1 - a", "    ok 2 - b", "not ok 1 - crashed suite"])
t(tap.counts(res) == (2, 1, 0), "reader: a failing summary over passing leaves counts once")
out = io.StringIO()
tap.Tap(out).forward(["ok 7 - p", "not ok 9 - q", "ok 3 - r # SKIP s"])
t(out.getvalue() == "ok 1 - p\nnot ok 2 - q\nok 3 - r # SKIP s\n", "forward: renumbers, keeps "
  "the skip", [repr(out.getvalue())])

# The shell helper agrees with the reader.
sh = subprocess.run(["bash", "-c", ". harness/tap.sh; tap 0 a; tap 1 b; tap_skip c 'no d'; "
                     "tap_forward p <<<'ok 5 - e # SKIP f'; tap_end"],
                    capture_output=True, text=True, cwd=facts.ROOT)
t(tap.counts(tap.parse(sh.stdout.splitlines())) == (1, 1, 2) and sh.returncode == 1,
  "harness/tap.sh: skip and forward, the same counts, non-zero on a failure", [sh.stdout])

# The suite runner: a crash without "not ok", a run of no test, a skip.
with tempfile.TemporaryDirectory() as d:
    check.LOGDIR = Path(d)
    quiet = io.StringIO()
    real, sys.stdout = sys.stdout, quiet
    try:
        r = [check.run_suite("crash", ["sh", "-c", "echo 'ok 1 - fine'; exit 3"]),
             check.run_suite("empty", ["true"]),
             check.run_suite("skips", ["sh", "-c", "echo 'ok 1 - a # SKIP b'; echo 'ok 2 - c'"])]
    finally:
        sys.stdout = real
t([x[:3] for x in r] == [(1, 1, 0), (0, 1, 0), (1, 0, 1)],
  "runner: a non-zero exit and no test are failures; a skip is not a pass", [repr(r)])

# facts.tsv.
t(facts.image_spec("test") == ("series", ["qemu-test", "kcolour", "kcolour-task", "kcolour-test"]),
  "facts: the test image's fragments")
t(all((kernel.FRAGDIR / (f + ".config")).exists() for row in facts.rows("image")
      for f in row[2].split()), "facts: every image's fragments exist")
t(facts.models()["EPYC"]["l1d"] == "32K/8/64", "facts: a model's true L1D")
t(facts.workloads("bench-quick")[:2] == ["ring 8 200", "forkloop 100"],
  "facts: a workload set, in order")
awk = subprocess.run(["awk", "-F\t", '$1 == "image" && $2 == "bench" { print $4 }',
                      str(facts.FACTS)], capture_output=True, text=True).stdout.strip()
t(awk == " ".join(facts.image_spec("bench")[1]) == "qemu-test kcolour kcolour-task bench-net bench-tools",
  "facts: awk reads the same file (%s)" % awk)

# The fragment check: values merge_config.sh dropped.
with tempfile.TemporaryDirectory() as d:
    frag = Path(d) / "x.config"
    frag.write_text("CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=n\nCONFIG_D=\"s\"\n")
    miss = kernel.verify_config([frag], "CONFIG_A=y\nCONFIG_B=y\n# CONFIG_C is not set\n")
t(sorted(miss) == ['# CONFIG_B is not set (have: CONFIG_B=y)', 'CONFIG_D="s" (have: absent)'],
  "verify_config: names every fragment line .config lost", miss)

# The task_struct whitelist check: v4's widening is caught, a plain copy
# of the values into kmem_cache_args is not, and a changed function body is.
widen = [l for l in ["usersize += room;", "useroffset -= 64;", "usersize = usersize + room;",
                     "args.usersize = usersize;", "args.useroffset = useroffset;",
                     "usersize = p->size;"] if kernel.WHITELIST_WIDENED.search(l)]
t(widen == ["usersize += room;", "useroffset -= 64;", "usersize = usersize + room;"],
  "whitelist: arithmetic on usersize/useroffset is a widening, a copy is not", widen)
src = "static void f(int *a)\n{\n\tif (a) {\n\t\t*a = 1;\n\t}\n}\nint g;\n"
t(kernel._function(src, "f") == "{\n\tif (a) {\n\t\t*a = 1;\n\t}\n}" and
  kernel._function(src, "h") is None, "whitelist: a C function's body, braces nested")

# The pool's job line runs as it says, with quoting kept.
with tempfile.TemporaryDirectory() as d:
    b = qemu.Boot("a b'c", "/no/such/bzImage", "/no/initrd", d, model="qemu64,level=1",
                  args=["x=1 2"], plugin="p.so,a=b")
    r = qemu.run([b], jobs=1, engine="builtin")[0]
t(r.status == 1 and "no kernel image /no/such/bzImage" in r.errors,
  "pool: a job's status and messages reach its result (%d: %s)" % (r.status, r.errors.strip()))
t("CPU=qemu64,level=1" in b.command() and "'x=1 2'" in b.command(),
  "Boot.command: the model and the quoted arguments", [b.command()])

# make help is read from the targets' "## " comments: every target has one,
# and bare make prints help (it installs nothing).
makefiles = [facts.ROOT / "Makefile"] + sorted((facts.ROOT / "mk").glob("*.mk"))
targets = [l.split(":")[0] for f in makefiles for l in f.read_text().splitlines()
           if re.match(r"[a-z][a-z0-9-]*:", l) and not l.startswith("all:")]
undocumented = [x for f in makefiles for l in f.read_text().splitlines()
                if re.match(r"[a-z][a-z0-9-]*:", l) and "## " not in l and not l.startswith("all:")
                for x in [l.split(":")[0]]]
shown = subprocess.run(["make", "-s", "-C", str(facts.ROOT)], capture_output=True,
                       text=True).stdout.split()
t(not undocumented and all("make" in shown and x in shown for x in targets),
  "make help: bare make lists all %d targets, each from its ## comment" % len(targets),
  ["no ## comment: " + x for x in undocumented] + [x for x in targets if x not in shown])
sys.exit(t.plan())
