#!/usr/bin/env python3
"""make perf-ab: the A/B of kernel stack colouring on a real machine (stdlib only).

    python3 -m bench run perf-ab [FLAGS] [-- CMD ARGS...]     (in the tree)
    python3 perfab.py [FLAGS] [-- CMD ARGS...]   (a copy beside a copy of bench/lib/paired.py)
                                as root, on a machine booted into the patched kernel

Each trial runs a command under `perf stat -x,` with the sysctl kernel.kstack_colour
0 (off) or 1 (on), alternating off, on, off, on, ... in one boot (after WARMUP
discarded pairs), pinned to one CPU.  The sysctl colours tasks created after it is
written, so each trial starts its command afresh: a service that keeps its
processes (a web server the command talks to) must be restarted between the arms,
--restart 'systemctl restart lighttpd'.  The commands: the user's own
(`-- CMD ARGS`, one case), or the bundled workloads (bench/workloads: ring N for N
in RING_NS, messaging, forkloop).  The sysctl is restored however it ends.

Per case and event: each arm's mean, median and p99, and the paired difference: a
pair is the off trial and the on trial after it, and the difference is their log
ratio; its mean with a 95% Student's t interval over the pairs (bench/lib/paired.py).
A difference is real where the interval excludes 0 ("lower", "higher"); otherwise
"no measurable effect", within the interval's half-width.

Events (--events): by default the hardware counters (cycles, instructions, L1D
replacements, L1I misses, LLC misses) where the PMU counts them all in kernel mode,
else the software events (cpu-clock, task-clock, context-switches, page-faults), as
in a VM; given explicitly, every one must be counted.  WORK gets results.md (also on
stdout), runs.csv (every count), raw/ (each run's perf CSV and output), runs.tsv
(the runs) and meta.

Flags (make perf-ab's variables of the same names in capitals turn into them, and
make perf-ab CMD="..." into `-- CMD`: mk/perf-ab.mk): --repeats 20 (pairs, at
least 2), --warmup 1, --ring-ns "2 4 8 16" (2..64), --ring-switches 200000 (a ring
run's: rounds = RING_SWITCHES / N), --msg-args "1 10 5000" (GROUPS FDS LOOPS),
--forks 2000 (these three empty: no such case), --events E1,E2,..., --restart CMD
(a shell command run after each switch), --pin-cpu N|none (the lowest allowed
CPU), --perf perf, --wl-dir DIR (no build), --sysctl /proc/sys/kernel/kstack_colour,
--params /sys/kernel/debug/x86/kstack_colour/params (colours: 1 there refuses),
--system-wide 0 (1: perf stat -a, every CPU counted while the command runs: a
service's own processes too, which a command that only talks to it, such as ab,
does not count), --work build/perf-ab.

Exit: 0 done; 1 an error (a failed run, bad perf output); 2 a bad setting; 3 no
perf; 4 no permission (perf_event_paranoid for a user, or the sysctl needs root);
5 no sysctl (not a kcolour kernel); 6 an event perf does not know or does not
count here; 7 the kernel derived one colour here (debugfs params, --params):
nothing to measure; 128 + N on signal N (HUP, INT, TERM).
"""

import argparse
import collections
import contextlib
import math
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

try:
    from bench.lib import paired    # in the tree: python3 -m bench run perf-ab
except ImportError:                 # a copy beside paired.py, as perf_ab_guest.py boots it
    import paired

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COUNTED, NOT_COUNTED, NOT_SUPPORTED = "counted", "not counted", "not supported"
SPECIAL = {"<not counted>": NOT_COUNTED, "<not supported>": NOT_SUPPORTED}
HARDWARE_EVENTS = ("cycles,instructions,L1-dcache-load-misses,L1-icache-load-misses,"
                   "LLC-load-misses")
SOFTWARE_EVENTS = "cpu-clock,task-clock,context-switches,page-faults"
SETTINGS = {    # the settings (flags: FLAGS) and their defaults, also for an empty value
    "REPEATS": "20", "WARMUP": "1", "RING_NS": "2 4 8 16", "RING_SWITCHES": "200000",
    "MSG_ARGS": "1 10 5000", "FORKS": "2000", "PIN_CPU": "", "EVENTS": "", "RESTART": "",
    "PERF": "perf", "KSTACK_COLOUR_SYSCTL": "/proc/sys/kernel/kstack_colour", "WL_DIR": "",
    "SYSTEM_WIDE": "0", "PARAMS": "/sys/kernel/debug/x86/kstack_colour/params",
    "WORK": os.path.join(TOP, "build", "perf-ab")}
FLAGS = {k: "--sysctl" if k == "KSTACK_COLOUR_SYSCTL" else "--" + k.lower().replace("_", "-")
         for k in SETTINGS}
