"""A conflict table's pairs with their lines named (by owner, by function),
per phase: what a run's record keeps in place of a table that is megabytes
a boot (l2-attribution's NAME.l2-named, falign-layouts' KEY.text-named).
Its own module, not data.py: data.py is part of the code-layout decision's
frozen analysis (falign/decision.py's pins)."""

import collections
from pathlib import Path

# {phase: (watched, Counter {(victim, evictor): n})}
Named = dict[int, tuple[int, "collections.Counter[tuple[str, str]]"]]


def write(path: Path, named: Named) -> None:
    """A "phase PHASE WATCHED" line a phase, then its "pair PHASE VICTIM
    EVICTOR N" lines in the order of each pair's first conflict (which a
    report's ties keep), tab-separated."""
    lines: list[str] = []
    for i in sorted(named):
        watched, pairs = named[i]
        lines.append("phase\t%d\t%d\n" % (i, watched))
        lines += ["pair\t%d\t%s\t%s\t%d\n" % (i, v, e, n) for (v, e), n in pairs.items()]
    path.write_text("".join(lines))


def read(path: Path) -> Named:
    """write()'s file."""
    out: Named = {}
    for line in path.read_text().splitlines():
        w = line.split("\t")
        if w[0] == "phase":
            out[int(w[1])] = (int(w[2]), collections.Counter())
        else:
            out[int(w[1])][1][(w[2], w[3])] += int(w[4])
    return out


def problems(named: Named, phases: int) -> list[str]:
    """What does not add up in a boot's named pairs: a phase missing, or
    pairs that do not sum to its conflict misses."""
    out: list[str] = []
    for i in range(phases):
        watched, got = (named[i][0], sum(named[i][1].values())) if i in named else (None, 0)
        if got != watched:
            out.append("phase %d: %s named against %s" % (i, got, watched))
    return out
