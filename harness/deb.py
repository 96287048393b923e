"""make deb: Debian packages of base + every series, for a real machine.

The kernel's own bindeb-pkg, in build/obj/deb, from a distribution's config
(default: the running kernel's, /boot/config-$(uname -r); --config FILE for
another, such as Debian's /usr/src/linux-config-6.12/config.amd64_none_amd64.xz)
with the series' options merged in from the fragments a real machine runs
(FRAGMENTS: colouring built in, on at boot, derived from CPUID; task_struct
colouring built, off unless asked for).  --localmodconfig keeps only the
modules the running machine has loaded (lsmod), for a build of minutes
rather than hours.  The packages are copied to build/deb (docs/real-hardware.md).
"""

import lzma
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Iterable, Optional, Union

from .kernel import Kmake
from .kernel import make_vars as kernel_make_vars
from .kconfig import fragment_files
from .series import Tree
from .util import BUILD, Error, say

FRAGMENTS = ["kcolour", "kcolour-task"]
OBJ = BUILD / "obj" / "deb"
OUT = BUILD / "deb"
LOCALVERSION = "-kcolour"
# A distribution's config names its own signing keys, which a build outside
# its packaging does not have; empty, the build makes a throwaway key.
KEYS = ("CONFIG_SYSTEM_TRUSTED_KEYS", "CONFIG_SYSTEM_REVOCATION_KEYS")


def running_config() -> Path:
    return Path("/boot/config-%s" % os.uname().release)


def read_config(path: Union[str, "os.PathLike[str]"]) -> str:
    """The text of a kernel .config (xz-compressed too); Error if it is missing
    or is not one."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise Error("cannot read the config %s: %s" % (path, e.strerror)) from None
    if path.suffix == ".xz":
        try:
            data = lzma.decompress(data)
        except lzma.LZMAError as e:
            raise Error("%s: not an xz file (%s)" % (path, e)) from None
    text = data.decode(errors="replace")
    if "\nCONFIG_64BIT=y" not in "\n" + text or "CONFIG_X86_64=y" not in text:
        raise Error("%s is not an x86_64 kernel .config (no CONFIG_X86_64=y)" % path)
    return "".join(l + "\n" for l in text.splitlines()
                   if not any(l.startswith(k + "=") for k in KEYS)) + \
        "".join('%s=""\n' % k for k in KEYS)


def main(config: Optional[str] = None, localmodconfig: bool = False,
         configure_only: bool = False, obj: Union[str, "os.PathLike[str]"] = OBJ,
         localversion: str = LOCALVERSION, extra: Iterable[str] = (),
         hot_text_profile: Optional[str] = None) -> int:
    """Configure (and unless configure_only, build) the packages; returns 0."""
    path = Path(config) if config else running_config()
    if not config and not path.exists():
        raise Error("no %s (the running kernel's config) on this machine: give one, "
                    "make deb CONFIG=FILE (a kernel .config; Debian's: apt-get install "
                    "linux-config-6.12, /usr/src/linux-config-6.12/config.amd64_none_amd64.xz)"
                    % path)
    start = read_config(path)
    tree = Tree()
    tree.ensure()
    if tree.unsaved():
        raise Error(tree.unsaved())
    obj = Path(obj)
    obj.mkdir(parents=True, exist_ok=True)
    frags = FRAGMENTS + list(extra)
    if hot_text_profile and not Path(hot_text_profile).is_file():
        raise Error("HOT_TEXT_PROFILE=%s: no such file" % hot_text_profile)
    # The fragments' make variables (the profile a falign-ordered fragment
    # names), then HOT_TEXT_PROFILE= from the command line over them.
    make_vars = [v for v in kernel_make_vars(fragment_files(frags))
                 if not (hot_text_profile and v.startswith("HOT_TEXT_PROFILE="))]
    if hot_text_profile:
        make_vars.append("HOT_TEXT_PROFILE=%s" % Path(hot_text_profile).resolve())
    kmake = Kmake(tree.path, obj, make_vars=make_vars)
    if not re.fullmatch(r"-[\w.+-]+", localversion):
        raise Error("LOCALVERSION=%s: a dash, then letters, digits, '.', '+' or '-'"
                    % localversion)
    say("deb: the config of %s + %s, LOCALVERSION %s" % (path, " ".join(frags), localversion))
    kmake.configure(fragment_files(frags), start=start)
    if localmodconfig:
        if not shutil.which("lsmod"):
            raise Error("--localmodconfig needs lsmod (apt-get install kmod)")
        r = subprocess.run(kmake.cmd("localmodconfig"), env=kmake.env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode:
            raise Error("make localmodconfig failed: %s" % r.stdout.strip()[-500:])
        kmake.configure(fragment_files(frags), start=(obj / ".config").read_text())
    say("deb: configured, %s/.config (every fragment line survived)" % obj)
    if configure_only:
        return 0
    for old in obj.parent.glob("linux-*.deb"):
        old.unlink()
    kmake.build("bindeb-pkg", "LOCALVERSION=" + localversion)
    debs = sorted(obj.parent.glob("linux-*.deb"))
    if not debs:
        raise Error("bindeb-pkg built no package in %s" % obj.parent)
    OUT.mkdir(parents=True, exist_ok=True)
    for d in debs:
        shutil.move(str(d), OUT / d.name)
    print("\n".join(str(OUT / d.name) for d in debs))
    say("deb: install with dpkg -i %s/linux-image-*.deb (docs/real-hardware.md)" % OUT)
    return 0
