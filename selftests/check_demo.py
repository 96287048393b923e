"""make check's demo-matrix: demo.py on every model of facts.tsv (64 tasks), with
kstack_colour=off, with policy=balanced and with cases.tsv's bad-tokens, a subtest each;
a boot whose only failure is the colours' spread (the kernel's own workers may fork
meanwhile) boots again.

usage: python3 -m selftests.check_demo [--models "Skylake-Client EPYC"]
       (from the top of the tree, not by its path)
"""
import argparse
import json
import subprocess
import sys

from harness import facts, qemu, tap, util
from selftests import demo, matrix

BAD = matrix.select("check", "^bad-tokens$")[0]
TOKENS = [e[5:] for e in BAD["expect"].split() if e.startswith("warn=")]


def case(top, prep, name, cpu, tasks, append="", rec=None):
    """One boot's subtest; rec: the bad-token boot's recommendation()."""
    qemu.say("demo-matrix", name)
    with top.sub(name) as t:
        r, ok, lines = demo.run(prep, cpu, tasks, append)
        failed = [x for x in tap.parse(lines) if not x.ok]
        if r.ok and failed and all(": max - min = " in x.text for x in failed):
            t.diag("%s: only the spread failed; booting once more" % name)
            for x in failed:
                t.diag("first boot: not ok - " + x.text)
            r, ok, lines = demo.run(prep, cpu, tasks, append)
        t.forward(lines)
        if not ok:
            why = ("the guest disagrees with what was expected" if r.ok
                   else "the QEMU boot failed (qemu-run exit %d)" % r.status)
            notes = [x for x in lines + r.errors.splitlines()
                     if x.strip() and not tap.LINE.match(x)]
            t(False, "make demo exited 1: " + why, diag=notes[-15:])
        if rec:
            console = r.console.splitlines()
            for tok in TOKENS:
                t(any("kstack_colour: ignoring '%s' in kstack_colour=" % tok in x for x in console),
                  "one warning names '%s'" % tok)
            t(sum("kstack_colour: ignoring" in x for x in console if not x.startswith("D ")) == 6,
              "exactly six warnings, no more")
            t(any("shift %(shift)d: %(colours)d colours x %(step)d B, max %(max_offset)d B, policy "
                  "rr (command line)" % rec in x for x in console),
              "the valid ones around them apply (policy rr, max_offset=%(max_offset)d: "
              "%(colours)d colours of the default %(step)d B step)" % rec)


def recommendation():
    """What kcolour-probe picks for the bad tokens' valid ones on bench-dump (QEMU's L1D)."""
    return json.loads(subprocess.run(  # the static probe demo.prepare() built
        [str(demo.OUT / "bin/kcolour-probe"), "--cpuid-file", str(facts.path("bench-dump")),
         "--no-sysfs", "--policy", "rr", "--max-offset", "2048", "--json"],
        check=True, capture_output=True, text=True).stdout)["recommendation"]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", metavar='"MODEL ..."', default="",
                   help="the models of the first boots (default every model of facts.tsv)")
    opts = p.parse_args(argv)
    top = tap.Tap()
    try:
        prep, rec = demo.prepare(), recommendation()
    except (util.Error, subprocess.CalledProcessError, ValueError, KeyError) as e:
        print("Bail out! %s" % e)
        return 1
    for model in opts.models.split() or facts.models():
        case(top, prep, model, model, 64)
    case(top, prep, "kstack_colour=off", "Skylake-Client", 16, "kstack_colour=off")
    case(top, prep, "policy=balanced", "Skylake-Client", 64, "kstack_colour=policy=balanced")
    case(top, prep, "bad tokens", BAD["model"], 16, BAD["append"], rec)
    return top.plan()


if __name__ == "__main__":
    sys.exit(main())
