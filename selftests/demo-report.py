#!/usr/bin/env python3
"""Read the console log of one `make demo` boot and say what it shows.

Prints the boot line, the geometry the kernel found next to the probe's
decode in the guest, the guest's sysfs and QEMU's true geometry
(selftests/qemu-models.tsv), and the colour histogram of the demo's tasks.
Every comparison is also a TAP line; the exit status is 1 when any fails.

usage: demo-report.py LOG MODEL TASKS
With the balanced policy it also requires max - min <= 1 in the histogram
of the demo's own tasks.
"""
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools-probe/tests"))
from probelib import Tap  # noqa: E402

MODELS = Path(__file__).resolve().parent / "qemu-models.tsv"
SYSFS_TYPE = {"Data": "data", "Instruction": "instruction", "Unified": "unified"}


def truth(model):
    for line in MODELS.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        name, source, l1d, l2, sysfs = line.split("\t")
        if name == model:
            return {"source": source, "l1d": l1d, "l2": l2, "sysfs": sysfs == "yes"}
    sys.exit("demo-report: model %s is not in %s" % (model, MODELS))


def parse(log):
    out = {"D": [], "K": [], "F": [], "P": [], "T": [], "H": [], "Z": []}
    for line in Path(log).read_text(errors="replace").splitlines():
        tag, _, rest = line.partition(" ")
        if tag in out and rest:
            out[tag].append(rest)
    return out


def kernel_caches(lines):
    caches = {}
    for line in lines:
        if line.startswith("cache: "):
            f = dict(kv.split("=") for kv in line[7:].split())
            caches[(int(f["level"]), f["type"])] = {
                "size": int(f["size"]), "ways": int(f["ways"]), "line": int(f["line"]),
                "sets": int(f["sets"]), "source": f["source"]}
    params = dict(line.split(": ", 1) for line in lines if ": " in line and not line.startswith("cache"))
    return caches, params


def sysfs_caches(lines):
    caches = {}
    for line in lines:
        level, ctype, size, ways, lsize, sets = line.split()
        kib = int(size.rstrip("K"))
        caches[(int(level), SYSFS_TYPE.get(ctype, ctype))] = {
            "size": kib * 1024, "ways": int(ways), "line": int(lsize), "sets": int(sets)}
    return caches


def probe_caches(lines):
    # raw_decode stops at the end of the JSON: a kernel message the console
    # printed right after its last "}", before the newline, is not part of it.
    caches = {}
    report, _ = json.JSONDecoder().raw_decode("\n".join(lines))
    for c in report["caches"]:
        if c["type"] != "trace":
            caches[(c["level"], c["type"])] = {k: c[k] for k in ("size", "ways", "line", "sets", "source")}
    return caches


