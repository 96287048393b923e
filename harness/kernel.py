"""The kernel tree and its images (kunit_kernel.py's LinuxSourceTree).

    lay_tree(force)    base + every series of kernel-patches/ as git commits
                       in build/linux, the base tagged kcolour-base (make tree)
    export()           build/linux's commits back to kernel-patches/

The patches are series of their own (facts.tsv "series": the colouring,
then the function alignment), each a directory of kernel-patches/ with its
series file and cover letter.  make tree lays them in that order and marks
where each but the last ends with a branch series-NAME, which an
interactive rebase moves along (rebase.updateRefs); make export splits the
commits there.
    image(name)        a built image (bzImage, config, vmlinux, System.map),
                       from the cache when its inputs are unchanged

Base kernel: KSRC=/path/to/git/tree if set, else KERNEL_TARBALL (default
Debian's linux-source-6.12), unpacked and committed once into a bare repo
under $KCOLOUR_CACHE/base.  Images are cached under $KCOLOUR_CACHE/images/KEY,
KEY a digest of the build's inputs: the base, every patch, the fragments,
the compiler and binutils, and the pinned build identity below.  The
builds are reproducible: the same inputs give the same bzImage, byte for
byte.  Progress goes to stderr as "[kernel] ..." lines.
"""

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import facts

ROOT = facts.ROOT
BUILD = Path(os.environ.get("BUILD") or ROOT / "build")
CACHE = Path(os.environ.get("KCOLOUR_CACHE") or Path.home() / ".cache/kcolour")
PATCHES = ROOT / "kernel-patches"
FRAGDIR = ROOT / "Kconfig-fragments"
TARBALL = Path(os.environ.get("KERNEL_TARBALL") or "/usr/src/linux-source-6.12.tar.xz")
KSRC = os.environ.get("KSRC") or ""
ARTIFACTS = ("arch/x86/boot/bzImage", ".config", "vmlinux", "System.map")
# Bump when the way an image is made changes (not its inputs: those are keyed).
IMAGE_FORMAT = "kcolour image v2: tinyconfig + merge_config.sh -m + olddefconfig, bzImage"
BASE_FORMAT = 2
# Every commit the project makes carries this identity; dates are fixed so
# that the base and the applied patches are the same commits everywhere.
IDENTITY = {"GIT_AUTHOR_NAME": "kcolour project", "GIT_AUTHOR_EMAIL": "kcolour@example.org",
            "GIT_COMMITTER_NAME": "kcolour project", "GIT_COMMITTER_EMAIL": "kcolour@example.org",
            "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z"}
# The build identity kbuild would take from the clock, the user and the host.
REPRODUCIBLE = {"KBUILD_BUILD_TIMESTAMP": "Sat Jan  1 00:00:00 UTC 2000",
                "KBUILD_BUILD_USER": "kcolour", "KBUILD_BUILD_HOST": "kcolour",
                "KBUILD_BUILD_VERSION": "1"}


class Error(Exception):
    """A build step failed; the message says which and where its log is."""


def say(msg):
    print("[kernel] " + msg, file=sys.stderr, flush=True)


