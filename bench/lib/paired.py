"""Paired comparisons: a case against its control measured in the same
layouts (or trials), the mean difference with its confidence interval, and
the one verdict every experiment gives.  Stdlib only, so that perfab.py runs
on a bare machine with this file beside it.

A pair's difference is its log ratio, log(case / control): ratios of counts
are skewed, their logs near symmetric, and the mean log ratio turns back into
a percentage, 100 (exp(mean) - 1).  Where a value is 0 or negative (a count
that can be 0), a pair's difference is case - control over the controls' mean
instead.  The interval is Student's t over the pairs' differences (n - 1
degrees of freedom), which assumes they are near normal; the layouts' log
ratios are (bench/tests/test_paired.py checks its coverage on synthetic data).

A difference is real where the interval excludes 0: "lower" or "higher";
otherwise "no measurable effect", within the interval's half-width.
"""

import math
import statistics
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

LEVEL = 0.95
LOWER, HIGHER, NONE, NA = "lower", "higher", "no measurable effect", "n/a"


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    def nonzero(v: float) -> float:
        return v if abs(v) > 1e-300 else 1e-300
    c, d = 1.0, 1.0 / nonzero(1.0 - (a + b) * x / (a + 1.0))
    h = d
    for m in range(1, 1000):
        for aa in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                   -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d, c = 1.0 / nonzero(1.0 + aa * d), nonzero(1.0 + aa / c)
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def t_pvalue(t: float, df: float) -> float:
    """Two-sided p of Student's t with df degrees of freedom: P(|T| >= |t|), the
    regularized incomplete beta function I_x(df/2, 1/2) at x = df / (df + t^2)."""
    if math.isnan(t) or math.isnan(df):
        return math.nan
    a, b, x = df / 2.0, 0.5, df / (df + t * t)
    if x <= 0.0 or x >= 1.0:    # |t| infinite or 0
        return 0.0 if x <= 0.0 else 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) +
                     a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


_QUANTILES: Dict[Tuple[float, float], float] = {}


def t_quantile(level: float, df: float) -> float:
    """The t with P(|T| <= t) = level for df degrees of freedom (2.776 for 95%
    and df 4), by bisection on t_pvalue; remembered."""
    key = (level, df)
    if key not in _QUANTILES:
        lo, hi = 0.0, 1.0
        while t_pvalue(hi, df) > 1 - level:
            hi *= 2
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if t_pvalue(mid, df) > 1 - level else (lo, mid)
        _QUANTILES[key] = (lo + hi) / 2
    return _QUANTILES[key]


def mean_interval(xs: Sequence[float], level: float = LEVEL) -> Tuple[float, float]:
    """The mean of xs and the half-width of its Student's t interval at level
    (nan for fewer than 2 values): what Paired gives its differences."""
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, math.nan
    return m, t_quantile(level, len(xs) - 1) * statistics.stdev(xs) / math.sqrt(len(xs))


