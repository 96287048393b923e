"""make check's cheap tests of the function alignment choice: kconfig-cases.tsv; no short
function of OBJECTS crosses a line under the packed choice (but exceptions.txt's); the
default choice builds OBJECTS as the base tree does.  With "full" (make check-full) also
a whole CFI_CLANG kernel (clang-16) that asks for 64 bytes: it gets 16, builds, and
boots with the KUnit suite passing.  TAP; progress on stderr.

usage: python3 -m falign.check [full]  (from the top of the tree, not by its path)"""
import concurrent.futures
import difflib
import functools
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from harness import facts, kconfig, kernel, qemu, series, tap, util

HERE = Path(__file__).resolve().parent

WORK = util.BUILD / "falign-check"
TOOL = HERE / "falign-report"
# Objects the series does not touch, from small to one of the largest
# (kernel/fork.o and mm/slub.o were until v4's slab colouring changed them).
OBJECTS = ["lib/sort.o", "lib/string.o", "lib/kstrtox.o", "kernel/exit.o", "mm/page_alloc.o",
           "fs/namei.o"]
say = functools.partial(qemu.say, "falign-check")


class Held:
    """A check's TAP lines, held while it runs beside others (tap.Tap's
    call and skip), then replayed into the real Tap in order."""

    def __init__(self):
        self.lines = []

    def __call__(self, good, text, diag=(), skip=None):
        self.lines.append((good, text, list(diag), skip))
        return True if skip is not None else bool(good)

    def skip(self, text, reason):
        return self(True, text, skip=reason)

    def replay(self, t):
        for good, text, diag, skip in self.lines:
            t(good, text, diag, skip)


def compile_objects(tree, obj, fragments):
    """Configure (verified), then build OBJECTS in obj; True if both did."""
    obj.mkdir(parents=True, exist_ok=True)
    kmake = kernel.Kmake(tree, obj)
    try:
        kmake.configure(kconfig.fragment_files(fragments))
    except util.Error:
        return False
    with open(obj / "compile.log", "w") as log:
        return subprocess.run(kmake.cmd(*OBJECTS, jobs=os.cpu_count()), stdout=log,
                              stderr=subprocess.STDOUT, env=kmake.env).returncode == 0


def configure_case(tree, llvm, start, case_obj, frags, expect):
    """One case of kconfig-cases.tsv in a copy of its compiler's start dir
    (the start .config, kconfig's host tools built; llvm "" for GCC): None
    if it configures as expected, else what went wrong."""
    shutil.rmtree(case_obj, ignore_errors=True)
    shutil.copytree(start, case_obj, symlinks=True)
    extra = [f for f in frags if f.startswith("CONFIG_")]  # to extra.config
    for file, settings in (("extra.config", extra), ("expect.config", expect)):
        (case_obj / file).write_text("".join(s + "\n" for s in settings))
    kmake = kernel.Kmake(tree, case_obj, llvm or None)
    try:
        kmake.configure(kconfig.fragment_files([f for f in frags if f not in extra]) +
                        [case_obj / "extra.config"], verify=False,
                        start=(start / ".config").read_text())
    except util.Error as e:
        return ["does not configure: %s" % e]
    return kconfig.verify_config([case_obj / "expect.config"],
                                (case_obj / ".config").read_text()) or None


def check_kconfig(t, tree):
    # Each case starts from tinyconfig + qemu-test, configured once per
    # compiler, as a user's .config would be; the cases (a make run of
    # about 10 s each, mostly kconfig's compiler probes) run a core each.
    cases = []
    lines = (HERE / "kconfig-cases.tsv").read_text().splitlines()
    for name, frags, expect in (x.split("\t", 2) for x in lines if x and not x.startswith("#")):
        llvm = next((f[len("LLVM="):] for f in frags.split() if f.startswith("LLVM=")), "")
        cases.append((name, llvm, [f for f in frags.split() if not f.startswith("LLVM=")],
                      expect.split()))
    starts = {llvm: WORK / "kconfig" / ("start" + llvm) for llvm in {c[1] for c in cases}
              if not llvm or shutil.which("clang" + llvm)}

    def configure_start(llvm):
        starts[llvm].mkdir(parents=True, exist_ok=True)
        say("kconfig: the start, tinyconfig + qemu-test%s" % (" (clang%s)" % llvm if llvm else ""))
        try:
            kernel.Kmake(tree, starts[llvm], llvm or None).configure(
                kconfig.fragment_files(["qemu-test"]), verify=False)
        except util.Error as e:
            return str(e)
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count()) as pool:
        failed = [e for e in pool.map(configure_start, sorted(starts)) if e]
        if failed:
            return t(False, "kconfig: tinyconfig + qemu-test configures: %s" % "; ".join(failed))
        ready = [c for c in cases if c[1] in starts]
        say("kconfig: %d cases, %d at a time" % (len(ready), os.cpu_count()))
        bad = dict(zip((c[0] for c in ready), pool.map(
            lambda k, c: configure_case(tree, c[1], starts[c[1]],
                                        WORK / "kconfig" / ("case%d" % k), c[2], c[3]),
            range(len(ready)), ready)))
    for name, llvm, _, expect in cases:
        if name not in bad:
            t.skip("kconfig %s" % name, "no clang%s (make deps)" % llvm)
        else:
            t(not bad[name], "kconfig %s: %s%s" % (name, " ".join(expect), " -- got: " +
                                                   "; ".join(bad[name]) if bad[name] else ""))


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
            if w and str(util.BUILD) not in w and w != "-o" and
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
    check_packed_sections(t, obj)


