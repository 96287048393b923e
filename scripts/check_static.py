"""make check's static checkers on what the kernel series touch, each judged
against the base kernel on the same files where the file is not new:

  sparse      make C=2 (Debian's sparse) on every C file the series change
  W=1         the same files with make W=1
  kernel-doc  scripts/kernel-doc -none -Wall on the files the series add
  coccicheck  scripts/coccicheck MODE=report on the changed C files (full, as
              make static-check runs it; make check's reduced run takes the
              files the series add, with no base to compare)
  maintainers scripts/get_maintainer.pl on every patch: the kcolour entry has
              an F: line for each file the series add; each patch names
              every maintainer and list that the base names for its files,
              and the kcolour entry unless the base names an owner for them

The C files are built in the test image's configuration (facts.tsv "test"),
in object dirs of their own (build/obj/static, build/obj/static-base);
the base's output is cached outside the clone, as the images are.
A warning counts as new when the patched tree has more of it, by file and
message with the line numbers left out, than the base.  TAP on stdout,
progress on stderr.

usage: python3 -m scripts.check_static [full]  (from the top of the tree, not by its path)
"""
import collections
import concurrent.futures
import functools
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time

from harness import facts, kconfig, kernel, qemu, tap, util
from harness.series import PATCHES, Tree, series_patches

WARNING = re.compile(r"^(?:\S*/)?(?P<file>(?:arch|include|kernel|mm|lib|drivers)/[^:\s]+)"
                     r":\d+(?::\d+)?: (?P<kind>warning|error): (?P<msg>.*)$")
# coccicheck's report lines: FILE:LINE:COL-COL: MESSAGE
COCCI = re.compile(r"^(?:\S*/)?(?P<file>(?:arch|include|kernel|mm|lib|drivers)/[^:\s]+)"
                   r":\d+:\d+-\d+: (?P<msg>.*)$")
KCOLOUR = "kcolour@example.org"
LKML = "linux-kernel@vger.kernel.org"


say = functools.partial(qemu.say, "static")


def changed(tree, status, tools=False):
    """The files the series change (git diff --diff-filter=status); those
    below tools/ (the selftests) only with tools."""
    return [f for f in util.git(tree.path, "diff", "--name-only", "--diff-filter=" + status,
                                  "kcolour-base..HEAD").splitlines()
            if tools or not f.startswith("tools/")]


def same_message(msg):
    """A message with the line numbers it names left out."""
    return re.sub(r"\bline \d+", "line N", msg)


def warnings(text):
    """Counter of (file, "kind: message") of a build's output."""
    return collections.Counter((m["file"], "%s: %s" % (m["kind"], same_message(m["msg"])))
                               for m in map(WARNING.match, text.splitlines()) if m)


def new_warnings(patched, base):
    return sorted("%s: %s (%d, base %d)" % (f, msg, n, base[f, msg])
                  for (f, msg), n in patched.items() if n > base[f, msg])


def both(fn, series, base):
    """{dir: fn(dir)} for the patched and the base object dir, side by side."""
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        return dict(zip((series, base), pool.map(fn, (series, base))))


class ObjDir:
    """One tree configured as the test image, for building single objects.
    The base tree's output is cached (KCOLOUR_CACHE/static-base), keyed on
    what it is made from: the base never changes between runs."""

    def __init__(self, tree, name):
        self.tree, self.kmake = tree, kernel.Kmake(tree.path, util.BUILD / "obj" / name)
        self.frags = kconfig.fragment_files(facts.image_spec("test")[1])
        self.configured = False

    def objects(self, c_files):
        """The objects of those C files that this tree has."""
        return [f[:-2] + ".o" for f in c_files if (self.tree.path / f).exists()]

    def cache_file(self, targets, options):
        tools = [util.tool_version([t, "--version"]) for t in ("sparse", "spatch")]
        key = hashlib.sha256("\n".join([kernel.image_key(True, self.frags)] + tools +
                                        list(options) + list(targets)).encode())
        return util.CACHE / "static-base" / key.hexdigest()[:16]

    def make(self, targets, *options, cache=True):
        """(status, output) of make -k OPTIONS TARGETS, each .o rebuilt; the
        base's output cached unless cache=False."""
        cached = self.cache_file(targets, options) if self.tree.base and cache else None
        if cached and cached.exists():
            return 0, cached.read_text()
        if not self.configured:
            self.kmake.obj.mkdir(parents=True, exist_ok=True)
            say("configuring %s" % self.kmake.obj)
            try:
                self.kmake.configure(self.frags, verify=not self.tree.base)
            except util.Error as e:
                return 1, "error: %s\n" % e
            self.configured = True
        for t in targets:
            o = self.kmake.obj / t
            if o.exists():
                o.unlink()
        r = subprocess.run(self.kmake.cmd("-k", *options, *targets, jobs=2),
                           capture_output=True, text=True, env=self.kmake.env)
        if cached and r.returncode == 0:
            cached.parent.mkdir(parents=True, exist_ok=True)
            cached.write_text(r.stdout + r.stderr)
        return r.returncode, r.stdout + r.stderr


