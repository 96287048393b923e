"""make hw-kernels / make hw-check: confirm or refute the simulator on a real
machine with the same kernels, interleaved boots under KVM and the hardware
counters, the simulator's prediction beside every row.

    python3 -m hw.hw_check kernels [--quick]     make hw-kernels: the comparison set
    python3 -m hw.hw_check check [FLAGS]         make hw-check: boot, count, pair, report
    python3 -m hw.hw_check report DIR            the report of a check's work dir again
    python3 -m hw.hw_check merge FILE...         one table of sent-back files, a row a CPU
    python3 -m hw.hw_check fleet HOSTS-FILE      make hw-check HOSTS=FILE: check on each
                                                 host (GNU parallel --sshloginfile), merge
    python3 -m hw.hw_check lava OUT              make hw-check-lava: a LAVA job a boot, on
                                                 bare metal, in the seeded order
    python3 -m hw.hw_check lava-import OUT LOG...  the jobs' logs into a report
    (each from the top of the tree, not by its path)

kernels: each facts.tsv hw-kernel IMAGE, with bench-net (the web server) and
LOCALVERSION -kcolour-IMAGE, so that `uname -r` in the guest names it and
`make deb LOCALVERSION=-kcolour-IMAGE` packages install side by side; the
initramfs holds the workloads (the same lines the simulator ran, facts.tsv
layout-decision, and CMD=, the user's own program) with perf.  --quick:
make check's images (the test image, its colouring off and on by the sysctl).

check: each hw-kernel row boots under KVM (-cpu host,pmu=on: the host's
CPU and its counters in the guest), QEMU pinned to one host CPU, at -smp 1
and then -smp 2 (SMP=), ROUNDS rounds (at least 10) of every row in an order
drawn from SEED, so that drift in the machine spreads over every kernel.
Inside the guest perf stat counts each workload's marker window, the
simulator's (perf stat --control: the marker code enables the counters as the
window opens and disables them as it closes; the web server net of a
one-request run): cycles, instructions, L1I
misses, L2 code and data misses, iTLB misses and front-end stalls, by
facts.tsv's hwevent table for the CPU's vendor and family, perf's generic
events where it names none.  Under TCG (ACCEL=tcg, no KVM: how make check runs
it) the guest has no PMU: the software events (hwsoft), and every verdict is
"inconclusive: no hardware counters".

The report (WORK/report.md): for each hw-pair, workload and metric, the
hardware's change with its 95% interval paired over the rounds
(bench/lib/paired.py) beside the simulator's for the same pair on this CPU's
caches (the probe decodes them; the committed raw figures of the pair's
simulation where they hold this geometry, else "missing"), and a verdict:
confirmed (the same sign, the hardware interval excludes 0), refuted (the
opposite sign, excluding 0), or inconclusive.  Metrics and predictions:
L1I misses to L1I misses, L2 code misses to the simulator's L2 misses on
kernel text (the hardware's include user code), cycles to estimated cycles.
The file to send back (WORK/hw-check-MODEL.tar.gz): `cpuid -r`'s dump where
the cpuid tool is installed, the probe's decode, the kernels booted, every
count, the order, and the report.

A KernelCI/LAVA lab: `lava` writes the same plan as LAVA jobs (OUT/jobs/,
one a boot, in the seeded order: the kernel and the initramfs deployed by
TFTP and booted on the device itself, a monitors test action that waits
for the guest's end marker), with the artifacts to serve from ARTIFACTS_URL
(OUT/artifacts/); the lab's plain-text job logs, named as the jobs are,
go back through `lava-import` into the report and the file to send back.
The kernels boot on bare metal there, not under KVM, one at a time.

Exit: 0 done (whatever the verdicts); 1 a boot or its output failed; 2 bad
usage; 3 no KVM (/dev/kvm missing: ACCEL=tcg runs without counters);
4 no permission (/dev/kvm not read-write for this user); 5 a kernel not
built (make hw-kernels); 6 a CPU the event table does not know (GENERIC=1
counts perf's generic events); 7 a host that does not answer (fleet).
"""

import argparse
import collections
import io
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

from bench import perfab
from bench.lib import paired
from bench.lib.data import Phase, WORKLOAD_RE, parse_kv
from bench.lib.guest import cmd_workload, guest_programs
from bench.lib.probe import bench_caches, probe_caches
from harness import facts, kconfig, kernel, qemu, tap, util

HERE = Path(__file__).resolve().parent

ROOT = facts.ROOT
WORK = ROOT / "build/hw-check"
EXIT_FAIL, EXIT_USAGE, EXIT_NO_KVM, EXIT_PERMISSION, EXIT_NO_KERNEL, EXIT_UNKNOWN_CPU, \
    EXIT_NO_ANSWER = 1, 2, 3, 4, 5, 6, 7
WSET, QUICK_WSET = "layout-decision", "hw-check-quick"
MIN_ROUNDS, QUICK_ROUNDS = 10, 2
# make check's images: the test image, with the colouring the sysctl switches.
QUICK_KERNELS = {"colour-off": ["test", "0", "test image, colouring off (sysctl)"],
                 "colour-on": ["test", "1", "test image, colouring on (sysctl)"]}
QUICK_PAIRS = [["colour-on", "colour-off", "-"]]
METRICS = ("cycles", "instructions", "L1I misses", "L2 code misses", "L2 data misses",
           "iTLB misses", "front-end stalls")
