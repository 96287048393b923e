#!/usr/bin/env python3
"""The tests of bench/perfab.py, make perf-ab (make perf-ab-test), as TAP.

    python3 bench/tests/test_perfab.py

No hardware counters needed: perfab.py is tested on the canned perf stat
outputs of bench/tests/perf-stat/ and against hand-computed statistics, and
the whole A/B end to end with bench/tests/fake-perf as PERF, a plain file as
KSTACK_COLOUR_SYSCTL and the fake workloads of bench/tests/fake-wl (one case
builds and runs the real ones).  Prints one `ok N - ...` / `not ok N - ...`
line per check, then the plan `1..N`; exit 1 if any failed.
"""

import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
CANNED = os.path.join(HERE, "perf-stat")
FAKE_PERF = os.path.join(HERE, "fake-perf")
FAKE_WL = os.path.join(HERE, "fake-wl")
PERFAB = ["-m", "bench", "run", "perf-ab"]    # from TOP
EVENTS = ["cycles", "instructions", "L1-dcache-load-misses", "L1-icache-load-misses",
          "LLC-load-misses"]

sys.path.insert(0, TOP)
from bench import perfab as pa  # noqa: E402
from harness import tap  # noqa: E402


class Tap(tap.Tap):
    """harness/tap.py's writer, with the last 25 lines of a failure's output."""

    def ok(self, cond, desc, diag=None):
        return self(cond, desc, () if cond else str(diag or "").splitlines()[-25:])

    def raises(self, fn, text, desc):
        """fn() raises PerfabError whose message contains text."""
        try:
            fn()
        except pa.PerfabError as e:
            return self.ok(text in str(e), desc, "message: %s" % e)
        return self.ok(False, desc, "no PerfabError")

    def end(self):
        return self.plan() == 0


def close(a, b, tol=1e-6):
    return abs(a - b) <= tol * max(1.0, abs(b))


def canned(name):
    return os.path.join(CANNED, name)


# ------------------------------------------------------------------ parsing

def test_parse(t):
    recs = pa.parse_file(canned("normal.csv"))
    counts = pa.aggregate(recs)
    t.ok([r.event for r in recs] == EVENTS, "normal: the five events, comment and blank skipped",
         [r.name for r in recs])
    t.ok(counts["cycles"].value == 1543298765 and counts["instructions"].value == 1201928374
         and counts["L1-dcache-load-misses"].value == 12873645
         and counts["LLC-load-misses"].value == 23456, "normal: the values",
         {e: c.value for e, c in counts.items()})
    t.ok(all(c.status == pa.COUNTED and c.pct == 100.0 and c.runtime == 412345678
             for c in counts.values()), "normal: counted, 100% running, run time")
    t.ok(pa.probe_problems(canned("normal.csv"), EVENTS) == [], "normal: probe finds no problem")

    counts = pa.aggregate(pa.parse_file(canned("not-supported.csv")))
    t.ok([c.status for c in counts.values()] ==
         [pa.COUNTED, pa.COUNTED, pa.NOT_SUPPORTED, pa.NOT_SUPPORTED, pa.NOT_SUPPORTED]
         and counts["L1-dcache-load-misses"].value is None,
         "not-supported: cycles, instructions counted; the cache events <not supported>")
    probs = pa.probe_problems(canned("not-supported.csv"), EVENTS)
    t.ok(probs == ["L1-dcache-load-misses, L1-icache-load-misses, LLC-load-misses "
                   "<not supported>"], "not-supported: probe names the three events", probs)

    counts = pa.aggregate(pa.parse_file(canned("not-counted.csv")))
    t.ok(counts["L1-dcache-load-misses"].status == pa.NOT_COUNTED
         and counts["L1-dcache-load-misses"].value is None, "not-counted: <not counted> has no value")
    t.ok(counts["cycles"].pct == 71.43 and counts["LLC-load-misses"].pct == 57.14
         and counts["cycles"].value == 2876543210, "not-counted: multiplexing percentages kept")
    probs = pa.probe_problems(canned("not-counted.csv"), EVENTS)
    t.ok(probs == ["L1-dcache-load-misses <not counted>"], "not-counted: probe reports it", probs)

    recs = pa.parse_file(canned("hybrid.csv"))
    counts = pa.aggregate(recs)
    t.ok(len(recs) == 10 and list(counts) == EVENTS
         and {r.pmu for r in recs} == {"cpu_core", "cpu_atom"},
         "hybrid: cpu_core/ and cpu_atom/ lines map to the five events", list(counts))
    t.ok(counts["cycles"].value == 12345678 + 1498765432
         and counts["instructions"].value == 10234567 + 2987654321,
         "hybrid: counts of both PMUs summed")
    t.ok(counts["L1-dcache-load-misses"].value == 9876543
         and counts["L1-dcache-load-misses"].status == pa.COUNTED
         and counts["LLC-load-misses"].value == 34567,
         "hybrid: the other PMU's <not counted> / <not supported> leaves the counted one")
    t.ok(pa.probe_problems(canned("hybrid.csv"), EVENTS) == [], "hybrid: probe accepts it")

    probs = pa.probe_problems(canned("user-only.csv"), EVENTS)
    t.ok(len(probs) == 1 and "user mode only" in probs[0] and "cycles:u" in probs[0],
         "user-only (:u fallback): probe says there are no kernel counts", probs)
    t.ok(pa.probe_problems(canned("user-only.csv"), [e + ":u" for e in EVENTS]) == [],
         "user-only: fine when :u was asked for")

    t.ok(pa.split_event("cycles") == (None, "cycles", "")
         and pa.split_event("cycles:u") == (None, "cycles", "u")
         and pa.split_event("cpu_core/cycles/") == ("cpu_core", "cycles", "")
         and pa.split_event("cpu_atom/L1-dcache-load-misses/u") ==
         ("cpu_atom", "L1-dcache-load-misses", "u")
         and pa.split_event("cpu_core/cycles:k/") == ("cpu_core", "cycles", "k"),
         "split_event: PMU prefixes and modifiers")

    recs = pa.parse_lines(["1234,,cycles,0.52%,5678,100.00,,", ",,,,,0.50,stalled per insn",
                           "  # a comment", ""])
    t.ok(len(recs) == 1 and recs[0].value == 1234 and recs[0].runtime == 5678
         and recs[0].pct == 100.0, "-r variance field and metric-only lines", recs)
    recs = pa.parse_lines(["1.20,msec,task-clock:u,1204272,100.00,0.697,CPUs utilized"])
    t.ok(recs[0].value == 1.2 and recs[0].unit == "msec" and recs[0].event == "task-clock",
         "a fractional value with a unit")


