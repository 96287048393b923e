"""The data of a bench run, shared by bench/report.py and bench/sweep.py.

A work dir holds `cases` (one case a line: NAME KERNEL [KERNEL_ARG...]),
`run.sh` (the guest's workloads, one marker phase each, in order), `meta`
(key=value) and per boot NAME.txt (kcolour-cachesim output) and NAME.log
(the console, where each workload prints its key=value line).
"""

import os
import re
import subprocess

CACHES = ("L1D", "L1I", "L2")
REGIONS = ("stack-top", "stack-rest", "direct", "ktext", "kdata", "user", "other")
REGION_NAMES = {
    "stack-top": "stack top",
    "stack-rest": "stack rest",
    "direct": "direct map",
    "ktext": "kernel text",
    "kdata": "kernel data",
    "user": "user",
    "other": "other",
    "all": "all",
}
# Searched, not matched: the first line follows the firmware's escape codes
# on the same console line ("...\x1b[2Jring tasks=2 ...").
WORKLOAD_RE = re.compile(r"(ring|messaging|forkloop)((?: [a-z]+=-?[0-9]+)+)\s*$")


class Phase:
    """One workload run: its plugin counts and what the workload printed."""

    def __init__(self, workload, info, head, counts):
        self.workload = workload
        self.info = info        # the workload's key=value line
        self.head = head        # the plugin's phase line (insns, complete)
        self.counts = counts    # (cache, region) -> {accesses, sa_miss, fa_miss}

    @property
    def label(self):
        if self.workload == "ring":
            return "ring N=%d" % self.info["tasks"]
        return self.workload

    @property
    def unit(self):
        """The denominator of per-event figures: (name, count)."""
        if self.workload == "ring":
            return "switch", self.info["switches"]
        if self.workload == "forkloop":
            return "fork", self.info["forks"]
        return "message", self.info["messages"]

    def per(self, value, denominator=None):
        return value / (denominator or self.unit[1])

    def miss(self, cache, region, kind="sa_miss"):
        return self.counts[(cache, region)][kind]


def parse_kv(text):
    return {k: int(v) if re.fullmatch(r"-?[0-9]+", v) else v
            for k, v in (item.split("=", 1) for item in text.split())}


def read_workload_lines(log):
    """The workloads' result lines of a console log, in order."""
    lines = []
    with open(log, errors="replace") as f:
        for line in f:
            m = WORKLOAD_RE.search(line.rstrip("\r\n"))
            if m:
                lines.append((m.group(1), parse_kv(m.group(2))))
    return lines


def read_plugin(path):
    """(config dict, {phase: (head dict, {(cache, region): counts})})."""
    config, phases = {}, {}
    with open(path) as f:
        for line in f:
            words = line.split()
            if words[:2] == ["cachesim", "config"]:
                config = parse_kv(" ".join(words[2:]))
                continue
            kv = parse_kv(" ".join(words[1:]))
            head, counts = phases.setdefault(kv["phase"], ({}, {}))
            if "cache" in kv:
                counts[(kv["cache"], kv["region"])] = kv
            else:
                head.update(kv)
    return config, phases


def load_boot(work, name):
    """The Phases of one boot, paired in order with the workload lines."""
    _, phases = read_plugin(os.path.join(work, name + ".txt"))
    lines = read_workload_lines(os.path.join(work, name + ".log"))
    return [Phase(wl, info, *phases[i]) for i, (wl, info) in enumerate(lines) if i in phases]


def read_cases(work):
    with open(os.path.join(work, "cases")) as f:
        return [line.split()[0:2] + [" ".join(line.split()[2:])] for line in f if line.strip()]


def read_meta(work):
    with open(os.path.join(work, "meta")) as f:
        return dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line)


def read_text(work, name):
    with open(os.path.join(work, name)) as f:
        return f.read().strip()


def expected_workloads(work):
    """(workload, args) of each line of the guest's run.sh."""
    out = []
    for line in read_text(work, "run.sh").splitlines():
        words = line.split()
        if words and words[0] in ("ring", "messaging", "forkloop"):
            out.append((words[0], [int(w) for w in words[1:]]))
    return out


def print_tap(results):
    """Print (ok, text) pairs as TAP, the plan last; 0 if all passed, else 1."""
    for i, (ok, text) in enumerate(results, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", i, text))
    print("1..%d" % len(results))
    return 0 if all(ok for ok, _ in results) else 1


def plot_png(png, title, xlabel, ylabel, xs, pad, plots):
    """A PNG line plot on a log2 x axis with a tick at each of xs (gnuplot)."""
    script = "\n".join([
        "set terminal pngcairo size 900,560 font ',11'",
        "set output '%s'" % png,
        "set title '%s'" % title,
        "set xlabel '%s'" % xlabel,
        "set ylabel '%s'" % ylabel,
        "set logscale x 2",
        "set xrange [%g:%g]" % (min(xs) / pad, max(xs) * pad),
        "set xtics (%s)" % ", ".join(str(x) for x in xs),
        "set yrange [0:*]",
        "set grid",
        "set key outside right top",
        "plot " + ", ".join(plots),
    ])
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def pct(new, old):
    return 100.0 * (new - old) / old if old else float("nan")


def fmt(x):
    """Per-event figures: 3 significant digits, at least 2 decimals below 10."""
    if abs(x) >= 1000:
        return "%.0f" % x
    if abs(x) >= 10:
        return "%.1f" % x
    return "%.2f" % x