class Paired:
    """case against control, pair by pair (control[i] and case[i] share a layout
    or a trial): n, the mean difference in percent of control (pct), its
    interval (lo, hi, half_width) at level, how (log ratio or difference over
    the control mean) and the verdict (LOWER, HIGHER, NONE, or NA for fewer
    than 2 pairs)."""

    def __init__(self, control: Sequence[float], case: Sequence[float],
                 level: float = LEVEL) -> None:
        if len(control) != len(case):
            raise ValueError("paired: %d controls but %d cases" % (len(control), len(case)))
        self.n, self.level = len(control), level
        self.log = all(x > 0 for x in list(control) + list(case))
        if self.log:
            self.diffs = [math.log(b / a) for a, b in zip(control, case)]
            self.how = "log ratio"
        else:
            base = statistics.fmean(control) if control else 0.0
            scale = abs(base) if base else 1.0
            self.diffs = [(b - a) / scale for a, b in zip(control, case)]
            self.how = "difference over the control mean"
        self.pct = self.lo = self.hi = self.half_width = self.sd = math.nan
        self.verdict = NA
        if self.n < 2:
            if self.n:
                self.pct = self._pct(self.diffs[0])
            return
        self.sd = statistics.stdev(self.diffs)
        m, h = mean_interval(self.diffs, level)
        self.pct, self.lo, self.hi = self._pct(m), self._pct(m - h), self._pct(m + h)
        self.half_width = (self.hi - self.lo) / 2
        self.verdict = LOWER if self.hi < 0 else HIGHER if self.lo > 0 else NONE

    def _pct(self, d: float) -> float:
        return 100.0 * (math.expm1(d) if self.log else d)

    @property
    def p(self) -> float:
        """Two-sided p of Student's t that the mean difference is 0 (nan for
        fewer than 2 pairs; 0 where every pair differs by the same)."""
        if self.n < 2:
            return math.nan
        m = statistics.fmean(self.diffs)
        if self.sd == 0:
            return 1.0 if m == 0 else 0.0
        return t_pvalue(m / (self.sd / math.sqrt(self.n)), self.n - 1)

    def pairs_for(self, half_width_pct: float, most: int = 100000) -> Optional[int]:
        """The pairs the interval needs for a half-width of half_width_pct percent
        at this sd; None where 2 pairs are not enough to know, or more than most."""
        if self.n < 2 or math.isnan(self.sd):
            return None
        want = math.log1p(half_width_pct / 100.0) if self.log else half_width_pct / 100.0
        n = 2
        while t_quantile(self.level, n - 1) * self.sd / math.sqrt(n) > want:
            n = n + 1 if n < 50 else int(n * 1.1)
            if n > most:
                return None
        return n

    @property
    def real(self) -> bool:
        """The interval excludes 0."""
        return self.verdict in (LOWER, HIGHER)

    def cell(self) -> str:
        """A table's cell: the interval, then the verdict in bold where it is real."""
        return self.interval() + (" **%s**" % self.verdict if self.real else "")

    def interval(self) -> str:
        """"+1.23% [+0.40%, +2.06%]", or "+1.23% (one pair)", or "n/a"."""
        if self.n == 0:
            return NA
        if self.n < 2:
            return "%+.2f%% (one pair)" % self.pct
        return "%+.2f%% [%+.2f%%, %+.2f%%]" % (self.pct, self.lo, self.hi)

    def described(self) -> str:
        """The verdict in words: "lower", "higher", or "no measurable effect,
        within +-0.42%"."""
        if self.verdict == NONE:
            return "%s, within ±%.2f%%" % (NONE, self.half_width)
        return self.verdict


def percentile(xs: Iterable[float], q: float) -> float:
    """The nearest-rank q-th percentile (q in 0..100) of xs; nan if empty."""
    s = sorted(xs)
    if not s:
        return math.nan
    return s[max(0, min(len(s) - 1, math.ceil(q / 100.0 * len(s)) - 1))]


def summary(xs: Sequence[float]) -> Tuple[float, float, float]:
    """(mean, median, p99) of xs; nans if empty."""
    if not xs:
        return math.nan, math.nan, math.nan
    return statistics.fmean(xs), statistics.median(xs), percentile(xs, 99)


def signed_rank_p(diffs: Iterable[float]) -> float:
    """Two-sided exact p of Wilcoxon's signed-rank test that the differences
    are symmetric about 0: zeros dropped, ties given their mean rank, every
    one of the 2^n sign patterns counted (n of at most 20).  The smallest p
    n pairs can give is 2 / 2^n (0.00195 for 10)."""
    d = [x for x in diffs if x != 0]
    n = len(d)
    if n == 0:
        return 1.0
    if n > 20:
        raise ValueError("signed_rank_p: %d pairs, at most 20" % n)
    order = sorted(range(n), key=lambda i: abs(d[i]))
    ranks = [0.0] * n
    i = 0
    while i < n:
        j = i
        while j + 1 < n and abs(d[order[j + 1]]) == abs(d[order[i]]):
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2.0 + 1.0
        i = j + 1
    # Twice the ranks are integers: count the sign patterns by their sum.
    twice = [int(round(2 * r)) for r in ranks]
    total = sum(twice)
    counts: Dict[int, int] = {0: 1}
    for r in twice:
        nxt = dict(counts)
        for s, c in counts.items():
            nxt[s + r] = nxt.get(s + r, 0) + c
        counts = nxt
    w = sum(r for r, x in zip(twice, d) if x > 0)
    dev = abs(w - total / 2.0)
    extreme = sum(c for s, c in counts.items() if abs(s - total / 2.0) >= dev - 1e-9)
    return min(1.0, extreme / 2.0 ** n)


def holm(ps: Sequence[float]) -> List[float]:
    """Holm's step-down adjusted p-values of a family, in its order: the k-th
    smallest p times (m - k + 1), made monotone, at most 1.  A test is
    rejected at family-wise level alpha where its adjusted p is <= alpha."""
    m = len(ps)
    out, run = [1.0] * m, 0.0
    for k, i in enumerate(sorted(range(m), key=lambda i: ps[i])):
        run = max(run, min(1.0, (m - k) * ps[i]))
        out[i] = run
    return out