# The simulator's metric (falign/decision.py METRICS) a hardware metric is judged by.
PREDICTED = {"L1I misses": "L1I misses", "L2 code misses": "L2 misses, kernel text",
             "cycles": "estimated cycles"}
NO_COUNTERS = "inconclusive: no hardware counters"
CONFIRMED, REFUTED, INCONCLUSIVE = "confirmed", "refuted", "inconclusive"


class HwError(Exception):
    def __init__(self, msg, status=EXIT_FAIL):
        super().__init__(msg)
        self.status = status


def say(msg):
    print("[hw-check] %s" % msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- the CPU

def cpu_identity(cpuinfo_text):
    """(vendor, family, model name) of /proc/cpuinfo's first CPU."""
    first = cpuinfo_text.split("\n\n")[0]
    field = dict((k.strip(), v.strip()) for k, _, v in
                 (line.partition(":") for line in first.splitlines()) if _)
    if "vendor_id" not in field or "cpu family" not in field:
        raise HwError("/proc/cpuinfo names no vendor_id and cpu family: an unknown CPU",
                      EXIT_UNKNOWN_CPU)
    return field["vendor_id"], int(field["cpu family"]), field.get("model name", "?")


def _family_matches(spec, family):
    if spec == "*":
        return True
    lo, _, hi = spec.partition("-")
    return int(lo, 16) <= family <= int(hi or lo, 16)


def events_for(vendor, family, generic=False):
    """{metric: perf event} for the CPU: its vendor's rows, the generic rows
    where they name none; HwError (6) for a vendor the table lacks, unless
    generic."""
    rows = facts.rows("hwevent")
    own = [r for r in rows if r[0] == vendor and _family_matches(r[1], family)]
    if not own and not generic:
        raise HwError("no hwevent rows for %s family %#x in facts.tsv: GENERIC=1 counts "
                      "perf's generic events" % (vendor, family), EXIT_UNKNOWN_CPU)
    chosen = {}
    for v, fam, metric, event in own + [r for r in rows if r[0] == "*"]:
        chosen.setdefault(metric, event)
    return {m: chosen[m] for m in METRICS if m in chosen}


def software_events():
    return {e: e for e, in facts.rows("hwsoft")}


# ------------------------------------------------------- guest output

class Workload:
    """One workload of one boot: its label, its events and {metric: count or
    None (not counted)}."""

    def __init__(self, label, events, counts):
        self.label, self.events, self.counts = label, events, counts

    def per_event(self, metric):
        c = self.counts.get(metric)
        return None if c is None or not self.events else c / self.events


def parse_console(text, metrics):
    """(uname, [Workload]) from a boot's console: the HWCHECK lines
    hw/guest.sh prints; metrics {metric: perf event}.  HwError on a
    malformed block."""
    uname, blocks, cur = None, [], None
    for line in text.replace("\r", "").splitlines():
        if "HWCHECK uname " in line:    # after the firmware's escapes, on a console
            uname = line[line.index("HWCHECK uname "):].split(" ", 2)[2].strip()
        elif line.startswith("HWCHECK begin "):
            cur = {"line": line.split(" ", 2)[2], "perf": [], "info": None}
        elif cur is not None and line.startswith("HWPERF "):
            cur["perf"].append(line[len("HWPERF "):])
        elif cur is not None and line == "HWCHECK end":
            blocks.append(cur)
            cur = None
        elif cur is not None and cur["info"] is None:
            m = WORKLOAD_RE.search(line)
            if m:
                cur["info"] = (m.group(1), parse_kv(m.group(2)))
    if uname is None:
        raise HwError("no HWCHECK uname line: the guest did not run hw/guest.sh")
    phases = []
    for b in blocks:
        if b["info"] is None:
            raise HwError("workload %r printed no key=value line" % b["line"])
        try:
            counts = perfab.aggregate(perfab.parse_lines(b["perf"], b["line"]), b["line"])
        except perfab.PerfabError as e:
            raise HwError("perf stat output of %r: %s" % (b["line"], e))
        by_event = {c.event: c for c in counts.values()}
        values = {}
        for metric, event in metrics.items():
            c = by_event.get(perfab.split_event(event)[1])
            values[metric] = c.value if c is not None and c.status == perfab.COUNTED else None
        workload, info = b["info"]
        phases.append((Phase(workload, info, {"insns": 0}, {}), values))
    return uname, net(phases)


def net(phases):
    """[Workload]: each web phase less the boot's one-request web phase (ab's
    start-up), as the simulator's figures are (bench.lib.data.net())."""
    start = [(p, v) for p, v in phases if p.start_up]
    out = []
    for p, values in phases:
        if p.start_up:
            continue
        if p.workload == "web" and start:
            s, sv = start[0]
            values = {m: None if values[m] is None or sv[m] is None else values[m] - sv[m]
                      for m in values}
            events = p.unit[1] - s.unit[1]
        else:
            events = p.unit[1]
        out.append(Workload(p.label, events, values))
    return out


# ---------------------------------------------------------- predictions

def decision_prediction(case_image, control_image, workload, metric, caches):
    """(Paired, note) of the code-layout decision's raw figures for the pair,
    or (None, why) where they do not predict this geometry."""
    from falign import decision  # only the layout pairs need it
    from bench.lib.cost import latency
    want = PREDICTED.get(metric)
    if want is None:
        return None, "not simulated"
    if caches.get("L1I") != bench_caches()["L1I"] or caches.get("L1D") != bench_caches()["L1D"]:
        return None, "missing: L1s %s not simulated" % fmt_geom(caches)
    l2s = [bench_caches()["L2"][:2]] + [g for _, g in decision.L2S[1:]]
    if tuple(caches.get("L2", (0, 0))[:2]) not in [tuple(g) for g in l2s]:
        return None, "missing: L2 %s not simulated" % fmt_one(caches.get("L2"))
    h = [tuple(g) for g in l2s].index(tuple(caches["L2"][:2]))
    seeds = [str(s) for s in decision.SEEDS]
    data = decision.load([case_image, control_image], seeds, decision.DATA)
    got = [s for s in seeds if (case_image, s) in data and (control_image, s) in data]
    rows = [(data[(control_image, s)][0].get(workload), data[(case_image, s)][0].get(workload))
            for s in got]
    if not rows or any(a is None or b is None for a, b in rows):
        return None, "missing: %s not in the decision's raw figures" % workload
    lat = latency()
    f = decision.METRICS[want]
    return paired.Paired([f(a, h, lat) for a, _ in rows], [f(b, h, lat) for _, b in rows]), \
        "falign-decision, L2 %s, %d layouts" % (decision.L2S[h][0], len(rows))


PREDICTORS = {"falign-decision": decision_prediction}


def fmt_one(g):
    return "%dK %d-way" % (g[0] >> 10, g[1]) if g else "?"


def fmt_geom(caches):
    return ", ".join("%s %s" % (c, fmt_one(caches.get(c))) for c in ("L1D", "L1I", "L2"))


def verdict(hw, predicted, counters):
    """The row's verdict from the hardware's Paired and the simulator's: a
    sign is compared only where both intervals exclude 0."""
    if not counters:
        return NO_COUNTERS
    if hw is None or hw.n < 2:
        return INCONCLUSIVE + ": not counted here"
    if predicted is None:
        return INCONCLUSIVE + ": no prediction"
    if not predicted.real:
        return INCONCLUSIVE + ": no predicted change"
    if not hw.real:
        return INCONCLUSIVE
    return CONFIRMED if (hw.pct < 0) == (predicted.pct < 0) else REFUTED


# -------------------------------------------------------------- the run

class Plan:
    """What a check boots: the rows (facts.tsv hw-kernel), the pairs, the
    workload set, the rounds and their order."""

    def __init__(self, quick, rounds, seed, smps, only=None):
        self.quick = quick
        self.kernels = QUICK_KERNELS if quick else facts.table("hw-kernel")
        self.pairs = QUICK_PAIRS if quick else facts.rows("hw-pair")
        if only:
            keep = set(only)
            unknown = keep - set(self.kernels)
            if unknown:
                raise HwError("KERNELS=%s: not facts.tsv hw-kernel rows (%s)" % (
                    " ".join(sorted(unknown)), " ".join(self.kernels)), EXIT_USAGE)
            self.kernels = {k: v for k, v in self.kernels.items() if k in keep}
            self.pairs = [p for p in self.pairs if p[0] in keep and p[1] in keep]
        self.wset = QUICK_WSET if quick else WSET
        self.rounds, self.seed, self.smps = rounds, seed, smps
        rng = random.Random(seed)
        self.order = []
        for smp in smps:
            for r in range(rounds):
                keys = sorted(self.kernels)
                rng.shuffle(keys)
                self.order += [(smp, r, k) for k in keys]

    def images(self):
        return sorted({row[0] for row in self.kernels.values()})


def localversion(image):
    return "-kcolour-" + image


def localversion_fragment(image):
    """A fragment file of the image's LOCALVERSION (build/hw-check/fragments)."""
    f = WORK / "fragments" / ("localversion-%s.config" % image)
    f.parent.mkdir(parents=True, exist_ok=True)
    text = 'CONFIG_LOCALVERSION="%s"\n' % localversion(image)
    if not f.exists() or f.read_text() != text:
        f.write_text(text)
    return str(f)


def hw_fragments(image):
    """A hw-kernel IMAGE's fragments: its own, bench-net, its LOCALVERSION."""
    frags = facts.image_spec(image)[1]
    return frags + (["bench-net"] if "bench-net" not in frags else []) + \
        [localversion_fragment(image)]


def build_image(image, quick):
    """kernel.Image of a hw-kernel IMAGE: make check's own in a quick run, else
    the image with hw_fragments()."""
    if quick:
        return kernel.image(image)
    return kernel.image("hw-" + image, hw_fragments(image))


def initramfs(work, wset, cmd):
    """The guest's initramfs: hw/guest.sh, the workload lines, the bench's
    programs, perf, and the programs the cmd lines name."""
    lines = facts.workloads(wset) + (["cmd user -- %s" % cmd] if cmd else [])
    lines, progs = map(list, zip(*map(cmd_workload, lines)))
    shared = ROOT / "build/cachesim"
    with util.locked(str(shared) + ".lock", "build in %s" % shared):
        subprocess.run(["make", "-s", "-C", str(ROOT / "bench/cachesim"), "OUT=%s" % shared,
                        "workloads"], check=True, stdout=sys.stderr)
    (work / "workloads").write_text("".join(line + "\n" for line in lines))
    perf = shutil.which("perf")
    if not perf:
        raise HwError("perf not found (apt-get install linux-perf)", EXIT_USAGE)
    return qemu.initramfs(work / "initramfs.cpio.gz",
                          [(shared / w, "/bin/" + w) for w in guest_programs()] +
                          [(ROOT / "bench/workloads/phases.sh", "/bin/phases.sh"),
                           (HERE / "guest.sh", "/run.sh"), (work / "workloads", "/hw/workloads")] +
                          qemu.programs([perf] + [p for p, in facts.rows("guest")] +
                                        [p for ps in progs for p in ps if p]))


def preflight(accel):
    if accel != "kvm":
        return
    if not os.path.exists("/dev/kvm"):
        raise HwError("no /dev/kvm: this machine has no KVM (ACCEL=tcg runs the flow "
                      "without hardware counters)", EXIT_NO_KVM)
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        raise HwError("/dev/kvm is not read-write for this user (add it to group kvm)",
                      EXIT_PERMISSION)


def caches_of(dump=None):
    """The caches kcolour-probe decodes from a `cpuid -r` dump, or from this
    machine's CPU (None); HwError (6) where it cannot."""
    try:
        return probe_caches(dump)
    except util.Error as e:
        raise HwError(str(e), EXIT_UNKNOWN_CPU)


def host_caches(accel):
    """The caches of the CPU the guest runs on: this machine's under KVM, the
    emulated model's under TCG (the bench CPU's dump, which is what QEMU's
    Skylake-Client reports)."""
    return caches_of() if accel == "kvm" else bench_caches()


def count_rows(smp, rnd, boot, kernel_key, workloads, metrics):
    """counts.tsv's rows of one boot: a row a workload and metric."""
    return [[smp, rnd, boot, kernel_key, w.label, w.events, m, metrics[m],
             "-" if w.counts[m] is None else w.counts[m]] for w in workloads for m in metrics]


def check(opts):
    quick = opts.quick
    accel = "tcg" if quick else opts.accel
    preflight(accel)
    rounds = opts.rounds or (QUICK_ROUNDS if quick else MIN_ROUNDS)
    if not quick and rounds < MIN_ROUNDS:
        raise HwError("ROUNDS=%d: at least %d boots a kernel" % (rounds, MIN_ROUNDS), EXIT_USAGE)
    smps = [int(s) for s in (opts.smp or ("1" if quick else "1 2")).split()]
    plan = Plan(quick, rounds, opts.seed, smps, (opts.kernels or "").split() or None)
    work = Path(opts.work or (WORK / ("quick" if quick else "run")))
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    if accel == "kvm":
        vendor, family, model = cpu_identity(Path("/proc/cpuinfo").read_text())
        metrics, counters = events_for(vendor, family, opts.generic), True
        cpu = "host,pmu=on"
    else:
        cpu = facts.default_model()[0]
        vendor, family, model = "TCG", 0, "QEMU TCG, CPU model %s (no PMU)" % cpu
        metrics, counters = software_events(), False
    images = {}
    for image in plan.images():
        try:
            images[image] = build_image(image, quick) if quick else cached_image(image)
        except util.Error as e:
            raise HwError("kernel %s: %s" % (image, e))
    rd = initramfs(work, plan.wset, opts.cmd)
    events = ",".join(metrics.values())
    boots = []
    for smp, r, k in plan.order:
        image, sysctl, _ = plan.kernels[k]
        args = ["quiet", "kcolour.events=" + events] + \
            (["kcolour.sysctl=" + sysctl] if sysctl != "-" else [])
        boots.append(qemu.Boot("%s.smp%d.r%d" % (k, smp, r), images[image], rd, work,
                               model=cpu, smp=smp, mem="1G", timeout=1800, args=args,
                               accel=accel if accel == "kvm" else None,
                               pin_cpu=opts.pin_cpu))
    say("%d boots, one at a time, in the order of seed %d: %s" % (
        len(boots), plan.seed, " ".join(b.name for b in boots)))
    rows, unames = [], {}
    for i, (b, (smp, r, k)) in enumerate(zip(boots, plan.order)):
        start = time.time()
        res, = qemu.run([b], jobs=1)
        say("%d/%d %s: exit %d (%ds)" % (i + 1, len(boots), b.name, res.status,
                                         time.time() - start))
        if not res.ok:
            raise HwError("boot %s failed (status %d, log %s.log)" % (b.name, res.status, b.file))
        uname, workloads = parse_console(res.console, metrics)
        unames[k] = uname
        rows += count_rows(smp, r, i, k, workloads, metrics)
    meta = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "accel": accel,
            "cpu": model, "vendor": vendor, "family": "%#x" % family, "seed": plan.seed,
            "rounds": rounds, "smp": " ".join(map(str, smps)), "workloads": plan.wset,
            "counters": int(counters), "quick": int(quick),
            "qemu": util.tool_version(["qemu-system-x86_64", "--version"]),
            "perf": util.tool_version(["perf", "--version"]),
            "caches": json.dumps(host_caches(accel))}
    write_work(work, meta, rows, unames, plan)
    report = Report(work)
    report.write()
    bundle = send_back(work, report)
    say("report: %s; the file to send back: %s" % (rel(work / "report.md"), rel(bundle)))
    return report.tap()


