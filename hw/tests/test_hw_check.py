#!/usr/bin/env python3
"""hw/hw_check.py without a machine: the event table per vendor and family,
the guest's console parsed (perf stat -x, lines as Intel's and AMD's PMUs
name them, with <not supported> and <not counted>), the web server net of
its start-up, the verdict rule, a report of a synthetic work dir (with the
code-layout decision's committed figures as the prediction), the file to
send back and its merge, and each bad input's message and exit status.  TAP."""
import contextlib
import io
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from unittest import mock

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
from bench.lib import paired  # noqa: E402
from harness import tap  # noqa: E402
from hw import hw_check as hc  # noqa: E402

t = tap.Tap()

# -------------------------------------------------------------- events
intel = hc.events_for("GenuineIntel", 6)
t(intel["L1I misses"] == "icache_64b.iftag_miss" and
  intel["L2 code misses"] == "l2_rqsts.code_rd_miss" and list(intel) == list(hc.METRICS),
  "Intel family 6: the core PMU's names, every metric (%s)" % ", ".join(intel.values()))
amd = hc.events_for("AuthenticAMD", 0x19)
t(amd["L1I misses"] == "ic_tag_hit_miss.instruction_cache_miss" and
  amd["L2 code misses"] == "l2_cache_req_stat.ic_fill_miss",
  "AMD family 0x19 (Zen 3/4): Zen's names (%s)" % ", ".join(amd.values()))
old_amd = hc.events_for("AuthenticAMD", 0x15, generic=True)
t(old_amd["L1I misses"] == "L1-icache-load-misses" and "L2 code misses" not in old_amd,
  "AMD family 0x15 with GENERIC=1: perf's generic events, no L2 code event")
try:
    hc.events_for("CentaurHauls", 6)
    t(False, "an unknown vendor is refused")
except hc.HwError as e:
    t(e.status == hc.EXIT_UNKNOWN_CPU and "GENERIC=1" in str(e),
      "an unknown vendor: exit %d, %s" % (e.status, e))
try:
    hc.cpu_identity("processor : 0\nflags : fpu\n")
    t(False, "cpuinfo without vendor is refused")
except hc.HwError as e:
    t(e.status == hc.EXIT_UNKNOWN_CPU, "cpuinfo without vendor_id: exit %d" % e.status)
t(hc.cpu_identity("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n"
                  "model name\t: AMD Ryzen 9 7950X\n\nprocessor\t: 1\n") ==
  ("AuthenticAMD", 25, "AMD Ryzen 9 7950X"), "cpuinfo's first CPU: vendor, family, model")

# -------------------------------------------------------------- console
INTEL_CONSOLE = """[    0.000000] Linux version 6.12.118-kcolour-falign-64b
HWCHECK uname 6.12.118-kcolour-falign-64b
HWCHECK begin web 1 0 1
web concurrency=1 keepalive=0 requests=1 complete=1 failed=0 size=4096 ctxt=40 status=0
HWPERF # started on Sun Dec  6 10:00:00 2026
HWPERF
HWPERF 2000000,,cycles,1000000,100.00,,
HWPERF 1000000,,instructions,1000000,100.00,0.50,insn per cycle
HWPERF 10000,,icache_64b.iftag_miss,1000000,100.00,,
HWPERF 3000,,l2_rqsts.code_rd_miss,1000000,100.00,,
HWPERF 2000,,l2_rqsts.demand_data_rd_miss,1000000,100.00,,
HWPERF 100,,itlb_misses.walk_completed,1000000,100.00,,
HWPERF <not supported>,,idq_uops_not_delivered.core,0,100.00,,
HWCHECK end
HWCHECK begin web 4 0 101
web concurrency=4 keepalive=0 requests=101 complete=101 failed=0 size=4096 ctxt=900 status=0
HWPERF 202000000,,cycles,1000000,100.00,,
HWPERF 101000000,,instructions,1000000,100.00,0.50,insn per cycle
HWPERF 1010000,,icache_64b.iftag_miss,1000000,100.00,,
HWPERF 303000,,l2_rqsts.code_rd_miss,1000000,100.00,,
HWPERF <not counted>,,l2_rqsts.demand_data_rd_miss,0,0.00,,
HWPERF 10100,,itlb_misses.walk_completed,1000000,100.00,,
HWPERF <not supported>,,idq_uops_not_delivered.core,0,100.00,,
HWCHECK end
HWCHECK begin forkloop 200
forkloop forks=200 ctxt=400
HWPERF 40000000,,cycles,1000000,100.00,,
HWPERF 20000000,,instructions,1000000,100.00,0.50,insn per cycle
HWPERF 60000,,icache_64b.iftag_miss,1000000,100.00,,
HWPERF 8000,,l2_rqsts.code_rd_miss,1000000,100.00,,
HWPERF 9000,,l2_rqsts.demand_data_rd_miss,1000000,100.00,,
HWPERF 400,,itlb_misses.walk_completed,1000000,100.00,,
HWPERF <not supported>,,idq_uops_not_delivered.core,0,100.00,,
HWCHECK end
KCOLOUR-INIT-DONE rc=0
"""
uname, wls = hc.parse_console(INTEL_CONSOLE, intel)
web = next(w for w in wls if w.label == "web c=4 close")
t(uname == "6.12.118-kcolour-falign-64b" and [w.label for w in wls] ==
  ["web c=4 close", "forkloop"], "Intel console: uname and the workloads, start-up apart")
