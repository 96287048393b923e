#!/usr/bin/env python3
"""perf stat parsing and the statistics of bench/perf-ab.sh (stdlib only).

    perfab.py parse [--raw] FILE     one line per event of a `perf stat -x,`
                                     output file (TSV); --raw: one per line
    perfab.py probe FILE EVENTS      exit 0 when every event of EVENTS (comma
                                     list) was counted in FILE, else exit 3
                                     with the reason on stderr
    perfab.py report DIR [--threshold T]
                                     DIR/results.md and DIR/runs.csv from the
                                     runs listed in DIR/runs.tsv; prints
                                     results.md

Exit status: 0 fine; 1 bad input (a malformed perf file, a missing run), with
the reason on stderr; 2 usage; 3 (probe) the counters are not available.

The input: `perf stat -x, -o FILE -e EVENTS -- CMD` (no -I, -a, -A or
--per-*).  Each counter line is

    value,unit,event[,variance][,run time,percentage running[,metric,metric unit]]

(the variance only with -r).  value is a number, `<not counted>` (the
counter never ran: a hybrid CPU's other core type, or multiplexing) or
`<not supported>`; perf scales a multiplexed count to the full time itself.
Lines starting with '#' (-o's "# started on") and blank lines are skipped,
and so are metric-only lines (value and event empty).  An event may carry a
PMU and modifiers: `cpu_core/cycles/`, `cycles:u`, `cpu_atom/cycles/u`; the
lines of one event name from several PMUs (a hybrid CPU: cpu_core and
cpu_atom) are summed, which is the whole task's count wherever it ran.
Events whose -e spelling holds a comma (`cpu/event=0x3c,umask=0/`) cannot be
told apart from the field separator and are not supported.

The decision rule (report): a difference is real when Welch's |t| exceeds
THRESHOLD (3), that is when the difference of the two means exceeds three
combined standard errors, sqrt(sd_off^2/n_off + sd_on^2/n_on) (so it also
exceeds two).  Otherwise it is noise.  With 10 runs a side (about 18 degrees
of freedom) |t| > 3 is a two-sided p below about 0.008; p is shown, the
rule does not use it.
"""

import argparse
import math
import os
import re
import sys

THRESHOLD = 3.0
COUNTED, NOT_COUNTED, NOT_SUPPORTED = "counted", "not counted", "not supported"
SPECIAL = {"<not counted>": NOT_COUNTED, "<not supported>": NOT_SUPPORTED}

# workload -> (key of its output line, unit): the per-unit denominator.
# ring's switches is N x rounds (one switch per pass on one CPU); messaging
# prints no switch count of its own, ctxt is the kernel's (system-wide) count
# inside its window; forkloop's forks is exact.
DENOMINATORS = {
    "ring": ("switches", "switch"),
    "messaging": ("ctxt", "switch"),
    "forkloop": ("forks", "fork"),
}


class PerfabError(Exception):
    """Bad input: the message says which file and line, and what is wrong."""


# ------------------------------------------------------------ perf stat CSV

class Record:
    """One counter line of perf stat -x output."""

    def __init__(self, name, value, status, unit, runtime, pct):
        self.name = name            # as perf printed it: cpu_core/cycles/u
        self.pmu, self.event, self.modifiers = split_event(name)
        self.value = value          # float, None unless status is COUNTED
        self.status = status
        self.unit = unit
        self.runtime = runtime      # ns the counter ran (None: not printed)
        self.pct = pct              # % of the time it was on a counter

    def __repr__(self):
        return "Record(%r, %r, %r)" % (self.name, self.value, self.status)


def split_event(name):
    """(pmu, event, modifiers) of an event name as perf prints it.

    `cycles` -> (None, 'cycles', ''); `cycles:u` -> (None, 'cycles', 'u');
    `cpu_core/cycles/` -> ('cpu_core', 'cycles', ''); `cpu_atom/cycles/u`
    and `cpu_atom/cycles:u/` -> ('cpu_atom', 'cycles', 'u').
    """
    pmu, mods = None, ""
    m = re.fullmatch(r"([A-Za-z0-9_.\-]+)/([^/]+)/([A-Za-z]*)", name)
    if m:
        pmu, name, mods = m.groups()
    if ":" in name:
        name, more = name.split(":", 1)
        mods += more
    return pmu, name, mods


def _number(text, what, where):
    try:
        return float(text)
    except ValueError:
        raise PerfabError("%s: %s '%s' is not a number" % (where, what, text)) from None