def cached_image(image):
    """A hw-kernel image make hw-kernels built: HwError (5) if it did not."""
    key = kernel.image_key(False, kconfig.fragment_files(hw_fragments(image)))
    cached = kernel.CACHE / "images" / key
    if not (cached / "bzImage").exists():
        raise HwError("kernel %s is not built: make hw-kernels" % image, EXIT_NO_KERNEL)
    return kernel.Image("hw-" + image, cached, "cache hit")


def write_work(work, meta, rows, unames, plan):
    (work / "meta").write_text("".join("%s=%s\n" % kv for kv in meta.items()))
    (work / "counts.tsv").write_text(
        "smp\tround\tboot\tkernel\tworkload\tevents\tmetric\tevent\tcount\n" +
        "".join("\t".join(map(str, r)) + "\n" for r in rows))
    (work / "kernels.tsv").write_text(
        "kernel\timage\tsysctl\tlabel\tuname\n" +
        "".join("%s\t%s\t%s\t%s\t%s\n" % (k, v[0], v[1], v[2], unames.get(k, "?"))
                for k, v in sorted(plan.kernels.items())))
    (work / "pairs.tsv").write_text("".join("\t".join(p) + "\n" for p in plan.pairs))


def rel(p):
    return str(p).replace(str(ROOT) + "/", "")


