#!/usr/bin/env python3
"""The harness on its own, tested as tools/testing/kunit/kunit_tool_test.py
tests kunit.py: unittest TestCases over data fixtures (test_data/: recorded
guest consoles, TAP and KTAP samples, a small facts.tsv), nothing built or
booted.  The TAP writer and reader (skip, todo, nesting, bail out, KTAP),
unittest as TAP, parse_results.py on recorded consoles, the suite runner's
counting, facts.tsv, image keys and resolve, the fragment check, unsaved
trees and cover letters on temporary git repos, the whitelist check, the
pool's job lines, make help.

    python3 harness/tests/test_harness.py         TAP on stdout, a line a test method
    python3 harness/tests/test_harness.py -v      unittest's own report instead
    python3 harness/tests/test_harness.py --record
                        write test_data/console-*.tap and .upstream again from
                        parse_results.py (after a deliberate change: review the diff)
"""

import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from harness import check, facts, kconfig, kernel, qemu, results, series, tap, util  # noqa: E402
from scripts import check_figures  # noqa: E402
from selftests import parse_results  # noqa: E402

TEST_DATA = Path(__file__).resolve().parent / "test_data"


def test_data(name):
    return TEST_DATA / name


def data_lines(name):
    return test_data(name).read_text(errors="replace").splitlines()


def written(fn):
    """What fn(Tap) writes."""
    out = io.StringIO()
    fn(tap.Tap(out))
    return out.getvalue()


def git_repo(path):
    """A tiny git repo at path: a base commit tagged kcolour-base on branch kcolour."""
    path.mkdir(parents=True, exist_ok=True)
    util.git(path, "init", "-q", "-b", "kcolour")
    (path / "README").write_text("base\n")
    util.git(path, "add", "README")
    util.git(path, "commit", "-q", "-m", "base")
    util.git(path, "tag", "kcolour-base")
    return path


def commit(path, name, text, message):
    (path / name).parent.mkdir(parents=True, exist_ok=True)
    (path / name).write_text(text)
    util.git(path, "add", name)
    util.git(path, "commit", "-q", "-m", message)


# ------------------------------------------------------------- TAP

class TapWriterTest(unittest.TestCase):

    def test_lines(self):
        """ok, not ok with a diagnostic, skip, the plan last"""
        text = written(lambda w: (w(True, "a"), w(False, "b", diag=["why"]),
                                  w.skip("c", "no KVM"), w.plan()))
        self.assertEqual(text, "ok 1 - a\nnot ok 2 - b\n#   why\nok 3 - c # SKIP no KVM\n1..3\n")

    def test_plan_status(self):
        """plan() is 1 after a failure, 0 after passes and skips"""
        self.assertEqual(tap.Tap(io.StringIO()).plan(), 0)
        w = tap.Tap(io.StringIO())
        w(True, "a")
        w.skip("b", "c")
        self.assertEqual((w.n, w.failed, w.skipped, w.plan()), (2, 0, 1, 0))
        w(False, "d")
        self.assertEqual(w.plan(), 1)

    def test_subtest(self):
        """a subtest is announced, indented, planned, and its summary fails with it"""
        def nested(w):
            with w.sub("boot X") as s:
                s(True, "inner 1")
                s(False, "inner 2")
            w(True, "after")
            w.plan()
        self.assertEqual(written(nested).splitlines(), [
            "# Subtest: boot X", "    ok 1 - inner 1", "    not ok 2 - inner 2", "    1..2",
            "not ok 1 - boot X", "ok 2 - after", "1..2"])

    def test_subtest_exception(self):
        """an exception inside a subtest fails its summary"""
        out = io.StringIO()
        w = tap.Tap(out)
        with self.assertRaises(KeyError):
            with w.sub("s") as s:
                s(True, "fine")
                raise KeyError("x")
        self.assertIn("not ok 1 - s", out.getvalue())

    def test_forward(self):
        """forward: renumbers, keeps the skip"""
        out = io.StringIO()
        tap.Tap(out).forward(["ok 7 - p", "not ok 9 - q", "ok 3 - r # SKIP s"])
        self.assertEqual(out.getvalue(), "ok 1 - p\nnot ok 2 - q\nok 3 - r # SKIP s\n")

    def test_shell_helper(self):
        """harness/tap.sh: skip and forward, the same counts, non-zero on a failure"""
        sh = subprocess.run(["bash", "-c", ". harness/tap.sh; tap 0 a; tap 1 b; "
                             "tap_skip c 'no d'; tap_forward p <<<'ok 5 - e # SKIP f'; tap_end"],
                            capture_output=True, text=True, cwd=facts.ROOT)
        self.assertEqual(tap.counts(tap.parse(sh.stdout.splitlines())), (1, 1, 2), sh.stdout)
        self.assertEqual(sh.returncode, 1)