def check_builds(t, series, base):
    c_files = [f for f in changed(series.tree, "AM") if f.endswith(".c")]
    for what, options in (("sparse (make C=1)", ["C=1", "CHECK=sparse"]), ("W=1", ["W=1"])):
        start = time.time()
        say("%s on %d files, patched and base" % (what, len(c_files)))
        runs = both(lambda d: d.make(d.objects(c_files), *options), series, base)
        (rc, out), (base_rc, base_out) = runs[series], runs[base]
        t(rc == 0 and base_rc == 0, "%s: the %d changed C files build, and the base's (%s)"
          % (what, len(c_files), " ".join(c_files)),
          diag=[l for o, r in ((out, rc), (base_out, base_rc)) if r for l in o.splitlines()[-10:]])
        new = new_warnings(warnings(out), warnings(base_out))
        t(not new, "%s: no new warnings against the base (%d in the patched files, %d in "
          "the base's; %ds)" % (what, sum(warnings(out).values()),
                                sum(warnings(base_out).values()), time.time() - start),
          diag=new)


def check_kernel_doc(t, series):
    added = [f for f in changed(series.tree, "A") if f.endswith((".c", ".h"))]
    r = subprocess.run(["perl", "scripts/kernel-doc", "-none", "-Wall"] + added,
                       cwd=series.tree.path, capture_output=True, text=True)
    lines = [l for l in (r.stdout + r.stderr).splitlines() if l.strip()]
    t(r.returncode == 0 and not lines and added,
      "kernel-doc -none -Wall: no warnings on the %d new files (%s)" % (len(added),
                                                                       " ".join(added)),
      diag=lines)


# kbuild's CHECK for coccicheck(): it notes the include flags kbuild passes.
RECORD = """#!/bin/sh
printf '%s\\n' "$LINUXINCLUDE" >"$(dirname "$0")/linuxinclude"
"""


def semantic_patches(tree):
    """The kernel's semantic patches, in the order coccicheck takes them."""
    return sorted((tree.path / "scripts/coccinelle").rglob("*.cocci"))


def coccicheck(d, c_files):
    """(status, output) of scripts/coccicheck MODE=report on the C files
    this tree has: each semantic patch once over all of them, a file a
    group (spatch --file-groups: each file matched on its own, as kbuild's
    C=1 runs it a file at a time, where files named together on spatch's
    command line would be one group), a script a core at a time; not a
    spatch a script and a file (about 1 s each to start).  The include
    flags are kbuild's, noted by a CHECK of ours while it builds them."""
    objects = d.objects(c_files)
    cached = d.cache_file(objects, ["coccicheck --file-groups"]) if d.tree.base else None
    if cached and cached.exists():
        return 0, cached.read_text()
    work = d.kmake.obj / "coccicheck"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    (work / "record.sh").write_text(RECORD)
    (work / "record.sh").chmod(0o755)
    rc, out = d.make(objects, "C=1", "CHECK=%s" % (work / "record.sh"), cache=False)
    if rc:
        return rc, out
    groups = work / "groups"
    groups.write_text("\n\n".join(str(d.tree.path / (o[:-2] + ".c")) for o in objects) + "\n")
    env = dict(d.kmake.env, srctree=str(d.tree.path), MODE="report", J="1",
               LINUXINCLUDE=(work / "linuxinclude").read_text().strip(),
               SPFLAGS="--file-groups %s" % groups)

    def run(script):
        return subprocess.run([str(d.tree.path / "scripts/coccicheck")], cwd=d.kmake.obj,
                              env=dict(env, COCCI=str(script)), capture_output=True, text=True)
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count()) as pool:
        runs = list(pool.map(run, semantic_patches(d.tree)))
    out = "".join(r.stdout + r.stderr for r in runs)
    rc = max(r.returncode for r in runs)
    if cached and rc == 0:
        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_text(out)
    return rc, out


def cocci_reports(output):
    return collections.Counter((m["file"], same_message(m["msg"]))
                               for m in map(COCCI.match, output.splitlines()) if m)