def test_malformed(t, tmp):
    t.raises(lambda: pa.parse_file(canned("garbage.csv")), "garbage.csv:1: counter value "
             "'workload' is not a number", "garbage: error names file, line and field")
    t.raises(lambda: pa.parse_lines(["# started on Mon", "", "# nothing else"], "x"),
             "no counter lines", "only comments: 'no counter lines'")
    t.raises(lambda: pa.parse_lines(["Error:", "No permission to enable cycles event."], "e"),
             "e:1: not a perf stat -x, counter line", "perf's error text: not a counter line")
    t.raises(lambda: pa.parse_lines(["123,,,456,100.00"], "f"), "f:1: no event name",
             "a value without an event name")
    t.raises(lambda: pa.parse_lines(["123,,cycles,abc,100.00"], "f"), "run time 'abc'",
             "a bad run time")
    t.raises(lambda: pa.aggregate(pa.parse_lines(["1,,cycles:u,1,100", "2,,cycles:k,1,100"])),
             "appears twice", "one event twice from one PMU is refused")
    t.raises(lambda: pa.parse_file(canned("no-such-file.csv")), "No such file",
             "a missing file")
    r, _, work = run_script(flow_dir(tmp, "garbage"), {"FAKE_PERF_MODE": "garbage"})
    t.ok(r.returncode == 1 and r.stderr.startswith("perf-ab: error: ") and
         len(r.stderr.splitlines()) == 1 and "probe.csv:1: counter value 'workload'" in r.stderr
         and not r.stdout and not os.path.exists(work),
         "perf output that is not perf stat's: exit 1, one clear line on stderr", r)
    counts = pa.aggregate(pa.parse_file(canned("hybrid.csv")))
    c = counts["cycles"]
    t.ok(len(counts) == 5 and (c.status, c.value, c.pct, c.pmus) ==
         (pa.COUNTED, 1511111110, 100.0, ["cpu_atom", "cpu_core"]),
         "hybrid: one Count per event, its PMUs' lines summed", vars(c))
    probs = pa.probe_problems(canned("not-supported.csv"), ",".join(EVENTS).split(","))
    t.ok(len(probs) == 1 and "<not supported>" in probs[0],
         "probe of EVENTS on not-supported: refused, the reason given", probs)