def shape(c):
    if not c:
        return "-"
    return "%dK %d-way %dB %d sets" % (c["size"] // 1024, c["ways"], c["line"], c["sets"])


def true_shape(spec):
    if spec in ("-", "?"):
        return spec
    size, ways, line = spec.split("/")
    return "%s %s-way %sB" % (size, ways, line)


def same(a, b, fields=("size", "ways", "line", "sets")):
    return all(a.get(f) == b.get(f) for f in fields)


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    log, model, tasks = argv[1], argv[2], int(argv[3])
    t = truth(model)
    rec = parse(log)
    tap = Tap()

    boot = [d for d in rec["D"] if re.match(r"kstack_colour: (L\d|no usable)", d)]
    print("boot line:  %s" % (boot[-1] if boot else "(none)"))
    for d in rec["D"]:
        if d not in boot:
            print("            %s" % d)
    if not tap(bool(boot), "the kernel printed its kstack_colour line"):
        return 1

    kern, params = kernel_caches(rec["K"])
    sysfs = sysfs_caches(rec["F"])
    try:
        probe = probe_caches(rec["P"])
    except (ValueError, KeyError) as e:
        tap(False, "the probe ran in the guest (%s)" % e)
        return 1

    rows = [("cache", "kernel (CPUID source)", "probe (guest)", "sysfs (guest)", "QEMU model")]
    for key in sorted(set(kern) | set(probe) | set(sysfs)):
        want = {(1, "data"): t["l1d"], (2, "unified"): t["l2"]}.get(key, "?")
        src = " (%s)" % kern[key]["source"] if key in kern else ""
        rows.append(("L%d %s" % key, shape(kern.get(key)) + src, shape(probe.get(key)),
                     shape(sysfs.get(key)), true_shape(want)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    print()
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    print("parameters: level %s, shift %s, %s colours x %s B, max %s B, policy %s (%s)%s\n" % (
        params.get("level"), params.get("shift"), params.get("colours"), params.get("step"),
        params.get("max_offset"), params.get("policy"), params.get("origin"),
        ", safe default" if params.get("fallback") == "1" else ""))

    for key, spec in (((1, "data"), t["l1d"]), ((2, "unified"), t["l2"])):
        if spec == "?":
            continue
        got = kern.get(key)
        if spec == "-":
            tap(got is None, "%s: none, as QEMU's model has none" % ("L%d %s" % key))
            continue
        size, ways, line = (int(x.rstrip("K")) for x in spec.split("/"))
        tap(bool(got) and (got["size"], got["ways"], got["line"]) == (size * 1024, ways, line),
            "kernel L%d %s = QEMU's %s: %s" % (key + (true_shape(spec), shape(got))))
    l1d = kern.get((1, "data"))
    tap((l1d["source"] if l1d else "none") == t["source"],
        "kernel's L1D source is %s (%s)" % (t["source"], l1d["source"] if l1d else "none"))
    if t["source"] == "none":
        tap(params.get("fallback") == "1" and params.get("shift") == "12",
            "no cache information: safe default shift 12, said so")
    tap(set(probe) == set(kern) and all(same(probe[k], kern[k], ("size", "ways", "line", "sets", "source"))
                                        for k in kern),
        "the probe in the guest decodes exactly what the kernel decoded (%d caches)" % len(kern))
    if t["sysfs"]:
        bad = [k for k in sysfs if k not in kern or not same(sysfs[k], kern[k])]
        tap(sysfs and not bad, "guest sysfs equals the kernel's decode (%d caches%s)"
            % (len(sysfs), "; differ: " + ", ".join("L%d %s" % k for k in bad) if bad else ""))
    else:
        tap(not sysfs, "guest sysfs has no cache directory, as Linux gives none for this model")

    hist = [tuple(map(int, h.split())) for h in rec["H"]]
    summary = dict(kv.split("=") for kv in rec["Z"][-1].split()) if rec["Z"] else {}
    if hist:
        top = max(c for _, c in hist) or 1
        print("colours of the demo's %d tasks (policy %s):" % (tasks, params.get("policy")))
        for colour, count in hist:
            print("  colour %4d  %-40s %d" % (colour, "#" * (40 * count // top), count))
        print()
    tap(summary.get("seen") == str(tasks), "the debugfs listing shows all %d demo tasks (%s)"
        % (tasks, summary.get("seen", "none")))
    if params.get("enabled") == "0":
        tap(all(r.split()[1:3] == ["-1", "0"] for r in rec["T"]),
            "colouring off: every demo task has colour -1 and offset 0")
    offsets_ok = all(int(r.split()[2]) == max(int(r.split()[1]), 0) * int(params.get("step", 0))
                     and int(r.split()[2]) <= int(params.get("max_offset", 0)) for r in rec["T"])
    tap(bool(rec["T"]) and offsets_ok, "every task's offset is colour x step, within max_offset")
    if params.get("policy") == "balanced" and summary:
        spread = int(summary["max"]) - int(summary["min"])
        tap(spread <= 1, "balanced: max - min = %d over %s colours" % (spread, summary["colours"]))
    tap.plan()
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