def check_coccicheck(t, series, base, full):
    """Every changed C file against the base's (full: about 11 minutes on 2
    cores, most of it slub.c and fork.c); make check's reduced run takes
    the files the series add, which have no base and must have no report."""
    if not shutil.which("spatch"):
        return t.skip("coccicheck: no new reports", "no spatch (make deps installs coccinelle)")
    c_files = [f for f in changed(series.tree, "AM" if full else "A") if f.endswith(".c")]
    start = time.time()
    say("coccicheck (MODE=report) on %d files, %s" % (len(c_files),
                                                      "patched and base" if full else "new"))
    runs = both(lambda d: coccicheck(d, c_files), series, base) if full else {
        series: coccicheck(series, c_files)}
    scripts = len(semantic_patches(series.tree))
    for rc, out in runs.values():
        # coccicheck echoes each spatch it runs, and names each it skips
        ran, skipped = out.count("spatch -D report "), out.count("Skipping coccinelle SmPL patch")
        if rc or not ran or ran + skipped != scripts:
            return t(False, "coccicheck MODE=report runs its %d semantic patches on the changed "
                     "C files (%d ran, %d skipped)" % (scripts, ran, skipped),
                     diag=out.splitlines()[-10:])
    reports = {d: cocci_reports(out) for d, (_, out) in runs.items()}
    if not full:
        return t(not reports[series], "coccicheck MODE=report: no reports on the %d C files the "
                 "series add (%s; %d semantic patches, %d run; %ds; make static-check compares "
                 "every changed file with the base)" % (
                     len(c_files), " ".join(c_files), scripts, ran, time.time() - start),
                 diag=["%s: %s" % k for k in reports[series]])
    new = sorted("%s: %s" % k for k, n in reports[series].items() if n > reports[base][k])
    t(not new, "coccicheck MODE=report: no new reports on the %d changed C files (%d in the "
      "patched files, %d in the base's; %ds)" % (len(c_files), sum(reports[series].values()),
                                                 sum(reports[base].values()), time.time() - start),
      diag=new)


def maintainers(tree, *args):
    r = subprocess.run(["perl", "scripts/get_maintainer.pl", "--no-git", "--no-git-fallback",
                        "--no-rolestats", "--no-fixes"] + list(args),
                       cwd=tree.path, capture_output=True, text=True)
    return set(r.stdout.split("\n")) - {""}


def check_maintainers(t, series, base):
    series, base = series.tree, base.tree
    text = (series.path / "MAINTAINERS").read_text()
    # The project's entries: the colouring's, and the page map's (series bench).
    entries = [e for e in re.findall(r"(?ms)^[A-Z0-9][^\n]*\n((?:[A-Z]:\t[^\n]*\n)+)", text)
               if re.search(r"^M:\s.*<%s>" % re.escape(KCOLOUR), e, re.M)]
    patterns = [p for e in entries for p in re.findall(r"^F:\s+(\S+)", e, re.M)]
    added = changed(series, "A", tools=True)
    uncovered = [f for f in added if not any(
        f == p or (p.endswith("/") and f.startswith(p)) for p in patterns)]
    t(bool(entries) and not uncovered, "MAINTAINERS: an entry of kcolour's (%d) has an F: line "
      "for each of the %d files the series add" % (len(entries), len(added)), diag=uncovered)
    for p in series_patches():
        path = PATCHES / p
        files = [f for f in re.findall(r"^\+\+\+ b/(\S+)", path.read_text(), re.M)
                 if (base.path / f).exists()]
        named = maintainers(series, str(path))
        owners = maintainers(base, "-f", *files) if files else set()
        missing = sorted(owners - named)
        ours = any(KCOLOUR in n for n in named)
        # A patch the kcolour entry does not name must go to the owners of
        # its files, not to LKML alone.
        owned = bool(owners - {LKML})
        t(not missing and (ours or owned), "get_maintainer.pl %s: names %s, and all %d that "
          "the base names for its files" % (p, "the kcolour entry" if ours else
                                            "its files' owners, not kcolour", len(owners)),
          diag=missing or ([] if ours or owned else ["only: " + ", ".join(sorted(named))]))


def main():
    if sys.argv[1:] not in ([], ["full"]):
        sys.exit("usage: python3 -m scripts.check_static [full]")
    t = tap.Tap()
    try:
        trees = Tree(), Tree(base=True)
        for tree in trees:
            tree.ensure()
        series, base = ObjDir(trees[0], "static"), ObjDir(trees[1], "static-base")
    except util.Error as e:
        t(False, "the patched and base trees configure: %s" % e)
        return t.plan()
    check_builds(t, series, base)
    check_kernel_doc(t, series)
    check_coccicheck(t, series, base, sys.argv[1:] == ["full"])
    check_maintainers(t, series, base)
    return t.plan()


if __name__ == "__main__":
    sys.exit(main())