# --------------------------------------------------------------- statistics

def test_stats(t):
    """perf-ab's statistics are bench/paired.py's (its own tests: test_paired.py)."""
    t.ok(pa.mean([1, 2, 3, 4, 5]) == 3, "mean 3")
    # Exact: df 1 is Cauchy, P(|T| > 1) = 1/2; df 2: P(|T| > t) = 1 - t / sqrt(2 + t^2).
    # Tables: t(0.975, 10) = 2.228139, t(0.975, 18) = 2.100922, t(0.995, 18) = 2.878440.
    tp = pa.paired.t_pvalue
    ps = [tp(1, 1), tp(2, 2), tp(2.228139, 10), tp(-2.100922, 18), tp(2.878440, 18), tp(0, 7),
          tp(math.inf, 5)]
    t.ok(close(ps[0], 0.5, 1e-9) and close(ps[1], 1 - 2 / math.sqrt(6), 1e-9) and
         close(ps[2], 0.05, 1e-5) and close(ps[3], 0.05, 1e-5) and close(ps[4], 0.01, 1e-5)
         and ps[5] == 1.0 and ps[6] == 0.0, "two-sided p against exact values and t tables", ps)
    # Pairs cancel the drift that an unpaired test would count as noise: trial i
    # of both arms shares a drift, on is 1% lower.
    drift = [100, 150, 80, 120, 60]
    c = pa.paired.Paired(drift, [x * 0.99 * (1 + 0.001 * (-1) ** i) for i, x in
                                 enumerate(drift)])
    t.ok(c.verdict == pa.paired.LOWER and c.hi < 0,
         "a 1%% drop under a drift of +-50%% between trials: paired, lower (%s)" % c.interval())


