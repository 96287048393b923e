"""One TAP writer and one reader (KTAP's subset that kcolour uses), and
unittest's results as TAP.

Writer: Tap() prints "ok N - text", "not ok N - text", "ok N - text # SKIP
reason", diagnostics as "# ..." and the plan "1..N" last; sub(name) nests a
subtest (KTAP: "# Subtest: NAME", its lines indented four spaces, its plan,
then one summary line).

Reader (kunit_parser.py's part): read(lines) -> [Result], every result line
with its depth, number, directive (SKIP, TODO, XFAIL) and, for a subtest's
summary line, its results; parse(lines) -> [Result], leaves only (a
subtest's summary line is not counted again), and counts(results) ->
(passed, failed, skipped).  A "\\#" in a description is a "#" (TAP 14's
escape), not a directive.  It reads TAP 13/14 and KTAP as KUnit and the
kselftests print them, inside a kernel console: "KTAP version 1" and
"TAP version 13" lines, plans, "# Subtest:" headers, diagnostics and
every line that is not TAP are skipped; subtests are indented by fours.

TapResult / run_tests(suite): a unittest run printed as TAP, a line a test
method (harness/tests/test_harness.py).
"""

import io
import re
import sys
import traceback
import unittest
from types import TracebackType
from typing import IO, Dict, Iterable, List, Optional, Sequence, TextIO, Tuple, Type, Union

# A result line: the rest is " N description # DIRECTIVE reason" (or "- description").
LINE = re.compile(r"^(?P<indent>(?:    )*)(?P<status>not ok|ok)(?=\s+\d|\s+-|\s*$)"
                  r"\s*(?P<num>\d+)?(?P<rest>.*)$", re.IGNORECASE)
DIRECTIVE = re.compile(r"(?:^|\s)#\s*(SKIP|TODO|XFAIL)\b(.*)$", re.IGNORECASE)
BAIL = re.compile(r"^(?:    )*Bail out!(.*)$")
SUBTEST = re.compile(r"^((?:    )*)# Subtest: (.*)$")
VERSION = re.compile(r"^(?:    )*K?TAP version \d+\s*$")

ExcInfo = Tuple[Type[BaseException], BaseException, TracebackType]


class Tap:
    """TAP lines, numbered from 1 at each depth; plan() goes last."""

    def __init__(self, out: Optional[IO[str]] = None, depth: int = 0) -> None:
        self.out: IO[str] = out or sys.stdout
        self.depth = depth
        self.n = self.failed = self.skipped = 0

    def _print(self, line: str) -> None:
        self.out.write("    " * self.depth + line + "\n")
        self.out.flush()

    def __call__(self, good: object, text: str, diag: Iterable[object] = (),
                 skip: Optional[str] = None) -> bool:
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
        return bool(good)

    def skip(self, text: str, reason: str) -> bool:
        return self(True, text, skip=reason)

    def diag(self, text: str) -> None:
        self._print("# " + text)

    def plan(self) -> int:
        self._print("1..%d" % self.n)
        return 1 if self.failed else 0

    def sub(self, name: str) -> "_Sub":
        """A nested subtest: use as `with tap.sub(name) as t:`."""
        return _Sub(self, name)

    def forward(self, lines: Iterable[str]) -> None:
        """Re-emit another TAP stream's results as this one's (renumbered)."""
        for r in parse(lines):
            self(r.ok, r.text, skip=r.reason if r.skip else None)


class _Sub:
    def __init__(self, parent: Tap, name: str) -> None:
        self.parent, self.name = parent, name
        self.tap = Tap(parent.out, parent.depth + 1)

    def __enter__(self) -> Tap:
        self.parent._print("# Subtest: " + self.name)
        return self.tap

    def __exit__(self, *exc: object) -> None:
        self.tap.plan()
        self.parent(not self.tap.failed and exc[0] is None, self.name)


class Result:
    """One result line.  text: its description without the number, "- " or
    the directive; raw: everything after "N " as written (the directive
    too); directive: "SKIP", "TODO", "XFAIL" or ""; depth: its indentation
    in fours; subtest: the "# Subtest:" name announced for its children;
    children: the results of its subtest (a summary line's), in order."""

    def __init__(self, ok: bool, text: str, skip: bool = False, reason: str = "",
                 depth: int = 0, num: Optional[int] = None, raw: str = "",
                 directive: str = "", subtest: str = "", bail: bool = False) -> None:
        self.ok, self.text, self.skip, self.reason, self.depth = ok, text, skip, reason, depth
        self.num, self.raw, self.directive, self.subtest = num, raw, directive, subtest
        self.bail = bail
        self.summary = False      # it closes a subtest (it came after deeper results)
        self.children: List["Result"] = []
        self.under: List["Result"] = []   # every result of its subtest, nested ones too

    def __repr__(self) -> str:
        return "Result(%r, %r, skip=%r)" % (self.ok, self.text, self.skip)


def _line(m: "re.Match[str]") -> Result:
    """The Result of a LINE match, its directive read off its description."""
    rest = m.group("rest")
    raw = rest[1:] if rest.startswith((" ", "\t")) else rest
    d = DIRECTIVE.search(raw)
    text, directive, reason = (raw[:d.start()], d.group(1).upper(), d.group(2).strip()) if d \
        else (raw, "", "")
    text = re.sub(r"^\s*-?\s*", "", text).strip().replace("\\#", "#")
    return Result(m.group("status").lower() == "ok", text, directive == "SKIP", reason,
                  len(m.group("indent")) // 4, int(m.group("num")) if m.group("num") else None,
                  raw, directive)