# The half-width (percent) the report says how many pairs would reach.
TARGET_HALF_WIDTH = 0.5
# Exit statuses, one a kind of failure, for scripts that run perf-ab.
EXIT_ERROR, EXIT_USAGE, EXIT_NO_PERF, EXIT_PERMISSION, EXIT_NO_SYSCTL, EXIT_EVENT, \
    EXIT_ONE_COLOUR = range(1, 8)
EMPTY_MEANS_NONE = ("RING_NS", "MSG_ARGS", "FORKS")     # set but empty: no such case
CHECKS = [("REPEATS", r"0*([2-9]|[1-9][0-9]+)", "at least 2 (for a standard deviation)"),
          ("WARMUP", r"[0-9]+", "a non-negative integer"),
          ("RING_SWITCHES", r"[0-9]+", "a non-negative integer"),
          ("FORKS", r"[0-9]*", "a number of forks or empty"),
          ("PIN_CPU", r"[0-9]+|none|", "a CPU number or none"),
          ("SYSTEM_WIDE", r"[01]?", "1 (count every CPU) or 0")]

# workload -> (key of its output line, unit): the per-unit denominator.  Pinned to one
# CPU, each pass of ring's token is one context switch (as in the cache simulator), so its
# switches are N x rounds; messaging prints no switch count of its own, ctxt is the
# kernel's (system-wide) count inside its window; forkloop's forks is exact.
DENOMINATORS = {"ring": ("switches", "switch"), "messaging": ("ctxt", "switch"),
                "forkloop": ("forks", "fork")}
IPC = "IPC (instructions / cycles)"     # a row of each table, without per-unit figures


class PerfabError(Exception):
    """Bad input: the message says which file and line, and what is wrong."""