class TapReaderTest(unittest.TestCase):

    def test_leaves_only(self):
        """a subtest's summary line is not counted again"""
        res = tap.parse(["# Subtest: boot X", "    ok 1 - inner 1", "    not ok 2 - inner 2",
                         "    1..2", "not ok 1 - boot X", "ok 2 - after", "1..2"])
        self.assertEqual([r.text for r in res], ["inner 1", "inner 2", "after"])
        self.assertEqual(tap.counts(res), (2, 1, 0))

    def test_skip_todo_bail(self):
        """skips counted apart, TODO still fails, a bail out fails"""
        res = tap.parse(["ok 1 - x # SKIP not here", "ok 2 - y # skip lower case", "ok 3 - z",
                         "not ok 4 - w # TODO later", "Bail out! no disk", "1..4"])
        self.assertEqual(tap.counts(res), (1, 2, 2))
        self.assertEqual(res[3].directive, "TODO")
        self.assertTrue(res[4].bail)
        self.assertEqual(res[4].text, "Bail out! no disk")

    def test_skip_text_reason(self):
        """the skip's text and reason"""
        r = tap.parse(["ok 1 - x # SKIP not here"])[0]
        self.assertEqual((r.text, r.reason, r.skip, r.num, r.raw), ("x", "not here", True, 1,
                                                                    "- x # SKIP not here"))

    def test_failing_summary(self):
        """a failing summary over passing leaves counts once"""
        res = tap.parse(["    ok 1 - a", "    ok 2 - b", "not ok 1 - crashed suite"])
        self.assertEqual(tap.counts(res), (2, 1, 0))
        self.assertEqual(res[-1].text, "crashed suite")

    def test_kselftest(self):
        """kselftest TAP: "ok N # SKIP reason" without a description is a skip"""
        res = tap.parse(data_lines("tap-kselftest.log"))
        self.assertEqual([(r.num, r.ok, r.skip, r.directive) for r in res], [
            (1, True, False, ""), (2, False, False, ""), (3, True, True, "SKIP"),
            (4, True, True, "SKIP"), (5, False, False, "TODO")])
        self.assertEqual((res[2].text, res[2].reason),
                         ("", "idle tasks: one CPU, no secondary idle task"))
        self.assertEqual((res[3].text, res[3].reason), ("dashed description",
                                                        "lower-case directive"))
        self.assertEqual(tap.counts(res), (1, 2, 2))

    def test_bail_out(self):
        """a bail out is a failure and ends nothing else"""
        res = tap.parse(data_lines("tap-bail.log"))
        self.assertEqual(tap.counts(res), (1, 1, 0))
        self.assertEqual(res[1].text, "Bail out! Failed to open suspend_stats/success: "
                         "No such file or directory")

    def test_ktap_tree(self):
        """KTAP in a console: versions, "# Subtest:", depths, summaries and their children"""
        res = tap.read(data_lines("ktap-nested.log"))
        self.assertEqual([(r.depth, r.num, r.text, r.summary) for r in res], [
            (2, 1, "32K 8-way, balanced: 17 x 64", False),
            (2, 2, "48K 12-way: shift 12, no gain", False),
            (2, 3, "8K 4-way", False),
            (1, 1, "kstack_colour_test_derive", True),
            (1, 2, "kstack_colour_test_rr", False),
            (1, 3, "kstack_colour_test_home", False),
            (0, 1, "kstack_colour", True),
            (1, 1, "test_clobber_zone", False),
            (1, 2, "test_kfree_rcu", False),
            (0, 2, "slub_test", True),
            (1, 1, "first", False),
            (0, 3, "crashed", True)])
        suite = res[6]
        self.assertEqual(suite.subtest, "kstack_colour")
        self.assertEqual([c.text for c in suite.children],
                         ["kstack_colour_test_derive", "kstack_colour_test_rr",
                          "kstack_colour_test_home"])
        self.assertEqual(len(suite.under), 6)
        self.assertEqual(res[3].subtest, "kstack_colour_test_derive")
        self.assertEqual([c.num for c in res[3].children], [1, 2, 3])

    def test_ktap_directives(self):
        """KTAP directives: SKIP with its reason, XFAIL an ok line that stays a pass"""
        res = tap.read(data_lines("ktap-nested.log"))
        self.assertEqual((res[2].directive, res[2].skip, res[2].reason), ("SKIP", True, "not here"))
        self.assertEqual((res[4].directive, res[4].ok, res[4].skip, res[4].reason),
                         ("XFAIL", True, False, "known on this model"))
        self.assertEqual(res[8].raw, "test_kfree_rcu # SKIP can't do kfree_rcu() when test "
                         "is built-in")

    def test_ktap_leaves(self):
        """KTAP leaves: a summary counts only when it fails over passing results"""
        res = tap.parse(data_lines("ktap-nested.log"))
        self.assertEqual([r.text for r in res], [
            "32K 8-way, balanced: 17 x 64", "48K 12-way: shift 12, no gain", "8K 4-way",
            "kstack_colour_test_rr", "kstack_colour_test_home", "test_clobber_zone",
            "test_kfree_rcu", "first", "crashed"])
        self.assertEqual(tap.counts(res), (5, 2, 2))

    def test_new_stream(self):
        """a version line starts a new stream: its first result is no summary of the last"""
        self.assertEqual([r.text for r in tap.parse(["    ok 1 - a", "ok 1 - b"])], ["a"])
        self.assertEqual([r.text for r in tap.parse(["    ok 1 - a", "TAP version 13", "ok 1 - b"])],
                         ["a", "b"])
        self.assertEqual([r.summary for r in tap.read(["    ok 1 - a", "    KTAP version 1",
                                                       "ok 1 - b"])], [False, True])
        second = tap.read(["    ok 1 - a", "KTAP version 1", "    ok 1 - c", "ok 1 - s"])
        self.assertEqual([r.text for r in second[-1].under], ["c"])

    def test_not_tap(self):
        """console lines, plans, versions and diagnostics are not results"""
        self.assertEqual(tap.read(["KTAP version 1", "1..3", "# ok 1 - no", "okay 1",
                                   "  ok 1 - two spaces", "kunit_try_catch (26) ok 1",
                                   "TAP version 13"]), [])

    def test_recorded_console(self):
        """a recorded guest console: KUnit's two suites, then the kselftests"""
        res = tap.read(data_lines("console-Skylake-Client.log"))
        suites = [r for r in res if r.depth == 0 and r.summary]
        self.assertEqual([(r.text, r.ok, len(r.children)) for r in suites],
                         [("kstack_colour", True, 12), ("slub_test", True, 9)])
        self.assertEqual(tap.counts(tap.parse(data_lines("console-Skylake-Client.log"))),
                         (60, 0, 2))


class UnittestAsTapTest(unittest.TestCase):
    """tap.run_tests: what this file prints."""

    class Inner(unittest.TestCase):
        def test_a_pass(self):
            """a docstring"""
            self.assertTrue(True)

        def test_b_fail(self):
            print("printed by the test")
            self.assertEqual(1, 2)

        def test_c_error(self):
            raise OSError("boom")

        @unittest.skip("not here")
        def test_d_skip(self):
            pass

        def test_e_subtests(self):
            for i in range(3):
                with self.subTest(i=i):
                    self.assertNotEqual(i, 1)

        @unittest.expectedFailure
        def test_f_xfail(self):
            self.assertTrue(False)

        def test_g_hash(self):
            """says "ok 1 # SKIP" in its docstring"""

    def run_inner(self, *names):
        out = io.StringIO()
        loader = unittest.defaultTestLoader
        suite = unittest.TestSuite(loader.loadTestsFromName(n, self.Inner) for n in names) \
            if names else loader.loadTestsFromTestCase(self.Inner)
        rc = tap.run_tests(suite, out)
        return rc, out.getvalue()

    def test_lines(self):
        """a line a test method, its docstring, the plan last, exit 1 on a failure"""
        rc, text = self.run_inner()
        lines = [x for x in text.splitlines() if not x.startswith("#")]
        self.assertEqual(rc, 1)
        self.assertEqual(lines, [
            "ok 1 - Inner.test_a_pass: a docstring",
            "not ok 2 - Inner.test_b_fail",
            "not ok 3 - Inner.test_c_error",
            "ok 4 - Inner.test_d_skip # SKIP not here",
            "not ok 5 - Inner.test_e_subtests (i=1)",
            "ok 6 - Inner.test_f_xfail (an expected failure)",
            'ok 7 - Inner.test_g_hash: says "ok 1 \\# SKIP" in its docstring',
            "1..7"])
        res = tap.parse(text.splitlines())
        self.assertEqual(tap.counts(res), (3, 3, 1))
        self.assertEqual(res[-1].text, 'Inner.test_g_hash: says "ok 1 # SKIP" in its docstring')

    def test_diagnostics(self):
        """a failure's traceback and what it printed are diagnostics, not TAP lines"""
        rc, text = self.run_inner("test_b_fail", "test_c_error")
        self.assertIn("#   AssertionError: 1 != 2", text)
        self.assertIn("#   printed by the test", text)
        self.assertIn("#   OSError: boom", text)
        self.assertNotIn("\nprinted by the test", text)
        self.assertTrue(all(x.startswith(("ok ", "not ok ", "#", "1..")) for x in text.splitlines()))

    def test_all_pass(self):
        """exit 0 when every test passes or skips"""
        self.assertEqual(self.run_inner("test_a_pass", "test_d_skip"),
                         (0, "ok 1 - Inner.test_a_pass: a docstring\n"
                             "ok 2 - Inner.test_d_skip # SKIP not here\n1..2\n"))

    def test_none(self):
        """no test at all is a failure"""
        self.assertEqual(tap.run_tests(unittest.TestSuite(), io.StringIO()), 1)


# ------------------------------------------------------------- parse_results.py

def parse_results_cases():
    """(console, allow_skip, expect) of test_data/parse_results.tsv."""
    for line in data_lines("parse_results.tsv"):
        if not line.startswith("#"):
            console, allow, expect = line.split("\t")
            yield console, allow == "yes", "" if expect == "-" else expect


def parse_results_output(console, allow, expect):
    """(the TAP parse_results.check prints, with its exit status, its upstream lines)."""
    out = io.StringIO()
    t = tap.Tap(out)
    upstream = parse_results.check(t, data_lines(console), allow, expect)
    rc = t.plan()
    return out.getvalue() + "# exit %d\n" % rc, "".join("%s %d\n" % kv for kv in upstream.items())