# ------------------------------------------------------------ the report

class Report:
    """The report of a check's work dir (meta, counts.tsv, kernels.tsv,
    pairs.tsv): every pair, workload and metric, hardware beside simulator."""

    def __init__(self, work):
        self.work = Path(work)
        self.meta = dict(line.split("=", 1) for line in
                         (self.work / "meta").read_text().splitlines())
        self.caches = {k: tuple(v) for k, v in json.loads(self.meta["caches"]).items()}
        self.counters = self.meta["counters"] == "1"
        lines = (self.work / "counts.tsv").read_text().splitlines()[1:]
        # {(smp, kernel, workload, metric): {round: per-event value}}
        self.values = collections.defaultdict(dict)
        self.workloads, self.metrics = [], []
        self.counted = collections.defaultdict(bool)   # (kernel, workload): a count > 0
        for line in lines:
            smp, rnd, _, k, w, events, m, _, count = line.split("\t")
            self.counted[(k, w)] |= count != "-" and float(count) > 0
            if w not in self.workloads:
                self.workloads.append(w)
            if m not in self.metrics:
                self.metrics.append(m)
            if count != "-" and float(events) > 0:
                self.values[(int(smp), k, w, m)][int(rnd)] = float(count) / float(events)
        self.kernels = {}
        for line in (self.work / "kernels.tsv").read_text().splitlines()[1:]:
            k, image, sysctl, label, uname = line.split("\t")
            self.kernels[k] = (image, sysctl, label, uname)
        self.pairs = [line.split("\t") for line in
                      (self.work / "pairs.tsv").read_text().splitlines() if line]
        self.smps = [int(s) for s in self.meta["smp"].split()]
        self.rows = list(self.compute())

    def compute(self):
        """(smp, case, control, workload, metric, hw Paired or None, predicted
        Paired or None, prediction note, verdict)."""
        for smp in self.smps:
            for case, control, source in self.pairs:
                for w in self.workloads:
                    for m in self.metrics:
                        a = self.values.get((smp, control, w, m), {})
                        b = self.values.get((smp, case, w, m), {})
                        both = sorted(set(a) & set(b))
                        hw = paired.Paired([a[r] for r in both], [b[r] for r in both]) \
                            if both else None
                        pred, note = None, "none committed"
                        if source in PREDICTORS:
                            pred, note = PREDICTORS[source](
                                self.kernels[case][0], self.kernels[control][0], w, m,
                                self.caches)
                        yield (smp, case, control, w, m, hw, pred, note,
                               verdict(hw, pred, self.counters))

    def markdown(self):
        m = self.meta
        out = ["# make hw-check: the simulator against this machine", "",
               "%s; caches %s.  %s rounds of every kernel, -smp %s, in "
               "the order of seed %s (%s), one boot at a time; perf stat around each "
               "workload (`%s` lines)%s." % (
                   "%s (%s family %s), under KVM" % (m["cpu"], m["vendor"], m["family"])
                   if m["accel"] == "kvm" else m["cpu"], fmt_geom(self.caches),
                   m["rounds"], m["smp"], m["seed"], m["date"], m["workloads"],
                   "" if self.counters else "; no hardware counters here (TCG): software "
                   "events only, so every verdict is inconclusive"), "",
               "| kernel | image | kernel.kstack_colour | uname -r |", "|---|---|---|---|"]
        out += ["| %s | %s | %s | %s |" % (v[2], v[0], v[1], v[3])
                for k, v in sorted(self.kernels.items())]
        out += ["", "Each row: the case against its control, the mean change per event "
                "with its 95% interval paired over the rounds (bench/lib/paired.py); the "
                "simulator's for the same pair on these caches; the verdict: confirmed "
                "(same sign, the hardware interval excludes 0), refuted (opposite sign, "
                "excluding 0), else inconclusive.", "",
                "| -smp | case | control | workload | metric | hardware | simulator | "
                "verdict |", "|---:|---|---|---|---|---:|---:|---|"]
        for smp, case, control, w, metric, hw, pred, note, v in self.rows:
            out.append("| %d | %s | %s | %s | %s | %s | %s | %s |" % (
                smp, self.kernels[case][2], self.kernels[control][2], w, metric,
                hw.interval() if hw else "not counted",
                "%s (%s)" % (pred.interval(), note) if pred else note, v))
        return "\n".join(out) + "\n"

    def write(self):
        (self.work / "report.md").write_text(self.markdown())

    def tap(self):
        t = tap.Tap()
        t(all(k[3] != "?" for k in self.kernels.values()),
          "every kernel booted and named itself (%s)" % ", ".join(
              "%s: %s" % (k, v[3]) for k, v in sorted(self.kernels.items())))
        t(bool(self.rows), "%d report rows (pairs x workloads x metrics x -smp)" % len(self.rows))
        empty = sorted("%s %s" % kw for kw, got in self.counted.items() if not got)
        t(self.counted and not empty, "every workload of every kernel counted something in its "
          "marker window (%d)" % len(self.counted), empty)
        if not self.counters:
            t(all(r[8] == NO_COUNTERS for r in self.rows),
              "without hardware counters every verdict reads %r" % NO_COUNTERS)
        return t.plan()


