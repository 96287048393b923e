"""make demo: the test image under QEMU TCG (-smp 2) on CPU: the kernel's boot line,
its cache geometry beside the probe's in the guest, the guest's sysfs and facts.tsv's
model, and the colours of N forked tasks; every comparison a TAP line too.

usage: python3 -m selftests.demo [--cpu MODEL] [--tasks N] [--append "ARGS"]
                                 [--timeout SECONDS]  (from the top of the tree, not by its path)
(make demo CPU=Skylake-Client N=64 APPEND="kernel args" TIMEOUT=180)
"""
import argparse
import functools
import io
import json
import re
import subprocess
import sys
from pathlib import Path

from harness import facts, kernel, qemu, util
from harness.tap import Tap, parse

ROOT = Path(__file__).resolve().parents[1]

OUT = util.BUILD / "demo"
FIELDS = ("size", "ways", "line", "sets")
# The policies that spread one core's run of forks over the colours to within one.
SPREADS = ("rr", "balanced")


def guest_tools(bindir, demo=True, log=None):
    """Static kcolour-probe (and kcolour-demo) in bindir, for an initramfs."""
    bindir.mkdir(parents=True, exist_ok=True)
    cmds = [["make", "-s", "-C", str(ROOT / "tools-probe"), "OUT=%s" % bindir,
             "%s/kcolour-probe" % bindir]]
    if demo:
        cmds.append(["cc", "-O2", "-g", "-Wall", "-Wextra", "-Werror", "-static", "-o",
                     str(bindir / "kcolour-demo"), str(ROOT / "selftests/kcolour-demo.c")])
    for c in cmds:
        if subprocess.run(c, stdout=log or sys.stderr, stderr=subprocess.STDOUT).returncode:
            raise util.Error("building the guest %s failed%s"
                               % (Path(c[-1]).stem, " (see %s)" % log.name if log else ""))


def prepare():
    """(the test Image, the demo's initramfs); raises util.Error or RuntimeError."""
    image = kernel.image("test")
    qemu.say("demo", "kernel: the test image, %s" % image.how)
    qemu.say("demo", "guest tools: static kcolour-probe and kcolour-demo")
    guest_tools(OUT / "bin")
    return image, qemu.initramfs(OUT / "initramfs.cpio.gz", [
        (OUT / "bin", "/bin"), (ROOT / "selftests/demo-guest.sh", "/run.sh")])


def caches(rec):
    """The kernel's and sysfs' {(level, type): geometry}, and the kernel's parameters."""
    kern, sysfs = {}, {}
    for f in (dict(kv.split("=") for kv in x[7:].split()) for x in rec["K"]
              if x.startswith("cache: ")):
        kern[(int(f["level"]), f["type"])] = dict({k: int(f[k]) for k in FIELDS},
                                                  source=f["source"])
    params = dict(x.split(": ", 1) for x in rec["K"] if ": " in x and not x.startswith("cache"))
    for level, ctype, size, ways, line, sets in map(str.split, rec["F"]):
        sysfs[(int(level), ctype.lower())] = dict(zip(FIELDS, (int(size.rstrip("K")) * 1024,
                                                               int(ways), int(line), int(sets))))
    return kern, params, sysfs


