"""A test boot's console as TAP: the KUnit suite, guest-run.sh's parts, no kernel splat.

The KTAP of KUnit and the kselftests' TAP are read by harness.tap.read, the
one reader (harness/tests/test_harness.py checks this file's output on
recorded consoles, harness/tests/test_data/parse_results.tsv).

usage: python3 -m selftests.parse_results CONSOLE.LOG [--allow-skip] [--expect "K=V ..."]
                                          [--upstream FILE]
       (from the top of the tree, not by its path)
  --allow-skip   a kselftest skip (exit 4) is a skip, for boots with colouring off
  --expect       warn=TOKEN (one "ignoring 'TOKEN'" warning each, and no other),
                 log=REGEX (a console line matches; \\s a space), KEY=VALUE (params)
  --upstream     where to write the upstream programs' "prog rc" lines
"""
import re
import sys
from pathlib import Path

from harness.qemu import SPLAT
from harness.tap import Tap, read

CASE = re.compile(r"^(\S+)(.*)$")  # a KUnit case's name, then its directive
SUITE_BEGIN = re.compile(r"^SUITE-BEGIN (\S+)$")
SUITE_END = re.compile(r"^SUITE-END (\S+) rc=(\d+)$")
UPSTREAM = re.compile(r"^UPSTREAM (\S+) rc=(\d+)$")
STRESS = re.compile(r"^STRESS cgroups before (\w+) after (\w+)$")
SYSCTL = re.compile(r"^SYSCTL before (\w+) after (\w+)$")
WARNING = re.compile(r"ignoring '([^']*)' in kstack_colour=")


def read_suites(lines):
    """{suite: [rc or None, [lines inside]]}, and the lines outside."""
    suites, outside, current = {}, [], None
    for line in lines:
        begin, end = SUITE_BEGIN.match(line), SUITE_END.match(line)
        if begin:
            current = begin.group(1)
            suites[current] = [None, []]
        elif end and end.group(1) == current:
            suites[current][0], current = int(end.group(2)), None
        else:
            (suites[current][1] if current else outside).append(line)
    return suites, outside


def results(lines, depth):
    """The numbered result lines at one depth of the (K)TAP in lines."""
    return [r for r in read(lines) if r.depth == depth and r.num is not None]


def check_kunit(emit, lines):
    """Every case (of every suite), a skip with its reason, and a failed
    parameter's line (KTAP: suites at depth 0, cases 1, parameters 2)."""
    emit(any(r.raw == "kstack_colour" for r in results(lines, 0)),
         "kunit: the kstack_colour suite ran")
    for r in results(lines, 1):
        m = CASE.match(r.raw)
        if m:
            name, rest = m.groups()
            emit(r.ok, "kunit: " + name + (rest if "# SKIP" in rest else ""))
    for r in results(lines, 2):
        if not r.ok:
            emit(False, "kunit: " + r.raw)


def check_kselftest(emit, name, rc, lines, allow_skip):
    for line in lines:
        if line.startswith("# ") and any(w in line.lower() for w in
                                         ("fail", "share", "skip", "did not", "forks")):
            emit.diag("%s: %s" % (name, line[2:]))
    # kselftest.h: KSFT_PASS 0, KSFT_SKIP 4 (with colouring off: a skip, not a pass)
    emit(rc == 0, "%s: exit status %s" % (name, rc),
         skip="it skips with colouring off" if allow_skip and rc == 4 else None)
    for r in results(lines, 0):
        emit(r.ok, "%s: %s" % (name, r.raw))


def check_sysctl(emit, name, lines):
    """The kselftest left kernel.kstack_colour as it found it (it may turn
    colouring on for its own tasks); the lines less the SYSCTL line."""
    state = [m.groups() for m in map(SYSCTL.match, lines) if m]
    emit(len(state) == 1 and state[0][0] == state[0][1],
         "%s: kernel.kstack_colour left as found (%s)"
         % (name, " -> ".join(state[0]) if state else "no SYSCTL line"))
    return [line for line in lines if not SYSCTL.match(line)]


def check_stress(emit, name, rc, lines, allow_skip):
    state = [m.groups() for m in map(STRESS.match, lines) if m]
    emit(len(state) == 1 and state[0][0] == state[0][1],
         "%s: cgroups, cgroup2 mounts and /tmp left as found (%s)"
         % (name, " -> ".join(state[0]) if state else "no STRESS line"))
    check_kselftest(emit, name, rc, [line for line in lines if not line.startswith("STRESS")],
                    allow_skip)


def check_hotplug(emit, rc, lines, allow_skip):
    steps = {m.group(1): m.group(2).split() for m in
             (re.match(r"^HOTPLUG (before|offline|after) ?(.*)$", x) for x in lines) if m}
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
    params = {m.group(1): m.group(2).strip() for m in
              filter(None, (re.match(r"^PARAMS (\w+): ?(.*)$", x) for x in params_lines))}
    warned = [m.group(1) for m in map(WARNING.search, outside) if m]
    tokens = [e[5:] for e in expect if e.startswith("warn=")]
    for token in tokens:
        emit(warned.count(token) == 1, "one warning names the bad token '%s'" % token)
    emit(sorted(warned) == sorted(tokens),
         "no other kstack_colour= warning (%d: %s)" % (len(warned), ", ".join(warned)))
    for e in expect:
        if e.startswith("log="):
            emit(any(re.search(e[4:], line) for line in outside), "console shows /%s/" % e[4:])
        elif not e.startswith("warn="):
            key, _, value = e.partition("=")
            emit(params.get(key) == value, "params %s: %s (got %s)" % (key, value, params.get(key)))


def check(emit, lines, allow_skip=False, expect=""):
    """Every check of a console's lines on the Tap emit; the upstream programs' {prog: rc}."""
    suites, outside = read_suites(lines)
    check_kunit(emit, outside)
    upstream = {}
    for name, (rc, body) in suites.items():
        emit(rc is not None, "%s: ran to the end" % name)
        if name == "kstack":
            check_kselftest(emit, name, rc, check_sysctl(emit, name, body), allow_skip)
        elif name in ("stress", "stress-nomount"):
            check_stress(emit, name, rc, check_sysctl(emit, name, body), allow_skip)
        elif name == "hotplug":
            check_hotplug(emit, rc, body, allow_skip)
        elif name == "probe":
            emit(rc == 0, "probe: kcolour-probe in the guest exits 0")
        elif name == "upstream":
            upstream.update((m.group(1), int(m.group(2))) for m in map(UPSTREAM.match, body) if m)
    if expect:
        check_expect(emit, expect.split(), outside, suites.get("params", [0, []])[1])
    splats = [line for line in lines if SPLAT.search(line)]
    emit(not splats, "console: no BUG, WARNING, Oops, KASAN, lockdep or UBSAN report"
         + ("" if not splats else ": " + splats[0][:120]))
    return upstream


def main(args):
    def value(opt):
        return args[args.index(opt) + 1] if opt in args else ""
    if not args or args[0].startswith("-"):
        sys.exit(__doc__)
    emit = Tap()
    upstream = check(emit, Path(args[0]).read_text(errors="replace").splitlines(),
                     "--allow-skip" in args, value("--expect"))
    if value("--upstream"):
        Path(value("--upstream")).write_text("".join("%s %d\n" % kv for kv in upstream.items()))
    return emit.plan()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