def send_back(work, report):
    """The file to send back: what a results page needs from this machine."""
    slug = re.sub(r"[^A-Za-z0-9]+", "-", report.meta["cpu"]).strip("-")[:60]
    out = work / ("hw-check-%s.tar.gz" % slug)
    files = {"report.md": None, "counts.tsv": None, "kernels.tsv": None, "pairs.tsv": None,
             "meta": None, "workloads": None}
    dump = subprocess.run(["cpuid", "-r"], capture_output=True, text=True) \
        if shutil.which("cpuid") and report.meta["accel"] == "kvm" else None
    given = work / "cpuid-r.txt"    # a lab machine's, lava-import --cpuid
    files["cpuid-r.txt"] = (given.read_text() if given.exists() else
                            dump.stdout if dump and dump.returncode == 0 else
                            "not available (%s)\n" % {
                                "tcg": "TCG: the guest's CPU is QEMU's model",
                                "lava": "lava-import --cpuid gives the lab machine's"}.get(
                                    report.meta["accel"], "apt-get install cpuid")).encode()
    with tarfile.open(out, "w:gz") as tar:
        for name, data in files.items():
            if data is None:
                tar.add(work / name, arcname="hw-check/" + name)
            else:
                info = tarfile.TarInfo("hw-check/" + name)
                info.size, info.mtime = len(data), int(time.time())
                tar.addfile(info, io.BytesIO(data))
    return out


