"""One TAP writer and one reader (KTAP's subset that kcolour uses).

Writer: Tap() prints "ok N - text", "not ok N - text", "ok N - text # SKIP
reason", diagnostics as "# ..." and the plan "1..N" last; sub(name) nests a
subtest (KTAP: its lines indented four spaces, then one summary line).

Reader: parse(lines) -> [Result], leaves only (a subtest's summary line is
not counted again), and counts(results) -> (passed, failed, skipped).
"""

import re
import sys

LINE = re.compile(r"^(?P<indent>(?:    )*)(?P<status>not ok|ok)(?=\s+\d|\s+-|\s*$)"
                  r"\s*(?P<num>\d+)?\s*-?\s*"
                  r"(?P<text>.*?)(?:\s+#\s*(?P<dir>SKIP|TODO)\b\s*(?P<reason>.*))?$",
                  re.IGNORECASE)
BAIL = re.compile(r"^(?:    )*Bail out!(.*)$")


class Tap:
    """TAP lines, numbered from 1 at each depth; plan() goes last."""

    def __init__(self, out=None, depth=0):
        self.out = out or sys.stdout
        self.depth = depth
        self.n = self.failed = self.skipped = 0

    def _print(self, line):
        self.out.write("    " * self.depth + line + "\n")
        self.out.flush()

    def __call__(self, good, text, diag=(), skip=None):
        """One test line, then a "#   " line per diagnostic; returns good.
        skip=REASON reports a test that could not run here: not a pass."""
        self.n += 1
        if skip is not None:
            self.skipped += 1
            self._print("ok %d - %s # SKIP %s" % (self.n, text, skip))
            return True
        self.failed += not good
        self._print("%sok %d - %s" % ("" if good else "not ", self.n, text))
        for d in diag:
            for line in str(d).splitlines():
                self._print("#   " + line)
        return good

    def skip(self, text, reason):
        return self(True, text, skip=reason)

    def diag(self, text):
        self._print("# " + text)

    def plan(self):
        self._print("1..%d" % self.n)
        return 1 if self.failed else 0

    def sub(self, name):
        """A nested subtest: use as `with tap.sub(name) as t:`."""
        return _Sub(self, name)

    def forward(self, lines):
        """Re-emit another TAP stream's results as this one's (renumbered)."""
        for r in parse(lines):
            self(r.ok, r.text, skip=r.reason if r.skip else None)


class _Sub:
    def __init__(self, parent, name):
        self.parent, self.name = parent, name
        self.tap = Tap(parent.out, parent.depth + 1)

    def __enter__(self):
        self.parent._print("# Subtest: " + self.name)
        return self.tap

    def __exit__(self, *exc):
        self.tap.plan()
        self.parent(not self.tap.failed and exc[0] is None, self.name)


class Result:
    def __init__(self, ok, text, skip=False, reason="", depth=0):
        self.ok, self.text, self.skip, self.reason, self.depth = ok, text, skip, reason, depth

    def __repr__(self):
        return "Result(%r, %r, skip=%r)" % (self.ok, self.text, self.skip)


def parse(lines):
    """The leaf results of a TAP stream; "Bail out!" counts as a failure."""
    out, last = [], 0
    for line in lines:
        line = line.rstrip("\r\n")
        m = BAIL.match(line)
        if m:
            out.append(Result(False, "Bail out!" + m.group(1)))
            continue
        m = LINE.match(line)
        if not m:
            continue
        depth = len(m.group("indent")) // 4
        ok = m.group("status").lower() == "ok"
        # A summary line closes the subtest whose results came just before:
        # it counts only where it fails and none of those results did.
        if depth < last:
            last = depth
            if not ok and all(r.ok for r in _tail(out, depth)):
                out.append(Result(False, m.group("text"), depth=depth))
            continue
        last = depth
        skip = (m.group("dir") or "").upper() == "SKIP"
        out.append(Result(ok, m.group("text"), skip, m.group("reason") or "", depth))
    return out


def _tail(results, depth):
    """The results deeper than depth at the end of results."""
    i = len(results)
    while i and results[i - 1].depth > depth:
        i -= 1
    return results[i:]


def counts(results):
    """(passed, failed, skipped) of parse()'s results."""
    skipped = sum(r.skip for r in results)
    failed = sum(not r.ok for r in results)
    return len(results) - skipped - failed, failed, skipped
