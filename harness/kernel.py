"""Kernel images, built and cached by their inputs (kunit_kernel.py's
LinuxSourceTree, its build side).

    image(name)        a built image (bzImage, config, vmlinux, System.map) of
                       a facts.tsv image, from the cache when its inputs are
                       unchanged (make kernel)
    image_key(base, frags)
                       the digest an image is cached under
    Kmake(tree, obj)   make in a tree with an object dir, ccache and the
                       pinned build identity: configure() (kconfig.py), build()
    menuconfig(name)   make menuconfig in the object dir of an image

Images are cached under $KCOLOUR_CACHE/images/KEY, KEY a digest of the
build's inputs: the base, every patch (series.series_digest()), the
fragments, the compiler and binutils, and the pinned build identity below.
The builds are reproducible: the same inputs give the same bzImage, byte for
byte.  The tree an image is built from is build/linux (series.py), laid when
it is missing or older than kernel-patches/.  Progress goes to stderr as
"[kernel] ..." lines.
"""

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterable, List, Optional, Sequence, Union

from . import facts, kconfig
from .series import Tree, base_id, series_digest, series_patches
from .util import BUILD, CACHE, Error, fmt_time, git, locked, say, tool_version

ARTIFACTS = ("arch/x86/boot/bzImage", ".config", "vmlinux", "System.map")
# Bump when the way an image is made changes (not its inputs: those are keyed).
IMAGE_FORMAT = "kcolour image v2: tinyconfig + merge_config.sh -m + olddefconfig, bzImage"
# The build identity kbuild would take from the clock, the user and the host.
REPRODUCIBLE = {"KBUILD_BUILD_TIMESTAMP": "Sat Jan  1 00:00:00 UTC 2000",
                "KBUILD_BUILD_USER": "kcolour", "KBUILD_BUILD_HOST": "kcolour",
                "KBUILD_BUILD_VERSION": "1"}


class Image:
    """A built kernel: path holds bzImage, config, vmlinux, System.map."""

    def __init__(self, name, path, how):
        self.name, self.path, self.how = name, Path(path), how
        self.bzimage = self.path / "bzImage"

    def __str__(self):
        return str(self.bzimage)


def image_key(base, frags):
    """A digest of everything the image is built from."""
    h = hashlib.sha256()
    for part in [IMAGE_FORMAT, "series " + series_digest(base),
                 "gcc " + tool_version(["gcc", "--version"]),
                 "ld " + tool_version(["ld", "--version"]),
                 " ".join("%s=%s" % kv for kv in sorted(REPRODUCIBLE.items()))]:
        h.update(part.encode() + b"\n")
    for f in frags:
        # What merge_config.sh reads, and the make variables a fragment
        # names: other comments are not inputs.
        lines = [l for l in f.read_text().splitlines()
                 if re.match(r"CONFIG_|# CONFIG_\w+ is not set", l) or MAKE_VAR.match(l)]
        h.update(("fragment %s\n%s\n" % (f.name, "\n".join(lines))).encode())
        # The name is in the fragment's lines; the file's path here is not
        # an input (clones differ), its bytes are.
        for named in files_named(lines, Tree(base).path):
            h.update(b"file\n" + (named.read_bytes() if named.is_file() else b"(missing)\n"))
    return h.hexdigest()[:16]


# A make variable a fragment gives the build, "# make NAME=VALUE": a comment
# to kconfig, an argument of make here (HOT_TEXT_PROFILE=FILE, as upstream's
# CLANG_AUTOFDO_PROFILE= is for AutoFDO: the kernel's config names no file).
MAKE_VAR = re.compile(r"^# make ([A-Z][A-Z0-9_]*)=(\S+)$")
# Make variables whose value is a file the build reads (relative to the
# source tree, or absolute): its bytes are an input of the image, as the
# series' are.
FILE_VARS = ("HOT_TEXT_PROFILE",)


def make_vars(frags: Iterable[Path]) -> List[str]:
    """The NAME=VALUE make arguments of fragment files, in order."""
    return ["%s=%s" % m.groups() for f in frags for m in map(MAKE_VAR.match,
                                                             f.read_text().splitlines()) if m]