def read_bundle(path):
    """A sent-back file into a work dir of its own (for merge)."""
    dest = WORK / "merge" / Path(path).name.replace(".tar.gz", "")
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    try:
        with tarfile.open(path) as tar:
            for m in tar.getmembers():
                if not m.isfile() or not m.name.startswith("hw-check/") or "/" in m.name[9:]:
                    raise HwError("%s: %s is not a hw-check file" % (path, m.name), EXIT_USAGE)
                (dest / m.name[9:]).write_bytes(tar.extractfile(m).read())
    except (tarfile.TarError, OSError) as e:
        raise HwError("%s: not a hw-check file (%s)" % (path, str(e).splitlines()[0]),
                      EXIT_USAGE)
    return Report(dest)


def merge(paths):
    """One table of sent-back files: a row a CPU model, pair and workload, the
    L1I and cycles rows' hardware interval and verdict."""
    out = ["| CPU | -smp | case | control | workload | L1I misses | cycles |",
           "|---|---:|---|---|---|---|---|"]
    for p in paths:
        r = read_bundle(p)
        cells = {(row[0], row[1], row[2], row[3], row[4]): row for row in r.rows}
        for smp, case, control, w in sorted({k[:4] for k in cells}):
            def cell(metric):
                row = cells.get((smp, case, control, w, metric))
                return "%s, %s" % (row[5].interval() if row[5] else "not counted", row[8]) \
                    if row else "-"
            out.append("| %s | %d | %s | %s | %s | %s | %s |" % (
                r.meta["cpu"], smp, r.kernels[case][2], r.kernels[control][2], w,
                cell("L1I misses"), cell("cycles")))
    return "\n".join(out) + "\n"


def fleet(hosts, extra):
    """make hw-check on every host of an sshloginfile (a clone of the project
    at this path on each), then each host's file to send back fetched (scp)
    and merged: build/hw-check/fleet/merged.md."""
    for tool in ("parallel", "scp"):
        if not shutil.which(tool):
            raise HwError("%s not found (apt-get install parallel openssh-client)" % tool,
                          EXIT_USAGE)
    if not Path(hosts).is_file():
        raise HwError("HOSTS=%s: no such file" % hosts, EXIT_USAGE)
    # An sshloginfile line: [N/]login, or ":" for this machine; "#" comments.
    logins = [line.split("/", 1)[-1].strip() for line in Path(hosts).read_text().splitlines()
              if line.strip() and not line.lstrip().startswith("#")]
    back = WORK / "fleet"
    shutil.rmtree(back, ignore_errors=True)
    back.mkdir(parents=True)
    remote = "build/hw-check/fleet-run"
    cmd = ("cd %s && make hw-kernels >&2 && make hw-check %s WORK=%s >&2 && "
           "cp %s/hw-check-*.tar.gz %s/hw-check.tar.gz" % (
               shlex.quote(str(ROOT)), " ".join(map(shlex.quote, extra)), remote, remote,
               remote))
    res = subprocess.run(["parallel", "--sshloginfile", hosts, "--nonall", "--tag", cmd],
                         capture_output=True, text=True)
    if res.returncode:
        raise HwError("a host did not answer or its check failed (GNU parallel exit %d): %s"
                      % (res.returncode, res.stderr.strip()[-500:]), EXIT_NO_ANSWER)
    files = []
    for i, login in enumerate(logins):
        dest = back / ("%d-%s.tar.gz" % (i, re.sub(r"[^\w.-]+", "-", login)))
        src = "%s/%s/hw-check.tar.gz" % (ROOT, remote)
        got = shutil.copy(src, dest) if login == ":" else subprocess.run(
            ["scp", "-q", "%s:%s" % (login, src), str(dest)]).returncode == 0
        if not got:
            raise HwError("%s: its file could not be fetched" % login, EXIT_NO_ANSWER)
        files.append(dest)
    (back / "merged.md").write_text(merge(files))
    say("%d hosts: %s" % (len(files), rel(back / "merged.md")))
    return 0