def record():
    for console, allow, expect in parse_results_cases():
        text, upstream = parse_results_output(console, allow, expect)
        test_data(console[:-4] + ".tap").write_text(text)
        test_data(console[:-4] + ".upstream").write_text(upstream)
        print("wrote", test_data(console[:-4] + ".{tap,upstream}"))


class ParseResultsTest(unittest.TestCase):
    """selftests/parse_results.py on recorded consoles: the TAP it printed
    and the upstream rc lines it wrote before it read KTAP with tap.read."""

    def test_recorded(self):
        """every fixture console gives the TAP and upstream lines recorded for it"""
        cases = list(parse_results_cases())
        self.assertGreaterEqual(len(cases), 6)
        for console, allow, expect in cases:
            with self.subTest(console=console):
                text, upstream = parse_results_output(console, allow, expect)
                self.assertEqual(text, test_data(console[:-4] + ".tap").read_text())
                self.assertEqual(upstream, test_data(console[:-4] + ".upstream").read_text())

    def test_failures_seen(self):
        """the synthetic console's failures are failures, its skips skips (a
        kselftest that left kernel.kstack_colour changed among them)"""
        res = tap.parse(test_data("console-failures.tap").read_text().splitlines())
        self.assertEqual(tap.counts(res), (13, 17, 6))
        self.assertIn("kstack: kernel.kstack_colour left as found (0 -> 1)",
                      [r.text for r in res if not r.ok])
        self.assertIn("kunit: 48K 12-way: shift 12, no gain", [r.text for r in res if not r.ok])

    def test_main(self):
        """the command line: TAP on stdout, --upstream FILE, exit 1 on a failure"""
        with tempfile.TemporaryDirectory() as d:
            up = Path(d) / "up"
            r = subprocess.run([sys.executable, "-m", "selftests.parse_results",
                                str(test_data("console-Skylake-Client.log")), "--expect",
                                "task=0", "--upstream", str(up)], capture_output=True, text=True,
                               cwd=facts.ROOT)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertEqual(r.stdout + "# exit 0\n",
                             test_data("console-Skylake-Client.tap").read_text())
            self.assertEqual(up.read_text(), test_data("console-Skylake-Client.upstream").read_text())
            r = subprocess.run([sys.executable, "-m", "selftests.parse_results",
                                str(test_data("console-failures.log"))], capture_output=True,
                               cwd=facts.ROOT)
            self.assertEqual(r.returncode, 1)


# ------------------------------------------------------------- make check's runner

class RunnerTest(unittest.TestCase):

    def test_run_suite(self):
        """a non-zero exit and no test are failures; a skip is not a pass"""
        with tempfile.TemporaryDirectory() as d, mock.patch.object(check, "LOGDIR", Path(d)), \
                mock.patch("sys.stdout", io.StringIO()):
            r = [check.run_suite("crash", ["sh", "-c", "echo 'ok 1 - fine'; echo why >&2; exit 3"]),
                 check.run_suite("empty", ["true"]),
                 check.run_suite("skips", ["sh", "-c", "echo 'ok 1 - a # SKIP b'; echo 'ok 2 - c'"])]
            log = (Path(d) / "crash.tap").read_text()
        self.assertEqual([x[:3] for x in r], [(1, 1, 0), (0, 1, 0), (1, 0, 1)])
        self.assertIn("crash exited with status 3", log)
        self.assertIn("# stderr: why", log)

    def test_background(self):
        """a background suite runs beside the suites after it (each waits
        for the other here), counts in the total, and keeps its row's place"""
        with tempfile.TemporaryDirectory() as d, mock.patch.object(check, "LOGDIR", Path(d)), \
                mock.patch("sys.stdout", io.StringIO()) as out:
            a, b = Path(d) / "a", Path(d) / "b"
            wait_for = "i=0; while [ ! -e %s ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done; "
            rc = check.main([("bg", ["sh", "-c", wait_for % a +
                                     "[ -e %s ] && touch %s && echo 'ok 1 - bg'" % (a, b)],
                              None, True),
                             ("fg", ["sh", "-c", "touch %s; " % a + wait_for % b +
                                     "[ -e %s ] && echo 'ok 1 - fg'" % b])])
        self.assertEqual(rc, 0)
        text = out.getvalue()
        self.assertIn("== bg (in the background)", text)
        self.assertRegex(text, r"bg .*\n\s*fg .*\n\n2 passed, 0 failed, 0 skipped")

    def test_locked(self):
        """a second holder waits for the first, and is told it waited"""
        with tempfile.TemporaryDirectory() as d:
            lock = Path(d) / "x.lock"
            holder = subprocess.Popen(
                [sys.executable, "-c", "import fcntl, sys, time; f = open(sys.argv[1], 'w'); "
                 "fcntl.flock(f, fcntl.LOCK_EX); print(1, flush=True); time.sleep(0.5)", str(lock)],
                stdout=subprocess.PIPE, text=True)
            holder.stdout.readline()
            with mock.patch("sys.stderr", io.StringIO()) as err, util.locked(lock, "x") as waited:
                self.assertTrue(waited)
                holder.wait(timeout=5)   # it held the lock until it exited
            self.assertIn("waiting for another run's x", err.getvalue())
            with util.locked(lock, "x") as waited:
                self.assertFalse(waited)


# ------------------------------------------------------------- facts.tsv

class FactsTest(unittest.TestCase):
    """The project's facts.tsv."""

    def test_image_fragments(self):
        """the test image's fragments"""
        self.assertEqual(facts.image_spec("test"), ("series", [
            "qemu-test", "distro", "kcolour", "kcolour-on", "kcolour-task", "kcolour-test",
            "bench-net", "bench-tools"]))

    def test_fragments_exist(self):
        """every image's fragments exist"""
        missing = [f for row in facts.rows("image") for f in row[2].split()
                   if not (kconfig.FRAGDIR / (f + ".config")).exists()]
        self.assertEqual(missing, [])
        self.assertGreater(len(facts.rows("image")), 3)

    def test_model(self):
        """a model's true L1D"""
        self.assertEqual(facts.models()["EPYC"]["l1d"], "32K:8:64")

    def test_geometry(self):
        """SIZE:WAYS:LINE, the one spelling; the default model's caches"""
        self.assertEqual(facts.geometry("48K:12:64"), (49152, 12, 64))
        self.assertEqual(facts.geometry("4M:16:64"), (4 << 20, 16, 64))
        self.assertEqual(facts.geometry("512:2:32"), (512, 2, 32))
        for bad in ("32K/8/64", "32K:8", "xK:8:64", ""):
            with self.assertRaises(ValueError):
                facts.geometry(bad)
        model, caches = facts.default_model()
        self.assertEqual(sorted(caches), ["L1D", "L1I", "L2"])
        self.assertIn(model, facts.models())
        # the model table's L1D and L2 of that model are the same caches
        self.assertEqual(facts.geometry(facts.models()[model]["l1d"]), caches["L1D"])
        self.assertEqual(facts.geometry(facts.models()[model]["l2"]), caches["L2"])

    def test_workloads(self):
        """a workload set, in order"""
        self.assertEqual(facts.workloads("bench-quick")[:2], ["ring 8 200", "forkloop 100"])

    def test_awk(self):
        """awk reads the same file"""
        awk = subprocess.run(["awk", "-F\t", '$1 == "image" && $2 == "bench" { print $4 }',
                              str(facts.FACTS)], capture_output=True, text=True).stdout.strip()
        self.assertEqual(awk, " ".join(facts.image_spec("bench")[1]))
        self.assertEqual(awk, "qemu-test kcolour kcolour-on kcolour-task bench-net bench-tools")