def files_named(lines, srctree):
    """The files that fragment lines name through FILE_VARS."""
    for m in map(MAKE_VAR.match, lines):
        if m and m.group(1) in FILE_VARS:
            # An absolute value stays absolute.  ".." is resolved by name:
            # the tree need not exist yet (an image's key is known before it).
            yield Path(os.path.normpath(Path(srctree, m.group(2))))


def resolve(name=None, fragments=None, base=False):
    """(name, base, [fragment names]) from a facts.tsv image name or a list."""
    if fragments:
        return (name or ("base+" if base else "") + "+".join(
            Path(f).name[:-7] if f.endswith(".config") else f for f in fragments)), base, fragments
    if name and name not in facts.table("image"):
        raise Error("no image %s in facts.tsv (%s)" % (name, ", ".join(facts.table("image"))))
    tree, frags = facts.image_spec(name or "test")
    return name or "test", tree == "base", frags


def image(name=None, fragments=None, base=False, rebuild=False, like=None):
    """The Image of a facts.tsv image (or of an ad hoc fragment list).

    A cache hit needs no tree.  When build/linux holds unexported work, that
    working tree is built and the image is not cached.  rebuild=True builds
    in an empty object dir even on a hit and fails unless the bzImage is the
    cached one, byte for byte (reproducibility).  like: an image that differs
    from this one in a few options, whose object dir this one is built in:
    kbuild then rebuilds only what those options touch, and the bzImage is
    the same as from an empty dir (make check's falign-layouts-quick)."""
    start = time.time()
    name, base, fragments = resolve(name, fragments, base)
    frags, tree = kconfig.fragment_files(fragments), Tree(base)
    # A rebuild's object dir has the same depth (ccache then hits: see Kmake).
    obj = Path(os.environ.get("KCOLOUR_OBJ") or
               BUILD / ("obj-rebuild" if rebuild else "obj")) / (name if rebuild else like or name)
    if rebuild:
        shutil.rmtree(obj, ignore_errors=True)
    reason = "" if base else tree.unsaved_settled()
    cached = None
    if (tree.path / ".git").exists() and reason:
        say("warning: %s: building that working tree, not caching the image" % reason)
    else:
        cached = CACHE / "images" / image_key(base, frags)
        if (cached / "bzImage").exists() and not rebuild:
            return _hit(name, cached)
        say("%s: %s, image key %s" % (name, "rebuilding" if rebuild else "cache miss", cached.name))
        tree.ensure()
    obj.mkdir(parents=True, exist_ok=True)
    with locked(str(obj) + ".lock", "build in %s" % obj) as waited:
        if waited and cached and not rebuild and (cached / "bzImage").exists():
            return _hit(name, cached)
        kmake = Kmake(tree.path, obj, make_vars=make_vars(frags))
        kmake.configure(frags)
        how = "built in %s" % fmt_time(kmake.build())
        if cached is None:
            # A dir per fragment list: a run may build several before it boots one.
            unsaved = BUILD / "unsaved" / image_key(base, frags)
            _collect(obj, unsaved)
            return _publish(name, unsaved, how + " from a tree with unexported work")
        if rebuild and (cached / "bzImage").exists():
            if (cached / "bzImage").read_bytes() != (obj / ARTIFACTS[0]).read_bytes():
                raise Error("%s: not reproducible: the rebuilt bzImage differs from %s"
                            % (name, cached))
            say("%s: the rebuilt bzImage is byte-identical to the cached one" % name)
            return _publish(name, cached, how + ", identical to the cache")
        tmp = Path(tempfile.mkdtemp(prefix=".new.", dir=_mkdir(CACHE / "images")))
        tmp.chmod(0o755)
        _collect(obj, tmp)
        (tmp / "info").write_text("built %s from %s\nbase %s\npatches %s\nfragments %s\n" % (
            time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            git(tree.path, "log", "-1", "--format=%h %s"), base_id(),
            " ".join(series_patches(base)), " ".join(fragments)))
        _remove(cached)
        tmp.rename(cached)
    say("%s: done in %s" % (name, fmt_time(time.time() - start)))
    return _publish(name, cached, how)


def _mkdir(path):
    path.mkdir(parents=True, exist_ok=True)
    return path


def _remove(path):
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path)


