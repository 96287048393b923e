"""The patch series and build/linux, the tree they are laid in
(kunit_kernel.py's LinuxSourceTree, its source side).

    lay_tree(force)    base + every series of kernel-patches/ as git commits
                       in build/linux, the base tagged kcolour-base (make tree)
    export()           build/linux's commits back to kernel-patches/ (make export)
    Tree(base)         build/linux (or build/linux-base, the base alone): is it
                       current, does it hold unexported work; ensure() lays it
    series_digest()    the base and every patch in order, for keying caches
    whitelist_widened(tree, commit)
                       how a commit widens the task_struct usercopy whitelist

The patches are series of their own (facts.tsv "series": the cacheinfo
fixes, the colouring, the function alignment, the bench tools), each a
directory of kernel-patches/ with its series file and cover letter.  make
tree lays them in that order and marks where each but the last ends with a
branch series-NAME, which an interactive rebase moves along
(rebase.updateRefs); make export splits the commits there.

Base kernel: KSRC=/path/to/git/tree if set, else KERNEL_TARBALL (default
Debian's linux-source-6.12), imported once (git fast-import) into a bare
repo under $KCOLOUR_CACHE/base.
"""

import calendar
import contextlib
import hashlib
import lzma
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import time
import zlib
from pathlib import Path
from typing import List, Optional, Union

from . import facts
from .util import BUILD, CACHE, IDENTITY, Error, fmt_time, git, locked, say

PATCHES = facts.ROOT / "kernel-patches"
TARBALL = Path(os.environ.get("KERNEL_TARBALL") or "/usr/src/linux-source-6.12.tar.xz")
KSRC = os.environ.get("KSRC") or ""
BASE_FORMAT = 2


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
        name: str  # filter(None, ...) of the Any-typed lines leaves it untyped
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

TREE_LOCK = BUILD / ".linux.lock"   # held while build/linux is laid


class Tree:
    """build/linux (or build/linux-base, the base alone) and its state."""

    def __init__(self, base: bool = False) -> None:
        self.base = base
        self.path = BUILD / ("linux-base" if base else "linux")
        self.state = BUILD / "linux/.git/kcolour-state"

    def exists(self) -> bool:
        return (self.path / "Makefile").exists()

    def unsaved(self) -> str:
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

    def unsaved_settled(self) -> str:
        """unsaved(), once a make tree that another run is laying (make
        check's background build, say) has finished: a half-laid tree is not
        unsaved work."""
        with locked(TREE_LOCK, "make tree"):
            return self.unsaved()

    def current(self) -> bool:
        """build/linux is exactly base + the current series."""
        return ((self.path / ".git").exists() and not self.unsaved() and
                self._field("digest") == series_digest())

    def _field(self, key: str) -> str:
        for line in self.state.read_text().splitlines() if self.state.exists() else []:
            k, _, v = line.partition(" ")
            if k == key:
                return v
        return ""

    def write_state(self) -> None:
        self.state.write_text("head %s\ndigest %s\n" % (git(self.path, "rev-parse", "HEAD"),
                                                        series_digest()))

    def ensure(self) -> None:
        """Lay the tree when it is missing or older than kernel-patches/;
        the base tree is a work tree of build/linux's kcolour-base tag."""
        with locked(TREE_LOCK, "make tree"):
            self._ensure()

    def _ensure(self) -> None:
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
    with locked(CACHE / "base" / ".lock", "base repo"):
        return repo if repo.exists() else _make_base_repo(repo)


def _make_base_repo(repo):
    """The tarball streamed into git fast-import, one pass and one pack: the
    commit that git add -A -f and commit of the unpacked tree make."""
    (CACHE / "base").mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".new.", dir=CACHE / "base"))
    try:
        bare = tmp / "repo.git"
        say("first use of %s: importing it into a cached base repo (once)" % TARBALL.name)
        git(tmp, "init", "-q", "--bare", "-b", "base", str(bare))
        fast_import = subprocess.Popen(["git", "-C", str(bare), "fast-import", "--quiet",
                                        "--depth=0"], stdin=subprocess.PIPE)
        assert fast_import.stdin is not None
        try:
            _import_tarball(fast_import.stdin)
            fast_import.stdin.close()
        except BrokenPipeError:
            with contextlib.suppress(OSError):  # what is left unsent goes nowhere
                fast_import.stdin.close()
        except BaseException as e:
            fast_import.kill()  # the stream stopped short of its end
            fast_import.wait()
            with contextlib.suppress(OSError):
                fast_import.stdin.close()
            if isinstance(e, (OSError, EOFError, tarfile.TarError, lzma.LZMAError, zlib.error,
                              Error)):
                raise Error("%s: not a tarball git can import: %s" % (TARBALL, e)) from None
            raise
        rc = fast_import.wait()
        if rc:
            raise Error("git fast-import of %s failed (exit %d)" % (TARBALL, rc))
        bare.rename(repo)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return repo