class FactsFixtureTest(unittest.TestCase):
    """facts.py on test_data/facts.tsv."""

    def setUp(self):
        patcher = mock.patch.object(facts, "FACTS", test_data("facts.tsv"))
        patcher.start()
        self.addCleanup(patcher.stop)

    def test_rows(self):
        """rows in file order, comments skipped, table by name"""
        self.assertEqual(facts.workloads("bench-quick"), ["ring 8 200", "forkloop 100"])
        self.assertEqual(facts.rows("series"), [["stable", "stable", "1", "base"],
                                                ["colour", ".", "5", "stable"]])
        self.assertEqual(facts.table("image")["base"], ["base", "qemu-test"])
        self.assertEqual(facts.rows("nosuch"), [])

    def test_image_spec(self):
        """an image's tree and fragments; an unknown one is a KeyError"""
        self.assertEqual(facts.image_spec("test"), ("series", ["qemu-test", "kcolour",
                                                               "kcolour-task"]))
        with self.assertRaises(KeyError):
            facts.image_spec("nosuch")

    def test_models(self):
        """a model's cache facts, sysfs a boolean"""
        self.assertEqual(facts.models()["Conroe,level=2"], dict(
            source="leaf2", l1d="32K:8:64", l2="2048K:8:64", sysfs=False))
        self.assertIs(facts.models()["EPYC"]["sysfs"], True)

    def test_paths(self):
        """paths are absolute; fixtures/ paths are inside $FIXTURES when it is set"""
        with mock.patch.dict(os.environ, {"FIXTURES": ""}):
            self.assertEqual(facts.path("build"), facts.ROOT / "build")
            self.assertEqual(facts.path("bench-dump"), (facts.ROOT / "../shared/fixtures/cpuid")
                             .resolve() / "GenuineIntel00406E3_Skylake.cpuid-r.txt")
        with mock.patch.dict(os.environ, {"FIXTURES": "/x/y"}):
            self.assertEqual(facts.path("bench-dump"),
                             Path("/x/y/GenuineIntel00406E3_Skylake.cpuid-r.txt"))


# ------------------------------------------------------------- images

class ImageKeyTest(unittest.TestCase):
    """kernel.image_key: the cache key of an image, from its inputs, no build:
    the base and the series in a temporary kernel-patches/."""

    def setUp(self):
        tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, tmp)
        self.patches, self.frags = tmp / "kernel-patches", tmp / "frags"
        self.patches.mkdir()
        self.frags.mkdir()
        (self.patches / "0001-a.patch").write_text("patch a\n")
        (self.patches / "0002-b.patch").write_text("patch b\n")
        (self.patches / "series").write_text("0001-a.patch\n0002-b.patch\n")
        (self.frags / "one.config").write_text("# what it is\nCONFIG_A=y\n# CONFIG_B is not set\n")
        (self.frags / "two.config").write_text("CONFIG_C=m\n")
        self.base = "tarball linux-source-6.12.tar.xz 1 2"
        self.gcc = "gcc (Debian 12.2.0-14) 12.2.0"
        self.patch(series, "PATCHES", self.patches)
        self.patch(series, "base_id", lambda: self.base)
        self.patch(series, "all_series", lambda: [series.Series("colour", ".", "5")])
        self.patch(kernel, "tool_version", lambda cmd: self.gcc if cmd[0] == "gcc" else "GNU ld")

    def patch(self, target, name, value):
        p = mock.patch.object(target, name, value)
        p.start()
        self.addCleanup(p.stop)

    def key(self, base=False):
        return kernel.image_key(base, [self.frags / "one.config", self.frags / "two.config"])

    def test_stable(self):
        """the same inputs, the same key (16 hex digits)"""
        self.assertRegex(self.key(), r"^[0-9a-f]{16}$")
        self.assertEqual(self.key(), self.key())

    def test_fragment(self):
        """a changed fragment line changes the key; a plain comment does not"""
        before = self.key()
        one = self.frags / "one.config"
        one.write_text(one.read_text().replace("# what it is", "# what it is, said again"))
        self.assertEqual(self.key(), before)
        one.write_text(one.read_text().replace("CONFIG_A=y", "CONFIG_A=m"))
        self.assertNotEqual(self.key(), before)

    def test_named_file(self):
        """a file a fragment gives make as HOT_TEXT_PROFILE= is an input: its
        bytes (absolute, or relative to the tree, which need not exist: ".."
        is resolved by name), or its absence; not its path"""
        prof = self.frags / "hot.profile"
        one = self.frags / "one.config"
        one.write_text(one.read_text() + '# make HOT_TEXT_PROFILE=%s\n' % prof)
        missing = self.key()
        prof.write_text("1\tf\n")
        first = self.key()
        prof.write_text("2\tf\n")
        self.assertEqual(len({missing, first, self.key()}), 3)
        self.assertEqual(list(kernel.files_named(['# make HOT_TEXT_PROFILE=../x.profile',
                                                  '# make OTHER=/etc/passwd',
                                                  'CONFIG_HOT_TEXT_PROFILE="/etc/passwd"'],
                                                 Path("/t/linux"))),
                         [Path("/t/x.profile")])
        self.assertEqual(kernel.make_vars([one]), ["HOT_TEXT_PROFILE=%s" % prof])

    def test_named_file_where(self):
        """a relative profile is read from beside a tree that need not exist
        yet; where the clone is (the tree's path) is not an input"""
        one = self.frags / "one.config"
        one.write_text(one.read_text() + '# make HOT_TEXT_PROFILE=../hot.profile\n')
        keys = []
        for where in ("a", "b"):
            (self.frags / where).mkdir()
            (self.frags / where / "hot.profile").write_text("1\tf\n")
            tree = mock.Mock(path=self.frags / where / "linux")   # not made
            with mock.patch.object(kernel, "Tree", lambda base: tree):
                keys.append(self.key())
                (self.frags / where / "hot.profile").write_text("2\tf\n")
                keys.append(self.key())
        self.assertEqual(keys[0], keys[2])
        self.assertNotEqual(keys[0], keys[1])

    def test_fragment_order(self):
        """the fragments' order is an input (merge_config.sh: the last one wins)"""
        self.assertNotEqual(self.key(), kernel.image_key(False, [self.frags / "two.config",
                                                                 self.frags / "one.config"]))

    def test_patch(self):
        """a changed patch, or the series' order, changes the key"""
        before = self.key()
        (self.patches / "0002-b.patch").write_text("patch b, v2\n")
        changed = self.key()
        self.assertNotEqual(changed, before)
        (self.patches / "series").write_text("0002-b.patch\n0001-a.patch\n")
        self.assertNotEqual(self.key(), changed)

    def test_base_tree(self):
        """a base image does not depend on the series, but does on the base"""
        before = self.key(base=True)
        self.assertNotEqual(before, self.key())
        (self.patches / "0001-a.patch").write_text("patch a, v2\n")
        self.assertEqual(self.key(base=True), before)
        self.base = "git 0123456789abcdef"
        self.assertNotEqual(self.key(base=True), before)

    def test_toolchain(self):
        """another compiler is another key"""
        before = self.key()
        self.gcc = "gcc (Debian 13.1.0-1) 13.1.0"
        self.assertNotEqual(self.key(), before)

    def test_missing_patch(self):
        """a series file naming a missing patch is an error, not a key"""
        (self.patches / "series").write_text("0001-a.patch\n0003-gone.patch\n")
        with self.assertRaisesRegex(util.Error, "0003-gone.patch"):
            self.key()


