#!/usr/bin/env python3
"""The tests of bench/paired.py, the paired interval and verdict, as TAP.

    python3 bench/tests/test_paired.py

On synthetic layouts with known effects: each layout's control is a
log-normal placement effect shared by case and control, and each pair adds
its own noise (sd 0.5% on the log ratio).  A 1% effect must be called in at
least 95% of seeds and a 0% effect in at most 5%: a 95% interval misses a
true 0 in 5% of seeds by construction, so the check allows the simulation's
own sampling error, two standard errors of a proportion over SEEDS.
"""

import math
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, TOP)
from bench.lib import paired  # noqa: E402
from harness import tap  # noqa: E402

SEEDS = 4000
LAYOUTS = 8
NOISE = 0.005


def layouts(rng, effect, n=LAYOUTS, noise=NOISE):
    """(control, case) of n layouts: a placement effect of 5% shared by the pair,
    the case effect, and noise of its own per pair."""
    control, case = [], []
    for _ in range(n):
        base = 1e6 * math.exp(rng.gauss(0, 0.05))
        control.append(base)
        case.append(base * (1 + effect) * math.exp(rng.gauss(0, noise)))
    return control, case


def called(effect, want):
    """The share of seeds whose verdict is want."""
    hits = sum(paired.Paired(*layouts(random.Random(seed), effect)).verdict == want
               for seed in range(SEEDS))
    return hits / SEEDS