def fmt_time(secs):
    return "%dm%02ds" % (secs // 60, secs % 60)


def git(tree, *args, check=True, env=None, capture=True):
    r = subprocess.run(["git", "-C", str(tree)] + list(args), text=True, check=False,
                       capture_output=capture, env=dict(os.environ, **IDENTITY, **(env or {})))
    if check and r.returncode:
        raise Error("git %s failed in %s: %s" % (" ".join(args), tree, (r.stderr or "").strip()))
    return (r.stdout or "").strip()


# ------------------------------------------------------------- the series

class Series:
    """One patch series: its name, directory of kernel-patches/ and version."""

    def __init__(self, name, directory, version):
        self.name, self.version = name, version
        self.dir = PATCHES if directory == "." else PATCHES / directory
        self.prefix = "" if directory == "." else directory + "/"
        self.branch = "series-" + name  # where it ends in build/linux
        # The subject prefix of its posting: a first version has no number.
        self.subject_prefix = "PATCH" if version == "1" else "PATCH v" + version

    def patches(self):
        """Its patches as paths relative to kernel-patches/, in order."""
        listing = self.dir / "series"
        if not listing.exists():
            return []
        out = [l.split("#", 1)[0].strip() for l in listing.read_text().splitlines()]
        for name in filter(None, out):
            if not (self.dir / name).exists():
                raise Error("kernel-patches/%sseries lists %s, which does not exist"
                            % (self.prefix, name))
        return [self.prefix + n for n in out if n]


def all_series():
    """The series of facts.tsv, in the order make tree lays them."""
    return [Series(*r[:3]) for r in facts.rows("series")]


def series_patches(base=False):
    """Every patch make tree lays, relative to kernel-patches/, in order."""
    return [] if base else [p for s in all_series() for p in s.patches()]


def base_id():
    """One string naming the base kernel exactly enough to key caches on."""
    if KSRC:
        try:
            return "git " + git(KSRC, "rev-parse", "HEAD^{tree}")
        except Error:
            raise Error("KSRC=%s is not a git work tree (commit it first: git init && "
                        "git add -A && git commit)" % KSRC) from None
    if not TARBALL.exists():
        raise Error("no base kernel: %s is missing (apt-get install linux-source-6.12, "
                    "or set KSRC=)" % TARBALL)
    st = TARBALL.stat()
    return "tarball %s %d %d" % (TARBALL.name, st.st_size, int(st.st_mtime))


def series_digest(base=False):
    """The base and every patch in order: what `make tree` lays."""
    h = hashlib.sha256(base_id().encode())
    for p in series_patches(base):
        h.update(("\npatch %s\n" % p).encode())
        h.update((PATCHES / p).read_bytes())
    return h.hexdigest()


# ------------------------------------------------------------- the tree

class Tree:
    """build/linux (or build/linux-base, the base alone) and its state."""

    def __init__(self, base=False):
        self.base = base
        self.path = BUILD / ("linux-base" if base else "linux")
        self.state = BUILD / "linux/.git/kcolour-state"

    def exists(self):
        return (self.path / "Makefile").exists()

    def unsaved(self):
        """Why build/linux holds work that kernel-patches/ does not, or ""."""
        if self.base or not (self.path / ".git").exists():
            return ""
        if not self.state.exists():
            return "build/linux has no record of a finished 'make tree' (did one fail?)"
        if git(self.path, "rev-parse", "HEAD") != self._field("head"):
            return "build/linux has commits that are not exported (run 'make export')"
        if git(self.path, "status", "--porcelain"):
            return "build/linux has uncommitted changes (commit them, then 'make export')"
        return ""

    def current(self):
        """build/linux is exactly base + the current series."""
        return ((self.path / ".git").exists() and not self.unsaved() and
                self._field("digest") == series_digest())

    def _field(self, key):
        for line in self.state.read_text().splitlines() if self.state.exists() else []:
            k, _, v = line.partition(" ")
            if k == key:
                return v
        return ""

    def write_state(self):
        self.state.write_text("head %s\ndigest %s\n" % (git(self.path, "rev-parse", "HEAD"),
                                                        series_digest()))

    def ensure(self):
        """Lay the tree when it is missing or older than kernel-patches/;
        the base tree is a work tree of build/linux's kcolour-base tag."""
        if not self.base:
            if not self.current():
                say("build/linux is missing or older than kernel-patches/: running make tree")
                lay_tree()
            return
        linux = BUILD / "linux"
        if not (linux / ".git").exists():
            lay_tree()
        base = git(linux, "rev-parse", "kcolour-base^{commit}")
        if self.exists() and git(self.path, "rev-parse", "HEAD", check=False) == base:
            return
        say("base tree: work tree of build/linux at kcolour-base in %s" % self.path)
        shutil.rmtree(self.path, ignore_errors=True)
        git(linux, "worktree", "prune")
        git(linux, "worktree", "add", "-q", "--detach", str(self.path), "kcolour-base")


def _base_repo():
    """The cached bare repo of the tarball, made once."""
    key = hashlib.sha256(("%s %d\n" % (base_id(), BASE_FORMAT)).encode()).hexdigest()[:12]
    repo = CACHE / "base" / ("%s-%s.git" % (TARBALL.name[:-len(".tar.xz")], key))
    if repo.exists():
        return repo
    (CACHE / "base").mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".new.", dir=CACHE / "base"))
    try:
        src, bare = tmp / "src", tmp / "repo.git"
        src.mkdir()
        say("first use of %s: unpacking it into a cached base repo (once)" % TARBALL.name)
        subprocess.run(["tar", "-xf", str(TARBALL), "-C", str(src), "--strip-components=1"],
                       check=True)
        # Debian's tarball ignores every top-level path (a rule of its
        # packaging repo): new files would be invisible to git status and add.
        ignore = src / ".gitignore"
        if ignore.exists():
            ignore.write_text(re.sub(r"(?ms)^# Debian packaging.*?^!/debian/\n", "",
                                     ignore.read_text()))
        say("committing the base (once)")
        subprocess.run(["git", "init", "-q", "--bare", "-b", "base", str(bare)], check=True)
        wt = ["--git-dir=%s" % bare, "--work-tree=%s" % src, "-c", "core.bare=false"]
        env = {"GIT_AUTHOR_DATE": IDENTITY["GIT_COMMITTER_DATE"]}
        git(tmp, *wt, "add", "-A", "-f", env=env)
        git(tmp, *wt, "commit", "-q", "-m", "kcolour base: " + TARBALL.name, "-m",
            "The tarball as it is, except for Debian's ignore-everything rule in .gitignore.",
            env=env)
        git(tmp, *wt, "tag", "kcolour-base")
        (bare / "index").unlink()
        say("packing the base (once)")
        git(tmp, *wt, "repack", "-q", "-a", "-d", "--window=0")
        try:
            bare.rename(repo)
        except OSError:
            say("another run made %s first" % repo)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return repo


