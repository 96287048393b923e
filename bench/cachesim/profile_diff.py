#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare two kcolour-cachesim instruction profiles by kernel function.

usage: profile_diff.py [--phase K] [--top 30] [--per N]
                       SYSTEM_MAP_A PROFILE_A SYSTEM_MAP_B PROFILE_B

A profile is what the plugin's profile=PATH writes, a line "profile phase=K
pc=HEX insns=N execs=M" a translation block, whose instructions all count for
the function of its first: the System.map text symbol (type t, T, w or W) at
or below the pc, "[user]" below the user-space end, "[unknown]" below every
symbol.  Prints the --top functions by |B - A| of the instructions summed per
function (every phase, or --phase K) with A, B, B - A and that as a share of
A's total; --per N divides by N (say, a forkloop phase's forks).  Each side
has its own System.map, so A and B may be different builds.
"""
import argparse
import bisect
import os
import re
import sys
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple, Union, cast

USER_END = 0x0000800000000000
TEXT_TYPES = {"T": 0, "t": 1, "W": 2, "w": 3}
# Section boundaries share an address with the first function after them.
MARKER_RE = re.compile(r"_[se]?text|_[se]inittext|__\w*_(start|end)")
SYMBOL_RE = re.compile(r"([0-9a-fA-F]+)\s+([TtWw])\s+(\S+)")


class Symbols:
    """The text symbols of one System.map, for pc -> function lookups."""

    def __init__(self, lines: Iterable[str]) -> None:
        best: Dict[int, Tuple[Tuple[bool, int, int], str]] = {}
        for order, m in enumerate(map(SYMBOL_RE.match, lines)):
            if not m:
                continue
            addr, name = int(m.group(1), 16), m.group(3)
            # Of aliases, prefer a function to a section marker, a global
            # symbol to a local one, and then the first listed.
            key = (bool(MARKER_RE.fullmatch(name)), TEXT_TYPES[m.group(2)], order)
            if addr not in best or key < best[addr][0]:
                best[addr] = (key, name)
        self.addrs = sorted(best)
        self.names = [best[a][1] for a in self.addrs]

    def lookup(self, pc: int) -> str:
        if pc < USER_END:
            return "[user]"
        i = bisect.bisect_right(self.addrs, pc) - 1
        return self.names[i] if i >= 0 else "[unknown]"


def records(path: Union[str, "os.PathLike[str]"], kind: str, keys: Sequence[str],
            phase: Optional[int] = None) -> Tuple[List[Tuple[int, ...]], Set[int]]:
    """The lines of a kind ("profile", "entry") of a profile file: for each of
    one phase, or of every phase if phase is None, the values of keys (ints,
    hex where they start with 0x); and the phases the kind's lines have."""
    out: List[Tuple[int, ...]] = []
    phases: Set[int] = set()
    with open(path) as f:
        for n, line in enumerate(f, 1):
            words = line.split()
            if not words or words[0] != kind:
                continue
            kv = dict(w.split("=", 1) for w in words[1:] if "=" in w)
            try:
                k = int(kv["phase"])
                values = tuple(int(kv[key], 16 if key in ("pc", "from", "to") else 10)
                               for key in keys)
            except (KeyError, ValueError):
                raise SystemExit("%s:%d: not a%s %s line: %s" % (
                    path, n, "n" if kind[0] in "aeiou" else "", kind, line.strip()))
            phases.add(k)
            if phase is None or k == phase:
                out.append(values)
    return out, phases


def read_profile(path: Union[str, "os.PathLike[str]"],
                 phase: Optional[int] = None) -> List[Tuple[int, ...]]:
    """[(pc, insns)] of one phase, or of every phase if phase is None."""
    out, phases = records(path, "profile", ("pc", "insns"), phase)
    if phase is not None and phase not in phases:
        raise SystemExit("%s: no phase %d (phases: %s)" % (
            path, phase, " ".join(map(str, sorted(phases))) or "none"))
    return out


def read_entries(path: Union[str, "os.PathLike[str]"],
                 phase: Optional[int] = None) -> List[Tuple[int, ...]]:
    """[(from pc, to pc, count)] of the entry lines of one phase, or of every
    phase if phase is None (bench/cachesim/README.md, Instruction profile)."""
    return records(path, "entry", ("from", "to", "count"), phase)[0]


def by_function(symbols: Symbols, profile: Iterable[Tuple[int, ...]]) -> Dict[str, int]:
    sums: Dict[str, int] = {}
    for pc, insns in profile:
        name = symbols.lookup(pc)
        sums[name] = sums.get(name, 0) + insns
    return sums


def diff(a: Dict[str, int], b: Dict[str, int]) -> List[Tuple[str, int, int, int]]:
    """[(function, A, B, B - A)], the largest |B - A| first."""
    rows = [(f, a.get(f, 0), b.get(f, 0), b.get(f, 0) - a.get(f, 0)) for f in set(a) | set(b)]
    return sorted(rows, key=lambda r: (-abs(r[3]), r[0]))


def report(a: Dict[str, int], b: Dict[str, int], top: int, per: Optional[float] = None,
           title: str = "") -> List[str]:
    """The printed table, as a list of lines."""
    total_a, total_b = sum(a.values()), sum(b.values())
    # cast: per is a float where these lambdas are taken (mypy 1.0 does not
    # carry "if per" into a lambda).
    num: Callable[[float], str] = (lambda v: "%.1f" % (v / cast(float, per))) if per else \
        (lambda v: "%d" % v)
    delta: Callable[[float], str] = \
        (lambda v: "%+.1f" % (v / cast(float, per))) if per else (lambda v: "%+d" % v)
    share: Callable[[float], str] = \
        (lambda v: "%+.2f%%" % (100.0 * v / total_a)) if total_a else (lambda v: "-")
    row = "%14s %14s %14s %8s  %s"
    return ["# %s%s" % (title, "; per %g" % per if per else ""),
            "# total  A %s  B %s  B-A %s (%s of A)" % (
                num(total_a), num(total_b), delta(total_b - total_a), share(total_b - total_a)),
            row % ("A", "B", "B-A", "of A", "function")] + \
        [row % (num(va), num(vb), delta(d), share(d), f) for f, va, vb, d in diff(a, b)[:top]]


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(
        description="Instructions per kernel function, profile B minus profile A.")
    ap.add_argument("--phase", type=int, help="only this phase (default: all phases)")
    ap.add_argument("--top", type=int, default=30, help="functions to show (30)")
    ap.add_argument("--per", type=float, help="divide by N (events) for per-event figures")
    ap.add_argument("map_a", metavar="SYSTEM_MAP_A")
    ap.add_argument("prof_a", metavar="PROFILE_A")
    ap.add_argument("map_b", metavar="SYSTEM_MAP_B")
    ap.add_argument("prof_b", metavar="PROFILE_B")
    args = ap.parse_args(argv)
    if args.per is not None and args.per <= 0:
        ap.error("--per must be positive")
    with open(args.map_a) as map_a, open(args.map_b) as map_b:
        a = by_function(Symbols(map_a), read_profile(args.prof_a, args.phase))
        b = by_function(Symbols(map_b), read_profile(args.prof_b, args.phase))
    title = "insns per function, %s: A %s, B %s" % (
        "all phases" if args.phase is None else "phase %d" % args.phase, args.prof_a, args.prof_b)
    print("\n".join(report(a, b, args.top, args.per, title)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
