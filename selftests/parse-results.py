#!/usr/bin/env python3
"""Turn one test boot's console log into TAP lines.

Reads the KUnit suite's KTAP (printed by the kernel at boot: the
"kstack_colour" suite, one line per case, parameterised cases with their
sub-results) and the kselftest's TAP between the KSFT-BEGIN and KSFT-END
markers (printed by the guest's /run.sh), and prints one TAP line per test:
"ok - kunit: CASE", "ok - kselftest: NAME", and lines for what is missing
(no KUnit suite, a kselftest that did not finish or skipped).

usage: parse-results.py CONSOLE.LOG [--allow-skip]
  --allow-skip  a kselftest skip (exit 4) passes, for boots that switch
                colouring off on purpose
"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools-probe/tests"))
from probelib import Tap  # noqa: E402

KUNIT_CASE = re.compile(r"^ {4}(not ok|ok) \d+ (\S+)(.*)$")
KUNIT_SUB = re.compile(r"^ {8}(not ok|ok) \d+ (.*)$")
KUNIT_SUITE = re.compile(r"^(not ok|ok) \d+ kstack_colour$")
KSFT_LINE = re.compile(r"^(not ok|ok) \d+ (.*)$")
SPLAT = re.compile(r"(BUG: |WARNING: CPU|Oops: |Kernel panic|general protection fault|"
                   r"KASAN|UBSAN|possible circular locking|stack-protector)")



def main(log, allow_skip):
    emit = Tap()
    lines = open(log, errors="replace").read().splitlines()
    suite, cases, subs, ksft, in_ksft, ksft_rc = None, [], [], [], False, None
    for line in lines:
        if line.startswith("D "):      # dmesg copies printed by a guest script
            continue
        if line == "KSFT-BEGIN":
            in_ksft = True
            continue
        m = re.match(r"^KSFT-END rc=(\d+)", line)
        if m:
            in_ksft, ksft_rc = False, int(m.group(1))
            continue
        if in_ksft:
            m = KSFT_LINE.match(line)
            if m:
                ksft.append((m.group(1) == "ok", m.group(2)))
            elif line.startswith("# ") and ("fail" in line.lower() or "share" in line
                                             or "SKIP" in line or "did not" in line):
                print("# kselftest: " + line[2:])
            continue
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
    emit(ksft_rc == 0 or (allow_skip and ksft_rc == 4),
         "kselftest: kstack_colour_test exit status %s" % ksft_rc)
    for good, name in ksft:
        emit(good, "kselftest: " + name)
    splats = [line for line in lines if SPLAT.search(line)]
    emit(not splats, "console: no BUG, WARNING, Oops or sanitizer report"
         + ("" if not splats else ": " + splats[0][:120]))
    emit.plan()


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    main(sys.argv[1], "--allow-skip" in sys.argv[2:])