def read(lines: Iterable[str]) -> List[Result]:
    """Every result line of a TAP or KTAP stream, in order, summaries too,
    each summary with its subtest's results as children; a "Bail out!" is
    a failed Result with bail set.  Lines that are not TAP (a kernel
    console's messages, diagnostics, plans) are skipped; "# Subtest: NAME"
    names the subtest whose summary comes next; an unindented "KTAP version
    1" or "TAP version 13" starts a new stream, whose results are not
    taken for summaries of the last one's."""
    out: List[Result] = []
    tests: List[Result] = []      # result lines, bail outs apart
    names: Dict[int, str] = {}    # depth -> the "# Subtest:" name announced there
    last = start = 0              # the depth of the last result; where this stream began
    for line in lines:
        line = line.rstrip("\r\n")
        m = BAIL.match(line)
        if m:
            out.append(Result(False, "Bail out!" + m.group(1), bail=True))
            continue
        if VERSION.match(line) and not line.startswith(" "):
            last, start, names = 0, len(tests), {}
            continue
        m = SUBTEST.match(line)
        if m:
            names[len(m.group(1)) // 4] = m.group(2).strip()
            continue
        m = LINE.match(line)
        if not m:
            continue
        r = _line(m)
        if r.depth < last:
            # A summary line closes the subtest whose results came just before.
            i = len(tests)
            while i > start and tests[i - 1].depth > r.depth:
                i -= 1
            r.summary, r.under = True, tests[i:]
            top = min((t.depth for t in r.under), default=r.depth + 1)
            r.children = [t for t in r.under if t.depth == top]
            r.subtest = names.pop(top, "")
        last = r.depth
        tests.append(r)
        out.append(r)
    return out


def parse(lines: Iterable[str]) -> List[Result]:
    """The leaf results of a TAP stream (read()'s, without summaries): a
    summary line counts only where it fails and none of its subtest's
    results did; "Bail out!" counts as a failure."""
    return [r for r in read(lines)
            if not r.summary or (not r.ok and all(d.ok for d in r.under))]


def counts(results: Iterable[Result]) -> Tuple[int, int, int]:
    """(passed, failed, skipped) of parse()'s results."""
    results = list(results)
    skipped = sum(r.skip for r in results)
    failed = sum(not r.ok for r in results)
    return len(results) - skipped - failed, failed, skipped


# ------------------------------------------------------------- unittest as TAP

class TapResult(unittest.TestResult):
    """A unittest result that prints a TAP line a test method as it ends
    ("ok N - Class.method: its docstring's first line"), the traceback of a
    failure or error as diagnostics, a skip as "# SKIP reason", a failed
    subTest as a "not ok" line of its own.  What a test prints on stdout is
    held, not mixed into the TAP, and shown as diagnostics of its failure."""

    def __init__(self, tap: Tap) -> None:
        super().__init__()
        self.tap = tap
        self.held = io.StringIO()
        self.real: TextIO = sys.stdout

    @staticmethod
    def name(test: unittest.TestCase) -> str:
        """Class.method: the docstring's first line, a "#" in it escaped
        ("\\#", TAP 14), so that a description is never read as a directive."""
        desc = test.shortDescription()
        name = ".".join(test.id().split(".")[-2:]) + (": " + desc if desc else "")
        return name.replace("#", "\\#")

    def startTest(self, test: unittest.TestCase) -> None:
        super().startTest(test)
        self.held, self.real = io.StringIO(), sys.stdout
        sys.stdout = self.held

    def stopTest(self, test: unittest.TestCase) -> None:
        sys.stdout = self.real
        super().stopTest(test)

    def addSuccess(self, test: unittest.TestCase) -> None:
        super().addSuccess(test)
        self.tap(True, self.name(test))

    def _fail(self, test: unittest.TestCase, err: ExcInfo, what: str) -> None:
        diag = [what] + "".join(traceback.format_exception(*err)).rstrip("\n").splitlines()
        if self.held.getvalue():
            diag += ["its output:"] + self.held.getvalue().splitlines()
        self.tap(False, self.name(test), diag)

    def addFailure(self, test: unittest.TestCase, err: ExcInfo) -> None:  # type: ignore[override]
        super().addFailure(test, err)
        self._fail(test, err, "failed")

    def addError(self, test: unittest.TestCase, err: ExcInfo) -> None:  # type: ignore[override]
        super().addError(test, err)
        self._fail(test, err, "error")

    def addSkip(self, test: unittest.TestCase, reason: str) -> None:
        super().addSkip(test, reason)
        self.tap.skip(self.name(test), reason)

    def addExpectedFailure(self, test: unittest.TestCase, err: ExcInfo) -> None:  # type: ignore[override]
        super().addExpectedFailure(test, err)
        self.tap(True, self.name(test) + " (an expected failure)")

    def addUnexpectedSuccess(self, test: unittest.TestCase) -> None:
        super().addUnexpectedSuccess(test)
        self.tap(False, self.name(test), ["passed, but is marked expectedFailure"])

    def addSubTest(self, test: unittest.TestCase, subtest: unittest.TestCase,
                   err: Optional[Union[ExcInfo, Tuple[None, None, None]]]) -> None:
        super().addSubTest(test, subtest, err)
        if err is not None and err[0] is not None:
            self._fail(subtest, err, "subtest failed" if issubclass(
                err[0], test.failureException) else "subtest error")


def run_tests(tests: Union[unittest.TestSuite, Sequence[unittest.TestCase]],
              out: Optional[IO[str]] = None) -> int:
    """Run a unittest suite, print it as TAP (the plan last); 1 when a test
    failed or erred (or none ran), else 0."""
    tap = Tap(out)
    result = TapResult(tap)
    suite = tests if isinstance(tests, unittest.TestSuite) else unittest.TestSuite(tests)
    suite.run(result)
    return max(tap.plan(), 0 if result.wasSuccessful() and result.testsRun else 1)
