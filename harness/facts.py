"""facts.tsv, the project's one data file: KIND NAME VALUE... a line."""

import os
from pathlib import Path
from typing import Dict, List, Tuple, Union

ROOT = Path(__file__).resolve().parents[1]
FACTS = ROOT / "facts.tsv"


def rows(kind: str) -> List[List[str]]:
    """The fields after KIND of every line of that kind, in file order."""
    out = []
    with open(FACTS) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if fields[0] == kind and not line.startswith("#"):
                out.append(fields[1:])
    return out


def table(kind: str) -> Dict[str, List[str]]:
    """{NAME: [VALUE...]} of one kind."""
    return {r[0]: r[1:] for r in rows(kind)}


def path(name: str) -> Path:
    """A path fact, absolute; $FIXTURES overrides the fixtures, and a path
    that starts with "fixtures/" is inside them."""
    if name == "fixtures" and os.environ.get("FIXTURES"):
        return Path(os.environ["FIXTURES"])
    value = table("path")[name][0]
    if value.startswith("fixtures/"):
        return path("fixtures") / value[len("fixtures/"):]
    return (ROOT / value).resolve()


def image_spec(name: str) -> Tuple[str, List[str]]:
    """(tree, [fragment names]) of a named image; KeyError if unknown."""
    tree, frags = table("image")[name]
    return tree, frags.split()


Geometry = Tuple[int, int, int]
UNITS = {"K": 1 << 10, "M": 1 << 20}


def geometry(spec: str) -> Geometry:
    """(size, ways, line) in bytes of SIZE:WAYS:LINE (SIZE with an optional K
    or M), the one spelling of a cache's geometry; ValueError if malformed."""
    fields = spec.split(":")
    if len(fields) != 3:
        raise ValueError("%r: not SIZE:WAYS:LINE" % spec)
    size, ways, line = fields
    scale = UNITS.get(size[-1:], 1)
    try:
        return (int(size[:-1] if scale > 1 else size) * scale, int(ways), int(line))
    except ValueError:
        raise ValueError("%r: not SIZE:WAYS:LINE (numbers, SIZE with K or M)" % spec) from None


def default_model() -> Tuple[str, Dict[str, Geometry]]:
    """The QEMU model a boot takes unless told, and its caches as the
    simulator takes them unless told: (model, {"L1D": ..., "L1I": ..., "L2": ...})."""
    (model, l1d, l1i, l2), = rows("model-default")
    return model, {"L1D": geometry(l1d), "L1I": geometry(l1i), "L2": geometry(l2)}


def models() -> Dict[str, Dict[str, Union[str, bool]]]:
    """{model: {source, l1d, l2, sysfs}} of the QEMU models tested."""
    return {m: dict(source=s, l1d=d, l2=l2, sysfs=y == "yes")
            for m, s, d, l2, y in rows("model")}


def workloads(wset: str) -> List[str]:
    """The guest commands of a workload set, in order."""
    return [cmd for s, cmd in rows("workload") if s == wset]
