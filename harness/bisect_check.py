"""make bisect-check: every commit of the series built on its own, and
checked in the source for a widened task_struct usercopy whitelist.

A module of its own because it is the one step that needs all the others:
the tree and the whitelist check of series.py, the fragments of kconfig.py
and kernel.py's Kmake (series.py, below kernel.py, cannot import it).  The
builds are not images: nothing is cached.
"""

import re
from pathlib import Path
from typing import List

from . import facts
from .kconfig import fragment_files
from .kernel import Kmake
from .series import Tree, lay_tree, whitelist_widened
from .util import BUILD, Error, git, say


def defined_in(tree: Path, path: Path) -> bool:
    """Whether every option the fragment at path sets is defined in the
    tree as checked out: a commit before the one that adds an option
    builds without that option's fragment."""
    wanted = set(re.findall(r"^CONFIG_(\w+)=", path.read_text(), re.M))
    found = git(tree, "grep", "-h", "-o", "-E",
                "^(menu)?config (%s)$" % "|".join(sorted(wanted)), "--", "*Kconfig*",
                check=False)
    return wanted <= {l.split()[-1] for l in found.splitlines()}


def main() -> int:
    """Build every commit of the series on its own: with every fragment of
    the test image whose options that commit has, then the same with the
    tristate options the series adds or its tests use as modules
    (kcolour-modules.config, "bzImage modules"; skipped where it would be
    the built-in build again); and check in the source
    that no commit widens the task_struct usercopy whitelist.  A line per
    commit: ok or FAIL, the subject and the compiler warnings counted."""
    tree = Tree()
    if not (tree.path / ".git").exists():
        lay_tree()
    if tree.unsaved():
        raise Error(tree.unsaved())
    branch = git(tree.path, "symbolic-ref", "--short", "HEAD")
    variants = [("built-in", facts.image_spec("test")[1], ["bzImage"]),
                ("modules", facts.image_spec("test")[1] + ["kcolour-modules"],
                 ["bzImage", "modules"])]
    failed = 0
    try:
        for c in git(tree.path, "rev-list", "--reverse", "kcolour-base..HEAD").split():
            built: List[List[str]] = []
            git(tree.path, "checkout", "-q", c)
            subject = git(tree.path, "log", "-1", "--format=%h %s", c)
            widened = whitelist_widened(tree.path, c)
            for w in widened:
                say("%s: the task_struct usercopy whitelist: %s" % (subject, w))
            for name, fragments, targets in variants:
                frags = [f for f, path in zip(fragments, fragment_files(fragments))
                         if defined_in(tree.path, path)]
                if frags in built:
                    continue  # before the series adds its modules: the same build again
                built.append(frags)
                obj = BUILD / "obj" / ("bisect-check-" + name)
                obj.mkdir(parents=True, exist_ok=True)
                kmake = Kmake(tree.path, obj)
                try:
                    kmake.configure(fragment_files(frags))
                    kmake.build(*targets)
                    r = "FAIL" if widened else "ok"
                except Error:
                    r = "FAIL"
                failed |= r != "ok"
                log = obj / "build.log"
                warnings = sum("warning:" in l for l in
                               open(log, errors="replace")) if log.exists() else 0
                print("%s %s, %s [%s] (warnings: %d)%s" % (
                    r, subject, name, " ".join(frags), warnings,
                    ", widens the task_struct whitelist" if widened else ""), flush=True)
    finally:
        git(tree.path, "checkout", "-q", branch)
    return failed
