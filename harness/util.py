"""What the harness's modules share: where things go, the error a step
raises, the progress line, and git run with the project's identity.

    BUILD         build/ of the clone ($BUILD overrides): trees, object dirs, logs
    CACHE         ~/.cache/kcolour ($KCOLOUR_CACHE): the base repo, images, ccache
    Error         a step failed; the message says which and where its log is
    say(msg)      a "[kernel] ..." progress line on stderr
    locked(path, what)  hold an exclusive lock on path (waits, and says so)
    git(tree, *args)  git in tree, as the project's committer; its stdout
"""

import contextlib
import fcntl
import os
import subprocess
import sys
from pathlib import Path
from typing import Iterator, Mapping, Optional, Sequence, Union

from . import facts

BUILD = Path(os.environ.get("BUILD") or facts.ROOT / "build")
CACHE = Path(os.environ.get("KCOLOUR_CACHE") or Path.home() / ".cache/kcolour")
# Every commit the project makes carries this identity; dates are fixed so
# that the base and the applied patches are the same commits everywhere.
IDENTITY = {"GIT_AUTHOR_NAME": "kcolour project", "GIT_AUTHOR_EMAIL": "kcolour@example.org",
            "GIT_COMMITTER_NAME": "kcolour project", "GIT_COMMITTER_EMAIL": "kcolour@example.org",
            "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z"}


class Error(RuntimeError):
    """The project's one error: a step failed or an input is wrong; the message
    says which and where (a build step: where its log is).  Each tool's own
    errors derive from it (forkrate's Failure, hot_text's Error); a RuntimeError,
    so that older `except RuntimeError` sites catch it too.  bench/perfab.py,
    stdlib only for a real machine, keeps its PerfabError."""


def say(msg: str) -> None:
    print("[kernel] " + msg, file=sys.stderr, flush=True)


@contextlib.contextmanager
def locked(path: Union[str, "os.PathLike[str]"], what: str) -> Iterator[bool]:
    """Hold path's exclusive lock, for what two runs at once (make check
    beside make bench, say) would otherwise both make: an image's object dir,
    build/linux, the cached base repo.  Yields True when it had to wait for
    another holder (whose result may then be there)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as lock:
        waited = False
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say("waiting for another run's %s" % what)
            fcntl.flock(lock, fcntl.LOCK_EX)
            waited = True
        yield waited


def fmt_time(secs: float) -> str:
    return "%dm%02ds" % (secs // 60, secs % 60)


def git(tree: Union[str, "os.PathLike[str]"], *args: str, check: bool = True,
        env: Optional[Mapping[str, str]] = None, capture: bool = True) -> str:
    r = subprocess.run(["git", "-C", str(tree)] + list(args), text=True, check=False,
                       capture_output=capture, env=dict(os.environ, **IDENTITY, **(env or {})))
    if check and r.returncode:
        raise Error("git %s failed in %s: %s" % (" ".join(args), tree, (r.stderr or "").strip()))
    return (r.stdout or "").strip()


def tool_version(cmd: Sequence[str]) -> str:
    """The first line of a tool's --version (cmd), or "?"."""
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.stdout.splitlines()[0] if r.returncode == 0 and r.stdout else "?"