def _import_tarball(out):
    """The tarball's files, its top directory stripped, as a fast-import
    stream: each a blob, then one commit of them all (branch base, tag
    kcolour-base).  Debian's tarball ignores every top-level path (a rule
    of its packaging repo), which would hide new files from git status and
    add: the commit leaves that rule out of .gitignore."""
    files = []
    out.write(b"feature done\n")   # a stream cut short is an error, not a commit
    with tarfile.open(TARBALL, "r:*") as tar:
        for member in tar:
            path = member.name.partition("/")[2]
            if not path or member.isdir():
                continue
            if "\n" in path or path.startswith('"'):
                raise Error("a path fast-import would need quoted: %r" % path)
            name = path.encode("utf-8", "surrogateescape")   # the tarball's bytes
            if member.issym():
                mode, data = "120000", member.linkname.encode("utf-8", "surrogateescape")
            elif member.isfile() or member.islnk():
                reader = tar.extractfile(member)
                assert reader is not None   # a regular file or a link to one
                mode, data = "100755" if member.mode & 0o100 else "100644", reader.read()
            else:
                raise Error("%s is neither a file nor a symlink" % member.name)
            if path == ".gitignore":
                data = re.sub(rb"(?ms)^# Debian packaging.*?^!/debian/\n", b"", data)
            files.append((mode, name))
            out.write(b"blob\nmark :%d\ndata %d\n%s\n" % (len(files), len(data), data))
    message = ("kcolour base: %s\n\nThe tarball as it is, except for Debian's "
               "ignore-everything rule in .gitignore.\n" % TARBALL.name).encode()
    # IDENTITY's date is UTC (harness/util.py); both roles are the project's.
    date = calendar.timegm(time.strptime(IDENTITY["GIT_COMMITTER_DATE"], "%Y-%m-%dT%H:%M:%SZ"))
    author, committer = ("%s <%s> %d +0000" % (IDENTITY["GIT_%s_NAME" % role],
                                               IDENTITY["GIT_%s_EMAIL" % role], date)
                         for role in ("AUTHOR", "COMMITTER"))
    out.write(b"commit refs/heads/base\nauthor %s\ncommitter %s\ndata %d\n%s" % (
        author.encode(), committer.encode(), len(message), message))
    out.writelines(b"M %s :%d %s\n" % (mode.encode(), mark, name)
                   for mark, (mode, name) in enumerate(files, 1))
    out.write(b"\nreset refs/tags/kcolour-base\nfrom refs/heads/base\n\ndone\n")


def lay_tree(force: bool = False) -> None:
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


# ------------------------------------------------------------- the whitelist

# The task_struct usercopy whitelist: where it is computed, and what may
# never happen to it at any commit (v4's series widened it by "usersize +=
# room" for ten commits).  The LKDTM case of the usercopy suite checks the
# final tree at run time; this checks every commit in the source.
WHITELIST_FILES = ["kernel/fork.c", "include/linux/sched/task.h",
                   "arch/x86/include/asm/processor.h", "arch/x86/kernel/fpu/core.c"]
WHITELIST_WIDENED = re.compile(r"\b(usersize|useroffset)\s*([-+]=|=[^;=]*[-+](?!>))")


def _function(text: str, name: str) -> Optional[str]:
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


def whitelist_widened(tree: Union[str, "os.PathLike[str]"], commit: str) -> List[str]:
    """How commit widens the task_struct usercopy whitelist against the
    base, in the source: a changed body of the functions that compute it,
    or arithmetic on usersize/useroffset in the files that pass it on."""
    problems: List[str] = []
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