t(web.events == 100 and web.per_event("cycles") == 2000000 and
  web.per_event("L1I misses") == 10000,
  "the web server net of its one-request run: (202M - 2M) cycles / (101 - 1) requests")
t(web.counts["L2 data misses"] is None and web.counts["front-end stalls"] is None,
  "<not counted> and <not supported> are no count, not 0")
fork = wls[1]
t(fork.events == 200 and fork.per_event("L1I misses") == 300, "forkloop: per fork")

AMD_CONSOLE = """HWCHECK uname 6.12.118-kcolour-falign-default
HWCHECK begin forkloop 200
forkloop forks=200 ctxt=400
HWPERF 41000000,,cycles,1000000,100.00,,
HWPERF 20000000,,instructions,1000000,100.00,0.49,insn per cycle
HWPERF 70000,,ic_tag_hit_miss.instruction_cache_miss,1000000,100.00,,
HWPERF 9000,,l2_cache_req_stat.ic_fill_miss,1000000,100.00,,
HWPERF 9500,,l2_cache_req_stat.ls_rd_blk_c,1000000,100.00,,
HWPERF 300,,bp_l1_tlb_miss_l2_tlb_miss,1000000,100.00,,
HWPERF 123456,,ic_fetch_stall.ic_stall_any,1000000,100.00,,
HWCHECK end
"""
_, awl = hc.parse_console(AMD_CONSOLE, amd)
t(awl[0].per_event("front-end stalls") == 123456 / 200 and
  awl[0].per_event("L2 code misses") == 45, "AMD console: Zen's events per fork")
for bad, why in [("HWCHECK begin forkloop 200\nforkloop forks=200\nHWCHECK end\n", "uname"),
                 (AMD_CONSOLE.replace("forkloop forks=200 ctxt=400\n", ""), "key=value"),
                 (AMD_CONSOLE.replace("HWPERF 41000000,,cycles", "HWPERF garbage"), "perf stat")]:
    try:
        hc.parse_console(bad, amd)
        t(False, "a malformed console is refused (%s)" % why)
    except hc.HwError as e:
        t(e.status == hc.EXIT_FAIL and why in str(e),
          "a malformed console is refused: %s" % e)

# -------------------------------------------------------------- verdicts
down = paired.Paired([100.0, 101, 99, 100], [95.0, 96, 94, 95.5])
up = paired.Paired([100.0, 101, 99, 100], [105.0, 106, 104, 105.5])
flat = paired.Paired([100.0, 101, 99, 100], [100.5, 100, 99.5, 100.2])
t(hc.verdict(down, down, True) == hc.CONFIRMED, "same sign, interval excludes 0: confirmed")
t(hc.verdict(up, down, True) == hc.REFUTED, "opposite sign, interval excludes 0: refuted")
t(hc.verdict(flat, down, True) == hc.INCONCLUSIVE, "interval holds 0: inconclusive")
t(hc.verdict(down, None, True) == "inconclusive: no prediction", "no prediction: inconclusive")
t(hc.verdict(down, flat, True) == "inconclusive: no predicted change",
  "a prediction whose interval holds 0: no sign to compare, inconclusive")