class ResolveTest(unittest.TestCase):
    """kernel.resolve: (name, base, fragments) of a facts.tsv image or a list."""

    def test_names(self):
        """a facts.tsv image, the default, a base image"""
        self.assertEqual(kernel.resolve("debug"), ("debug", False, facts.image_spec("debug")[1]))
        self.assertEqual(kernel.resolve(), ("test", False, facts.image_spec("test")[1]))
        self.assertEqual(kernel.resolve("base"), ("base", True, ["qemu-test"]))

    def test_unknown(self):
        """an unknown image names the known ones"""
        with self.assertRaisesRegex(util.Error, r"no image nosuch in facts.tsv \(test, "):
            kernel.resolve("nosuch")

    def test_fragments(self):
        """a fragment list is named for its fragments, .config dropped, base+ on the base"""
        self.assertEqual(kernel.resolve(fragments=["qemu-test.config", "kcolour"]),
                         ("qemu-test+kcolour", False, ["qemu-test.config", "kcolour"]))
        self.assertEqual(kernel.resolve(fragments=["qemu-test"], base=True),
                         ("base+qemu-test", True, ["qemu-test"]))
        self.assertEqual(kernel.resolve("mine", ["a", "b"]), ("mine", False, ["a", "b"]))


class KconfigTest(unittest.TestCase):

    def test_verify_config(self):
        """verify_config names every fragment line .config lost"""
        with tempfile.TemporaryDirectory() as d:
            frag = Path(d) / "x.config"
            frag.write_text("CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=n\nCONFIG_D=\"s\"\n")
            miss = kconfig.verify_config([frag], "CONFIG_A=y\nCONFIG_B=y\n# CONFIG_C is not set\n")
        self.assertEqual(sorted(miss), ['# CONFIG_B is not set (have: CONFIG_B=y)',
                                        'CONFIG_D="s" (have: absent)'])


# ------------------------------------------------------------- the series

class TreeTest(unittest.TestCase):
    """series.Tree.unsaved on a tiny git repo in place of build/linux."""

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp)
        self.tree = series.Tree()
        self.tree.path = self.tmp / "linux"
        self.tree.state = self.tree.path / ".git/kcolour-state"

    def saved(self):
        """The state make tree and make export leave (write_state(), without the digest)."""
        self.tree.state.write_text("head %s\ndigest x\n" % util.git(self.tree.path, "rev-parse",
                                                                     "HEAD"))

    def test_no_tree(self):
        """no tree, or the base tree: nothing unsaved"""
        self.assertEqual(self.tree.unsaved(), "")
        git_repo(self.tree.path)
        self.assertEqual(series.Tree(base=True).unsaved(), "")

    def test_states(self):
        """no record, saved, a new commit, an uncommitted change"""
        git_repo(self.tree.path)
        self.assertIn("no record of a finished 'make tree'", self.tree.unsaved())
        self.saved()
        self.assertEqual(self.tree.unsaved(), "")
        self.assertEqual(self.tree._field("digest"), "x")
        (self.tree.path / "README").write_text("edited\n")
        self.assertIn("uncommitted changes", self.tree.unsaved())
        util.git(self.tree.path, "commit", "-q", "-am", "edit")
        self.assertIn("commits that are not exported", self.tree.unsaved())
        self.saved()
        self.assertEqual(self.tree.unsaved(), "")
        (self.tree.path / "new-file").write_text("untracked\n")
        self.assertIn("uncommitted changes", self.tree.unsaved())