def lay_tree(force=False):
    """make tree: base + series as commits in build/linux."""
    start = time.time()
    tree = Tree()
    if tree.path.exists():
        reason = tree.unsaved()
        if reason and not force:
            raise Error("%s; refusing to replace it (FORCE=1 make tree discards that work)"
                        % reason)
        say("removing the old build/linux")
        shutil.rmtree(tree.path)
    BUILD.mkdir(parents=True, exist_ok=True)
    if KSRC:
        if git(KSRC, "status", "--porcelain", "--untracked-files=no"):
            say("warning: KSRC has uncommitted changes; only its HEAD is used")
        say("cloning KSRC=%s" % KSRC)
        git(BUILD, "clone", "-q", "--no-checkout", KSRC, str(tree.path))
        git(tree.path, "tag", "-f", "kcolour-base", git(KSRC, "rev-parse", "HEAD"))
    else:
        repo = _base_repo()
        say("cloning the cached base %s" % repo)
        git(BUILD, "clone", "-q", "--no-checkout", str(repo), str(tree.path))
    git(tree.path, "config", "user.name", IDENTITY["GIT_AUTHOR_NAME"])
    git(tree.path, "config", "user.email", IDENTITY["GIT_AUTHOR_EMAIL"])
    git(tree.path, "config", "rebase.updateRefs", "true")  # keeps series-NAME in place
    say("checking out the base")
    git(tree.path, "checkout", "-q", "-b", "kcolour", "kcolour-base")
    patches, done, series = series_patches(), 0, all_series()
    for s in series:
        for p in s.patches():
            done += 1
            say("applying [%d/%d] %s" % (done, len(patches), p))
            try:
                git(tree.path, "-c", "commit.gpgSign=false", "am", "-q",
                    "--committer-date-is-author-date", str(PATCHES / p))
            except Error as e:
                raise Error("%s does not apply; see build/linux (git am --show-current-patch): "
                            "%s" % (p, str(e)[:300])) from None
        if s is not series[-1]:
            git(tree.path, "branch", "-f", s.branch, "HEAD")
    if not patches:
        say("kernel-patches/series is empty or absent: the tree is the base")
    tree.write_state()
    say("build/linux ready at %s (%s)" % (git(tree.path, "log", "-1", "--format=%h %s"),
                                          fmt_time(time.time() - start)))