def parse_lines(lines, source="<input>", sep=","):
    """The Records of perf stat -x output lines; PerfabError if malformed."""
    records = []
    for lineno, line in enumerate(lines, 1):
        line = line.rstrip("\r\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = "%s:%d" % (source, lineno)
        fields = line.split(sep)
        if len(fields) < 3:
            raise PerfabError("%s: not a perf stat -x%s counter line (want value%sunit%sevent"
                              "%s...): %r" % (where, sep, sep, sep, sep, line[:80]))
        value, unit, name = (f.strip() for f in fields[:3])
        rest = [f.strip() for f in fields[3:]]
        if not value and not name:
            continue    # a further metric of the line above
        if not name:
            raise PerfabError("%s: no event name: %r" % (where, line[:80]))
        if value in SPECIAL:
            status, number = SPECIAL[value], None
        else:
            status, number = COUNTED, _number(value, "counter value", where)
        if rest and rest[0].endswith("%"):
            rest = rest[1:]     # -r's variance
        runtime = _number(rest[0], "run time", where) if rest and rest[0] else None
        pct = _number(rest[1], "percentage", where) if len(rest) > 1 and rest[1] else None
        records.append(Record(name, number, status, unit, runtime, pct))
    if not records:
        raise PerfabError("%s: no counter lines (is it `perf stat -x%s` output?)" % (source, sep))
    return records


def parse_file(path):
    """The Records of a perf stat -x, output file."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return parse_lines(f, path)
    except OSError as e:
        raise PerfabError("%s: %s" % (path, e.strerror)) from None


class Count:
    """One event's count in one run, summed over its PMUs."""

    def __init__(self, event):
        self.event = event
        self.value = None       # sum of the counted lines; None: none counted
        self.status = None
        self.pct = None         # the lowest % running of the counted lines
        self.runtime = None
        self.pmus = []
        self.names = []         # as printed
        self.user_only = False  # a counted line is :u (no kernel counts)

    def add(self, r):
        self.pmus.append(r.pmu)
        self.names.append(r.name)
        if r.status != COUNTED:
            return
        self.value = (self.value or 0.0) + r.value
        if r.pct is not None:
            self.pct = r.pct if self.pct is None else min(self.pct, r.pct)
        if r.runtime is not None:
            self.runtime = (self.runtime or 0.0) + r.runtime
        if "u" in r.modifiers and "k" not in r.modifiers:
            self.user_only = True

    def finish(self, statuses):
        if self.value is not None:
            self.status = COUNTED
        elif all(s == NOT_SUPPORTED for s in statuses):
            self.status = NOT_SUPPORTED
        else:
            self.status = NOT_COUNTED


def aggregate(records, source="<input>"):
    """{event: Count} in order of first appearance.

    The lines of one event from several PMUs are summed; one event twice
    from the same PMU (cycles:u and cycles:k in one run) is an error.
    """
    counts, statuses = {}, {}
    for r in records:
        c = counts.setdefault(r.event, Count(r.event))
        if r.pmu in c.pmus:
            raise PerfabError("%s: event %s appears twice%s (%s); give each event once" % (
                source, r.event, " on " + r.pmu if r.pmu else "", ", ".join(c.names + [r.name])))
        c.add(r)
        statuses.setdefault(r.event, []).append(r.status)
    for e, c in counts.items():
        c.finish(statuses[e])
    return counts


def probe_problems(path, events):
    """Why the counters of events (a list of -e names) cannot be used: [] if they can.

    One string per kind of problem, naming its events:
    "L1-icache-load-misses, LLC-load-misses <not supported>".
    """
    counts = aggregate(parse_file(path), path)
    problems = {}
    for want in events:
        _, event, mods = split_event(want)
        c = counts.get(event)
        if c is None:
            problems.setdefault("missing from perf's output", []).append(want)
        elif c.status != COUNTED:
            problems.setdefault("<%s>" % c.status, []).append(want)
        elif c.user_only and not ("u" in mods and "k" not in mods):
            problems.setdefault("counted in user mode only (no kernel counts)", []).append(
                "%s (%s)" % (want, ", ".join(c.names)))
    return ["%s %s" % (", ".join(evs), what) for what, evs in problems.items()]


# ------------------------------------------------------------- statistics

def mean(xs):
    """The arithmetic mean of a non-empty sequence."""
    return math.fsum(xs) / len(xs)


def sd(xs):
    """The sample standard deviation (n - 1 in the denominator); nan for n < 2."""
    n = len(xs)
    if n < 2:
        return math.nan
    m = mean(xs)
    return math.sqrt(math.fsum((x - m) ** 2 for x in xs) / (n - 1))


def welch(a, b):
    """(t, df) of Welch's unequal-variance t-test of mean(b) - mean(a).

    t = (mean_b - mean_a) / sqrt(s_a^2/n_a + s_b^2/n_b), df by the
    Welch-Satterthwaite equation.  Both samples need n >= 2 (else nan, nan).
    With no variance at all t is 0 for equal means and +-inf otherwise, df
    n_a + n_b - 2.
    """
    na, nb = len(a), len(b)
    if na < 2 or nb < 2:
        return math.nan, math.nan
    va, vb = sd(a) ** 2 / na, sd(b) ** 2 / nb
    diff = mean(b) - mean(a)
    if va + vb == 0:
        t = 0.0 if diff == 0 else math.copysign(math.inf, diff)
        return t, float(na + nb - 2)
    t = diff / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / (na - 1) + vb ** 2 / (nb - 1))
    return t, df