def check_packed_sections(t, obj):
    """Why HOT_TEXT_ORDER excludes packed: in a section of its own, a 4-byte
    function's .p2align 6,,3 still makes its whole section 64-aligned, so the
    link would start it on a line."""
    src, out = obj / "packed-section.c", obj / "packed-section.o"
    src.write_text("int packed_section_inc(int x)\n{\n\treturn x + 1;\n}\n")
    cmd = ["gcc", "-O2", "-falign-functions=64", "-flimit-function-alignment",
           "-ffunction-sections"]
    asm = subprocess.run(cmd + ["-S", "-o", "-", str(src)], capture_output=True, text=True)
    ok = subprocess.run(cmd + ["-c", "-o", str(out), str(src)]).returncode == 0
    sections = subprocess.run(["readelf", "-SW", str(out)], capture_output=True,
                              text=True).stdout if ok else ""
    align = next((l.split()[-1] for l in sections.splitlines()
                  if ".text.packed_section_inc" in l), None)
    t(".p2align 6,,3" in asm.stdout and align == "64",
      "packed: with -ffunction-sections, a 4-byte function asks .p2align 6,,3 and its section "
      "is %s-aligned (64: why HOT_TEXT_ORDER excludes packed)" % align,
      diag=[l for l in asm.stdout.splitlines() if "p2align" in l])


def check_default(t, tree):
    base, patched = WORK / "default-base", WORK / "default-patched"
    base_tree = series.Tree(base=True)
    try:
        base_tree.ensure()
    except util.Error as e:
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


def check_cfi(t, tree):
    """A CFI_CLANG kernel of the test image's fragments, asking for 64-byte alignment:
    kCFI's 16-byte hash offset must win, and the kernel must build and boot."""
    if not shutil.which("clang-16"):
        return t.skip("cfi: a CFI_CLANG kernel", "no clang-16 (make deps)")
    obj, out = WORK / "cfi-clang16", WORK / "cfi-boot"
    for d in (obj, out):
        d.mkdir(parents=True, exist_ok=True)
    (obj / "extra.config").write_text("CONFIG_CFI_CLANG=y\n"
                                      "CONFIG_FUNCTION_ALIGNMENT_CHOICE_64B=y\n")
    kmake = kernel.Kmake(tree, obj, "-16")
    say("cfi: a CFI_CLANG kernel with clang-16 (the test image's fragments)")
    try:
        kmake.configure(kconfig.fragment_files(facts.image_spec("test")[1]) +
                        [obj / "extra.config"], verify=False)
        config = (obj / ".config").read_text().splitlines()
        t("CONFIG_CFI_CLANG=y" in config and "CONFIG_FUNCTION_ALIGNMENT=16" in config and
          "CONFIG_FUNCTION_ALIGNMENT_CHOICE_64B=y" not in config,
          "cfi: with CFI_CLANG, asking for 64 bytes gives FUNCTION_ALIGNMENT=16")
        kmake.build()
    except util.Error as e:
        return t(False, "cfi: the CFI_CLANG kernel configures and builds (%s)" % e)
    warnings = sum("warning:" in l for l in open(obj / "build.log", errors="replace"))
    t(warnings == 0, "cfi: the CFI_CLANG kernel builds with clang-16, %d warnings" % warnings)
    initramfs = qemu.script_initramfs(out, "echo cfi: booted\n")
    image = kernel.Image("cfi", obj / "arch/x86/boot", "built with clang-16")
    r = qemu.run([qemu.Boot("cfi-clang16", image, initramfs, out, smp=2, timeout=300)])[0]
    kunit = re.search(r"# kstack_colour: pass:(\d+) fail:(\d+)", r.console)
    t(r.ok and bool(kunit) and kunit.group(2) == "0" and "CFI failure" not in r.console,
      "cfi: it boots under QEMU with no CFI failure, KUnit kstack_colour %s (console: %s.log)"
      % ("pass:%s fail:%s" % kunit.groups() if kunit else "not run", r.boot.file))


def main():
    if subprocess.run(["make", "-s", "-C", str(HERE), "falign-report"],
                      stdout=sys.stderr).returncode:
        return 1
    tree = series.Tree()
    try:
        if reason := tree.unsaved_settled():
            say("warning: %s: checking that working tree" % reason)
        else:
            tree.ensure()
    except util.Error as e:
        sys.exit("error: %s" % e)
    t = tap.Tap()
    # The three cheap checks at once (their kconfig runs are mostly one
    # process each), their TAP lines in order after.
    held = [Held() for _ in range(3)]
    with concurrent.futures.ThreadPoolExecutor(len(held)) as pool:
        list(pool.map(lambda check, h: check(h, tree.path),
                      (check_kconfig, check_packed, check_default), held))
    for h in held:
        h.replay(t)
    if sys.argv[1:] == ["full"]:
        check_cfi(t, tree.path)
    return t.plan()


if __name__ == "__main__":
    sys.exit(main())