def format_patch(tree, out, commits, options, config=()):
    """git format-patch of the range commits into out, stable: zero commit
    ids, no signature, a fixed abbreviation, no global git settings; config:
    "-c" settings for this run."""
    git(tree.path, "-c", "core.abbrev=12", *config, "format-patch", "-q", "--zero-commit",
        "--no-signature", "--abbrev=12", "--no-thread", *options, "-o", str(out),
        commits, env={"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"})


def series_ranges(tree):
    """[(Series, "from..to")] of build/linux: each series from where the one
    before ends (kcolour-base first) to its series-NAME branch (HEAD last)."""
    out, start, series = [], "kcolour-base", all_series()
    for s in series:
        end = "HEAD" if s is series[-1] else s.branch
        if not git(tree.path, "rev-parse", "-q", "--verify", end, check=False):
            raise Error("build/linux has no branch %s, where the %s series ends (FORCE=1 "
                        "make tree lays the series again)" % (end, s.name))
        for a, b in ((start, end), (end, "HEAD")):
            if subprocess.run(["git", "-C", str(tree.path), "merge-base", "--is-ancestor",
                               a, b]).returncode:
                raise Error("build/linux: %s is not an ancestor of %s; the %s series "
                            "cannot be told apart (move the branch back onto its last "
                            "commit: git branch -f %s COMMIT)" % (a, b, s.name, s.branch))
        out.append((s, "%s..%s" % (start, end)))
        start = end
    return out


def export():
    """make export: kcolour-base..HEAD of build/linux -> kernel-patches/.

    The output is stable (format_patch()): unchanged commits give
    byte-identical files."""
    tree = Tree()
    if not (tree.path / ".git").exists():
        raise Error("no build/linux (make tree first)")
    git(tree.path, "rev-parse", "-q", "--verify", "kcolour-base")
    if git(tree.path, "status", "--porcelain"):
        say("warning: build/linux has uncommitted changes; they are not exported")
    for s, commits in series_ranges(tree):
        with tempfile.TemporaryDirectory() as tmp:
            format_patch(tree, tmp, commits, ["--no-cover-letter", "--no-numbered"])
            new = sorted(p.name for p in Path(tmp).glob("*.patch"))
            s.dir.mkdir(parents=True, exist_ok=True)
            changed = 0
            for name in new:
                if (s.dir / name).exists() and \
                        (s.dir / name).read_bytes() == (Path(tmp) / name).read_bytes():
                    continue
                shutil.move(str(Path(tmp) / name), s.dir / name)
                say("wrote kernel-patches/%s%s" % (s.prefix, name))
                changed += 1
            for old in s.dir.glob("*.patch"):
                if old.name not in new and old.name != "0000-cover-letter.patch":
                    old.unlink()
                    say("removed stale kernel-patches/%s%s" % (s.prefix, old.name))
        listing = "".join(n + "\n" for n in new)
        if not (s.dir / "series").exists() or (s.dir / "series").read_text() != listing:
            (s.dir / "series").write_text(listing)
        say("%s: %d patch(es) in kernel-patches/%sseries, %d changed"
            % (s.name, len(new), s.prefix, changed))
        cover_letter(tree, s, commits)
    tree.write_state()