class BaseRepoTest(unittest.TestCase):
    """series._make_base_repo on a small tarball: the commit git add and
    commit make of the unpacked tree (the way before fast-import)."""

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp)
        src = self.tmp / "linux-x" / "src"
        (src / "scripts").mkdir(parents=True)
        (src / "README").write_text("base\n")
        (src / "scripts/run.sh").write_text("#!/bin/sh\n")
        (src / "scripts/run.sh").chmod(0o755)
        (src / "scripts/link").symlink_to("run.sh")
        (src / "empty").write_text("")
        (src / "a path with spaces.txt").write_text("x\n")
        # Debian's rule, which the import leaves out
        (src / ".gitignore").write_text("*.o\n# Debian packaging\n/*\n!/debian/\n")
        self.src = src
        mock.patch.object(series, "CACHE", self.tmp / "cache").start()
        self.addCleanup(mock.patch.stopall)

    def tarball(self, name, *members):
        path = self.tmp / name
        subprocess.run(["tar", "-cJf", str(path), "-C", str(self.src.parent)] + list(members),
                       check=True)
        mock.patch.object(series, "TARBALL", path).start()
        return path

    def test_same_commit(self):
        """the tree, modes, a symlink, an empty file, spaces in a path and .gitignore as
        git add -A and commit give them"""
        tarball = self.tarball("linux-x.tar.xz", "src")
        repo = series._make_base_repo(self.tmp / "cache/base/x.git")
        (self.src / ".gitignore").write_text("*.o\n")
        want = git_repo_of(self.src, tarball.name)
        self.assertEqual(util.git(repo, "rev-parse", "kcolour-base^{tree}"),
                         util.git(want, "rev-parse", "HEAD^{tree}"))
        self.assertEqual(util.git(repo, "rev-parse", "base"),
                         util.git(repo, "rev-parse", "kcolour-base"))
        self.assertEqual(util.git(repo, "log", "-1", "--format=%an <%ae> %at %cn %ct%n%B", "base"),
                         "kcolour project <kcolour@example.org> 946684800 kcolour project "
                         "946684800\nkcolour base: linux-x.tar.xz\n\nThe tarball as it is, "
                         "except for Debian's ignore-everything rule in .gitignore.")

    def test_bad_tarball(self):
        """a truncated tarball or a member git cannot hold: an Error, no repo left"""
        good = self.tarball("linux-x.tar.xz", "src")
        (self.tmp / "cut.tar.xz").write_bytes(good.read_bytes()[:len(good.read_bytes()) // 2])
        mock.patch.object(series, "TARBALL", self.tmp / "cut.tar.xz").start()
        with self.assertRaisesRegex(util.Error, "cut.tar.xz: not a tarball git can import"):
            series._make_base_repo(self.tmp / "cache/base/x.git")
        os.mkfifo(self.src / "fifo")
        self.tarball("fifo.tar.xz", "src")
        with self.assertRaisesRegex(util.Error, "src/fifo is neither a file nor a symlink"):
            series._make_base_repo(self.tmp / "cache/base/x.git")
        self.assertEqual(list((self.tmp / "cache/base").iterdir()), [])


def git_repo_of(src, tarball_name):
    """src committed the way _make_base_repo did before fast-import."""
    util.git(src, "init", "-q", "-b", "base")
    util.git(src, "add", "-A", "-f")
    util.git(src, "commit", "-q", "-m", "kcolour base: " + tarball_name)
    return src


class CoverLetterTest(unittest.TestCase):
    """series.cover_letter on a tiny git repo: the 0000-cover-letter.patch make export writes."""

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp)
        self.repo = git_repo(self.tmp / "linux")
        commit(self.repo, "kernel/a.c", "int a;\n", "kernel: add a\n\nThe first.")
        commit(self.repo, "lib/b.c", "int b;\n", "lib: add b\n\nThe second.")
        self.tree = series.Tree()
        self.tree.path = self.repo
        self.patches = self.tmp / "kernel-patches"
        (self.patches / "x").mkdir(parents=True)
        (self.patches / "x/cover-letter.txt").write_text(
            "x86: colour the things\n\nWhat the series does, in a paragraph.\n")
        p = mock.patch.object(series, "PATCHES", self.patches)
        p.start()
        self.addCleanup(p.stop)
        self.quiet = mock.patch("sys.stderr", io.StringIO())
        self.quiet.start()
        self.addCleanup(self.quiet.stop)

    def letter(self, version):
        s = series.Series("x", "x", version)
        series.cover_letter(self.tree, s, "kcolour-base..HEAD")
        return (s.dir / "0000-cover-letter.patch").read_text()

    def test_letter(self):
        """the subject from the first paragraph, the body, the diffstat, numbered"""
        text = self.letter("5")
        self.assertIn("Subject: [PATCH v5 0/2] x86: colour the things\n", text)
        self.assertIn("What the series does, in a paragraph.", text)
        self.assertRegex(text, r"kernel/a\.c \(new\) +\| 1 \+")
        self.assertIn("2 files changed, 2 insertions(+)", text)
        self.assertNotRegex(text, r"(?m)^ create mode")
        self.assertRegex(text, r"(?m)^From 0{40} ")

    def test_dated_as_last_commit(self):
        """the letter is dated as the series' last commit"""
        date = util.git(self.repo, "log", "-1", "--format=%aD")
        self.assertIn("\nDate: %s\n" % date, self.letter("5"))

    def test_version_one(self):
        """a first version has no number"""
        self.assertIn("Subject: [PATCH 0/2] x86: colour the things\n", self.letter("1"))

    def test_stable(self):
        """the same series writes the same file, and does not rewrite it"""
        first = self.letter("5")
        out = self.patches / "x/0000-cover-letter.patch"
        os.utime(out, (0, 0))
        self.assertEqual(self.letter("5"), first)
        self.assertEqual(out.stat().st_mtime, 0)

    def test_no_text(self):
        """no cover-letter.txt, no letter"""
        (self.patches / "x/cover-letter.txt").unlink()
        s = series.Series("x", "x", "5")
        series.cover_letter(self.tree, s, "kcolour-base..HEAD")
        self.assertFalse((s.dir / "0000-cover-letter.patch").exists())


class WhitelistTest(unittest.TestCase):
    """The task_struct whitelist check: v4's widening is caught, a plain copy
    of the values into kmem_cache_args is not, and a changed function body is."""

    def test_widened(self):
        """arithmetic on usersize/useroffset is a widening, a copy is not"""
        widen = [x for x in ["usersize += room;", "useroffset -= 64;",
                             "usersize = usersize + room;", "args.usersize = usersize;",
                             "args.useroffset = useroffset;", "usersize = p->size;"]
                 if series.WHITELIST_WIDENED.search(x)]
        self.assertEqual(widen, ["usersize += room;", "useroffset -= 64;",
                                 "usersize = usersize + room;"])

    def test_function(self):
        """a C function's body, braces nested"""
        src = "static void f(int *a)\n{\n\tif (a) {\n\t\t*a = 1;\n\t}\n}\nint g;\n"
        self.assertEqual(series._function(src, "f"), "{\n\tif (a) {\n\t\t*a = 1;\n\t}\n}")
        self.assertIsNone(series._function(src, "h"))


# ------------------------------------------------------------- boots

class FiguresTest(unittest.TestCase):
    """check_figures.py: a quoted percentage must be one the page it cites
    shows, with its sign and its interval."""

    PAGES = {"paired.md": results.Page(
        "| web | +0.00% [-1.23%, +1.25%] |\n| ring | -0.92% |\n| text | +12.76% |"),
             "cpus.md": results.Page("| fork | +1.06% [-0.40%, +2.54%] |")}

    def unshown(self, text):
        return check_figures.unshown(text, self.PAGES)

    def test_made_up_lines_fail(self):
        """the issue's made-up lines, which the old check passed"""
        for line in ("colouring +6.00% slower", "12.77% for lighttpd",
                     "40% on Skylake hardware"):
            self.assertEqual(len(self.unshown(line)), 1, line)
        self.assertIn("no page cited", self.unshown("colouring +6.00% slower")[0])

    def test_a_stale_interval_fails(self):
        """v5's figure, cited to the page that shows the rerun's"""
        line = "the web server +1.14% [+0.12%, +2.16%] slower (docs/results/paired.md)"
        self.assertEqual(self.unshown(line), ["+1.14% [+0.12%, +2.16%] (not on paired.md)"])
        self.assertEqual(self.unshown(line.replace("+1.14% [+0.12%, +2.16%]",
                                                   "+0.00% [-1.23%, +1.25%]")), [])

    def test_the_sign_counts(self):
        self.assertEqual(self.unshown("ring -0.92% (results/paired.md)"), [])
        self.assertEqual(self.unshown("ring +0.92% (results/paired.md)"),
                         ["+0.92% (not on paired.md)"])
        self.assertEqual(self.unshown("12.76% more text (results/paired.md)"), [])

    def test_the_cited_page_alone(self):
        line = "fork +1.06% [-0.40%, +2.54%] (docs/results/paired.md)"
        self.assertEqual(len(self.unshown(line)), 1)
        self.assertEqual(self.unshown(line.replace("paired", "cpus")), [])

    def test_the_paragraph_then_the_text(self):
        """a paragraph without a citation takes the text's; one with, its own"""
        text = "a table: -0.92%\n\nas docs/results/paired.md shows"
        self.assertEqual(self.unshown(text), [])
        text = "a table: -0.92% (results/cpus.md)\n\nas docs/results/paired.md shows"
        self.assertEqual(self.unshown(text), ["-0.92% (not on cpus.md)"])

    def test_levels_and_marked_lines_are_not_figures(self):
        self.assertEqual(self.unshown("a 95% interval, a 95%-interval"), [])
        for line in ("7% (measured: perf on a Zen 4)", "a 2% effect (synthetic: made up)",
                     "within ±0.5% (an example)"):
            self.assertEqual(self.unshown(line), [], line)

    def run_pages(self, kernel="colour v5, falign v2", figures=None):
        page = "| ring | -0.60% [-1.05%, -0.15%] |"
        run = results.Run("paired.md", "2026-12-05", kernel,
                          figures or results.digest(page))
        return {"paired.md": results.Page(page, run), "cpus.md": results.Page("| x | 1% |")}

    def test_a_kernel_named_for_a_page_is_its_runs(self):
        """"v5's build" must be the kernel the cited page's run measured"""
        pages = self.run_pages()
        line = "-0.60%% [-1.05%%, -0.15%%] (%s build, docs/results/paired.md)"
        self.assertEqual(check_figures.misattributed(line % "v5's", pages), [])
        self.assertEqual(check_figures.misattributed(line % "v6's", pages),
                         ["v6's: paired.md is the run of colour v5 (runs.tsv), not v6"])
        self.assertEqual(check_figures.misattributed(line % "falign v2's", pages), [])
        self.assertEqual(len(check_figures.misattributed(line % "falign v3's", pages)), 1)
        # a bare version is the text's own series
        self.assertEqual(check_figures.misattributed(line % "v2's", pages, "falign"), [])
        # a page without a recorded run cannot be named
        self.assertIn("no recorded run",
                      check_figures.misattributed(line.replace("paired", "cpus") % "v5's",
                                                  pages)[0])
        # no citation within reach: no claim about a page
        self.assertEqual(check_figures.misattributed("v6's build" + " " * 200 +
                                                     "results/paired.md", pages), [])

    def test_a_page_shows_its_recorded_run(self):
        self.assertEqual(check_figures.unrecorded(self.run_pages()), ["cpus.md: no row in runs.tsv"])
        stale = check_figures.unrecorded(self.run_pages(figures="0123456789abcdef"))
        self.assertEqual(len(stale), 2)
        self.assertIn("paired.md: its figures are not those of its 2026-12-05 run", stale[0])

    def test_a_page_without_percentages_is_its_numbers(self):
        """a page of counts alone is held to its run too: its numbers are digested"""
        self.assertNotEqual(results.digest("8 parts, 88 bytes"), results.digest(""))
        self.assertNotEqual(results.digest("8 parts, 88 bytes"),
                            results.digest("12 parts, 150 bytes"))
        # percentages, where there are any, are what identifies the run
        self.assertEqual(results.digest("1% of 8"), results.digest("1% of 9"))
        run = results.Run("x.md", "2026-12-07", "colour v6", results.digest("12 parts"))
        self.assertEqual(len(check_figures.unrecorded({"x.md": results.Page("8 parts", run)})),
                         1)

    def test_record_a_new_run_only(self):
        d = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, d)
        page, runs = d / "paired.md", d / "runs.tsv"
        page.write_text("| ring | -0.60% [-1.05%, -0.15%] |\n")
        self.assertEqual(results.record([page], path=runs, date="2026-12-01"), ["paired.md"])
        self.assertEqual(results.record([page], path=runs, date="2026-12-02"), [])
        row = results.runs(runs)["paired.md"]
        self.assertEqual((row.date, row.figures), ("2026-12-01", results.digest(page.read_text())))
        self.assertEqual(row.version("colour"), int(facts.table("series")["colour"][1]))
        page.write_text("| ring | -0.61% [-1.05%, -0.15%] |\n")
        self.assertEqual(results.record([page], path=runs, date="2026-12-03"), ["paired.md"])
        self.assertEqual(results.runs(runs)["paired.md"].date, "2026-12-03")
        runs.write_text("paired.md\t2026-12-01\n")
        with self.assertRaises(ValueError):
            results.runs(runs)

    def test_a_patch_quotes_its_message_help_and_documentation(self):
        patch = ("Subject: x\n\nIt gains 1%.\n---\n a | 1 +\n"
                 "diff --git a/arch/x86/Kconfig b/arch/x86/Kconfig\n+++ b/arch/x86/Kconfig\n"
                 "+\t  help: 2% fewer misses\n-\t  old: 9%\n"
                 "diff --git a/Documentation/x.rst b/Documentation/x.rst\n+3% here\n"
                 "diff --git a/arch/x86/hot-text.profile b/arch/x86/hot-text.profile\n"
                 "+# forkloop: 54.3% of its instructions\n"
                 "diff --git a/kernel/a.c b/kernel/a.c\n+/* 5% */\n")
        quoted = check_figures.quoted(patch)
        self.assertEqual(sorted(m.group(2) for m in check_figures.FIGURE.finditer(quoted)),
                         ["1", "2", "3"])