t(hc.verdict(down, down, False) == hc.NO_COUNTERS, "no hardware counters: inconclusive")
t(hc.verdict(None, down, True) == "inconclusive: not counted here", "not counted: inconclusive")

# -------------------------------------------------- a synthetic work dir
SKYLAKE = {"L1D": (32768, 8, 64), "L1I": (32768, 8, 64), "L2": (262144, 4, 64)}


def work_dir(root, counters, caches, factor):
    """Rounds 0-9 of 16b and 64b at -smp 1: 64b's L1I misses `factor` x 16b's."""
    w = Path(root)
    w.mkdir(parents=True, exist_ok=True)
    (w / "meta").write_text("".join("%s=%s\n" % kv for kv in {
        "date": "2026-12-06 10:00 UTC", "accel": "kvm" if counters else "tcg",
        "cpu": "Intel(R) Core(TM) i7-6700 CPU @ 3.40GHz", "vendor": "GenuineIntel",
        "family": "0x6", "seed": 1, "rounds": 10, "smp": "1", "workloads": "layout-decision",
        "counters": int(counters), "quick": 0, "qemu": "QEMU 7.2", "perf": "perf 6.1",
        "caches": __import__("json").dumps(caches)}.items()))
    rows = []
    for r in range(10):
        for k, f in (("16b", 1.0), ("64b", factor)):
            noise = 1 + 0.002 * ((r * 7) % 5 - 2)
            rows.append("1\t%d\t0\t%s\tweb c=4 close\t100\tL1I misses\ticache_64b.iftag_miss\t%d"
                        % (r, k, 1000000 * f * noise))
            rows.append("1\t%d\t0\t%s\tweb c=4 close\t100\tcycles\tcycles\t%d"
                        % (r, k, 300000000 * noise))
    (w / "counts.tsv").write_text(
        "smp\tround\tboot\tkernel\tworkload\tevents\tmetric\tevent\tcount\n" + "\n".join(rows)
        + "\n")
    (w / "kernels.tsv").write_text(
        "kernel\timage\tsysctl\tlabel\tuname\n16b\tfalign-default\t-\t16 B\t6.12-a\n"
        "64b\tfalign-64b\t-\t64 B\t6.12-b\n")
    (w / "pairs.tsv").write_text("64b\t16b\tfalign-decision\n")
    (w / "workloads").write_text("web 4 0 100\n")
    return w


with tempfile.TemporaryDirectory() as tmp:
    rep = hc.Report(work_dir(Path(tmp) / "a", True, SKYLAKE, 0.92))
    row = next(r for r in rep.rows if r[4] == "L1I misses")
    t(row[6] is not None and row[6].pct < 0 and "falign-decision, L2 256K 4-way" in row[7],
      "the prediction: the decision's 64 B against 16 B on the web server, this L2 (%s, %s)"
      % (row[6].interval(), row[7]))
    t(row[5].real and math.isclose(row[5].pct, -8.0, abs_tol=0.01) and row[8] == hc.CONFIRMED,
      "8%% fewer L1I misses on hardware, predicted fewer: confirmed (%s)" % row[5].interval())
    cyc = next(r for r in rep.rows if r[4] == "cycles")
    t(cyc[8] == hc.INCONCLUSIVE, "cycles unchanged on hardware: inconclusive")
    rep2 = hc.Report(work_dir(Path(tmp) / "b", True, SKYLAKE, 1.08))
    t(next(r for r in rep2.rows if r[4] == "L1I misses")[8] == hc.REFUTED,
      "8% more L1I misses on hardware, predicted fewer: refuted")
    zen = dict(SKYLAKE, L2=(1 << 20, 8, 64), L1I=(32768, 8, 64), L1D=(49152, 12, 64))
    rep3 = hc.Report(work_dir(Path(tmp) / "c", True, zen, 0.92))
    r3 = next(r for r in rep3.rows if r[4] == "L1I misses")
    t(r3[6] is None and r3[7].startswith("missing: L1s") and
      r3[8] == "inconclusive: no prediction",
      "a geometry the decision did not simulate: prediction missing (%s)" % r3[7])
    rep4 = hc.Report(work_dir(Path(tmp) / "d", False, SKYLAKE, 0.92))
    t(all(r[8] == hc.NO_COUNTERS for r in rep4.rows), "TCG: every verdict %r" % hc.NO_COUNTERS)
    md = rep.markdown()
    t("| 1 | 64 B | 16 B | web c=4 close | L1I misses |" in md and "confirmed" in md,
      "the report's table names the pair, workload and verdict")
    # The file to send back, and a fleet's merge of two.
    for d, r in (("a", rep), ("b", rep2)):
        r.write()
    with mock.patch.object(hc, "WORK", Path(tmp) / "hw"):
        b1 = hc.send_back(Path(tmp) / "a", rep)
        b2 = hc.send_back(Path(tmp) / "b", rep2)
        b2 = b2.rename(b2.with_name("hw-check-other.tar.gz"))
        merged = hc.merge([b1, b2])
        t(merged.count("| Intel(R) Core(TM) i7-6700 CPU @ 3.40GHz | 1 | 64 B | 16 B |") == 2
          and "confirmed" in merged and "refuted" in merged,
          "merge: a row per sent-back file, with its verdicts")
        bad = Path(tmp) / "bad.tar.gz"
        bad.write_bytes(b"not a tar")
        try:
            hc.merge([bad])
            t(False, "merge refuses a file that is not a hw-check file")
        except hc.HwError as e:
            t(e.status == hc.EXIT_USAGE, "merge refuses a bad file: %s" % e)