def cover_letter(tree, s, commits):
    """The series' 0000-cover-letter.patch, as `git format-patch
    --cover-letter` writes it, from its cover-letter.txt (the first
    paragraph the subject, as in a branch description).  Dated as its last
    commit, so that the same series gives the same file."""
    text = s.dir / "cover-letter.txt"
    if not text.exists():
        return
    end = commits.split("..")[1]
    branch = "kcolour" if end == "HEAD" else end  # git reads the tip branch's description
    with tempfile.TemporaryDirectory() as tmp:
        # --compact-summary: "(new)" in the diffstat, so that the "create
        # mode" lines, wider than checkpatch's 75 columns, can go (below).
        format_patch(tree, tmp, commits, ["--cover-letter", "--cover-from-description=subject",
                                          "--subject-prefix=" + s.subject_prefix, "--numbered",
                                          "--compact-summary"],
                     config=["-c", "branch.%s.description=%s" % (branch, text.read_text())])
        letter = (Path(tmp) / "0000-cover-letter.patch").read_text()
    date = git(tree.path, "log", "-1", "--format=%aD", end)
    letter = re.sub(r"^Date: .*$", "Date: " + date, letter, count=1, flags=re.M)
    letter = re.sub(r"^ create mode \d+ .*\n", "", letter, flags=re.M)
    out = s.dir / "0000-cover-letter.patch"
    if not out.exists() or out.read_text() != letter:
        out.write_text(letter)
        say("wrote kernel-patches/%s0000-cover-letter.patch" % s.prefix)


# ------------------------------------------------------------- images

class Image:
    """A built kernel: path holds bzImage, config, vmlinux, System.map."""

    def __init__(self, name, path, how):
        self.name, self.path, self.how = name, Path(path), how
        self.bzimage = self.path / "bzImage"

    def __str__(self):
        return str(self.bzimage)


def fragment_files(fragments):
    paths = [FRAGDIR / (f if f.endswith(".config") else f + ".config") for f in fragments]
    for p in paths:
        if not p.exists():
            raise Error("no fragment Kconfig-fragments/%s" % p.name)
    return paths