def shape(c):
    return "%dK %d-way %dB %d sets" % (c["size"] // 1024, c["ways"], c["line"], c["sets"]) \
        if c else "-"


def true_shape(spec):
    return spec if spec in ("-", "?") else "%s %s-way %sB" % tuple(spec.split(":"))


def report(console, model, tasks, tap, out=sys.stdout):
    """A demo console's report on out and its checks on tap; True if all passed."""
    say = functools.partial(print, file=out)
    t = facts.models()[model]
    rec = {tag: [] for tag in "DKFPTHZ"}
    for tag, _, rest in (line.partition(" ") for line in console.splitlines()):
        if tag in rec and rest:
            rec[tag].append(rest)
    boot_lines = [d for d in rec["D"] if re.match(r"kstack_colour: (L\d|no usable)", d)]
    say("boot line:  %s" % (boot_lines[-1] if boot_lines else "(none)"))
    say("".join("            %s\n" % d for d in rec["D"] if d not in boot_lines), end="")
    if not tap(bool(boot_lines), "the kernel printed its kstack_colour line"):
        return False
    kern, params, sysfs = caches(rec)
    try:
        # raw_decode stops at the end of the JSON: a kernel message the console
        # printed right after its last "}", before the newline, is not part of it.
        probe = {(c["level"], c["type"]): {k: c[k] for k in FIELDS + ("source",)} for c in
                 json.JSONDecoder().raw_decode("\n".join(rec["P"]))[0]["caches"]
                 if c["type"] != "trace"}
    except (ValueError, KeyError) as e:
        return tap(False, "the probe ran in the guest (%s)" % e)

    truth = {(1, "data"): t["l1d"], (2, "unified"): t["l2"]}
    rows = [("cache", "kernel (cacheinfo)", "probe (CPUID source)", "sysfs (guest)", "QEMU model")]
    for key in sorted(set(kern) | set(probe) | set(sysfs)):
        src = " (%s)" % probe[key]["source"] if key in probe else ""
        rows.append(("L%d %s" % key, shape(kern.get(key)), shape(probe.get(key)) + src,
                     shape(sysfs.get(key)), true_shape(truth.get(key, "?"))))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    say()
    for r in rows:
        say("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    say("parameters: level %s, shift %s, %s colours x %s B, max %s B, policy %s (%s)%s\n" % (
        *map(params.get, ("level", "shift", "colours", "step", "max_offset", "policy", "origin")),
        ", safe default" if params.get("fallback") == "1" else ""))

    # The kernel's geometry is cacheinfo's; the probe decodes CPUID itself.
    # Where cacheinfo describes the caches, the two decoders must agree, and
    # both with QEMU; where it does not (leaf 2 only, or nothing), the kernel
    # has no caches and uses the safe default, and the probe still decodes.
    who, seen = ("kernel", kern) if t["sysfs"] else ("probe", probe)
    for key, spec in truth.items():
        got = seen.get(key)
        if spec == "-":
            tap(got is None, "%s L%d %s: none, as QEMU's model has none" % ((who,) + key))
        elif spec != "?":
            tap(bool(got) and (got["size"], got["ways"], got["line"]) == facts.geometry(spec),
                "%s L%d %s = QEMU's %s: %s" % ((who,) + key + (true_shape(spec), shape(got))))
    l1d = probe.get((1, "data"), {}).get("source", "none")
    tap(l1d == t["source"], "probe's L1D source is %s (%s)" % (t["source"], l1d))
    kern_src = sorted({c["source"] for c in kern.values()})
    tap(kern_src in ([], ["cacheinfo"]), "the kernel's caches come from cacheinfo (%s)"
        % (", ".join(kern_src) or "none"))
    if t["sysfs"]:
        bad = [k for k in set(probe) | set(kern)
               if any(probe.get(k, {}).get(f) != kern.get(k, {}).get(f) for f in FIELDS)]
        tap(kern and not bad, "the probe in the guest decodes what cacheinfo gave the kernel "
            "(%d caches%s)" % (len(kern), "; differ: " + ", ".join("L%d %s" % k for k in bad)
                               if bad else ""))
        bad = [k for k in set(sysfs) | set(kern)
               if any(sysfs.get(k, {}).get(f) != kern.get(k, {}).get(f) for f in FIELDS)]
        tap(sysfs and not bad, "guest sysfs equals the kernel's caches (%d caches%s)"
            % (len(sysfs), "; differ: " + ", ".join("L%d %s" % k for k in bad) if bad else ""))
    else:
        tap(not sysfs and not kern, "guest sysfs has no cache directory and the kernel no "
            "caches, as Linux's cacheinfo gives none for this model (the probe: %d)" % len(probe))
        tap(params.get("fallback") == "1" and params.get("shift") == "12",
            "no cacheinfo leaves: safe default shift 12, said so")

    hist = [tuple(map(int, h.split())) for h in rec["H"]]
    summary = dict(kv.split("=") for kv in rec["Z"][-1].split()) if rec["Z"] else {}
    if hist:
        top = max(c for _, c in hist) or 1
        say("colours of the demo's %d tasks (policy %s):" % (tasks, params.get("policy")))
        for colour, count in hist:
            say("  colour %4d  %-40s %d" % (colour, "#" * (40 * count // top), count))
        say()
    tap(summary.get("seen") == str(tasks), "the debugfs listing shows all %d demo tasks (%s)"
        % (tasks, summary.get("seen", "none")))
    if params.get("enabled") == "0":
        tap(all(r.split()[1:3] == ["-1", "0"] for r in rec["T"]),
            "colouring off: every demo task has colour -1 and offset 0")
    offsets_ok = all(int(r.split()[2]) == max(int(r.split()[1]), 0) * int(params.get("step", 0))
                     and int(r.split()[2]) <= int(params.get("max_offset", 0)) for r in rec["T"])
    tap(bool(rec["T"]) and offsets_ok, "every task's offset is colour x step, within max_offset")
    if params.get("policy") in SPREADS and summary:  # one core's forks: kcolour-demo pins
        spread = int(summary["max"]) - int(summary["min"])
        tap(spread <= 1, "%s: max - min = %d over %s colours"
            % (params["policy"], spread, summary["colours"]))
    return not tap.failed


def run(prep, cpu, tasks, append="", timeout=180):
    """One demo boot, prep from prepare(): (qemu.Result, all passed, the report's lines
    with their TAP, unplanned).  tsc=reliable: under a loaded TCG host the clocksource
    watchdog would print its warning into the middle of the demo's records."""
    b = qemu.Boot(cpu, *prep, OUT, model=cpu, smp=2, timeout=timeout,
                  args=["tsc=reliable", "kcolour_demo_tasks=%d" % tasks] + append.split())
    qemu.say("demo", "boot: -cpu %s -smp 2, %d tasks%s (console: %s.log)"
             % (cpu, tasks, ", " + append if append else "", b.file))
    r = qemu.run([b], 1)[0]
    out = io.StringIO()
    t = Tap(out)
    try:
        ok = r.ok and report(r.console, cpu, tasks, t, out)
    except (ValueError, KeyError, IndexError) as e:  # a kernel message inside a record
        ok = t(False, "the demo's records in the console can be read (%s)" % e)
    return r, ok, out.getvalue().splitlines()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cpu", metavar="MODEL", default=facts.default_model()[0],
                   help="a QEMU model of facts.tsv (default its model-default, %(default)s)")
    p.add_argument("--tasks", "-n", metavar="N", default="64",
                   help="tasks to fork, 1 to 4096 (default 64)")
    p.add_argument("--append", metavar='"ARGS"', default="", help="more kernel arguments")
    p.add_argument("--timeout", metavar="SECONDS", type=int, default=180,
                   help="the boot's timeout (default 180)")
    opts = p.parse_args(argv)
    cpu, n = opts.cpu, opts.tasks
    if not re.fullmatch(r"[0-9]+", n) or not 1 <= int(n) <= 4096:
        sys.exit("error: demo: N=%s: want a task count from 1 to 4096" % n)
    if cpu not in facts.models():
        sys.exit("error: demo: CPU=%s is not a model of facts.tsv (%s)"
                 % (cpu, ", ".join(facts.models())))
    try:
        r, ok, lines = run(prepare(), cpu, int(n), opts.append, opts.timeout)
    except util.Error as e:
        sys.exit("error: demo: %s" % e)
    if not r.ok:
        sys.stderr.write(r.errors)
        sys.exit("error: demo: the QEMU boot failed (see %s.log)" % r.boot.file)
    print("\n" + "\n".join(lines) + "\n1..%d" % len(parse(lines)))
    if not ok:
        sys.exit("error: demo: the guest disagrees with what was expected (above)")


if __name__ == "__main__":
    main()