class PoolTest(unittest.TestCase):
    """qemu.Boot's job lines and qemu.run's pool, with a kernel that does not exist."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.boot = qemu.Boot("a b'c", "/no/such/bzImage", "/no/initrd", self.tmp,
                              model="qemu64,level=1", args=["x=1 2"], plugin="p.so,a=b")

    def test_run(self):
        """a job's status and messages reach its result; the job list is written"""
        with mock.patch("sys.stderr", io.StringIO()):
            r = qemu.run([self.boot], jobs=1, engine="builtin")[0]
        self.assertEqual(r.status, 1)
        self.assertIn("no kernel image /no/such/bzImage", r.errors)
        self.assertFalse(r.ok)
        self.assertEqual(Path(self.tmp, "jobs-a_b_c.txt").read_text(), self.boot.job() + "\n")

    def test_command(self):
        """Boot.command: the model and the quoted arguments"""
        cmd = self.boot.command()
        self.assertIn("CPU=qemu64,level=1", cmd)
        self.assertIn("'x=1 2'", cmd)
        self.assertIn("QEMU_ARGS='-plugin p.so,a=b'", cmd)
        self.assertTrue(cmd.startswith("CPU="), cmd)

    def test_job(self):
        """Boot.job: one line of shell leaving NAME.rc, .secs, .err beside the log"""
        job = self.boot.job()
        self.assertNotIn("\n", job)
        for ext in (".log", ".rc", ".secs", ".err"):
            self.assertIn(str(Path(self.tmp) / ("a_b_c" + ext)), job)
        self.assertIn("[boot] a b'c: exit $rc", job)

    def test_engine(self):
        """an unknown pool engine is an error; no boots, no run"""
        with self.assertRaisesRegex(Exception, "want builtin or parallel"):
            qemu.run([self.boot], engine="nosuch")
        self.assertEqual(qemu.run([], engine="nosuch"), [])


# ------------------------------------------------------------- console readers

class GuestLinesTest(unittest.TestCase):
    """INIT's lines(): each guest line one KERN_WARNING record of the kernel's
    log, whole; a line the log refuses goes to the console as it is.  Run on
    this host with /dev/kmsg replaced by a file (the host's log is not touched)."""

    def lines(self, text, kmsg, done=None):
        """stdout of lines() on text, /dev/kmsg redirected to kmsg (">>FILE":
        appending stands in for its one record a write), the end-marker
        file to done (default kmsg.done)."""
        fn = re.search(r"^lines\(\) \{\n.*?^\}\n", qemu.INIT, re.S | re.M).group(0)
        self.assertIn(">/dev/kmsg", fn)
        script = fn.replace(">/dev/kmsg", kmsg).replace(
            "/tmp/.kcolour-lines-done", done or kmsg.lstrip(">") + ".done") + "lines\n"
        return subprocess.run(["busybox", "sh", "-c", script], input=text, text=True,
                              capture_output=True, check=True).stdout

    def test_records(self):
        """one record a line, in order, blanks and backslashes kept; the end
        marker noted; nothing on the console itself"""
        with tempfile.TemporaryDirectory() as d:
            kmsg = os.path.join(d, "kmsg")
            out = self.lines("a b\n\n  c\\d\nKCOLOUR-INIT-DONE rc=0\n", ">>" + kmsg)
            self.assertEqual(out, "")
            self.assertEqual(Path(kmsg).read_text(),
                             "<4>a b\n<4>\n<4>  c\\d\n<4>KCOLOUR-INIT-DONE rc=0\n")
            self.assertTrue(os.path.exists(kmsg + ".done"))

    def test_refused(self):
        """a line the log refuses (here: it cannot be opened) is printed as it is"""
        with tempfile.TemporaryDirectory() as d:
            kmsg = os.path.join(d, "no-such-dir", "kmsg")
            self.assertEqual(self.lines("one\ntwo  words\n", ">>" + kmsg), "one\ntwo  words\n")
            self.assertFalse(os.path.exists(kmsg + ".done"))

    def test_write_refused(self):
        """a line whose write fails (/dev/full, as /dev/kmsg fails a line over
        its 1 KiB) is printed as it is"""
        self.assertEqual(self.lines("x" * 2000 + "\n", ">/dev/full", done="/dev/null"),
                         "x" * 2000 + "\n")

    def test_devkmsg_only_when_asked(self):
        """the harness asks for the log's lines except on deterministic boots"""
        self.assertEqual(qemu.Boot("a", "b", "c", "/tmp", args=["x", "printk.devkmsg=off"]).args,
                         ["x", "printk.devkmsg=off"] + qemu.GUEST_LINES_ARGS)
        self.assertEqual(qemu.Boot("a", "b", "c", "/tmp", args=["x"], deterministic=True).args,
                         ["x"])
        self.assertIn("case ${kcolour_lines:-} in", qemu.INIT)


class ConsoleTest(unittest.TestCase):

    def test_usercopy_marker(self):
        """the usercopy marker is found with a kernel message on its line"""
        from selftests import usercopy
        for line in ("USERCOPY-TASK pid 136 colour 2",
                     "USERCOPY-TASK pid 136 colour 2clocksource: timekeeping watchdog on CPU0",
                     "[    3.1] random: crng init doneUSERCOPY-TASK pid 136 colour 2"):
            m = usercopy.MARKER.search("boot\n%s\nmore\n" % line)
            self.assertEqual(m and m.group(1), "2", line)