# -------------------------------------------------------------- LAVA
with tempfile.TemporaryDirectory() as tmp:
    import yaml
    fake = hc.kernel.Image("fake", Path(tmp), "fake")
    (Path(tmp) / "bzImage").write_bytes(b"kernel")

    def fake_initramfs(out, wset, cmd):
        (out / "workloads").write_text("web 1 0 1\nweb 4 0 100\nforkloop 200\n")
        (out / "initramfs.cpio.gz").write_bytes(b"rd")
        return out / "initramfs.cpio.gz"
    out = Path(tmp) / "lava"
    with mock.patch.object(hc, "cached_image", lambda image: fake), \
            mock.patch.object(hc, "initramfs", fake_initramfs):
        status, err = None, io.StringIO()
        with contextlib.redirect_stderr(err):
            status = hc.main(["lava", str(out), "--url", "http://lab.example/kc/",
                              "--vendor", "GenuineIntel", "--family", "6",
                              "--kernels", "16b 64b", "--seed", "3"])
    jobs = sorted((out / "jobs").glob("*.yaml"))
    docs = [yaml.safe_load(j.read_text()) for j in jobs]
    plan = hc.Plan(False, 10, 3, [1], ["16b", "64b"])
    names = ["%03d-%s.r%d" % (i, k, r) for i, (_, r, k) in enumerate(plan.order)]
    t(status == 0 and [j.stem for j in jobs] == names,
      "lava: a job a boot, 20, named and numbered in the seeded order of a check")
    t(all(d["actions"][0]["deploy"]["kernel"]["url"].startswith("http://lab.example/kc/falign-")
          and "kcolour.events=cycles,instructions,icache_64b.iftag_miss" in
          d["context"]["extra_kernel_args"] and
          d["actions"][2]["test"]["monitors"][0]["end"] == "KCOLOUR-INIT-DONE" for d in docs),
      "lava: each job deploys its kernel and the initramfs, with Intel's events, and "
      "waits for the guest's end marker (valid YAML)")
    t(sorted(p.name for p in (out / "artifacts").iterdir()) ==
      ["falign-64b.bzImage", "falign-default.bzImage", "initramfs.cpio.gz"],
      "lava: the artifacts to serve, a kernel an image and one initramfs")
    # The lab's logs: 64 B 8% fewer L1I misses than 16 B in every round.
    logs = Path(tmp) / "logs"
    logs.mkdir()
    for name in names:
        k = name.split("-", 1)[1].split(".")[0]
        r = int(name.rsplit(".r", 1)[1])
        f = (0.92 if k == "64b" else 1.0) * (1 + 0.001 * (r % 3))
        console = INTEL_CONSOLE.replace("HWPERF 1010000,,icache_64b", "HWPERF %d,,icache_64b"
                                        % (10000 + 1000000 * f))
        if k == "16b":
            console = console.replace("-kcolour-falign-64b", "-kcolour-falign-default")
        (logs / (name + ".log")).write_text(console)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = hc.main(["lava-import", str(out)] + [str(p) for p in sorted(logs.iterdir())] +
                         ["--cpuid", str(hc.facts.path("bench-dump")), "--cpu", "a lab's i7"])
    rep = hc.Report(out / "report")
    row = next(r for r in rep.rows if r[3] == "web c=4 close" and r[4] == "L1I misses")
    t(status == 0 and row[8] == hc.CONFIRMED and math.isclose(row[5].pct, -8.0, abs_tol=0.2)
      and row[6] is not None,
      "lava-import: the logs' report, 64 B against 16 B confirmed beside the decision's "
      "prediction on the dump's caches (%s; %s)" % (row[5].interval(), row[7]))
    err = io.StringIO()
    wrong = logs / ("%s.log" % names[0])
    kept = wrong.read_text()
    wrong.write_text(kept.replace("-kcolour-falign-", "-kcolour-other-"))
    with contextlib.redirect_stderr(err):
        status = hc.main(["lava-import", str(out)] + [str(p) for p in sorted(logs.iterdir())])
    t(status == hc.EXIT_FAIL and "is not" in err.getvalue(),
      "lava-import refuses a log whose kernel is not the job's: %s" % err.getvalue().strip())
    wrong.unlink()
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        status = hc.main(["lava-import", str(out)] + [str(p) for p in sorted(logs.iterdir())])
    t(status == hc.EXIT_FAIL and "no log of 1 planned boots" in err.getvalue(),
      "lava-import refuses a run with a planned boot missing: %s" % err.getvalue().strip())
    wrong.write_text(kept)
    bad = logs / "garbage.log"
    bad.write_text("x")
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        status = hc.main(["lava-import", str(out), str(bad)])
    t(status == hc.EXIT_USAGE and "not a job's log" in err.getvalue(),
      "lava-import refuses a log not named as a job: %s" % err.getvalue().strip())


