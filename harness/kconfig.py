"""Kconfig: the fragments, the configure step and menuconfig
(kunit_config.py's part).

    fragment_files(names)   Kconfig-fragments/NAME.config of each name
    configure(kmake, frags) tinyconfig + the fragments (merge_config.sh -m),
                            olddefconfig, in kmake's object dir; fails naming
                            every fragment line that did not survive
    verify_config(frags, config)
                            those lines, from the fragments and a .config's text
    menuconfig(kmake)       make menuconfig on kmake's .config, then what changed

kmake is a kernel.Kmake: the tree, the object dir and the make command line.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Dict, Iterable, List, Optional, Sequence

from . import facts
from .util import Error, say

if TYPE_CHECKING:  # kernel imports this module
    from .kernel import Kmake

FRAGDIR = facts.ROOT / "Kconfig-fragments"


def fragment_files(fragments: Iterable[str]) -> List[Path]:
    """The paths of fragment names ("kcolour" or "kcolour.config")."""
    paths = [FRAGDIR / (f if f.endswith(".config") else f + ".config") for f in fragments]
    for p in paths:
        if not p.exists():
            raise Error("no fragment Kconfig-fragments/%s" % p.name)
    return paths


def configure(kmake: "Kmake", frags: Sequence[Path], verify: bool = True,
              start: Optional[str] = None) -> None:
    """tinyconfig (or the .config text start) + the fragments, olddefconfig;
    verify: fail naming every fragment line that did not survive.  An
    unchanged .config keeps its old timestamp, so an incremental build
    stays incremental."""
    log, config = kmake.obj / "configure.log", kmake.obj / ".config"
    before = config.read_bytes() if config.exists() else None
    stat = config.stat() if config.exists() else None
    say("configuring: %s + %s" % ("tinyconfig" if start is None else "a start .config",
                                  " ".join(f.stem for f in frags)))
    merge = [str(kmake.tree / "scripts/kconfig/merge_config.sh"), "-m", "-O", str(kmake.obj),
             str(config)] + [str(p) for p in frags]
    if start is not None:
        config.write_text(start)
    with open(log, "w") as f:
        for cmd in ([kmake.cmd("tinyconfig")] if start is None else []) + [
                merge, kmake.cmd("olddefconfig")]:
            if subprocess.run(cmd, cwd=kmake.tree, stdout=f, stderr=subprocess.STDOUT,
                              env=kmake.env).returncode:
                sys.stderr.write("".join(log.read_text().splitlines(True)[-20:]))
                raise Error("configuration failed (log: %s)" % log)
    if before is not None and config.read_bytes() == before:
        assert stat is not None  # read with before
        os.utime(config, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    missing = verify_config(frags, config.read_text()) if verify else []
    if missing:
        sys.stderr.write("".join("error:   %s\n" % m for m in sorted(missing)))
        raise Error("%d fragment line(s) did not survive into .config (unmet "
                    "dependencies?); see %s" % (len(missing), config))


def verify_config(frags: Iterable[Path], config: str) -> List[str]:
    """The CONFIG_ lines the fragments ask for (the last fragment wins) that
    .config does not have: merge_config.sh drops values whose dependencies
    are unmet."""
    want: Dict[str, Optional[str]] = {}
    for f in frags:
        for line in f.read_text().splitlines():
            m = re.match(r"^(CONFIG_\w+)=n$|^# (CONFIG_\w+) is not set", line)
            if m:
                want[m.group(1) or m.group(2)] = None
            elif re.match(r"^CONFIG_\w+=", line):
                want[line.split("=", 1)[0]] = line
    have: Dict[str, str] = {}
    for line in config.splitlines():
        m = re.match(r"^(CONFIG_\w+)=|^# (CONFIG_\w+) is not set", line)
        if m:
            have[m.group(1) or m.group(2)] = line
    missing: List[str] = []
    for sym, wanted in want.items():
        got = have.get(sym, "absent")
        if wanted is None and got.startswith(sym + "="):
            missing.append("# %s is not set (have: %s)" % (sym, got))
        elif wanted is not None and got != wanted:
            missing.append("%s (have: %s)" % (wanted, got))
    return missing


def menuconfig(kmake: "Kmake") -> None:
    """make menuconfig on the .config of kmake's object dir, then what changed."""
    obj = kmake.obj
    if not (obj / ".config").exists():
        raise Error("no %s/.config: run 'make kernel' with the same image first" % obj)
    before = (obj / ".config").read_bytes()
    shutil.copy(obj / ".config", obj / ".config.before-menuconfig")
    subprocess.run(kmake.cmd("menuconfig"), check=True)
    if (obj / ".config").read_bytes() == before:
        say("no change")
    else:
        say("changes (add them to a fragment in Kconfig-fragments/ to keep them):")
        subprocess.run([str(kmake.tree / "scripts/diffconfig"),
                        str(obj / ".config.before-menuconfig"), str(obj / ".config")])