def _betacf(a, b, x):
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny, eps = 1e-300, 1e-15
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 1000):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                   -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < eps:
            break
    return h


def betai(a, b, x):
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) +
                     a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_pvalue(t, df):
    """Two-sided p of Student's t with df degrees of freedom: P(|T| >= |t|)."""
    if math.isnan(t) or math.isnan(df):
        return math.nan
    if math.isinf(t):
        return 0.0
    return betai(df / 2.0, 0.5, df / (df + t * t))


def verdict(t, threshold=THRESHOLD):
    """'real' when |t| > threshold, 'noise' otherwise, 'n/a' without a t."""
    if math.isnan(t):
        return "n/a"
    return "real" if abs(t) > threshold else "noise"


class Comparison:
    """Off against on for one quantity: the table row's numbers."""

    def __init__(self, off, on, threshold=THRESHOLD):
        self.off, self.on = list(off), list(on)
        self.mean_off = mean(self.off) if self.off else math.nan
        self.mean_on = mean(self.on) if self.on else math.nan
        self.sd_off, self.sd_on = sd(self.off), sd(self.on)
        self.t, self.df = welch(self.off, self.on)
        self.p = t_pvalue(self.t, self.df)
        self.verdict = verdict(self.t, threshold)
        if self.mean_off and not math.isnan(self.mean_off):
            self.diff_pct = 100.0 * (self.mean_on - self.mean_off) / self.mean_off
        else:
            self.diff_pct = math.nan


# ------------------------------------------------------------------ report

def fmt(x):
    """A count or ratio for the tables: 1,234,567 / 12.35 / 0.01234."""
    if x is None or math.isnan(x):
        return "n/a"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if abs(x) >= 1000:
        return "{:,.0f}".format(x)
    return "%.4g" % x


def fmt_t(t):
    if math.isnan(t):
        return "n/a"
    if math.isinf(t):
        return "+inf" if t > 0 else "-inf"
    return "%+.2f" % t


def fmt_p(p):
    if math.isnan(p):
        return "n/a"
    if p == 0:
        return "0"
    return "%.1e" % p if p < 0.001 else "%.3f" % p


def read_meta(d):
    """DIR/meta as a dict (key=value lines); {} without one."""
    meta = {}
    path = os.path.join(d, "meta")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    meta[k] = v
    return meta