def tool_version(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.stdout.splitlines()[0] if r.returncode == 0 and r.stdout else "?"


def image_key(base, frags):
    """A digest of everything the image is built from."""
    h = hashlib.sha256()
    for part in [IMAGE_FORMAT, "series " + series_digest(base),
                 "gcc " + tool_version(["gcc", "--version"]),
                 "ld " + tool_version(["ld", "--version"]),
                 " ".join("%s=%s" % kv for kv in sorted(REPRODUCIBLE.items()))]:
        h.update(part.encode() + b"\n")
    for f in frags:
        # What merge_config.sh reads: comments other than "is not set" are not inputs.
        lines = [l for l in f.read_text().splitlines()
                 if re.match(r"CONFIG_|# CONFIG_\w+ is not set", l)]
        h.update(("fragment %s\n%s\n" % (f.name, "\n".join(lines))).encode())
    return h.hexdigest()[:16]


def resolve(name=None, fragments=None, base=False):
    """(name, base, [fragment names]) from a facts.tsv image name or a list."""
    if fragments:
        return (name or ("base+" if base else "") + "+".join(
            Path(f).name[:-7] if f.endswith(".config") else f for f in fragments)), base, fragments
    if name and name not in facts.table("image"):
        raise Error("no image %s in facts.tsv (%s)" % (name, ", ".join(facts.table("image"))))
    tree, frags = facts.image_spec(name or "test")
    return name or "test", tree == "base", frags


def image(name=None, fragments=None, base=False, rebuild=False):
    """The Image of a facts.tsv image (or of an ad hoc fragment list).

    A cache hit needs no tree.  When build/linux holds unexported work, that
    working tree is built and the image is not cached.  rebuild=True builds
    in an empty object dir even on a hit and fails unless the bzImage is the
    cached one, byte for byte (reproducibility)."""
    start = time.time()
    name, base, fragments = resolve(name, fragments, base)
    frags, tree = fragment_files(fragments), Tree(base)
    # A rebuild's object dir has the same depth (ccache then hits: see Kmake).
    obj = Path(os.environ.get("KCOLOUR_OBJ") or
               BUILD / ("obj-rebuild" if rebuild else "obj")) / name
    if rebuild:
        shutil.rmtree(obj, ignore_errors=True)
    reason = "" if base else tree.unsaved()
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
    with open(str(obj) + ".lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say("waiting for another build in %s" % obj)
            fcntl.flock(lock, fcntl.LOCK_EX)
            if cached and not rebuild and (cached / "bzImage").exists():
                return _hit(name, cached)
        kmake = Kmake(tree.path, obj)
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

    def __init__(self, tree, obj, llvm=None):
        """llvm: build with LLVM=llvm (e.g. "-16", clang-16) instead of GCC."""
        self.tree, self.obj = Path(tree), Path(obj)
        self.env = dict(os.environ, CCACHE_DIR=str(CACHE / "ccache"), CCACHE_BASEDIR=str(BUILD),
                        **REPRODUCIBLE)
        self.compiler = ["LLVM=" + llvm] if llvm else ["CC=ccache gcc", "HOSTCC=ccache gcc"]

    def cmd(self, *targets, jobs=None):
        return (["make", "-C", str(self.tree), "ARCH=x86_64", "O=%s" % self.obj] +
                self.compiler + (["-j%d" % jobs] if jobs else []) + list(targets))

    def configure(self, frags, verify=True, start=None):
        """tinyconfig (or the .config text start) + the fragments, olddefconfig;
        verify: fail naming every fragment line that did not survive.  An
        unchanged .config keeps its old timestamp, so an incremental build
        stays incremental."""
        log, config = self.obj / "configure.log", self.obj / ".config"
        before = config.read_bytes() if config.exists() else None
        stat = config.stat() if config.exists() else None
        say("configuring: %s + %s" % ("tinyconfig" if start is None else "a start .config",
                                      " ".join(f.stem for f in frags)))
        merge = [str(self.tree / "scripts/kconfig/merge_config.sh"), "-m", "-O", str(self.obj),
                 str(config)] + [str(p) for p in frags]
        if start is not None:
            config.write_text(start)
        with open(log, "w") as f:
            for cmd in ([self.cmd("tinyconfig")] if start is None else []) + [
                    merge, self.cmd("olddefconfig")]:
                if subprocess.run(cmd, cwd=self.tree, stdout=f, stderr=subprocess.STDOUT,
                                  env=self.env).returncode:
                    sys.stderr.write("".join(log.read_text().splitlines(True)[-20:]))
                    raise Error("configuration failed (log: %s)" % log)
        if before is not None and config.read_bytes() == before:
            os.utime(config, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        missing = verify_config(frags, config.read_text()) if verify else []
        if missing:
            sys.stderr.write("".join("error:   %s\n" % m for m in sorted(missing)))
            raise Error("%d fragment line(s) did not survive into .config (unmet "
                        "dependencies?); see %s" % (len(missing), config))

    def build(self, *targets):
        """bzImage (or targets) with -j$(nproc); a progress line every 30 s."""
        log = self.obj / "build.log"
        log.write_text("")
        start = last = time.time()
        targets = targets or ("bzImage",)
        say("building %s with -j%d (log: %s)" % (" ".join(targets), os.cpu_count(), log))
        with open(log, "a") as f:
            p = subprocess.Popen(self.cmd(*targets, jobs=os.cpu_count()), stdout=f,
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


def verify_config(frags, config):
    """The CONFIG_ lines the fragments ask for (the last fragment wins) that
    .config does not have: merge_config.sh drops values whose dependencies
    are unmet."""
    want = {}
    for f in frags:
        for line in f.read_text().splitlines():
            m = re.match(r"^(CONFIG_\w+)=n$|^# (CONFIG_\w+) is not set", line)
            if m:
                want[m.group(1) or m.group(2)] = None
            elif re.match(r"^CONFIG_\w+=", line):
                want[line.split("=", 1)[0]] = line
    have = {}
    for line in config.splitlines():
        m = re.match(r"^(CONFIG_\w+)=|^# (CONFIG_\w+) is not set", line)
        if m:
            have[m.group(1) or m.group(2)] = line
    missing = []
    for sym, line in want.items():
        got = have.get(sym, "absent")
        if line is None and got.startswith(sym + "="):
            missing.append("# %s is not set (have: %s)" % (sym, got))
        elif line is not None and got != line:
            missing.append("%s (have: %s)" % (line, got))
    return missing


def menuconfig(name=None, fragments=None):
    """menuconfig in the object dir `make kernel` uses, then what changed."""
    name, base, _ = resolve(name, fragments)
    tree, obj = Tree(base), BUILD / "obj" / name
    if not (obj / ".config").exists():
        raise Error("no %s/.config: run 'make kernel' with the same image first" % obj)
    before = (obj / ".config").read_bytes()
    shutil.copy(obj / ".config", obj / ".config.before-menuconfig")
    subprocess.run(Kmake(tree.path, obj).cmd("menuconfig"), check=True)
    if (obj / ".config").read_bytes() == before:
        say("no change")
    else:
        say("changes (add them to a fragment in Kconfig-fragments/ to keep them):")
        subprocess.run([str(tree.path / "scripts/diffconfig"),
                        str(obj / ".config.before-menuconfig"), str(obj / ".config")])


# The task_struct usercopy whitelist: where it is computed, and what may
# never happen to it at any commit (v4's series widened it by "usersize +=
# room" for ten commits).  The LKDTM case of the usercopy suite checks the
# final tree at run time; this checks every commit in the source.
WHITELIST_FILES = ["kernel/fork.c", "include/linux/sched/task.h",
                   "arch/x86/include/asm/processor.h", "arch/x86/kernel/fpu/core.c"]
WHITELIST_WIDENED = re.compile(r"\b(usersize|useroffset)\s*([-+]=|=[^;=]*[-+](?!>))")


def _function(text, name):
    """The body of the C function NAME in text, or None."""
    m = re.search(r"^[^\n;]*\b%s\([^;{]*\)\s*\{" % re.escape(name), text, re.M)
    if not m:
        return None
    depth, i = 0, m.end() - 1
    for j in range(i, len(text)):
        depth += {"{": 1, "}": -1}.get(text[j], 0)
        if depth == 0:
            return text[i:j + 1]
    return None


def whitelist_widened(tree, commit):
    """How commit widens the task_struct usercopy whitelist against the
    base, in the source: a changed body of the functions that compute it,
    or arithmetic on usersize/useroffset in the files that pass it on."""
    problems = []
    for path in WHITELIST_FILES:
        old = git(tree, "show", "kcolour-base:" + path, check=False) or ""
        new = git(tree, "show", "%s:%s" % (commit, path), check=False) or ""
        for fn in ("task_struct_whitelist", "fpu_thread_struct_whitelist",
                   "arch_thread_struct_whitelist"):
            if _function(old, fn) != _function(new, fn):
                problems.append("%s: %s() differs from the base" % (path, fn))
        base_lines = set(old.splitlines())
        added = [l for l in new.splitlines() if l not in base_lines]
        problems += ["%s: %s" % (path, l.strip()) for l in added if WHITELIST_WIDENED.search(l)]
    return problems


def bisect_check():
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
    option = {"kcolour": "KSTACK_COLOUR", "kcolour-task": "TASK_STRUCT_COLOUR",
              "kcolour-test": "KSTACK_COLOUR_KUNIT_TEST",
              "kcolour-modules": "KSTACK_COLOUR_KUNIT_TEST"}
    variants = [("built-in", facts.image_spec("test")[1], ["bzImage"]),
                ("modules", facts.image_spec("test")[1] + ["kcolour-modules"],
                 ["bzImage", "modules"])]
    failed = 0
    try:
        for c in git(tree.path, "rev-list", "--reverse", "kcolour-base..HEAD").split():
            built = []
            git(tree.path, "checkout", "-q", c)
            subject = git(tree.path, "log", "-1", "--format=%h %s", c)
            kconfig = (tree.path / "arch/x86/Kconfig").read_text()
            widened = whitelist_widened(tree.path, c)
            for w in widened:
                say("%s: the task_struct usercopy whitelist: %s" % (subject, w))
            for name, fragments, targets in variants:
                frags = [f for f in fragments
                         if f not in option or "\nconfig %s\n" % option[f] in kconfig]
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
                warnings = sum("warning:" in l for l in open(obj / "build.log", errors="replace"))
                print("%s %s, %s [%s] (warnings: %d)%s" % (
                    r, subject, name, " ".join(frags), warnings,
                    ", widens the task_struct whitelist" if widened else ""), flush=True)
    finally:
        git(tree.path, "checkout", "-q", branch)
    return failed