LAVA_JOB = """\
# make hw-check-lava (hw/hw_check.py): boot %(n)d of %(total)d, %(name)s
device_type: %(device_type)s
job_name: kcolour hw-check %(name)s
priority: medium
visibility: public
timeouts:
  job: {minutes: 60}
  action: {minutes: 50}
actions:
- deploy:
    to: tftp
    kernel: {url: "%(url)s/%(image)s.bzImage", type: bzimage}
    ramdisk: {url: "%(url)s/initramfs.cpio.gz", compression: gz}
    os: oe
- boot:
    method: ipxe
    commands: ramdisk
    prompts: ["HWCHECK uname"]
    auto_login: {}
- test:
    timeout: {minutes: 45}
    monitors:
    - name: hw-check
      start: "HWCHECK uname"
      end: "KCOLOUR-INIT-DONE"
      pattern: "HWCHECK (?P<result>begin|end) (?P<test_case_id>.*)"
      fixupdict: {begin: pass, end: pass}
context:
  extra_kernel_args: "%(args)s"
"""


def lava(opts):
    """LAVA jobs of a check's plan: a job a boot, in the seeded order, and the
    artifacts (a kernel an image, one initramfs) to serve at --url."""
    plan = Plan(False, opts.rounds, opts.seed, [1], (opts.kernels or "").split() or None)
    if opts.rounds < MIN_ROUNDS:
        raise HwError("ROUNDS=%d: at least %d boots a kernel" % (opts.rounds, MIN_ROUNDS),
                      EXIT_USAGE)
    metrics = events_for(opts.vendor, int(opts.family, 0), opts.generic)
    out = Path(opts.out)
    shutil.rmtree(out, ignore_errors=True)
    (out / "jobs").mkdir(parents=True)
    (out / "artifacts").mkdir()
    for image in plan.images():
        shutil.copy(cached_image(image).bzimage, out / "artifacts" / (image + ".bzImage"))
    rd = initramfs(out, plan.wset, opts.cmd)
    shutil.move(str(rd), out / "artifacts" / "initramfs.cpio.gz")
    for i, (smp, r, k) in enumerate(plan.order):
        image, sysctl, _ = plan.kernels[k]
        name = "%03d-%s.r%d" % (i, k, r)
        args = " ".join(["quiet", "kcolour.events=" + ",".join(metrics.values())] +
                        (["kcolour.sysctl=" + sysctl] if sysctl != "-" else []))
        (out / "jobs" / (name + ".yaml")).write_text(LAVA_JOB % {
            "n": i + 1, "total": len(plan.order), "name": name, "image": image,
            "device_type": opts.device_type, "url": opts.url.rstrip("/"), "args": args})
    (out / "plan.tsv").write_text("".join("%d\t%s\t%d\n" % (smp, k, r)
                                          for smp, r, k in plan.order))
    (out / "events.tsv").write_text("".join("%s\t%s\n" % kv for kv in metrics.items()))
    (out / "lava.meta").write_text("".join("%s=%s\n" % kv for kv in {
        "vendor": opts.vendor, "family": opts.family, "seed": plan.seed,
        "rounds": plan.rounds, "device_type": opts.device_type,
        "kernels": " ".join(sorted(plan.kernels))}.items()))
    say("%d LAVA jobs in %s; serve %s at %s, submit the jobs in their order "
        "(lavacli jobs submit), save each job's plain log as LOGS/NAME.log, then "
        "python3 -m hw.hw_check lava-import %s LOGS/*.log" % (
            len(plan.order), rel(out / "jobs"), rel(out / "artifacts"), opts.url, rel(out)))
    return 0


