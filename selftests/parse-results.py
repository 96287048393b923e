#!/usr/bin/env python3
"""Turn one test boot's console log into TAP lines.

Reads the KUnit suite's KTAP (printed by the kernel at boot: the
"kstack_colour" suite, one line per case, parameterised cases with their
sub-results) and the parts selftests/guest-run.sh ran, each between
"SUITE-BEGIN name" and "SUITE-END name rc=N":

  kstack, stress, hotplug  kselftest TAP, one TAP line per test
  upstream                 "UPSTREAM prog rc=N" lines: not judged here (the
                           differential against the kstack_colour=off boot
                           is, in compare-upstream.py); written to --upstream
  params                   "PARAMS key: value" lines, checked against --expect
  probe                    the exit status of kcolour-probe in the guest

and checks the console for kernel splats (BUG, WARNING, Oops, KASAN,
lockdep, UBSAN).

usage: parse-results.py CONSOLE.LOG [--allow-skip] [--expect "K=V ..."]
                        [--upstream FILE]
  --allow-skip   a kselftest skip (exit 4) passes, for boots with colouring off
  --expect       space-separated checks: warn=TOKEN (exactly one "ignoring
                 'TOKEN'" warning; together they must be all the warnings)
                 log=REGEX (some console line matches; \s for a space)
                 and KEY=VALUE (the params line "KEY: VALUE")
  --upstream     where to write "prog rc" lines of the upstream programs
"""
import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools-probe/tests"))
from probelib import Tap  # noqa: E402

KUNIT_CASE = re.compile(r"^ {4}(not ok|ok) \d+ (\S+)(.*)$")
KUNIT_SUB = re.compile(r"^ {8}(not ok|ok) \d+ (.*)$")
KUNIT_SUITE = re.compile(r"^(not ok|ok) \d+ kstack_colour$")
KSFT_LINE = re.compile(r"^(not ok|ok) \d+ (.*)$")
SUITE_BEGIN = re.compile(r"^SUITE-BEGIN (\S+)$")
SUITE_END = re.compile(r"^SUITE-END (\S+) rc=(\d+)$")
# Kernel reports start a line (user-space faults the x86 tests provoke,
# "prog[pid] general protection fault ip:...", are not splats).
SPLAT = re.compile(r"(^|\] )(BUG: |WARNING: |Oops: |Kernel panic|UBSAN: |"
                   r"INFO: task .* blocked|kernel BUG at)|KASAN")
WARNING = re.compile(r"ignoring '([^']*)' in kstack_colour=")
# What a kselftest's exit status means (kselftest.h).
KSFT_PASS, KSFT_SKIP = 0, 4


def read_suites(lines):
    """{suite: (rc or None, [lines inside])}, and the lines outside."""
    suites, outside, current = {}, [], None
    for line in lines:
        m = SUITE_BEGIN.match(line)
        if m:
            current = m.group(1)
            suites[current] = (None, [])
            continue
        m = SUITE_END.match(line)
        if m and m.group(1) == current:
            suites[current] = (int(m.group(2)), suites[current][1])
            current = None
            continue
        (suites[current][1] if current else outside).append(line)
    return suites, outside


def check_kunit(emit, lines):
    suite, cases, subs = None, [], []
    for line in lines:
        m = KUNIT_SUB.match(line)
        if m:
            subs.append((m.group(1) == "ok", m.group(2)))
            continue
        m = KUNIT_CASE.match(line)
        if m:
            skipped = "# SKIP" in m.group(3)
            cases.append((m.group(1) == "ok", m.group(2) + (m.group(3) if skipped else "")))
            continue
        m = KUNIT_SUITE.match(line)
        if m:
            suite = m.group(1) == "ok"
    emit(suite is not None, "kunit: the kstack_colour suite ran")
    for good, name in cases:
        emit(good, "kunit: " + name)
    for good, name in subs:
        if not good:
            emit(False, "kunit: " + name)


