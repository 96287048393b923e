"""What a bench boot's guest runs beside facts.tsv's workload lines: the
static programs bench/cachesim builds (guest_programs()), and a "cmd"
workload line's program resolved on this machine (cmd_workload())."""

import re
import shlex
import shutil
import subprocess
from pathlib import Path

from bench.lib.data import CMD_NAME
from harness import facts, util

ROOT = facts.ROOT


def guest_programs() -> list[str]:
    """The static guest programs bench/cachesim builds (bench/workloads)."""
    return subprocess.run(["make", "-s", "-C", str(ROOT / "bench/cachesim"), "list-workloads"],
                          capture_output=True, text=True, check=True).stdout.split()


def cmd_workload(line: str) -> tuple[str, list[str]]:
    """A facts.tsv "cmd NAME [+PROG...] -- PROGRAM ARG..." workload line: the
    line the guest runs (cmd NAME -- PROGRAM ARG...), PROGRAM resolved to the
    host path that goes into the initramfs (with its libraries, by ldd) at the
    same path, and the host paths to copy: PROGRAM's, and those of the +PROG
    programs a script PROGRAM runs.  Other lines: (line, [])."""
    words = shlex.split(line)
    if words[:1] != ["cmd"]:
        return line, []
    if "--" not in words[2:] or not re.fullmatch(CMD_NAME, words[1]):
        raise util.Error("workload line '%s': want cmd NAME [+PROG...] -- PROGRAM [ARG...], "
                         "NAME of letters, digits, - and _" % line)
    dash = words.index("--", 2)
    extras, argv = words[2:dash], words[dash + 1:]
    if not argv or any(not x.startswith("+") or len(x) < 2 for x in extras):
        raise util.Error("workload line '%s': want cmd NAME [+PROG...] -- PROGRAM [ARG...]"
                         % line)
    progs = []
    for name in [argv[0]] + [x[1:] for x in extras]:
        prog = shutil.which(name)
        if not prog:
            raise util.Error("workload %s: no program %s on this machine" % (words[1], name))
        progs.append(str(Path(prog).resolve()) if not Path(name).is_absolute() else name)
    return shlex.join(words[:2] + ["--", progs[0]] + argv[1:]), progs