# -------------------------------------------------------------- exit codes
def run_main(argv):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        status = hc.main(argv)
    return status, err.getvalue()


with mock.patch.object(hc.os.path, "exists", lambda p: False if p == "/dev/kvm" else
                       os.path.lexists(p)):
    status, err = run_main(["check"])
    t(status == hc.EXIT_NO_KVM and "no /dev/kvm" in err, "no KVM: exit 3 (%s)" % err.strip())
with mock.patch.object(hc.os.path, "exists", lambda p: True), \
        mock.patch.object(hc.os, "access", lambda p, m: False):
    status, err = run_main(["check"])
    t(status == hc.EXIT_PERMISSION and "read-write" in err,
      "no permission on /dev/kvm: exit 4 (%s)" % err.strip())
with tempfile.TemporaryDirectory() as tmp, mock.patch.object(hc, "WORK", Path(tmp)), \
        mock.patch.object(hc.kernel, "CACHE", Path(tmp) / "cache"):
    status, err = run_main(["check", "--accel", "tcg", "--kernels", "16b 64b",
                            "--work", str(Path(tmp) / "w")])
    t(status == hc.EXIT_NO_KERNEL and "make hw-kernels" in err,
      "a kernel not built: exit 5 (%s)" % err.strip())
status, err = run_main(["check", "--accel", "tcg", "--kernels", "nosuch"])
t(status == hc.EXIT_USAGE and "not facts.tsv hw-kernel rows" in err,
  "an unknown kernel: exit 2 (%s)" % err.strip())
status, err = run_main(["check", "--accel", "tcg", "--rounds", "3"])
t(status == hc.EXIT_USAGE and "at least 10" in err, "too few rounds: exit 2")
with tempfile.TemporaryDirectory() as tmp:
    hosts = Path(tmp) / "hosts"
    hosts.write_text("nosuchhost.invalid\n")
    have = subprocess.run(["sh", "-c", "command -v parallel && command -v ssh"],
                          capture_output=True).returncode == 0
    if have:
        with mock.patch.object(hc, "WORK", Path(tmp) / "hw"):
            status, err = run_main(["fleet", str(hosts)])
        t(status == hc.EXIT_NO_ANSWER and "did not answer" in err,
          "a host that does not answer: exit 7")
    else:
        t.skip("a host that does not answer: exit 7", "no GNU parallel or ssh here")
sys.exit(t.plan())