def check_kselftest(emit, name, rc, lines, allow_skip):
    for line in lines:
        if line.startswith("# ") and any(w in line.lower() for w in
                                         ("fail", "share", "skip", "did not", "forks")):
            print("# %s: %s" % (name, line[2:]))
    emit(rc == KSFT_PASS or (allow_skip and rc == KSFT_SKIP),
         "%s: exit status %s" % (name, rc))
    for line in lines:
        m = KSFT_LINE.match(line)
        if m:
            emit(m.group(1) == "ok", "%s: %s" % (name, m.group(2)))


def check_hotplug(emit, rc, lines, allow_skip):
    steps = {}
    for line in lines:
        m = re.match(r"^HOTPLUG (before|offline|after) ?(.*)$", line)
        if m:
            steps[m.group(1)] = m.group(2).split()
    before, after = steps.get("before", []), steps.get("after", [])
    emit(len(before) == 3 and int(before[0]) >= 0,
         "hotplug: CPU 1's idle task is coloured before (colour offset page-offset: %s)"
         % " ".join(before))
    emit(steps.get("offline", [""])[0] == "0", "hotplug: CPU 1 went offline")
    emit(after == before, "hotplug: after offline and online, CPU 1's idle task has "
         "the same colour, offset and pt_regs (%s)" % " ".join(after))
    check_kselftest(emit, "hotplug: kselftest on CPU 1", rc,
                    [line for line in lines if not line.startswith("HOTPLUG")], allow_skip)


def check_expect(emit, expect, outside, params_lines):
    params = {}
    for line in params_lines:
        m = re.match(r"^PARAMS (\w+): ?(.*)$", line)
        if m:
            params[m.group(1)] = m.group(2).strip()
    warned = [m.group(1) for m in map(WARNING.search, outside) if m]
    tokens = [e[5:] for e in expect if e.startswith("warn=")]
    for token in tokens:
        emit(warned.count(token) == 1, "one warning names the bad token '%s'" % token)
    emit(sorted(warned) == sorted(tokens),
         "no other kstack_colour= warning (%d: %s)" % (len(warned), ", ".join(warned)))
    for e in expect:
        if e.startswith("warn="):
            continue
        if e.startswith("log="):
            emit(any(re.search(e[4:], line) for line in outside), "console shows /%s/" % e[4:])
            continue
        key, _, value = e.partition("=")
        emit(params.get(key) == value, "params %s: %s (got %s)" % (key, value, params.get(key)))


def main():
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("log")
    ap.add_argument("--allow-skip", action="store_true")
    ap.add_argument("--expect", default="")
    ap.add_argument("--upstream")
    args = ap.parse_args()

    emit = Tap()
    lines = open(args.log, errors="replace").read().splitlines()
    suites, outside = read_suites(lines)
    check_kunit(emit, outside)
    for name, (rc, body) in suites.items():
        emit(rc is not None, "%s: ran to the end" % name)
        if name in ("kstack", "stress"):
            check_kselftest(emit, name, rc, body, args.allow_skip)
        elif name == "hotplug":
            check_hotplug(emit, rc, body, args.allow_skip)
        elif name == "probe":
            emit(rc == 0, "probe: kcolour-probe in the guest exits 0")
        elif name == "upstream" and args.upstream:
            with open(args.upstream, "w") as f:
                for line in body:
                    m = re.match(r"^UPSTREAM (\S+) rc=(\d+)$", line)
                    if m:
                        f.write("%s %s\n" % m.groups())
    if args.expect:
        check_expect(emit, args.expect.split(), outside, suites.get("params", (0, []))[1])
    splats = [line for line in lines if SPLAT.search(line)]
    emit(not splats, "console: no BUG, WARNING, Oops, KASAN, lockdep or UBSAN report"
         + ("" if not splats else ": " + splats[0][:120]))
    emit.plan()


if __name__ == "__main__":
    main()