def workload_line(path, workload):
    """{key: int} of the workload's `NAME key=value ...` line in path; {} if none."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return {}
    for line in lines:
        words = line.split()
        if words and words[0] == workload:
            info = {}
            for w in words[1:]:
                k, _, v = w.partition("=")
                if re.fullmatch(r"-?\d+", v):
                    info[k] = int(v)
            return info
    return {}


class Run:
    """One perf stat run of the manifest."""

    def __init__(self, d, row, lineno):
        self.case, self.workload, self.cmd, self.state, rep, csv, out = row
        if self.state not in ("off", "on"):
            raise PerfabError("%s/runs.tsv:%d: state must be off or on, not %r" % (
                d, lineno, self.state))
        self.rep = int(rep)
        self.csv = os.path.join(d, csv)
        self.counts = aggregate(parse_file(self.csv), self.csv)
        self.info = workload_line(os.path.join(d, out), self.workload)
        key, self.unit = DENOMINATORS.get(self.workload, (None, None))
        self.denominator = self.info.get(key) if key else None
        if not self.denominator or self.denominator <= 0:
            self.denominator = self.unit = None

    def value(self, event):
        c = self.counts.get(event)
        return c.value if c is not None else None


def read_runs(d):
    """The Runs of DIR/runs.tsv (header line, then case, workload, cmd,
    state, rep, csv, out: tab-separated, paths relative to DIR)."""
    path = os.path.join(d, "runs.tsv")
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise PerfabError("%s: %s" % (path, e.strerror)) from None
    runs = []
    for lineno, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        row = line.split("\t")
        if len(row) != 7:
            raise PerfabError("%s:%d: want 7 tab-separated fields, got %d" % (path, lineno, len(row)))
        runs.append(Run(d, row, lineno))
    if not runs:
        raise PerfabError("%s: no runs" % path)
    return runs


class Report:
    """results.md and runs.csv of a perf-ab work dir."""

    def __init__(self, d, threshold=THRESHOLD):
        self.d = d
        self.threshold = threshold
        self.meta = read_meta(d)
        self.runs = read_runs(d)
        self.cases = []
        for r in self.runs:
            if r.case not in self.cases:
                self.cases.append(r.case)
        wanted = [split_event(e)[1] for e in self.meta.get("events", "").split(",") if e]
        seen = []
        for r in self.runs:
            seen += [e for e in r.counts if e not in seen]
        self.events = [e for e in wanted if e in seen] + [e for e in seen if e not in wanted]
        self.out = []
        self.n_real = self.n_rows = 0

    def w(self, line=""):
        self.out.append(line)

    def header(self):
        m = self.meta
        self.w("# kcolour perf A/B: kernel.kstack_colour off against on")
        self.w()
        for key, label in (("date", "Date"), ("kernel", "Kernel"), ("cpu", "CPU"),
                           ("perf", "perf"), ("pin", "Pinned to"), ("paranoid",
                                                                    "perf_event_paranoid")):
            if m.get(key):
                self.w("- %s: %s" % (label, m[key]))
        self.w("- Events: %s (user + kernel unless a modifier says otherwise)" %
               m.get("events", ", ".join(self.events)))
        self.w("- Runs: %s per state and case, interleaved off, on, off, on, ... "
               "(%s discarded warm-up pair(s) first)" % (m.get("repeats", "?"), m.get("warmup", "?")))
        self.w("- Rule: a difference is **real** when Welch's |t| > %g, i.e. when on's mean "
               "differs from off's by more than %g combined standard errors "
               "sqrt(sd_off²/n_off + sd_on²/n_on) (so by more than 2 as well); otherwise "
               "**noise**.  p (two-sided, Student's t with Welch's df) is shown for "
               "information; the rule does not use it." % (self.threshold, self.threshold))
        self.w("- diff = (on − off) / off.  Per switch / per fork: each run's count divided "
               "by the workload's own count (ring: N × rounds; messaging: the kernel's ctxt "
               "count inside its window, system-wide; forkloop: forks); perf counts the whole "
               "run (setup and warm-up too), so these are slight overestimates.")
        self.w()

    def case_table(self, case):
        runs = [r for r in self.runs if r.case == case]
        first = runs[0]
        unit = next((r.unit for r in runs if r.unit), None)
        self.w("## %s" % first.cmd)
        self.w()
        head = "| event | off mean ± sd | on mean ± sd | diff | Welch t | df | p | verdict |"
        rule = "|---|---:|---:|---:|---:|---:|---:|---|"
        if unit:
            head += " off per %s | on per %s |" % (unit, unit)
            rule += "---:|---:|"
        self.w(head)
        self.w(rule)
        notes = []
        rows = [(e, lambda r, e=e: r.value(e), True) for e in self.events]
        if "cycles" in self.events and "instructions" in self.events:
            def ipc(r):
                c, i = r.value("cycles"), r.value("instructions")
                return i / c if c and i is not None else None
            rows.append(("IPC (instructions / cycles)", ipc, False))
        for label, get, per_unit in rows:
            vals = {s: [(get(r), r.denominator) for r in runs if r.state == s]
                    for s in ("off", "on")}
            off = [v for v, _ in vals["off"] if v is not None]
            on = [v for v, _ in vals["on"] if v is not None]
            want = (len(vals["off"]), len(vals["on"]))
            if (len(off), len(on)) != want:
                notes.append("%s: counted in %d of %d off runs and %d of %d on runs" % (
                    label, len(off), want[0], len(on), want[1]))
            if not off and not on:
                continue
            c = Comparison(off, on, self.threshold)
            self.n_rows += 1
            self.n_real += c.verdict == "real"
            cells = ["%s ± %s" % (fmt(c.mean_off), fmt(c.sd_off)),
                     "%s ± %s" % (fmt(c.mean_on), fmt(c.sd_on)),
                     "n/a" if math.isnan(c.diff_pct) else "%+.2f%%" % c.diff_pct,
                     fmt_t(c.t), "n/a" if math.isnan(c.df) else "%.1f" % c.df, fmt_p(c.p),
                     "**real**" if c.verdict == "real" else c.verdict]
            if unit:
                for s in ("off", "on"):
                    per = [v / d for v, d in vals[s] if v is not None and d]
                    cells.append(fmt(mean(per)) if per and per_unit else "—")
            self.w("| %s | %s |" % (label, " | ".join(cells)))
        low = [r.counts[e].pct for r in runs for e in r.counts
               if r.counts[e].pct is not None and r.counts[e].pct < 100.0]
        if low:
            notes.append("counters were multiplexed (lowest %.1f%% running): perf scaled "
                         "those counts, which adds noise; fewer events, or "
                         "`sysctl kernel.nmi_watchdog=0`, free counters" % min(low))
        if not unit:
            notes.append("no per-unit figures: the workload printed no count to divide by")
        self.w()
        for n in notes:
            self.w("Note: %s." % n)
        if notes:
            self.w()

    def csv_rows(self):
        yield ["case", "workload", "state", "rep", "event", "status", "value", "pct_running",
               "runtime_ns", "denominator", "unit"]
        for r in self.runs:
            for e, c in r.counts.items():
                yield [r.case, r.workload, r.state, str(r.rep), e, c.status,
                       "" if c.value is None else "%.0f" % c.value if c.value.is_integer()
                       else repr(c.value),
                       "" if c.pct is None else "%.2f" % c.pct,
                       "" if c.runtime is None else "%.0f" % c.runtime,
                       "" if r.denominator is None else str(r.denominator), r.unit or ""]

    def write(self):
        self.header()
        for case in self.cases:
            self.case_table(case)
        self.w("%d of %d comparisons real (|t| > %g), the rest noise." % (
            self.n_real, self.n_rows, self.threshold))
        text = "\n".join(self.out) + "\n"
        with open(os.path.join(self.d, "results.md"), "w", encoding="utf-8") as f:
            f.write(text)
        with open(os.path.join(self.d, "runs.csv"), "w", encoding="utf-8") as f:
            for row in self.csv_rows():
                f.write(",".join(row) + "\n")
        return text


# --------------------------------------------------------------------- CLI

def cmd_parse(args):
    records = parse_file(args.file)
    if args.raw:
        print("name\tpmu\tevent\tmodifiers\tstatus\tvalue\tunit\truntime\tpct")
        for r in records:
            print("\t".join(str(x) if x is not None else "" for x in (
                r.name, r.pmu, r.event, r.modifiers, r.status, r.value, r.unit, r.runtime, r.pct)))
        return 0
    print("event\tstatus\tvalue\tpct\tpmus")
    for c in aggregate(records, args.file).values():
        print("\t".join((c.event, c.status, "" if c.value is None else "%.0f" % c.value,
                         "" if c.pct is None else "%.2f" % c.pct,
                         ",".join(p or "-" for p in c.pmus))))
    return 0


def cmd_probe(args):
    events = [e for e in args.events.split(",") if e]
    problems = probe_problems(args.file, events)
    if problems:
        print("; ".join(problems), file=sys.stderr)
        return 3
    return 0


def cmd_report(args):
    sys.stdout.write(Report(args.dir, args.threshold).write())
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(prog="perfab.py", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("parse", help="the events of a perf stat -x, file")
    p.add_argument("--raw", action="store_true", help="one line per counter line")
    p.add_argument("file")
    p.set_defaults(func=cmd_parse)
    p = sub.add_parser("probe", help="exit 3 unless every event was counted")
    p.add_argument("file")
    p.add_argument("events", help="comma-separated event names, as given to -e")
    p.set_defaults(func=cmd_probe)
    p = sub.add_parser("report", help="results.md and runs.csv of a perf-ab work dir")
    p.add_argument("dir")
    p.add_argument("--threshold", type=float, default=THRESHOLD,
                   help="|t| above which a difference is real (default %g)" % THRESHOLD)
    p.set_defaults(func=cmd_report)
    args = ap.parse_args(argv)
    try:
        return args.func(args)
    except PerfabError as e:
        print("perfab.py: error: %s" % e, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