def main():
    t = tap.Tap()
    # Student's t table, two-sided 95%.
    table = {1: 12.706, 4: 2.776, 7: 2.365, 9: 2.262, 29: 2.045, 1000: 1.962}
    got = {df: paired.t_quantile(0.95, df) for df in table}
    t(all(abs(got[df] - q) < 0.001 for df, q in table.items()),
      "t quantiles match the table (df 1, 4, 7, 9, 29, 1000)", diag=[str(got)])

    # A known case by hand: ratios 1.01, 1.02, 1.03 -> mean log ratio and t interval.
    p = paired.Paired([100, 200, 300], [101, 204, 309])
    d = [math.log(1.01), math.log(1.02), math.log(1.03)]
    m, s = sum(d) / 3, math.sqrt(sum((x - sum(d) / 3) ** 2 for x in d) / 2)
    h = 4.303 * s / math.sqrt(3)
    t(abs(p.pct - 100 * math.expm1(m)) < 1e-9 and abs(p.lo - 100 * math.expm1(m - h)) < 1e-3
      and abs(p.hi - 100 * math.expm1(m + h)) < 1e-3 and p.verdict == paired.NONE
      and p.how == "log ratio", "three pairs: the mean log ratio and its t interval by hand, "
      "which holds 0 (%s)" % p.interval())

    power = called(0.01, paired.HIGHER)
    t(power >= 0.95, "a 1%% effect under 0.5%% noise, %d layouts: called in %.1f%% of %d seeds "
      "(at least 95%%)" % (LAYOUTS, 100 * power, SEEDS))
    lower = called(-0.01, paired.LOWER)
    t(lower >= 0.95, "a -1%% effect likewise: called lower in %.1f%% of seeds" % (100 * lower))
    false = 1 - called(0.0, paired.NONE)
    slack = 2 * math.sqrt(0.05 * 0.95 / SEEDS)
    t(false <= 0.05 + slack, "a 0%% effect: called in %.2f%% of %d seeds (at most 5%%, + %.2f%% "
      "for the simulation's sampling error)" % (100 * false, SEEDS, 100 * slack))

    # The placement effect cancels in the pairs: unpaired, 5% placement noise
    # would hide a 1% effect.
    control, case = layouts(random.Random(1), 0.01)
    p = paired.Paired(control, case)
    t(p.verdict == paired.HIGHER and p.half_width < 0.6,
      "the layouts' 5%% placement effect cancels in the pairs: %s, half-width %.2f%%"
      % (p.interval(), p.half_width))

    # Pairs for a target width: with sd 0.5% on the log, +-0.5% needs about
    # (t * 0.5 / 0.5)^2 pairs: 7 (t_6 = 2.447, 2.447 / sqrt(7) = 0.925 < 1).
    control, case = layouts(random.Random(2), 0.0, n=200)
    p = paired.Paired(control, case)
    n = p.pairs_for(0.5)
    t(n is not None and 5 <= n <= 10, "pairs for +-0.5%% at sd %.3f%%: %s (7 at sd 0.5%%)"
      % (100 * p.sd, n))
    t(paired.Paired([1, 1], [1, 1]).pairs_for(0.5) == 2, "no noise: 2 pairs are enough")

    # Zeros: a count that can be 0 is compared as a difference over the control mean.
    p = paired.Paired([0, 10, 20], [0, 11, 21])
    t(p.how == "difference over the control mean" and abs(p.pct - 100 * (2 / 3) / 10) < 1e-9,
      "a zero count: the difference over the control mean (%s)" % p.interval())

    # Too few pairs, mismatched pairs.
    p = paired.Paired([100], [110])
    t(p.verdict == paired.NA and p.interval() == "+10.00% (one pair)"
      and paired.Paired([], []).interval() == "n/a", "one pair or none: no interval, verdict n/a")
    try:
        paired.Paired([1, 2], [1])
        t(False, "mismatched pairs raise ValueError")
    except ValueError as e:
        t("2 controls but 1 cases" in str(e), "mismatched pairs raise ValueError: %s" % e)

    p = paired.Paired([100, 100, 100], [100, 101, 99])
    t(p.verdict == paired.NONE and p.described().startswith("no measurable effect, within ±"),
      "no effect is said with its width: %s" % p.described())

    cells = [paired.Paired([100, 100, 100], [110, 111, 112]).cell(),
             paired.Paired([100, 100, 100], [90, 89, 91]).cell(), p.cell()]
    t(cells[0].endswith("] **higher**") and cells[1].endswith("] **lower**") and
      cells[2] == p.interval(), "a table's cell: the verdict in bold only where the interval "
      "excludes 0: %s" % " / ".join(cells))

    # t's p agrees with the interval: 0 just outside it at 95%, inside it not.
    p = paired.Paired([100, 100, 100, 100], [110, 111, 112, 109])
    q = paired.Paired([100, 100, 100], [100, 101, 99])
    t(p.p < 0.05 and p.real and q.p > 0.05 and not q.real and
      math.isnan(paired.Paired([1], [2]).p),
      "t's two-sided p: below 0.05 exactly where the 95%% interval excludes 0 (%.4f, %.3f)"
      % (p.p, q.p))
    # Wilcoxon's signed rank, exact: against hand counts.  n = 10 all one
    # sign: 2 / 1024; one of ten against, the smallest: 2 x 2 / 1024; the
    # largest against: 43 rank subsets sum to 10 or less, 2 x 43 / 1024.
    w = [paired.signed_rank_p([1] * 10),
         paired.signed_rank_p([-0.5] + list(range(2, 11))),
         paired.signed_rank_p(list(range(1, 10)) + [-10]),
         paired.signed_rank_p([0, 0, 0]), paired.signed_rank_p([1, -1, 2, -2])]
    t(w == [2 / 1024, 4 / 1024, 86 / 1024, 1.0, 1.0],
      "signed-rank exact p: all ten one way, the smallest against, the largest against, "
      "no differences, a symmetric tie: %s" % w)
    h = paired.holm([0.01, 0.04, 0.03, 0.005])
    t(all(abs(a - b) < 1e-12 for a, b in zip(h, [0.03, 0.06, 0.06, 0.02])) and
      paired.holm([]) == [] and paired.holm([0.9, 0.8]) == [1.0, 1.0],
      "Holm's adjusted p: step-down, monotone, at most 1: %s" % h)

    s = paired.summary(list(range(1, 101)))
    t(s == (50.5, 50.5, 99), "mean, median and nearest-rank p99 of 1..100: %s" % (s,))
    t(all(math.isnan(x) for x in paired.summary([])), "summary of nothing: nans")
    return t.plan()


if __name__ == "__main__":
    sys.exit(main())