def read_text(path, must=False):
    """A file's text without its trailing newlines, as $(cat PATH); None if it
    cannot be read, or with must a PerfabError naming it."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().rstrip("\n")
    except OSError as e:
        if must:
            raise PerfabError("%s: %s" % (path, e.strerror)) from None
        return None


def cell(x, form, missing=""):
    """A CSV or table cell: form % x; missing for None or nan (a table's: n/a)."""
    return missing if x is None or math.isnan(x) else form % x


# ------------------------------------------------------------ perf stat CSV
# One counter line of perf stat -x output: name as perf printed it (cpu_core/cycles/u)
# and split_event()'s parts of it; value None unless status is COUNTED; runtime the ns
# the counter ran, pct the % of it on a counter (None where perf printed none).
Record = collections.namedtuple("Record", "name pmu event modifiers value status unit runtime pct")


def split_event(name):
    """(pmu, event, modifiers): `cycles:u` -> (None, 'cycles', 'u'), `cpu_atom/cycles/u`
    and `cpu_atom/cycles:u/` -> ('cpu_atom', 'cycles', 'u')."""
    m = re.fullmatch(r"([A-Za-z0-9_.\-]+)/([^/]+)/([A-Za-z]*)", name)
    pmu, name, mods = m.groups() if m else (None, name, "")
    name, _, more = name.partition(":")
    return pmu, name, mods + more


def user_only(mods):
    return "u" in mods and "k" not in mods


def _number(text, what, where):
    try:
        return float(text)
    except ValueError:
        raise PerfabError("%s: %s '%s' is not a number" % (where, what, text)) from None


def parse_lines(lines, source="<input>"):
    """The Records of perf stat -x, output lines; PerfabError if malformed.

    perf's lines (no -I, -a, -A, --per-*): value,unit,event[,variance (-r)][,run
    time,% running[,metric,unit]]; value a number (perf scales a multiplexed one),
    <not counted> (never ran: a hybrid CPU's other core type, multiplexing) or <not
    supported>.  '#', blank and metric-only lines are skipped.  An -e spelling with
    a comma (cpu/event=0x3c,umask=0/) cannot be told from the separator."""
    records = []
    for lineno, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = "%s:%d" % (source, lineno)
        fields = [f.strip() for f in line.split(",")]
        if len(fields) < 3:
            raise PerfabError("%s: not a perf stat -x, counter line (want value,unit,event"
                              ",...): %r" % (where, line[:80]))
        value, unit, name, *rest = fields
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
        records.append(Record(name, *split_event(name), number, status, unit, runtime, pct))
    if not records:
        raise PerfabError("%s: no counter lines (is it `perf stat -x,` output?)" % source)
    return records


def parse_file(path):
    return parse_lines(read_text(path, must=True).splitlines(), path)


class Count:
    """One event's count in one run from all its lines, summed over its PMUs: a hybrid
    CPU's cpu_core/ and cpu_atom/ lines together are the task's count wherever it ran."""

    def __init__(self, event, records):
        counted = [r for r in records if r.status == COUNTED]
        pcts = [r.pct for r in counted if r.pct is not None]
        runtimes = [r.runtime for r in counted if r.runtime is not None]
        self.event, self.records, self.pmus = event, records, [r.pmu for r in records]
        self.value = sum(r.value for r in counted) if counted else None
        self.pct = min(pcts) if pcts else None      # the lowest % running
        self.runtime = sum(runtimes) if runtimes else None
        self.user_only = any(user_only(r.modifiers) for r in counted)  # no kernel counts
        unsupported = all(r.status == NOT_SUPPORTED for r in records)
        self.status = COUNTED if counted else NOT_SUPPORTED if unsupported else NOT_COUNTED


def aggregate(records, source="<input>"):
    """{event: Count} in order of first appearance; one event twice from one
    PMU (cycles:u and cycles:k in one run) is an error."""
    lines = {}
    for r in records:
        same = lines.setdefault(r.event, [])
        if r.pmu in [x.pmu for x in same]:
            raise PerfabError("%s: event %s appears twice%s (%s); give each event once" % (
                source, r.event, " on " + r.pmu if r.pmu else "",
                ", ".join([x.name for x in same] + [r.name])))
        same.append(r)
    return {event: Count(event, same) for event, same in lines.items()}


def probe_problems(path, events):
    """Why the counters of events (-e names) cannot be used, one string per kind of
    problem ("L1-icache-load-misses, LLC-load-misses <not supported>"); [] if they can."""
    counts = aggregate(parse_file(path), path)
    problems = collections.defaultdict(list)
    for want in events:
        _, event, mods = split_event(want)
        c = counts.get(event)
        if c is None:
            problems["missing from perf's output"].append(want)
        elif c.status != COUNTED:
            problems["<%s>" % c.status].append(want)
        elif c.user_only and not user_only(mods):   # perf's fallback when paranoid
            problems["counted in user mode only (no kernel counts)"].append(
                "%s (%s)" % (want, ", ".join(r.name for r in c.records)))
    return ["%s %s" % (", ".join(evs), what) for what, evs in problems.items()]


# ------------------------------------------------------------- statistics
mean = statistics.fmean


# ------------------------------------------------------------------ report
def fmt(x):
    """A count or ratio for the tables: 1,234,567 / 12.35 / 0.01234 (inf as is)."""
    if x is None or math.isnan(x):
        return "n/a"
    return "{:,.0f}".format(x) if abs(x) >= 1000 else "%.4g" % x


def workload_line(path, workload):
    """{key: int} of the workload's `NAME key=value ...` line in path; {} if none."""
    for line in (read_text(path) or "").splitlines():
        words = line.split()
        if words and words[0] == workload:
            pairs = (w.partition("=") for w in words[1:])
            return {k: int(v) for k, _, v in pairs if re.fullmatch(r"-?\d+", v)}
    return {}


class Run:
    """One perf stat run: a line of runs.tsv (case, workload, cmd, state, rep, csv,
    out; the paths relative to the work dir d), its counts and its denominator."""

    def __init__(self, d, row, where):
        if len(row) != 7:
            raise PerfabError("%s: want 7 tab-separated fields, got %d" % (where, len(row)))
        self.case, self.workload, self.cmd, self.state, rep, csv, out = row
        if self.state not in ("off", "on"):
            raise PerfabError("%s: state must be off or on, not %r" % (where, self.state))
        self.rep, csv = int(rep), os.path.join(d, csv)
        self.counts = aggregate(parse_file(csv), csv)
        self.values = {e: c.value for e, c in self.counts.items()}
        cycles, insns = self.values.get("cycles"), self.values.get("instructions")
        self.values[IPC] = insns / cycles if cycles and insns is not None else None
        key, self.unit = DENOMINATORS.get(self.workload, (None, None))
        self.denominator = workload_line(os.path.join(d, out), self.workload).get(key)
        if not self.denominator or self.denominator <= 0:
            self.denominator = self.unit = None


class Report:
    """results.md and runs.csv of a perf-ab work dir: from its runs.tsv (a header line,
    then a Run a line) and meta."""

    def __init__(self, d):
        self.d = d
        meta = (read_text(os.path.join(d, "meta")) or "").splitlines()
        self.meta = dict(line.split("=", 1) for line in meta if "=" in line)
        path = os.path.join(d, "runs.tsv")
        lines = enumerate(read_text(path, must=True).splitlines()[1:], 2)
        self.runs = [Run(d, line.split("\t"), "%s:%d" % (path, n)) for n, line in lines
                     if line.strip()]
        if not self.runs:
            raise PerfabError("%s: no runs" % path)
        self.cases = list(dict.fromkeys(r.case for r in self.runs))
        wanted = [split_event(e)[1] for e in self.meta.get("events", "").split(",") if e]
        seen = list(dict.fromkeys(e for r in self.runs for e in r.counts))
        self.events = [e for e in wanted if e in seen] + [e for e in seen if e not in wanted]
        self.out, self.n_real, self.n_rows = [], 0, 0

    def header(self):
        m = self.meta
        self.out += ["# kcolour perf A/B: kernel.kstack_colour off against on", ""]
        labels = {"date": "Date", "kernel": "Kernel", "cpu": "CPU", "perf": "perf",
                  "pin": "Pinned to", "paranoid": "perf_event_paranoid",
                  "restart": "Restarted after each switch"}
        self.out += ["- %s: %s" % (label, m[k]) for k, label in labels.items() if m.get(k)]
        self.out += [
            "- Events: %s (user + kernel unless a modifier says otherwise)%s" % (
                m.get("events", ", ".join(self.events)),
                "; " + m["events_note"] if m.get("events_note") else ""),
            "- Trials: %s pairs per case, off then on, alternating (%s discarded "
            "warm-up pair(s) first)" % (m.get("repeats", "?"), m.get("warmup", "?")),
            "- on − off: the mean over the pairs of the log ratio on / off, as a "
            "percentage, with its 95% Student's t interval (bench/lib/paired.py).  A difference "
            "is **real** where the interval excludes 0 (**lower**, **higher**); otherwise "
            "there is no measurable effect, within the interval's half-width.  Pairs for "
            "±{0}%: how many pairs would make the interval that narrow at the spread seen "
            "(--repeats).".format(TARGET_HALF_WIDTH),
            "- p99: the nearest-rank 99th percentile of the trials (with fewer than 100 "
            "trials, the largest).  Per switch / per fork: each run's count divided "
            "by the workload's own count (ring: N × rounds; messaging: the kernel's ctxt "
            "count inside its window, system-wide; forkloop: forks); perf counts the whole "
            "run (setup and warm-up too), so these are slight overestimates.", ""]

    def case_table(self, case):
        runs = [r for r in self.runs if r.case == case]
        unit = next((r.unit for r in runs if r.unit), None)
        head = ("| event | off mean | off median | off p99 | on mean | on median | on p99 | "
                "on − off, 95%% interval | verdict | pairs for ±%g%% |" % TARGET_HALF_WIDTH)
        rule = "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|"
        if unit:
            head += " off per %s | on per %s |" % (unit, unit)
            rule += "---:|---:|"
        self.out += ["## %s" % runs[0].cmd, "", head, rule]
        notes = []
        ipc = [IPC] if "cycles" in self.events and "instructions" in self.events else []
        for label in self.events + ipc:
            vals = {s: [(r.values.get(label), r.denominator) for r in runs if r.state == s]
                    for s in ("off", "on")}
            off, on = ([v for v, _ in vals[s] if v is not None] for s in ("off", "on"))
            if len(off) + len(on) < len(vals["off"]) + len(vals["on"]):
                notes.append("%s: counted in %d of %d off runs and %d of %d on runs" % (
                    label, len(off), len(vals["off"]), len(on), len(vals["on"])))
            if not off and not on:
                continue
            by_rep = {s: {r.rep: r.values.get(label) for r in runs if r.state == s}
                      for s in ("off", "on")}
            reps = [k for k in by_rep["off"] if by_rep["off"][k] is not None and
                    by_rep["on"].get(k) is not None]
            c = paired.Paired([by_rep["off"][k] for k in reps], [by_rep["on"][k] for k in reps])
            self.n_rows += 1
            self.n_real += c.real
            cells = [fmt(x) for arm in (off, on) for x in paired.summary(arm)]
            need = c.pairs_for(TARGET_HALF_WIDTH)
            cells += [c.interval(), "**%s**" % c.verdict if c.real else c.described(),
                      "n/a" if need is None else str(need)]
            if unit:
                for s in ("off", "on"):
                    per = [v / d for v, d in vals[s] if v is not None and d]
                    cells.append(fmt(mean(per)) if per and label != IPC else "—")
            self.out.append("| %s | %s |" % (label, " | ".join(cells)))
        low = [c.pct for r in runs for c in r.counts.values() if c.pct is not None and c.pct < 100]
        if low:
            notes.append("counters were multiplexed (lowest %.1f%% running): perf scaled "
                         "those counts, which adds noise; fewer events, or "
                         "`sysctl kernel.nmi_watchdog=0`, free counters" % min(low))
        if not unit:
            notes.append("no per-unit figures: the command printed no count to divide by")
        self.out += [""] + ["Note: %s." % n for n in notes] + ([""] if notes else [])

    def write(self):
        """Writes results.md and runs.csv; returns results.md's text."""
        self.header()
        for case in self.cases:
            self.case_table(case)
        self.out.append("%d of %d comparisons real (the 95%% interval excludes 0), the rest "
                        "no measurable effect." % (self.n_real, self.n_rows))
        text = "\n".join(self.out) + "\n"
        with open(os.path.join(self.d, "results.md"), "w", encoding="utf-8") as f:
            f.write(text)
        rows = [["case", "workload", "state", "rep", "event", "status", "value", "pct_running",
                 "runtime_ns", "denominator", "unit"]] + [
            [r.case, r.workload, r.state, str(r.rep), e, c.status,
             cell(c.value, "%r" if c.value and not c.value.is_integer() else "%.0f"),
             cell(c.pct, "%.2f"), cell(c.runtime, "%.0f"), cell(r.denominator, "%d"), r.unit or ""]
            for r in self.runs for e, c in r.counts.items()]
        with open(os.path.join(self.d, "runs.csv"), "w", encoding="utf-8") as f:
            f.writelines(",".join(row) + "\n" for row in rows)
        return text


# ------------------------------------------------------------------ the A/B
def say(msg):
    print("[perf-ab] " + msg, file=sys.stderr)


def error(msg, status=EXIT_ERROR):
    """Exit with status (EXIT_*) and msg on stderr; run_ab() restores the sysctl
    on the way."""
    print("perf-ab: " + ("" if status == EXIT_USAGE else "error: ") + msg, file=sys.stderr)
    sys.exit(status)


def rel(path):
    """path relative to the top of the tree when inside it, for messages."""
    return path[len(TOP) + 1:] if path.startswith(TOP + "/") else path


def paranoid():
    return read_text("/proc/sys/kernel/perf_event_paranoid") or "?"


def write_file(path, text):
    """Write text to path (the sysctl too); False if that failed."""
    try:
        with open(path, "w") as f:
            f.write(text)
        return True
    except OSError:
        return False


class AB:
    """One A/B: the settings (settings()), the sysctl's first value, the steps."""

    def __init__(self, env, cmd=()):
        c = {k: env[k] if k in EMPTY_MEANS_NONE and k in env else env.get(k) or v
             for k, v in SETTINGS.items()}
        for k, pattern, what in CHECKS:
            if not re.fullmatch(pattern, c[k]):
                error("%s must be %s, not '%s'" % (FLAGS[k], what, c[k]), EXIT_USAGE)
        self.cases = []     # (name, workload, args): a bundled workload, or "cmd" and argv
        if cmd:
            self.cases.append(("cmd", "cmd", list(cmd)))
            c.update(RING_NS="", MSG_ARGS="", FORKS="")
        for n in c["RING_NS"].split():
            if not re.fullmatch(r"[0-9]+", n) or not 2 <= int(n) <= 64:
                error("--ring-ns: each N must be in 2..64, not '%s'" % n, EXIT_USAGE)
            if int(c["RING_SWITCHES"]) < int(n):
                error("--ring-switches (%s) is below N=%s" % (c["RING_SWITCHES"], n),
                      EXIT_USAGE)
            self.cases.append(("ring-" + n, "ring", [n, str(int(c["RING_SWITCHES"]) // int(n))]))
        if c["MSG_ARGS"]:
            self.cases.append(("messaging", "messaging", c["MSG_ARGS"].split()))
        if c["FORKS"]:
            self.cases.append(("forkloop", "forkloop", [c["FORKS"]]))
        self.repeats, self.warmup, self.work = int(c["REPEATS"]), int(c["WARMUP"]), c["WORK"]
        self.events, self.perf, self.restart = c["EVENTS"], c["PERF"], c["RESTART"]
        self.events_note = ""   # why the events are not the ones asked for
        self.sysctl, self.pin, self.wl_dir = c["KSTACK_COLOUR_SYSCTL"], c["PIN_CPU"], c["WL_DIR"]
        self.params = c["PARAMS"]
        # perf stat -a: a service the command talks to runs in other processes
        self.system_wide = c["SYSTEM_WIDE"] == "1"
        self.orig = None    # the sysctl's value at the start, once read: restore() puts it back
        self.in_run, self.pending = False, None     # see on_signal()

    def path(self, name):
        return os.path.join(self.work, name)

    def on_signal(self, signum, frame):
        """HUP, INT and TERM exit 128 + the signal, as a shell's traps do: during
        run() once its command is done (no run is left behind), else at once."""
        if not self.in_run:
            sys.exit(128 + signum)
        self.pending = 128 + signum

    def run(self, cmd, **redirects):
        """subprocess.run(cmd, text), returncode 127 if cmd cannot run."""
        self.in_run = True
        try:
            return subprocess.run(cmd, text=True, errors="replace", **redirects)
        except OSError as e:
            print("perf-ab: cannot run %s: %s" % (cmd[0], e.strerror), file=sys.stderr)
            return subprocess.CompletedProcess(cmd, 127, "", "")
        finally:
            self.in_run = False
            if self.pending:
                sys.exit(self.pending)

    def perf_stat(self, csv, cmd, pin=(), events=None, **redirects):
        return self.run(list(pin) + [self.perf, "stat"] + ["-a"] * self.system_wide +
                        ["-x,", "-o", csv, "-e", events or self.events, "--"] + cmd,
                        **redirects)

    def permission_advice(self):
        if os.geteuid() == 0:
            return "running as root, perf_event_paranoid (%s) is not the cause" % paranoid()
        return ("perf_event_paranoid is %s: as a user, kernel counts need 1 or less "
                "(sysctl kernel.perf_event_paranoid=1); or run as root (sudo make perf-ab), "
                "which switching the sysctl needs anyway" % paranoid())

    def probe_events(self, events):
        """`perf stat -e events -- true`: (why events cannot be used, [] if they can;
        how many were counted).  Exits where perf cannot run them at all: no
        permission, an event it does not know, another failure."""
        with tempfile.TemporaryDirectory(prefix="perf-ab.") as tmp:
            csv = os.path.join(tmp, "probe.csv")
            p = self.perf_stat(csv, ["true"], events=events, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
            if p.returncode:
                reason = " ".join([x for x in p.stderr.splitlines() if x.strip()][:3])
                if re.search(r"[Pp]ermission|perf_event_paranoid|Access to performance",
                             p.stderr):
                    error("perf stat may not count here (%s); %s" % (
                        reason, self.permission_advice()), EXIT_PERMISSION)
                if re.search(r"event syntax error|[Uu]nknown event|Cannot find PMU", p.stderr):
                    error("perf does not know an event of %s (%s); `perf list` names the "
                          "events it knows" % (events, reason), EXIT_EVENT)
                error("perf stat failed: %s" % (reason or "no message"))
            try:
                counted = sum(c.status == COUNTED for c in aggregate(parse_file(csv)).values())
                return probe_problems(csv, [e for e in events.split(",") if e]), counted
            except PerfabError as e:
                error("cannot read perf's probe output: %s" % e)

    def refuse(self, problems):
        """Events that cannot be used: counted in user mode only is perf_event_paranoid's
        doing (EXIT_PERMISSION); the rest is the machine's (EXIT_EVENT)."""
        text = "; ".join(problems)
        if any("user mode only" in x for x in problems):
            error("no kernel counts: %s; %s" % (text, self.permission_advice()),
                  EXIT_PERMISSION)
        error("events not counted on this machine: %s.  `perf list` names the events it "
              "has; in a VM the host must expose the PMU (QEMU/KVM: -cpu host); where only "
              "LLC-load-misses is missing (many AMD CPUs), cache-misses can stand in; "
              "--events %s counts without a PMU" % (text, SOFTWARE_EVENTS), EXIT_EVENT)

    def probe(self):
        """Step 1: the events.  Asked for (--events): all counted, with kernel counts,
        or refuse().  By default: the hardware counters; where none is counted (no
        PMU, as in most VMs), the software events; where some are, refuse()."""
        if not shutil.which(self.perf):
            error("perf is not installed ('%s' not found).  Debian: apt-get install "
                  "linux-perf; Ubuntu: apt-get install linux-tools-$(uname -r); Fedora: "
                  "dnf install perf" % self.perf, EXIT_NO_PERF)
        if self.events:
            problems, _ = self.probe_events(self.events)
            if problems:
                self.refuse(problems)
        else:
            problems, counted = self.probe_events(HARDWARE_EVENTS)
            self.events = HARDWARE_EVENTS
            if counted and problems:    # a PMU, but not for every event: the user chooses
                self.refuse(problems)
            if problems:                # no PMU at all (a VM)
                soft, _ = self.probe_events(SOFTWARE_EVENTS)
                if soft:
                    self.refuse(problems + soft)
                self.events = SOFTWARE_EVENTS
                self.events_note = ("the hardware counters are not counted here (%s), so "
                                    "the software events" % "; ".join(problems))
                say("no hardware counters here: the software events")
        say("counters: %s all counted" % self.events)

    def check_sysctl(self):
        """Step 2: a kcolour kernel, and the right to switch it; remembers its value."""
        if not os.path.exists(self.sysctl):
            error("not running a kcolour kernel: %s does not exist (boot the patched kernel, "
                  "CONFIG_KSTACK_COLOUR=y; uname -r: %s)" % (self.sysctl, os.uname().release),
                  EXIT_NO_SYSCTL)
        if not os.access(self.sysctl, os.W_OK):
            error("cannot write %s: switching colouring needs root (sudo make perf-ab)"
                  % self.sysctl, EXIT_PERMISSION)
        value = self.read_sysctl()
        if value not in ("0", "1"):
            error("%s reads '%s', not 0 or 1" % (self.sysctl, value))
        self.orig = value
        say("%s is %s (restored at the end)" % (self.sysctl, value))
        self.check_colours()

    def check_colours(self):
        """Step 2b: where the kernel derived one colour, the sysctl changes
        nothing, and 20 pairs would measure nothing: refuse, and say how to
        force colours.  debugfs's params tell (root); without them, say so."""
        params = read_text(self.params)
        if params is None:
            say("no %s (debugfs not mounted?): cannot check that this CPU gets more than "
                "one colour" % self.params)
            return
        m = re.search(r"^colours: (\d+)$", params, re.M)
        if not m:
            say("%s has no colours line: cannot check that this CPU gets more than one "
                "colour" % self.params)
            return
        if int(m.group(1)) <= 1:
            error("this kernel derived one colour on this CPU (%s: colours: %s), so "
                  "kernel.kstack_colour=1 colours nothing and the A/B would measure nothing; "
                  "to measure forced colouring, boot with kstack_colour=colours=3"
                  % (self.params, m.group(1)), EXIT_ONE_COLOUR)

    def read_sysctl(self):
        value = read_text(self.sysctl)
        if value is None:
            error("cannot read %s" % self.sysctl)
        return value

    def set_colour(self, value):
        """Write 0 or 1 to the sysctl and check that it took."""
        if not write_file(self.sysctl, value + "\n"):
            error("cannot write %s to %s" % (value, self.sysctl))
        now = self.read_sysctl()
        if now != value:
            error("wrote %s to %s but it reads %s" % (value, self.sysctl, now))

    def restore(self):
        """Put the sysctl back to its first value, if it was read, and forget that
        value (restore only once); False (with a warning) if that failed."""
        orig, self.orig = self.orig, None
        if orig is None:
            return True
        now = read_text(self.sysctl) if write_file(self.sysctl, orig + "\n") else None
        if now == orig:
            say("restored %s to %s" % (self.sysctl, orig))
        else:
            print("perf-ab: WARNING: could not restore %s to %s (it reads '%s'); do it by hand"
                  % (self.sysctl, orig, now or "?"), file=sys.stderr)
        return now == orig

    def build_workloads(self):
        """Without --wl-dir: make them into WORK/bin.  Either way each must be there.
        The user's own command needs none of them."""
        if all(wl == "cmd" for _, wl, _ in self.cases):
            return
        if not self.wl_dir:
            self.wl_dir = self.path("bin")
            say("building the workloads in %s" % rel(self.wl_dir))
            make = ["make", "-s", "-C", os.path.join(TOP, "bench", "cachesim"),
                    "OUT=" + os.path.abspath(self.wl_dir), "all"]
            if self.run(make, stdout=sys.stderr.fileno()).returncode:
                error("building the workloads failed (%s)" % " ".join(make))
        for wl in ("ring", "messaging", "forkloop"):
            if not os.access(os.path.join(self.wl_dir, wl), os.X_OK):
                error("no workload %s/%s" % (self.wl_dir, wl))

    def run_one(self, case, state, rep):
        """One perf stat run of case in state (off, on); rep 0 is a warm-up (not listed).
        The sysctl colours the tasks created after the write: perf creates the run's."""
        name, wl, args = case
        cmd = args if wl == "cmd" else [os.path.join(self.wl_dir, wl)] + args
        pin = [] if self.pin == "none" else ["taskset", "-c", self.pin]
        base = "raw/%s-%s-%d" % (name, state, rep)
        self.set_colour("1" if state == "on" else "0")
        if self.restart:
            p = self.run(["sh", "-c", self.restart], stdout=sys.stderr.fileno())
            if p.returncode:
                error("--restart '%s' failed (exit %d) before %s (%s, run %d)" % (
                    self.restart, p.returncode, name, state, rep))
        with open(self.path(base + ".out"), "w") as out:
            p = self.perf_stat(self.path(base + ".csv"), cmd, pin, stdout=out,
                               stderr=subprocess.PIPE)
        write_file(self.path(base + ".err"), p.stderr)
        if p.returncode:
            for line in p.stderr.splitlines()[-5:]:
                print("    " + line, file=sys.stderr)
            error("%s (%s, run %d) failed: %s %s stat ... -- %s" % (
                name, state, rep, " ".join(pin), self.perf, " ".join(cmd)))
        if rep:
            with open(self.path("runs.tsv"), "a") as f:
                f.write("\t".join([name, wl, " ".join(cmd if wl == "cmd" else [wl] + args),
                                   state, str(rep),
                                   base + ".csv", base + ".out"]) + "\n")

    def write_meta(self):
        cpu = re.search(r"^model name\s*: (.*)$", read_text("/proc/cpuinfo") or "", re.M)
        perf = self.run([self.perf, "version"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        pin = "no CPU (--pin-cpu none)" if self.pin == "none" else "CPU %s (taskset)" % self.pin
        meta = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                "kernel": os.uname().release, "cpu": cpu.group(1) if cpu else os.uname().machine,
                "perf": perf.stdout.partition("\n")[0], "pin": pin,
                "paranoid": paranoid(), "events": self.events,
                "counted": "every CPU (--system-wide 1)" if self.system_wide else
                "the command and its children",
                "events_note": self.events_note, "restart": self.restart, "repeats": self.repeats,
                "warmup": self.warmup, "sysctl": "%s (was %s)" % (self.sysctl, self.orig)}
        write_file(self.path("meta"), "".join("%s=%s\n" % kv for kv in meta.items()))

    def measure(self):
        """The steps, in order; run_ab() restores the sysctl however this ends."""
        start = time.monotonic()
        self.probe()
        self.check_sysctl()
        self.pin = self.pin or str(min(os.sched_getaffinity(0)))
        if self.pin != "none" and not shutil.which("taskset"):
            error("taskset not found (apt-get install util-linux), or --pin-cpu none")
        if not self.cases:
            error("no cases (--ring-ns, --msg-args and --forks are all empty, and no "
                  "-- CMD)", EXIT_USAGE)
        self.build_workloads()
        shutil.rmtree(self.path("raw"), ignore_errors=True)
        for name in ("results.md", "runs.csv"):
            with contextlib.suppress(FileNotFoundError):
                os.remove(self.path(name))
        try:
            os.makedirs(self.path("raw"), exist_ok=True)
        except OSError:
            error("cannot create %s" % self.path("raw"))
        write_file(self.path("runs.tsv"), "case\tworkload\tcmd\tstate\trep\tcsv\tout\n")
        self.write_meta()
        say("%d case(s) x %d pairs of runs, off then on (+%d warm-up pair each)" % (
            len(self.cases), self.repeats, self.warmup))
        for case in self.cases:     # interleaved, so that drift spreads over off and on
            t0 = time.monotonic()
            for rep in [0] * self.warmup + list(range(1, self.repeats + 1)):
                self.run_one(case, "off", rep)
                self.run_one(case, "on", rep)
                if rep and (rep % 5 == 0 or rep == self.repeats):
                    say("%s: %d of %d pairs (%d s)" % (case[0], rep, self.repeats,
                                                      time.monotonic() - t0))
        if not self.restore():
            sys.exit(EXIT_ERROR)
        try:
            text = Report(self.work).write()
        except (PerfabError, OSError) as e:
            error("the report failed (the runs are in %s): %s" % (rel(self.work), e))
        sys.stdout.write(text)
        say("results: %s/results.md, runs.csv, raw/ (%d s)" % (
            rel(self.work), time.monotonic() - start))


def settings(argv):
    """(settings, command): the settings of the command line's flags, by SETTINGS'
    names, and the user's command after `--` (() without one).  A flag not given
    is its default, and one given empty is its default too, except where empty
    means no such case (EMPTY_MEANS_NONE)."""
    argv = list(argv)
    cmd = argv[argv.index("--") + 1:] if "--" in argv else []
    if "--" in argv:
        argv = argv[:argv.index("--")]
        if not cmd:
            print("perf-ab: -- must be followed by a command", file=sys.stderr)
            sys.exit(EXIT_USAGE)
    p = argparse.ArgumentParser(prog="perfab.py", description=__doc__,
                                usage="%(prog)s [FLAGS] [-- CMD ARGS...]",
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    for k, v in SETTINGS.items():
        p.add_argument(FLAGS[k], dest=k, metavar=k.split("_")[-1],
                       help="default %s" % (rel(v) if v else {
                           "PIN_CPU": "the lowest allowed CPU", "WL_DIR": "build them",
                           "EVENTS": "the hardware counters, else software events",
                           "RESTART": "none"}[k]))
    return {k: v for k, v in vars(p.parse_args(argv)).items() if v is not None}, cmd


def run_ab(argv=()):
    """The A/B; the sysctl is restored on any exit: done, an error or a signal
    (AB.on_signal; one ignored from the start stays ignored, as in a shell)."""
    ab = AB(*settings(argv))    # usage errors exit 2 here, before anything is touched
    signals = [s for s in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM)
               if signal.getsignal(s) != signal.SIG_IGN]
    for sig in signals:
        signal.signal(sig, ab.on_signal)
    rc = 0
    try:
        ab.measure()
    except SystemExit as e:
        rc = e.code
    finally:
        for sig in signals:     # let nothing interrupt the restore
            signal.signal(sig, signal.SIG_IGN)
        if not ab.restore() and rc == 0:
            rc = 1
    return rc


main = run_ab       # python3 -m bench run perf-ab

if __name__ == "__main__":
    sys.exit(run_ab(sys.argv[1:]))