# ------------------------------------------------------------- make help

class MakeHelpTest(unittest.TestCase):

    def test_targets(self):
        """bare make lists every target, each from its ## comment"""
        makefiles = [facts.ROOT / "Makefile"] + sorted((facts.ROOT / "mk").glob("*.mk"))
        rules = [x for f in makefiles for x in f.read_text().splitlines()
                 if re.match(r"[a-z][a-z0-9-]*:", x) and not x.startswith("all:")]
        targets = [x.split(":")[0] for x in rules]
        shown = subprocess.run(["make", "-s", "-C", str(facts.ROOT)], capture_output=True,
                               text=True).stdout.split()
        self.assertGreater(len(targets), 10)
        self.assertEqual([x.split(":")[0] for x in rules if "## " not in x], [])
        self.assertIn("make", shown)
        self.assertEqual([x for x in targets if x not in shown], [])

    def test_groups(self):
        """every target in one of the groups, which make help prints in order"""
        makefiles = [facts.ROOT / "Makefile"] + sorted((facts.ROOT / "mk").glob("*.mk"))
        groups = re.search(r"^HELP_GROUPS = (.*)$", (facts.ROOT / "Makefile").read_text(),
                           re.M).group(1).split()
        tags = [re.search(r"## \[([a-z]+)\] ", x) for f in makefiles
                for x in f.read_text().splitlines() if re.match(r"[a-z][a-z0-9-]*:.*## ", x)]
        self.assertEqual([t for t in tags if not t or t.group(1) not in groups], [])
        out = subprocess.run(["make", "-s", "-C", str(facts.ROOT), "help"], capture_output=True,
                             text=True).stdout
        self.assertEqual([x[:-1] for x in out.splitlines() if re.fullmatch(r"[a-z]+:", x)],
                         groups)

    def installs(self, target):
        """The parts of make deps that target would install, from make -n."""
        out = subprocess.run(["make", "-n", "-C", str(facts.ROOT), target],
                             capture_output=True, text=True).stdout
        return re.findall(r"scripts/deps\.sh ?(.*)", out)

    def test_parts(self):
        """a target installs the part it runs: the probe none, the demo the kernel's"""
        self.assertEqual(self.installs("probe"), [])
        self.assertEqual(self.installs("demo"), ["kernel"])
        self.assertEqual(self.installs("bench-paired"), ["bench"])
        self.assertEqual(self.installs("static-check"), ["checkers"])
        self.assertEqual(self.installs("check"), [""])


# ------------------------------------------------------- real hardware

class RealHardwareColumnTest(unittest.TestCase):

    def test_filled_from_sent_back_files_only(self):
        """the README's "on real hardware" column: "no machine's file yet" while
        docs/results/hw/ holds no file make hw-check sent back; else each cell
        names such a file"""
        files = sorted(p.name for p in (facts.ROOT / "docs/results/hw").glob("*.tar.gz"))
        lines = (facts.ROOT / "README.md").read_text().splitlines()
        head = next(i for i, x in enumerate(lines) if x.startswith("| you are |"))
        cols = [c.strip() for c in lines[head].strip("|").split("|")]
        self.assertEqual(cols[-1], "on real hardware")
        rows = []
        for x in lines[head + 2:]:
            if not x.startswith("|"):
                break
            rows.append(x.strip("|").split(" | ")[-1].strip())
        self.assertGreater(len(rows), 1)
        for cell in rows:
            if files:
                self.assertTrue(any(f in cell for f in files), cell)
            else:
                self.assertTrue(cell.startswith("no machine's file yet"), cell)


class HarnessDocLinesTest(unittest.TestCase):
    # A table cell of our files (`bench/lib/cases.py`, `cpus.py`: a bare name
    # is in the first one's directory) and the cell after it, their lines:
    # "11, 46", "120 + 154", or "173-772" (the fewest and the most).
    OURS = re.compile(r"`((?:bench|harness)/[\w/]*\.py|[\w]+\.py)`")

    def test_counts_are_today(self):
        """docs/harness.md's line counts of bench/ and harness/ modules are
        each file's wc -l today"""
        checked = 0
        for row in (facts.ROOT / "docs/harness.md").read_text().splitlines():
            cells = [c.strip() for c in row.strip().strip("|").split("|")] \
                if row.startswith("| ") else []
            for files, count in zip(cells, cells[1:]):
                names = self.OURS.findall(files)
                if not names or "/" not in names[0] or \
                        not re.fullmatch(r"[0-9]+((, | \+ |-)[0-9]+)*", count):
                    continue
                top = names[0].rsplit("/", 1)[0]
                lines = [len((facts.ROOT / (n if "/" in n else top + "/" + n))
                             .read_text().splitlines()) for n in names]
                said = [int(n) for n in re.findall(r"[0-9]+", count)]
                got = [min(lines), max(lines)] if "-" in count else lines
                self.assertEqual(said, got, "%s: %s" % (files, count))
                checked += 1
        self.assertGreater(checked, 20)


# ------------------------------------------------------------- types

@unittest.skipUnless(shutil.which("mypy"), "no mypy (apt-get install mypy)")
class TypesTest(unittest.TestCase):
    # Every module of harness/ (not its tests) and bench/lib/, and the
    # simulator's profile reader, which bench/lib/functions.py uses.
    CHECKED = sorted(str(p.relative_to(facts.ROOT)) for d in ("harness", "bench/lib")
                     for p in (facts.ROOT / d).glob("*.py")) + ["bench/cachesim/profile_diff.py"]
    # The fully typed ones, also under --strict (test_mypy_strict's docstring
    # lists them); the others (harness/__main__.py, kernel.py, qemu.py, series.py,
    # suites.py, bench/lib/runner.py, data.py, report.py, experiment.py) are
    # checked without --strict.
    STRICT = ["harness/__init__.py", "harness/tap.py", "harness/facts.py", "harness/results.py",
              "harness/util.py", "harness/kconfig.py", "harness/check.py",
              "harness/bisect_check.py", "harness/deb.py", "bench/lib/__init__.py",
              "bench/lib/cases.py", "bench/lib/functions.py", "bench/lib/cost.py",
              "bench/lib/cpus.py", "bench/lib/paired.py", "bench/lib/pagemap.py",
              "bench/lib/probe.py", "bench/lib/guest.py", "bench/lib/record.py",
              "bench/lib/named_pairs.py",
              "bench/cachesim/profile_diff.py"]

    def mypy(self, *args):
        r = subprocess.run(["mypy", "--cache-dir=/dev/null"] + list(args), capture_output=True,
                           text=True, cwd=facts.ROOT)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_mypy(self):
        """mypy --check-untyped-defs on harness/, bench/lib/ and profile_diff.py"""
        self.mypy("--check-untyped-defs", *self.CHECKED)

    def test_mypy_strict(self):
        """mypy --strict on the fully typed modules

        harness/: __init__, tap, facts, results, util, kconfig, check,
        bisect_check, deb; bench/lib/: __init__, cases, functions, cost, cpus,
        paired, pagemap, probe, guest, record, named_pairs; bench/cachesim/profile_diff.py.  The modules they
        import are followed silently: checked, their errors not reported."""
        self.mypy("--strict", "--follow-imports=silent", *self.STRICT)


if __name__ == "__main__":
    if sys.argv[1:] == ["--record"]:
        sys.exit(record())
    if sys.argv[1:]:
        unittest.main()
    sys.exit(tap.run_tests(unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])))
