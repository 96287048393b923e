#!/usr/bin/env python3
"""make check's cheap tests of the function alignment choice: kconfig-cases.tsv; no short
function of OBJECTS crosses a line under the packed choice (but exceptions.txt's); the
default choice builds OBJECTS as the base tree does.  TAP; progress on stderr."""
import difflib
import functools
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from harness import kernel, qemu, tap  # noqa: E402

WORK = kernel.BUILD / "falign-check"
TOOL = HERE / "falign-report"
# Objects the series does not touch, from small to one of the largest.
OBJECTS = ["lib/sort.o", "lib/string.o", "lib/kstrtox.o", "kernel/fork.o", "mm/slub.o",
           "fs/namei.o"]
say = functools.partial(qemu.say, "falign-check")


def compile_objects(tree, obj, fragments):
    """Configure (verified), then build OBJECTS in obj; True if both did."""
    obj.mkdir(parents=True, exist_ok=True)
    kmake = kernel.Kmake(tree, obj)
    try:
        kmake.configure(kernel.fragment_files(fragments))
    except kernel.Error:
        return False
    with open(obj / "compile.log", "w") as log:
        return subprocess.run(kmake.cmd(*OBJECTS, jobs=os.cpu_count()), stdout=log,
                              stderr=subprocess.STDOUT, env=kmake.env).returncode == 0


def check_kconfig(t, tree):
    obj = WORK / "kconfig"  # one for all cases: kconfig's host tools build once
    obj.mkdir(parents=True, exist_ok=True)
    lines = (HERE / "kconfig-cases.tsv").read_text().splitlines()
    for name, frags, expect in (x.split("\t", 2) for x in lines if x and not x.startswith("#")):
        say("kconfig: " + name)
        extra = [f for f in frags.split() if f.startswith("CONFIG_")]  # to extra.config
        llvm = next((f[len("LLVM="):] for f in frags.split() if f.startswith("LLVM=")), None)
        if llvm and not shutil.which("clang" + llvm):
            t.skip("kconfig %s" % name, "no clang%s (make deps)" % llvm)
            continue
        case_obj = obj / ("llvm" + llvm) if llvm else obj
        case_obj.mkdir(exist_ok=True)
        for file, settings in (("extra.config", extra), ("expect.config", expect.split())):
            (case_obj / file).write_text("".join(s + "\n" for s in settings))
        try:
            kernel.Kmake(tree, case_obj, llvm).configure(kernel.fragment_files(["qemu-test"] + [
                f for f in frags.split() if f not in extra and not f.startswith("LLVM=")]) +
                [case_obj / "extra.config"], verify=False)
        except kernel.Error:
            t(False, "kconfig %s: configures" % name)
            continue
        bad = kernel.verify_config([case_obj / "expect.config"],
                                   (case_obj / ".config").read_text())
        t(not bad, "kconfig %s: %s%s" % (name, expect, " -- got: " + "; ".join(bad) if bad else ""))


def unexcused_crossings(obj):
    """The short functions of OBJECTS (in obj) that cross a line and that
    exceptions.txt does not excuse (by object, "*" for any, and section or
    function), as "object section function size B"; None if falign-report fails."""
    excused = {tuple(w[:2]) for w in (l.split("\t") for l in
               (HERE / "exceptions.txt").read_text().splitlines() if not l.startswith("#"))
               if len(w) >= 3}
    r = subprocess.run([str(TOOL), "--list-crossing"] + OBJECTS, cwd=obj, stdout=subprocess.PIPE,
                       text=True)  # its stderr to ours
    if r.returncode:
        return None
    return ["%s %s %s %s B" % (w[1], w[2], w[3], w[5]) for w in
            (l.split() for l in r.stdout.splitlines() if l.startswith("crossing "))
            if not {(w[1], w[2]), (w[1], w[3]), ("*", w[2]), ("*", w[3])} & excused]


def flags(obj, o):
    """The compiler flags of object o in obj (its .o.cmd) but paths that differ by tree."""
    cmd = (obj / Path(o).parent / ("." + Path(o).name + ".cmd")).read_text()
    line = next(l for l in cmd.splitlines() if l.startswith("savedcmd_"))
    return [w for w in line.split(" := ", 1)[1].split(" ")
            if w and str(kernel.BUILD) not in w and w != "-o" and
            not w.startswith(("-Wp,-MMD", "-I", "-include")) and not re.search(r"\.[cho]$", w)]


def check_packed(t, tree):
    obj = WORK / "packed"
    say("packed: compiling %d objects" % len(OBJECTS))
    if not compile_objects(tree, obj, ["qemu-test", "falign-64b-packed"]):
        return t(False, "packed: the objects compile (see %s/compile.log)" % obj)
    cmdline = set(flags(obj, OBJECTS[3]))
    t({"-falign-functions=64", "-flimit-function-alignment"} <= cmdline,
      "packed: -falign-functions=64 -flimit-function-alignment on the command line")
    # The 16-byte floor needs GCC 14's -fmin-function-alignment; without it
    # (GCC 12 here) the flag must not be passed.
    floor = "CONFIG_CC_HAS_MIN_FUNCTION_ALIGNMENT=y" in (obj / ".config").read_text().split()
    t(("-fmin-function-alignment=16" in cmdline) == floor,
      "packed: -fmin-function-alignment=16 %s (the compiler %s it)"
      % (("passed", "has") if floor else ("not passed", "lacks")))
    left = unexcused_crossings(obj)
    t(left == [], "packed: no function under 64 bytes crosses a line but the excused ones%s"
      % (": " + "; ".join(left) if left else ""))


def check_default(t, tree):
    base, patched = WORK / "default-base", WORK / "default-patched"
    base_tree = kernel.Tree(base=True)
    try:
        base_tree.ensure()
    except kernel.Error as e:
        return t(False, "default: the base tree %s (%s)" % (base_tree.path, e))
    say("default: compiling %d objects in the base and the patched tree" % len(OBJECTS))
    if not (compile_objects(base_tree.path, base, ["qemu-test"]) and
            compile_objects(tree, patched, ["qemu-test", "falign-default"])):
        return t(False, "default: the objects compile in both trees (see %s/compile.log, "
                 "%s/compile.log)" % (base, patched))
    for o in OBJECTS:
        a, b = flags(base, o), flags(patched, o)
        t(a == b, "default: %s gets the base kernel's compiler flags" % o,
          diag=list(difflib.unified_diff(a, b, "base", "patched", lineterm="", n=0)))
    report = [subprocess.run([str(TOOL), "--json"] + OBJECTS, cwd=d, capture_output=True).stdout
              for d in (base, patched)]
    t(report[0] == report[1] and report[0] != b"",
      "default: falign-report gives the base kernel's figures for those objects")
    # The packed check above can fail: at 16 bytes, short functions do cross.
    left = len(unexcused_crossings(patched) or [])
    t(left > 0, "default: %d short functions of those objects cross a line at 16 bytes "
      "(packed: none)" % left)


def main():
    if subprocess.run(["make", "-s", "-C", str(HERE), "falign-report"],
                      stdout=sys.stderr).returncode:
        return 1
    tree = kernel.Tree()
    try:
        if reason := tree.unsaved():
            say("warning: %s: checking that working tree" % reason)
        else:
            tree.ensure()
    except kernel.Error as e:
        sys.exit("error: %s" % e)
    t = tap.Tap()
    for check in (check_kconfig, check_packed, check_default):
        check(t, tree.path)
    return t.plan()


if __name__ == "__main__":
    sys.exit(main())
