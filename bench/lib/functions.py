"""A boot's instructions by kernel function, from the simulator's profile=
file (bench/cachesim/profile_diff.py's lookup), with each function's size in
its vmlinux, and their raw files: "workload events function bytes insns" a
line, bytes the sizes of every text symbol of that name ("-" where its
vmlinux has none: user space, the unknown, a function only another kernel
has).  Boots compared with each other list the same functions (paired()):
one that a boot never ran has 0 instructions there."""

import collections
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Counter, Dict, Iterable, List, Optional, Tuple

from bench.cachesim import profile_diff

if TYPE_CHECKING:  # only for the annotation: this module does not load data.py
    from bench.lib.data import Phase

COLUMNS = ("workload", "events", "function", "bytes", "insns")
TEXT = set("tTwW")
# {workload label: (events, {function: (bytes, instructions)})}
Functions = Dict[str, Tuple[int, Dict[str, Tuple[str, int]]]]


def sizes(vmlinux: Path) -> Dict[str, str]:
    """{function: its text symbols' sizes, sorted, joined by ","} of a vmlinux."""
    out = subprocess.run(["nm", "-S", "--defined-only", str(vmlinux)], capture_output=True,
                         text=True, check=True).stdout
    found = collections.defaultdict(list)
    for w in (line.split() for line in out.splitlines()):
        if len(w) == 4 and w[2] in TEXT:
            found[w[3]].append(int(w[1], 16))
    return {name: ",".join(map(str, sorted(s))) for name, s in found.items()}


def of_boot(boot: Iterable["Phase"], system_map: Path, profile: Path,
            size: Dict[str, str]) -> Tuple[Functions, List[str]]:
    """A boot's Functions (size: its vmlinux's sizes()), web net of ab's
    start-up (data.net()'s rule), and the problems: a phase whose functions
    do not add up to its instructions."""
    with open(system_map) as f:
        symbols = profile_diff.Symbols(f)
    out: Functions = {}
    problems: List[str] = []
    start_up: Optional[Tuple[int, Counter[str]]] = None  # (events, sums) of ab's start-up
    for i, phase in enumerate(boot):
        sums = collections.Counter(profile_diff.by_function(
            symbols, profile_diff.read_profile(profile, i)))
        if sum(sums.values()) != phase.head["insns"]:
            problems.append("%s: functions %d, phase %d" % (
                phase.label, sum(sums.values()), phase.head["insns"]))
        if phase.start_up:
            start_up = (phase.unit[1], sums)
            continue
        events = phase.unit[1]
        if phase.workload == "web" and start_up:
            events -= start_up[0]
            sums.subtract(start_up[1])
        out[phase.label] = (events, {f: (size.get(f, "-"), n) for f, n in sums.items() if n})
    return out, problems


def paired(boots: Dict[str, Functions], size: Dict[str, Dict[str, str]]) -> None:
    """Boots to be compared (by kernel), each with its vmlinux's sizes(): every
    workload of each lists every function any of them ran, with its own size,
    and 0 instructions where it never ran it."""
    for label in set().union(*boots.values()):
        names = set().union(*(b[label][1] for b in boots.values() if label in b))
        for k, b in boots.items():
            if label in b:
                fns = b[label][1]
                for f in names - set(fns):
                    fns[f] = (size[k].get(f, "-"), 0)


def write(path: Path, head: str, functions: Functions) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as out:
        out.write("%s\n%s\n" % (head, "\t".join(COLUMNS)))
        for label, (events, fns) in functions.items():
            for f in sorted(fns):
                out.write("%s\t%d\t%s\t%s\t%d\n" % (label, events, f, fns[f][0], fns[f][1]))


def read(path: Path) -> Functions:
    lines = [line for line in path.read_text().splitlines() if not line.startswith("#")]
    if lines[0].split("\t") != list(COLUMNS):
        raise ValueError("%s: columns %r, want %r" % (path, lines[0], "\t".join(COLUMNS)))
    out: Functions = {}
    for w in (line.split("\t") for line in lines[1:]):
        out.setdefault(w[0], (int(w[1]), {}))[1][w[2]] = (w[3], int(w[4]))
    return out