def test_report_notes(t, tmp):
    """report on canned files: the missing-sample and multiplexing notes."""
    d = os.path.join(tmp, "report")
    os.makedirs(os.path.join(d, "raw"))
    rows = ["case\tworkload\tcmd\tstate\trep\tcsv\tout"]
    for i, (state, src) in enumerate([("off", "normal.csv"), ("on", "not-counted.csv"),
                                      ("off", "normal.csv"), ("on", "not-counted.csv")]):
        shutil.copy(canned(src), os.path.join(d, "raw", "%d.csv" % i))
        with open(os.path.join(d, "raw", "%d.out" % i), "w") as f:
            f.write("forkloop forks=2000 ctxt=4003\n")
        rows.append("forkloop\tforkloop\tforkloop 2000\t%s\t%d\traw/%d.csv\traw/%d.out" % (
            state, i // 2 + 1, i, i))
    with open(os.path.join(d, "runs.tsv"), "w") as f:
        f.write("\n".join(rows) + "\n")
    try:
        out, err = pa.Report(d).write(), ""
    except (pa.PerfabError, OSError) as e:
        out, err = "", str(e)
    t.ok(not err and "L1-dcache-load-misses: counted in 2 of 2 off runs and 0 of 2 "
         "on runs" in out and "lowest 57.1% running" in out and "off per fork" in out,
         "report: notes a <not counted> event and multiplexing", out + err)
    t.ok("| cycles | 1,543,298,765 | 1,543,298,765 | 1,543,298,765 | 2,876,543,210 | "
         "2,876,543,210 | 2,876,543,210 | +86.39% [+86.39%, +86.39%] | **higher** | 2 |" in out,
         "report: the table row: each arm's mean, median, p99, the paired interval", out)
    t.ok(os.path.exists(os.path.join(d, "results.md")) and
         open(os.path.join(d, "runs.csv")).read().count("\n") == 1 + 4 * 5,
         "report: results.md and runs.csv (a header and 20 rows)")


# ------------------------------------------------------------- the A/B flow

def split_settings(env):
    """perfab.py's settings out of an environment, as its flags: (env, flags).
    KSTACK_COLOUR_SYSCTL stays in the environment too: fake-perf reads it."""
    flags = [x for k in pa.SETTINGS if k in env for x in (pa.FLAGS[k], env[k])]
    return {k: v for k, v in env.items()
            if k not in pa.SETTINGS or k == "KSTACK_COLOUR_SYSCTL"}, flags


def run_script(tmp, env=None, sysctl="1", timeout=120, cmd=None):
    """Run the A/B with the fakes (and -- cmd); (CompletedProcess, sysctl file, work dir)."""
    path = os.path.join(tmp, "kstack_colour")
    work = os.path.join(tmp, "work")
    state = os.path.join(tmp, "state")
    os.makedirs(state, exist_ok=True)
    if sysctl is not None:
        with open(path, "w") as f:
            f.write(sysctl + "\n")
    e = dict(os.environ, PERF=FAKE_PERF, KSTACK_COLOUR_SYSCTL=path, WL_DIR=FAKE_WL, WORK=work,
             FAKE_PERF_STATE=state, REPEATS="4", WARMUP="1", RING_NS="2 4",
             RING_SWITCHES="1000", MSG_ARGS="1 2 3", FORKS="10", PIN_CPU="none")
    for k in ("FAKE_PERF_MODE", "FAKE_WL_FAIL", "FAKE_WL_SLEEP", "EVENTS", "RESTART",
              "FAKE_PERF_LOG", "SYSTEM_WIDE"):
        e.pop(k, None)
    # Never the host's debugfs: a test's own params file, else none.
    e["PARAMS"] = os.path.join(tmp, "no-params")
    e.update(env or {})
    e, flags = split_settings(e)
    r = subprocess.run([sys.executable] + PERFAB + flags + (["--"] + cmd if cmd is not None else []),
                       env=e, capture_output=True, text=True, timeout=timeout, cwd=TOP)
    return r, path, work


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def flow_dir(base, name):
    d = os.path.join(base, name)
    os.makedirs(d)
    return d


def test_flow(t, tmp):
    r, _, work = run_script(flow_dir(tmp, "noperf"), {"PERF": "/nonexistent/perf"})
    t.ok(r.returncode == pa.EXIT_NO_PERF == 3 and "perf is not installed" in r.stderr and
         "linux-perf" in r.stderr and not os.path.exists(work),
         "no perf: says what to install, exit 3, nothing written", r)

    r, sysctl, work = run_script(flow_dir(tmp, "unsupported"), {"FAKE_PERF_MODE": "unsupported"},
                                 sysctl="0")
    t.ok(r.returncode == pa.EXIT_EVENT == 6 and "events not counted on this machine: " +
         ", ".join(EVENTS) + " <not supported>; " + pa.SOFTWARE_EVENTS.replace(",", ", ") +
         " <not supported>" in r.stderr and "--events" in r.stderr,
         "nothing counted, not even software events: the events named, exit 6", r)
    t.ok(read(sysctl) == "0\n" and not os.path.exists(work),
         "nothing counted: sysctl untouched, no results")

    r, _, _ = run_script(flow_dir(tmp, "eperm"), {"FAKE_PERF_MODE": "eperm"})
    t.ok(r.returncode == pa.EXIT_PERMISSION == 4 and "perf stat may not count here (Error: No "
         "permission to enable cycles event." in r.stderr and "perf_event_paranoid" in r.stderr,
         "perf_event_open permission error: exit 4, paranoid advice", r)

    r, _, _ = run_script(flow_dir(tmp, "unknown"), {"FAKE_PERF_MODE": "unknown",
                                                    "EVENTS": "cycles,bogus"})
    t.ok(r.returncode == pa.EXIT_EVENT and "perf does not know an event of cycles,bogus" in
         r.stderr and "perf list" in r.stderr, "an event perf does not know: exit 6", r)

    r, _, _ = run_script(flow_dir(tmp, "notcounted"), {"FAKE_PERF_MODE": "not-counted"})
    t.ok(r.returncode == pa.EXIT_EVENT and "(L1-dcache-load-misses <not counted>)" not in
         r.stderr and "L1-dcache-load-misses <not counted>" in r.stderr,
         "a PMU that counts some events but not all: exit 6, the event named", r)

    r, _, _ = run_script(flow_dir(tmp, "user"), {"FAKE_PERF_MODE": "user"})
    t.ok(r.returncode == pa.EXIT_PERMISSION and "user mode only" in r.stderr,
         ":u fallback (perf_event_paranoid): no kernel counts, exit 4", r)

    r, _, _ = run_script(flow_dir(tmp, "nokcolour"), {"KSTACK_COLOUR_SYSCTL": "/nonexistent/ks"},
                         sysctl=None)
    t.ok(r.returncode == pa.EXIT_NO_SYSCTL == 5 and "not running a kcolour kernel" in r.stderr,
         "counters but no sysctl: not a kcolour kernel, exit 5", r)

    r, _, _ = run_script(flow_dir(tmp, "hybrid"), {"FAKE_PERF_MODE": "hybrid",
                                                   "KSTACK_COLOUR_SYSCTL": "/nonexistent/ks"},
                         sysctl=None)
    t.ok(r.returncode == pa.EXIT_NO_SYSCTL and "counters: " in r.stderr and
         "not running a kcolour" in r.stderr, "hybrid probe output passes the probe", r)

    r, sysctl, work = run_script(flow_dir(tmp, "vm"), {"FAKE_PERF_MODE": "vm", "REPEATS": "3"},
                                 cmd=[os.path.join(FAKE_WL, "forkloop"), "5"])
    t.ok(r.returncode == 0 and "Events: " + pa.SOFTWARE_EVENTS in r.stdout and
         "the hardware counters are not counted here" in r.stdout and "| task-clock |" in
         r.stdout and read(sysctl) == "1\n",
         "no PMU (a VM): the software events, and the user's command measured", r)

    if os.geteuid() == 0:
        t.skip("read-only sysctl: needs root, exit 1", "running as root, who may write anything")
    else:
        d = flow_dir(tmp, "readonly")
        path = os.path.join(d, "ro")
        with open(path, "w") as f:
            f.write("1\n")
        os.chmod(path, 0o444)
        r, _, _ = run_script(d, {"KSTACK_COLOUR_SYSCTL": path}, sysctl=None)
        t.ok(r.returncode == pa.EXIT_PERMISSION and "needs root" in r.stderr,
             "read-only sysctl: needs root, exit 4", r)

    # --system-wide 1: perf stat -a on every run (a service's processes counted too).
    logs = {}
    for wide in ("0", "1"):
        d = flow_dir(tmp, "wide-" + wide)
        logs[wide] = os.path.join(d, "perf.log")
        r, _, _ = run_script(d, {"FAKE_PERF_MODE": "vm", "REPEATS": "2", "SYSTEM_WIDE": wide,
                                 "FAKE_PERF_LOG": logs[wide]},
                             cmd=[os.path.join(FAKE_WL, "forkloop"), "5"])
        logs[wide] = (r.returncode, (read(logs[wide]) or "").splitlines())
    t.ok(logs["1"][0] == 0 and logs["1"][1] and all(" -a " in x for x in logs["1"][1]) and
         logs["0"][0] == 0 and logs["0"][1] and not any(" -a " in x for x in logs["0"][1]),
         "--system-wide 1 counts every run with perf stat -a, 0 (the default) none",
         [logs["1"][1][:2], logs["0"][1][:2]])

    # One colour derived here: refused before any run, the sysctl untouched.
    d = flow_dir(tmp, "one-colour")
    params = os.path.join(d, "params")
    with open(params, "w") as f:
        f.write("enabled: 0\nlevel: 1\nshift: 12\ncolours: 1\nstep: 1024\n")
    r, sysctl, work = run_script(d, {"PARAMS": params}, sysctl="0")
    t.ok(r.returncode == pa.EXIT_ONE_COLOUR == 7 and "derived one colour" in r.stderr and
         "kstack_colour=colours=3" in r.stderr and read(sysctl) == "0\n" and
         not os.path.exists(os.path.join(work, "raw")),
         "a kernel that derived one colour: refused, exit 7, nothing measured, the sysctl "
         "as it was", r)
    for text, what in (("enabled: 1\ncolours: 3\nstep: 1024\n", "three colours: measured"),
                       ("enabled: 1\n", "no colours line: said, and measured")):
        d = flow_dir(tmp, "colours-%d" % len(text))
        params = os.path.join(d, "params")
        with open(params, "w") as f:
            f.write(text)
        r, sysctl, _ = run_script(d, {"PARAMS": params, "FAKE_PERF_MODE": "vm", "REPEATS": "2"},
                                  cmd=[os.path.join(FAKE_WL, "forkloop"), "5"])
        t.ok(r.returncode == 0 and read(sysctl) == "1\n" and
             ("colours: 3" in text or "has no colours line" in r.stderr),
             "params with %s" % what, r)

    for k, v in (("REPEATS", "1"), ("RING_NS", "1"), ("PIN_CPU", "x"), ("SYSTEM_WIDE", "2")):
        r, _, _ = run_script(flow_dir(tmp, "usage-" + k), {k: v})
        t.ok(r.returncode == 2 and pa.FLAGS[k] in r.stderr, "%s %s: usage error, exit 2"
             % (pa.FLAGS[k], v), r)

    # The full fake A/B.
    cpu = str(min(os.sched_getaffinity(0)))
    pin = {"PIN_CPU": cpu} if shutil.which("taskset") else {}
    r, sysctl, work = run_script(flow_dir(tmp, "full"), pin)
    out = r.stdout
    t.ok(r.returncode == 0 and read(sysctl) == "1\n", "full fake A/B: exit 0, sysctl back to 1", r)
    md = read(os.path.join(work, "results.md"))
    t.ok(md is not None and md == out, "results.md written and printed on stdout")
    rows = [line.split("\t") for line in (read(os.path.join(work, "runs.tsv")) or "").splitlines()]
    t.ok(len(rows) == 1 + 4 * 2 * 4 and [x[3] for x in rows[1:9]] == ["off", "on"] * 4 and
         [x[4] for x in rows[1:9]] == ["1", "1", "2", "2", "3", "3", "4", "4"],
         "runs.tsv: 4 cases x 4 runs x 2 states, off/on interleaved", rows[:10])
    cases = [line for line in out.splitlines() if line.startswith("## ")]
    t.ok(cases == ["## ring 2 500", "## ring 4 250", "## messaging 1 2 3", "## forkloop 10"],
         "one table per case", cases)
    l1d = [line for line in out.splitlines() if line.startswith("| L1-dcache-load-misses |")]
    other = [line for line in out.splitlines() if line.startswith("| cycles |") or
             line.startswith("| LLC-load-misses |")]
    t.ok(len(l1d) == 4 and all("| -10.00% [-10.00%, -10.00%] | **lower** | 2 |" in x
                               for x in l1d),
         "the fake 10% L1D effect: lower in every case", "\n".join(l1d))
    t.ok(len(other) == 8 and all("| +0.00% [+0.00%, +0.00%] | no measurable effect, within "
                                 "±0.00% |" in x for x in other),
         "events without an effect: no measurable effect", "\n".join(other))
    t.ok("95% Student's t interval" in out and "4 of 24 comparisons real (the 95% interval "
         "excludes 0)" in out, "the rule and the summary are stated", out[-300:])
    csv = (read(os.path.join(work, "runs.csv")) or "").splitlines()
    ring2 = [x.split(",") for x in csv if x.startswith("ring-2,ring,off,1,cycles,")]
    t.ok(len(csv) == 1 + 32 * 5 and len(ring2) == 1 and ring2[0][9:] == ["1000", "switch"],
         "runs.csv: every run's counts, ring's denominator N x rounds", csv[:3])
    vals = [float(x.split(",")[6]) for x in csv if x.startswith("ring-2,ring,off,") and
            x.split(",")[4] == "cycles"]
    row = next((x for x in out.splitlines() if x.startswith("| cycles |")), "")
    t.ok(len(vals) == 4 and row.split(" | ")[-2] == pa.fmt(pa.mean(vals) / 1000),
         "ring 2: off per switch = mean cycles / (2 x 500) switches", (row, vals))
    t.ok(("Pinned to: CPU %s (taskset)" % cpu in out) if pin else True,
         "pinned with taskset to CPU %s" % cpu if pin else "taskset missing: not pinned")

    r, sysctl, _ = run_script(flow_dir(tmp, "full0"), {"RING_NS": "", "MSG_ARGS": "",
                                                       "REPEATS": "2"}, sysctl="0")
    t.ok(r.returncode == 0 and read(sysctl) == "0\n" and "## forkloop 10" in r.stdout and
         "## ring" not in r.stdout, "from 0: restored to 0; empty RING_NS/MSG_ARGS skip them", r)

    r, sysctl, _ = run_script(flow_dir(tmp, "fail"), {"FAKE_WL_FAIL": "messaging"})
    t.ok(r.returncode == 1 and "messaging (off, run 0) failed" in r.stderr and
         "fake failure" in r.stderr and read(sysctl) == "1\n",
         "a workload fails: exit 1, its message, sysctl restored", r)

    d = flow_dir(tmp, "restart")
    log = os.path.join(d, "restarts")
    r, sysctl, work = run_script(d, {"RESTART": "cat %s >> %s" % (os.path.join(d, "kstack_colour"),
                                                                   log), "REPEATS": "2"},
                                 cmd=["sh", "-c", "echo measured"])
    t.ok(r.returncode == 0 and read(log) == "0\n1\n" * 3 and "## sh -c echo measured" in
         r.stdout and "Restarted after each switch: cat " in r.stdout and
         read(os.path.join(work, "raw", "cmd-on-2.out")) == "measured\n",
         "-- CMD with --restart: the restart runs after each switch (it saw 0, 1, ...), "
         "the command's output kept", r)
    r, sysctl, _ = run_script(flow_dir(tmp, "restart-fails"), {"RESTART": "exit 3"},
                              cmd=["true"])
    t.ok(r.returncode == pa.EXIT_ERROR and "--restart 'exit 3' failed (exit 3)" in r.stderr
         and read(sysctl) == "1\n", "a failing --restart: exit 1, sysctl restored", r)
    r, _, _ = run_script(flow_dir(tmp, "dashdash"), cmd=[])
    t.ok(r.returncode == pa.EXIT_USAGE and "-- must be followed by a command" in r.stderr,
         "-- without a command: usage error, exit 2", r)
    r, sysctl, _ = run_script(flow_dir(tmp, "cmd-fails"), cmd=["sh", "-c", "echo oops >&2; exit 7"])
    t.ok(r.returncode == pa.EXIT_ERROR and "oops" in r.stderr and "cmd (off, run 0) failed" in
         r.stderr and read(sysctl) == "1\n", "the user's command fails: its output, exit 1", r)

    test_signal(t, flow_dir(tmp, "signal"))

    if shutil.which("gcc") and shutil.which("make"):
        r, sysctl, work = run_script(flow_dir(tmp, "real-wl"), {
            "WL_DIR": "", "REPEATS": "2", "WARMUP": "0", "RING_NS": "2", "RING_SWITCHES": "2000",
            "MSG_ARGS": "1 2 10", "FORKS": "20"}, timeout=300)
        csv = read(os.path.join(work, "runs.csv")) or ""
        t.ok(r.returncode == 0 and os.access(os.path.join(work, "bin", "ring"), os.X_OK) and
             ",ring,off,1,cycles,counted," in csv and ",1,L1-dcache-load-misses,counted," in csv
             and "off per fork" in r.stdout and "off per switch" in r.stdout,
             "the real workloads: built into WORK/bin, their lines parsed", r)
    else:
        t.skip("the real workloads", "no gcc or make")


def test_signal(t, d):
    """SIGTERM in the middle of a run: exit 143, the sysctl restored."""
    path = os.path.join(d, "kstack_colour")
    with open(path, "w") as f:
        f.write("1\n")
    e = dict(os.environ, PERF=FAKE_PERF, KSTACK_COLOUR_SYSCTL=path, WL_DIR=FAKE_WL,
             WORK=os.path.join(d, "work"), REPEATS="2", RING_NS="2", MSG_ARGS="", FORKS="",
             PIN_CPU="none", FAKE_WL_SLEEP="1")
    for k in ("FAKE_PERF_MODE", "FAKE_WL_FAIL", "FAKE_PERF_STATE", "EVENTS"):
        e.pop(k, None)
    e, flags = split_settings(e)
    p = subprocess.Popen([sys.executable] + PERFAB + flags, cwd=TOP, env=e, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 20
        while read(path) != "0\n" and time.monotonic() < deadline and p.poll() is None:
            time.sleep(0.05)
        switched = read(path) == "0\n"
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    t.ok(switched and p.returncode == 143 and read(path) == "1\n" and "restored" in err,
         "SIGTERM during a run: exit 143, sysctl restored from 0 to 1",
         "switched=%s rc=%s sysctl=%r\n%s" % (switched, p.returncode, read(path), err))


def main():
    t = Tap()
    tmp = tempfile.mkdtemp(prefix="perfab-test.")
    try:
        for group in (test_parse, test_malformed, test_stats, test_report_notes, test_flow):
            try:
                group(t, tmp) if group.__code__.co_argcount == 2 else group(t)
            except Exception:       # a crash is one failure, the other groups still run
                t.ok(False, "%s ran to its end" % group.__name__, traceback.format_exc())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0 if t.end() else 1


if __name__ == "__main__":
    sys.exit(main())