def lava_import(opts):
    """The report of a lava run's logs (LOGS/NNN-KERNEL.rR.log, as the jobs
    are named): the check's work dir, report and file to send back."""
    out = Path(opts.out)
    try:
        meta = dict(line.split("=", 1) for line in (out / "lava.meta").read_text().splitlines())
        metrics = dict(line.split("\t", 1) for line in
                       (out / "events.tsv").read_text().splitlines())
    except (OSError, ValueError) as e:
        raise HwError("%s: not a make hw-check-lava dir (%s)" % (out, e), EXIT_USAGE)
    kernels = facts.table("hw-kernel")
    rows, unames, got = [], {}, set()
    for log in sorted(opts.logs):
        m = re.fullmatch(r"(\d+)-([\w-]+)\.r(\d+)\.log", Path(log).name)
        if not m or m.group(2) not in kernels:
            raise HwError("%s: not a job's log (NNN-KERNEL.rR.log, KERNEL a hw-kernel row)"
                          % log, EXIT_USAGE)
        i, k, r = int(m.group(1)), m.group(2), int(m.group(3))
        uname, workloads = parse_console(Path(log).read_text(errors="replace"), metrics)
        if not uname.endswith(localversion(kernels[k][0])):
            raise HwError("%s: the kernel that booted, %s, is not %s's (%s)" % (
                log, uname, k, localversion(kernels[k][0])))
        unames[k] = uname
        got.add((k, r))
        rows += count_rows(1, r, i, k, workloads, metrics)
    plan = Plan(False, int(meta["rounds"]), int(meta["seed"]), [1], meta["kernels"].split())
    missing = sorted("%s.r%d" % (k, r) for _, r, k in plan.order if (k, r) not in got)
    if missing:
        raise HwError("no log of %d planned boots: %s" % (len(missing), " ".join(missing[:8])))
    work = out / "report"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    shutil.copy(out / "workloads", work / "workloads")
    write_work(work, {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                      "accel": "lava", "cpu": opts.cpu or "%s family %s" % (
                          meta["vendor"], meta["family"]),
                      "vendor": meta["vendor"], "family": meta["family"], "seed": meta["seed"],
                      "rounds": meta["rounds"], "smp": "1", "workloads": plan.wset,
                      "counters": 1, "quick": 0, "qemu": "none (bare metal, LAVA)",
                      "perf": "the initramfs's", "caches": json.dumps(
                          caches_of(opts.cpuid) if opts.cpuid else {})}, rows, unames, plan)
    if opts.cpuid:
        shutil.copy(opts.cpuid, work / "cpuid-r.txt")
    report = Report(work)
    report.write()
    say("report: %s; the file to send back: %s" % (rel(work / "report.md"),
                                                    rel(send_back(work, report))))
    return report.tap()


def kernels(opts):
    plan = Plan(opts.quick, 1, 0, [1])
    for image in plan.images():
        img = build_image(image, opts.quick)
        say("%s: %s (%s)" % (image, rel(img.bzimage), img.how))
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="what", required=True)
    k = sub.add_parser("kernels", help="make hw-kernels")
    k.add_argument("--quick", action="store_true", help="make check's images")
    c = sub.add_parser("check", help="make hw-check")
    c.add_argument("--quick", action="store_true",
                   help="the flow under TCG on make check's images, %d rounds" % QUICK_ROUNDS)
    c.add_argument("--accel", choices=("kvm", "tcg"), default="kvm")
    c.add_argument("--rounds", type=int, help="boots of each kernel (at least %d)" % MIN_ROUNDS)
    c.add_argument("--seed", type=int, default=1, help="the boot order's seed (default 1)")
    c.add_argument("--smp", help='"1 2" (default): -smp 1 rounds, then -smp 2')
    c.add_argument("--kernels", help="some of facts.tsv's hw-kernel rows (default all)")
    c.add_argument("--cmd", help="your own program, one more workload (PROG ARGS)")
    c.add_argument("--pin-cpu", default=None, metavar="LIST",
                   help="the host CPUs QEMU runs on, taskset's list (as many as -smp)")
    c.add_argument("--generic", action="store_true", help="perf's generic events")
    c.add_argument("--work", help="the work dir (default build/hw-check/run)")
    r = sub.add_parser("report", help="the report of a work dir again")
    r.add_argument("work")
    m = sub.add_parser("merge", help="one table of sent-back files")
    m.add_argument("files", nargs="+")
    f = sub.add_parser("fleet", help="make hw-check HOSTS=FILE")
    f.add_argument("hosts")
    f.add_argument("make_args", nargs="*")
    la = sub.add_parser("lava", help="make hw-check-lava: LAVA jobs of the plan")
    la.add_argument("out")
    la.add_argument("--url", required=True, help="where OUT/artifacts/ will be served")
    la.add_argument("--device-type", default="x86", help="the lab's x86 device type")
    la.add_argument("--vendor", required=True, help="the lab machine's CPUID vendor "
                    "(GenuineIntel, AuthenticAMD)")
    la.add_argument("--family", required=True, help="its CPU family (0x19)")
    la.add_argument("--rounds", type=int, default=MIN_ROUNDS)
    la.add_argument("--seed", type=int, default=1)
    la.add_argument("--kernels")
    la.add_argument("--cmd")
    la.add_argument("--generic", action="store_true")
    li = sub.add_parser("lava-import", help="the report of the LAVA jobs' logs")
    li.add_argument("out")
    li.add_argument("logs", nargs="+")
    li.add_argument("--cpuid", help="the lab machine's `cpuid -r` dump, for the prediction")
    li.add_argument("--cpu", help="its model name, for the report")
    opts = p.parse_args(argv)
    try:
        if opts.what == "kernels":
            return kernels(opts)
        if opts.what == "check":
            return check(opts)
        if opts.what == "report":
            rep = Report(opts.work)
            rep.write()
            print(rep.markdown(), end="")
            return 0
        if opts.what == "merge":
            print(merge(opts.files), end="")
            return 0
        if opts.what == "lava":
            return lava(opts)
        if opts.what == "lava-import":
            return lava_import(opts)
        return fleet(opts.hosts, opts.make_args)
    except HwError as e:
        print("error: %s" % e, file=sys.stderr)
        return e.status


if __name__ == "__main__":
    sys.exit(main())