def _hit(name, cached):
    built = (cached / "info").read_text().splitlines()[0]
    say("%s: cache hit %s (%s)" % (name, cached, built))
    return _publish(name, cached, "cache hit (%s)" % built)


def _collect(obj, out):
    _remove(out)
    out.mkdir(parents=True)
    for a in ARTIFACTS:
        shutil.copy(obj / a, out / Path(a).name.lstrip("."))


def _publish(name, path, how):
    """build/kernel/NAME -> the image's dir, for people to find it."""
    link = _mkdir(BUILD / "kernel") / name
    _remove(link)
    link.symlink_to(path)
    return Image(name, path, how)


class Kmake:
    """make in a tree with an object dir, ccache and the pinned identity.

    The object dir sits in build/obj, so that with CCACHE_BASEDIR=build every
    compiler command is the same in any clone at any path: ccache then hits
    across clones (kbuild names sources by absolute path)."""

    def __init__(self, tree: Union[str, "os.PathLike[str]"], obj: Union[str, "os.PathLike[str]"],
                 llvm: Optional[str] = None, make_vars: Sequence[str] = ()) -> None:
        """llvm: build with LLVM=llvm (e.g. "-16", clang-16) instead of GCC;
        make_vars: NAME=VALUE arguments of every make (make_vars())."""
        self.tree, self.obj = Path(tree), Path(obj)
        # Every FILE_VARS variable given, empty where the image names none:
        # one in the user's environment or MAKEFLAGS is no input of the key.
        given = {v.split("=", 1)[0] for v in make_vars}
        self.make_vars = list(make_vars) + ["%s=" % v for v in FILE_VARS if v not in given]
        self.env = dict(os.environ, CCACHE_DIR=str(CACHE / "ccache"), CCACHE_BASEDIR=str(BUILD),
                        **REPRODUCIBLE)
        self.compiler = ["LLVM=" + llvm] if llvm else ["CC=ccache gcc", "HOSTCC=ccache gcc"]

    def cmd(self, *targets: str, jobs: Optional[int] = None) -> List[str]:
        return (["make", "-C", str(self.tree), "ARCH=x86_64", "O=%s" % self.obj] +
                self.compiler + self.make_vars + (["-j%d" % jobs] if jobs else []) +
                list(targets))

    def configure(self, frags: Sequence[Path], verify: bool = True,
                  start: Optional[str] = None) -> None:
        """kconfig.configure() in this object dir: tinyconfig (or the .config
        text start) + the fragments, olddefconfig, verified."""
        kconfig.configure(self, frags, verify, start)

    def build(self, *targets: str) -> float:
        """bzImage (or targets) with -j$(nproc); a progress line every 30 s."""
        log = self.obj / "build.log"
        log.write_text("")
        start = last = time.time()
        targets = targets or ("bzImage",)
        cpus = os.cpu_count()
        if cpus is None:
            raise Error("cannot tell this machine's CPU count (os.cpu_count()) for make -j")
        say("building %s with -j%d (log: %s)" % (" ".join(targets), cpus, log))
        with open(log, "a") as f:
            p = subprocess.Popen(self.cmd(*targets, jobs=cpus), stdout=f,
                                 stderr=subprocess.STDOUT, env=self.env)
            while p.poll() is None:
                time.sleep(2)
                if time.time() - last >= 30:
                    last = time.time()
                    say("%s elapsed, %d objects built" % (fmt_time(last - start), objects(log)))
        if p.returncode:
            lines = log.read_text(errors="replace").splitlines()
            sys.stderr.write("\n".join([l for l in lines if "rror" in l][:20] + lines[-20:]) + "\n")
            raise Error("kernel build failed (log: %s)" % log)
        say("built in %s (%d objects)" % (fmt_time(time.time() - start), objects(log)))
        return time.time() - start


def objects(log):
    return sum(1 for l in open(log, errors="replace") if re.match(r"^  [A-Z]", l))


def menuconfig(name=None, fragments=None):
    """kconfig.menuconfig() in the object dir `make kernel` uses for the image."""
    name, base, _ = resolve(name, fragments)
    kconfig.menuconfig(Kmake(Tree(base).path, BUILD / "obj" / name))
