"""Hot-text profiles: the kernel functions a workload runs, in the order the
build places them, in one file format that a person can read and edit,
whatever measured them.

    make hot-text-profile
        the test image under the cache simulator (profile=) on the programs
        of facts.tsv hot-text-programs (the web server, hackbench, fork and
        exit, fork and exec, the ring, tar and find): instructions per
        function -> build/hot-text.profile (OUT=), for the kernel's make
        HOT_TEXT_PROFILE=FILE (the project's own, the code-layout
        decision's shipped profile, is
        falign/profiles/programs-density.profile).  First,
        workload by workload (the smallest hot set first), the most
        instructions a byte of its hot set, as many as fit in half the L1I:
        they lie in one piece, no function of another workload shares their
        sets, and half the ways are left to the code outside; the other
        functions follow, hottest first
    make hot-text-profile FROM=PERF_SCRIPT [SYSTEM_MAP=FILE] [OUT=FILE]
    python3 -m falign.hot_text perf PERF_SCRIPT [--system-map FILE] [--out FILE]
        the same from a real machine: `perf record -e cycles:k -a [-g]` (or
        cpu-clock:k where there is no PMU), then `perf script > PERF_SCRIPT`
        (the default format, -F ip,sym, or -F ip with the System.map of the
        kernel that ran, booted nokaslr): samples per function, user space
        and modules left out; with a System.map, the hottest part by density
        first, as the simulator's (--room, --select), else hottest first
    python3 -m falign.hot_text check PROFILE
        read it as the build would, and say what is wrong with it
    python3 -m falign.hot_text sham --like PROFILE --objects ARCHIVE... --seed N --out FILE
        a sham of PROFILE: functions drawn at random (seeded) from every
        .text.NAME section of the ARCHIVEs (vmlinux.a and the lib.a files
        of a build with HOT_TEXT_ORDER), until they add up to as many bytes
        as the sections PROFILE names: placed the same way, it moves
        as much code as the profile without knowing what is hot (the layout
        decision's control, docs/results/protocol-layout.md)
    (each from the top of the tree, not by its path)

The format, the kernel's (make HOT_TEXT_PROFILE=FILE with HOT_TEXT_ORDER,
scripts/generate_hot_text_lds.sh; the kernel ships none, as upstream ships no
AutoFDO profile):

    # comment lines start with '#'; the first says what measured the counts
    COUNT<TAB>FUNCTION[<TAB>OBJECT]

a line a function, in the order to place them (perf: hottest first); COUNT
is instructions (the simulator) or samples (perf), which the build does not
read.  OBJECT (kernel/fork.o) picks one of several static functions of one
name; without it the build places them all.  Reorder, delete or add lines
freely: a function the kernel lacks, or that has no section of its own, is
the build's to skip.
Flags of make hot-text-profile's run (make's WORK=DIR, REPORT_ONLY=1, RESUME=1,
JOBS=N, ROOM=BYTES): --work, --report-only, --resume, --jobs, --room;
--select count fills a workload's part with its hottest functions by count,
where the default takes the most instructions a byte first; --order c3
orders each part by call-chain clustering (C3, below), where the default
keeps the selection's order.

C3 (Ottoni and Maher, "Optimizing function placement for large-scale
data-center applications", CGO 2017; HFSort, and BOLT's default): each
function of a part, hottest first, is appended to the cluster of its most
frequent caller (the simulator's entry lines: calls into the function's
first byte) unless that cluster would grow past C3_LIMIT bytes; the clusters
follow each other by density, the most instructions a byte first.  A caller
and the callees it runs lie together, so that the lines and pages they
touch are shared.
"""

import collections
import itertools
import os
import random
import re
import subprocess
import sys
from pathlib import Path

from bench.cachesim import profile_diff
from harness import facts, util

HERE = Path(__file__).resolve().parent

# Where make hot-text-profile writes (OUT= elsewhere), and the project's own
# profile of its test kernel, which the falign-ordered images build with.
DEFAULT = HERE.parent / "build/hot-text.profile"
PROJECT = HERE / "profiles/programs-density.profile"
WSET = "hot-text-programs"
# A workload's hot set: its hottest functions that run this share of its
# kernel instructions (the ring's: 98 functions, 35 KiB).
COVER = 0.999
# A workload's part of the region: at most half the L1I, so that it fills
# half the ways of each set and leaves the rest to the hot code outside the
# region (sched, entry and lock text, assembly) and to user space.  The
# ring, across three layouts, misses 5.5 lines a switch with 16 KiB, 6.1
# with 24, 25 with 28 and 28 with 32 (docs/design.md).  ROOM=BYTES overrides.
ROOM_SHARE = 2
# A C identifier, or GCC's clones of one (foo.constprop.0, foo.isra.0, ...).
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$")
OBJECT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./-]*\.o$")
# What no kernel function is: user space, and below every text symbol.
NOT_KERNEL = ("[user]", "[unknown]")
# How a workload's part of the region is chosen (hot_set()), and ordered.
SELECTS = ("count", "density")
SELECT_DEFAULT = "density"  # the project's profile's
ORDERS = ("selection", "c3")
# A workload's part of the region where no cache geometry is at hand
# (perf on a real machine): half a 32 KiB L1I.
ROOM_DEFAULT = (32 << 10) // ROOM_SHARE
# C3's cluster limit: a page, as HFSort's.
C3_LIMIT = 4096
# perf script's DSO of a sample in a module ([nf_tables]; the kernel's own
# is [kernel.kallsyms], or a vmlinux path).
MODULE_DSO = re.compile(r"\[(?!kernel\.)(?!unknown\])[^]]*\]")
# How far past its last text symbol a System.map's text may still run.
TEXT_SLACK = 1 << 16


class Error(util.Error):
    """A profile or its inputs are wrong: the message says which file and line."""


def project_profile():
    """The project's profile of its test kernel (PROJECT): what the
    falign-ordered images place first."""
    return PROJECT


def symbols(system_map):
    """A System.map's text symbols, for address -> function lookups
    (profile_diff.py's, which also names user space and the unknown)."""
    with open(system_map) as f:
        return profile_diff.Symbols(f)


def hottest(counts):
    """[(function, n)] of counts' kernel functions that ran, hottest first
    (ties by name)."""
    return sorted(((f, n) for f, n in counts.items() if n > 0 and f not in NOT_KERNEL),
                  key=lambda fn: (-fn[1], fn[0]))


def hot_set(counts, size, room, select="count"):
    """counts' hottest functions that run COVER of its kernel instructions,
    as [(function, count)], then the bytes they take (size {function:
    bytes}), and those of them that fit in room bytes: by count, the
    hottest up to the first that does not fit; by density, the most
    instructions a byte first, each that still fits (HFSort's order, and
    a greedy knapsack: small hot functions before a large one of the same
    count)."""
    items = hottest(counts)
    total, run, hot = sum(n for _, n in items), 0, []
    for f, n in items:
        if run >= COVER * total:
            break
        hot.append((f, n))
        run += n
    used = list(itertools.accumulate(size.get(f, 0) for f, _ in hot))
    if select == "count":
        part = [fn for fn, u in zip(hot, used) if u <= room]
    else:
        part, left = [], room
        for f, n in sorted(hot, key=lambda fn: (-fn[1] / max(1, size.get(fn[0], 0)), fn[0])):
            if size.get(f, 0) <= left:
                part.append((f, n))
                left -= size.get(f, 0)
    return hot, used[-1] if used else 0, part


def c3(part, size, calls, limit=C3_LIMIT):
    """part [(function, n)] in C3's order (the module's doc): calls
    {(caller, callee): count}; size {function: bytes}."""
    hot = {f for f, _ in part}
    count = dict(part)
    cluster = {f: [f] for f in hot}
    callers = collections.defaultdict(list)
    for (a, b), k in calls.items():
        if a in hot and b in hot and a != b:
            callers[b].append((k, a))
    bytes_of = lambda c: sum(size.get(f, 0) for f in c)  # noqa: E731
    for f, _ in sorted(part, key=lambda fn: (-fn[1], fn[0])):
        if not callers[f]:
            continue
        _, caller = max(callers[f])  # the most calls, ties by name
        mine, theirs = cluster[f], cluster[caller]
        if mine is theirs or bytes_of(mine) + bytes_of(theirs) > limit:
            continue
        theirs.extend(mine)
        for g in mine:
            cluster[g] = theirs
    clusters = list({id(c): c for c in cluster.values()}.values())
    clusters.sort(key=lambda c: (-sum(count[f] for f in c) / max(1, bytes_of(c)), c[0]))
    return [(f, count[f]) for c in clusters for f in c]


def write(out, counts, source, workloads=(), size=None, room=0, select="count", calls=None):
    """counts {function: n}, hottest first (ties by name), under a header.
    Before them, for each (label, {function: n}) of workloads, the smallest
    hot set first (size {function: bytes}), the part of its hot set that
    fits in room bytes (hot_set()'s select), less what a workload before
    it took, under a comment that names it; with calls {label: {(caller,
    callee): count}}, each part in C3's order."""
    size = size or {}
    out.write("# kcolour hot-text profile: kernel functions in the order to place them; "
              "COUNT<TAB>FUNCTION[<TAB>OBJECT]\n"
              "# source: %s\n" % source)
    placed = set()
    for (hot, hot_bytes, part), label, c in sorted(
            ((hot_set(c, size, room, select), label, c) for label, c in workloads),
            key=lambda g: (g[0][1], g[1])):
        if calls is not None:
            part = c3(part, size, calls.get(label, {}))
        out.write("# %s: %d of its hot set's %d functions%s%s, %d of %d bytes, %.1f%% of its "
                  "kernel instructions; COUNT: its instructions\n" % (
                      label, len(part), len(hot), "" if select == "count" else
                      ", the most instructions a byte first", "" if calls is None else
                      ", in C3's order of its calls",
                      sum(size.get(f, 0) for f, _ in part),
                      hot_bytes, 100.0 * sum(n for _, n in part) / max(1, sum(
                          n for f, n in c.items() if f not in NOT_KERNEL))))
        for f, n in part:
            if f not in placed:
                placed.add(f)
                out.write("%d\t%s\n" % (n, f))
    if workloads:
        out.write("# the rest; COUNT: the instructions of all\n")
    for f, n in hottest(counts):
        if f not in placed:
            out.write("%d\t%s\n" % (n, f))


def create(path):
    """PATH opened for writing a profile; Error where its directory is missing."""
    if not path.parent.is_dir():
        raise Error("no directory for %s" % path)
    return open(path, "w")


def read(path):
    """[(count, function, object or None)] of a profile, in its order; Error
    naming the line of the first thing wrong."""
    out, seen = [], {}
    for i, line in enumerate(Path(path).read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        words = line.split("\t")
        if len(words) not in (2, 3) or not words[0].isdigit() or not NAME.match(words[1]) \
                or (len(words) == 3 and not OBJECT.match(words[2])):
            raise Error("%s:%d: not COUNT<TAB>FUNCTION[<TAB>OBJECT]: %r" % (path, i, line[:80]))
        key = tuple(words[1:])
        if key in seen:
            raise Error("%s:%d: %s again (line %d)" % (path, i, " ".join(key), seen[key]))
        seen[key] = i
        out.append((int(words[0]), words[1], words[2] if len(words) == 3 else None))
    if not out:
        raise Error("%s: no function in it" % path)
    return out


def sizes(system_map):
    """{function: bytes to the next symbol} of a System.map's text."""
    syms = symbols(system_map)
    return dict(zip(syms.names, (b - a for a, b in zip(syms.addrs, syms.addrs[1:]))))


def from_sim(system_map, profiles, phase=None):
    """{function: instructions} of the simulator's profile= files, of one
    phase (workload) or of all."""
    syms = symbols(system_map)
    counts = collections.Counter()
    for p in profiles:
        counts.update(profile_diff.by_function(syms, profile_diff.read_profile(p, phase)))
    return counts


def calls_from_sim(system_map, profiles, phase=None):
    """{(caller, callee): calls} of the simulator's entry lines (one phase, or
    all): an entry at a function's first byte from a TB in another function."""
    syms = symbols(system_map)
    start = dict(zip(syms.addrs, syms.names))
    calls = collections.Counter()
    for p in profiles:
        for src, dst, k in profile_diff.read_entries(p, phase):
            callee, caller = start.get(dst), syms.lookup(src)
            if callee and caller != callee and caller not in NOT_KERNEL:
                calls[caller, callee] += k
    return calls


def perf_samples(perf_script):
    """[(ip, symbol or None, dso or None)] of the samples in `perf script`
    output: the default format (a header, then `ip sym+off (dso)`), -F ip,
    -F ip,sym[,dso], and with call graphs (-g: a header line that ends in
    ':', then the frames, leaf first; only the leaf is the sample's).
    Error, naming the file and line, on what is not perf script output:
    perf.data itself, binary or empty input, a file cut off mid-line, a
    line with no instruction pointer where one belongs."""
    raw = Path(perf_script).read_bytes()
    if raw.startswith(b"PERFILE"):
        raise Error("%s is perf.data itself: give its samples as text, `perf script -F "
                    "ip,sym -i %s > FILE`" % (perf_script, perf_script))
    try:
        text = raw.decode()
    except UnicodeDecodeError:
        raise Error("%s: not text, so not the output of perf script" % perf_script)
    if not text.strip():
        raise Error("%s: empty, no samples: record with `perf record -e cycles:k -a` (or "
                    "cpu-clock:k where there is no PMU), then `perf script > FILE`" % perf_script)
    lines = text.split("\n")
    if lines[-1]:
        raise Error("%s:%d: the file ends in the middle of this line: truncated? (perf "
                    "script ends every line)" % (perf_script, len(lines)))
    out, frames = [], None  # frames: in a call graph, the frames after its header
    for i, line in enumerate(lines[:-1], 1):
        words = line.split()
        if not words:
            frames = None
            continue
        if words[-1].endswith(":"):  # a call graph's header: the leaf follows
            frames = 0
            continue
        dso = words.pop()[1:-1] if len(words) > 1 and re.fullmatch(r"\(.*\)", words[-1]) else None
        colon = max((k for k, w in enumerate(words) if w.endswith(":")), default=-1)
        ip, sym = (words[colon + 1:] + [None, None])[:2]
        if ip is None or not re.fullmatch(r"[0-9a-f]{1,16}", ip) or \
                len(words) > colon + 3 and int(ip, 16) >= profile_diff.USER_END:
            raise Error("%s:%d: not a perf script sample (no instruction pointer): %r"
                        % (perf_script, i, line[:80]))
        if frames is not None:
            frames += 1
            if frames > 1:  # a caller's frame, not the sample
                continue
        sym = None if sym in (None, "[unknown]") else re.sub(r"\+0x[0-9a-f]+$", "", sym)
        out.append((int(ip, 16), sym, dso))
    return out


def from_perf(perf_script, system_map=None):
    """({function: samples} of the kernel's text, and a line saying what was
    counted) from `perf script` output: a sample's function is the symbol
    perf printed, else the System.map's at its address (which must be the
    running kernel's, and KASLR off).  Samples in user space and in modules
    (which HOT_TEXT_ORDER does not place) are left out.  Error where no
    sample is the kernel's, or where a System.map is needed and most
    addresses lie outside its text (KASLR, or another kernel's map)."""
    samples = perf_samples(perf_script)
    syms = symbols(system_map) if system_map else None
    counts, user, modules, outside, unknown = collections.Counter(), 0, 0, 0, 0
    for ip, sym, dso in samples:
        if ip < profile_diff.USER_END:
            user += 1
        elif dso and MODULE_DSO.fullmatch(dso):
            modules += 1
        elif sym:
            counts[sym] += 1
        elif syms is None:
            unknown += 1
        elif not syms.addrs or not syms.addrs[0] <= ip < syms.addrs[-1] + TEXT_SLACK:
            outside += 1
        else:
            counts[syms.lookup(ip)] += 1
    kernel = sum(counts.values())
    if outside > kernel:
        raise Error("%s: %d of %d kernel samples lie outside %s's text: not the map of the "
                    "kernel that ran, or KASLR moved it (boot with nokaslr, or give perf "
                    "script's symbols: `-F ip,sym`)" % (
                        perf_script, outside, outside + kernel, system_map))
    if not kernel:
        raise Error("%s: %d samples, none in the kernel's text%s: record the kernel (`-e "
                    "cycles:k` or `cpu-clock:k`) and give perf script's symbols (`-F ip,sym`)"
                    " or the System.map of the kernel that ran" % (
                        perf_script, len(samples),
                        " (%d with no symbol, and no System.map given)" % unknown
                        if unknown else ""))
    return counts, "%d kernel samples of %s (left out: %d in user space, %d in modules, %d " \
        "with no symbol)" % (kernel, Path(perf_script).name, user, modules, unknown + outside)


def leave_out(workloads, names, counts):
    """({workload: counts} without names, and the counts of the rest): all
    of counts when no workload is left out, else the sum of those kept, so
    that the profile's tail knows nothing of a workload left out either.
    Error on a name that is no workload."""
    unknown = sorted(set(names) - set(workloads))
    if unknown:
        raise Error("--leave-out %s: not a workload of the set (%s)" % (
            ", ".join(unknown), ", ".join(sorted(workloads))))
    if not names:
        return dict(workloads), counts
    kept = {w: c for w, c in workloads.items() if w not in names}
    return kept, sum(kept.values(), collections.Counter())


def train(argv):
    """make hot-text-profile: one boot of the test image at -smp 1."""
    from bench.lib.probe import bench_caches, plugin_geometry
    from bench.lib.runner import Run, parser, run_args, table_path
    p = parser(__doc__, quick=False)
    p.add_argument("--room", metavar="BYTES", type=int,
                   help="a workload's part of the region (default half the L1I)")
    p.add_argument("--workloads", metavar="SET", default=WSET,
                   help="the facts.tsv workload set to train on (default %s); your own "
                   "program is a cmd line" % WSET)
    p.add_argument("--image", default="test", help="the facts.tsv image to boot (default "
                   "test, which carries the bench's fragments)")
    p.add_argument("--leave-out", metavar="WORKLOAD", action="append", default=[],
                   help="train without this workload (ring, web, hackbench, forkloop or a "
                   "cmd line's name), for scoring the profile on it; repeatable")
    p.add_argument("--select", choices=SELECTS, default=SELECT_DEFAULT,
                   help="a workload's part of the region: its hottest functions by count, "
                   "or by density, the most instructions a byte first (default %s)"
                   % SELECT_DEFAULT)
    p.add_argument("--order", choices=ORDERS, default=ORDERS[0],
                   help="a workload's part in the order of its selection, or in C3's order "
                   "of its calls (call-chain clustering; default selection)")
    p.add_argument("--out", type=Path, default=DEFAULT,
                   help="where the profile goes (default %s)" % DEFAULT.relative_to(HERE.parent))
    opts = p.parse_args(argv)
    caches = bench_caches()
    wset = opts.workloads
    run = Run("hot-text-profile", wset, opts.work or HERE.parent / "build/bench/hot-text-profile",
              1800, plugin_geometry(caches), tables=("profile",), **run_args(opts))
    room = str(opts.room if opts.room is not None else caches["L1I"][0] // ROOM_SHARE)
    if not room.isdigit():
        raise Error("--room %s: not a number of bytes" % room)
    run.image("k", opts.image)
    run.boot("train", [("train", "k", "bench_layout=1")])
    if not run.check_boots(["train"]):
        return run.finish(None, run.work)
    system_map, prof = run.system_map("k"), [table_path(run.work, "train", "profile")]
    workloads = collections.defaultdict(collections.Counter)  # a program's phases
    calls = collections.defaultdict(collections.Counter)
    for phase, command in enumerate(run.want):
        words = command.split()  # a program's phases, a cmd line by its name
        name = words[1] if words[0] == "cmd" else words[0]
        workloads[name].update(from_sim(system_map, prof, phase))
        if opts.order == "c3":
            calls[name].update(calls_from_sim(system_map, prof, phase))
    if opts.order == "c3" and not any(calls.values()):
        raise Error("--order c3: %s has no entry lines (a boot before the simulator recorded "
                    "calls): run without --report-only" % prof[0])
    workloads, counts = leave_out(workloads, opts.leave_out, from_sim(system_map, prof))
    # The lines as facts.tsv has them: a live run resolves a cmd line's program
    # to its path here, a replay does not, and the profile must not differ.
    source = "kcolour-cachesim instructions at -smp 1, workloads %s (facts.tsv %s)%s, the " \
        "%s image (%s); a workload's part %s bytes at most%s" % (
            "; ".join(facts.workloads(wset)), wset, ", left out: " + ", ".join(opts.leave_out)
            if opts.leave_out else "", opts.image, run.meta.get("fragments_k", ""), room,
            ", chosen by density" if opts.select == "density" else "") + (
            ", in C3's order" if opts.order == "c3" else "")
    with create(opts.out) as out:
        write(out, counts, source, sorted(workloads.items()),
              sizes(system_map), int(room), opts.select, calls if opts.order == "c3" else None)
    rows = read(opts.out)
    run.tap(len(rows) > 100, "%s: %d functions, the hottest %s (%d instructions)" % (
        opts.out.name, len(rows), rows[0][1], rows[0][0]))
    return run.finish(None, run.work)


def perf(argv):
    """make hot-text-profile FROM=FILE: a profile from a real machine's
    `perf script` output."""
    import argparse
    p = argparse.ArgumentParser(prog="python3 -m falign.hot_text perf", description=perf.__doc__)
    p.add_argument("perf_script", type=Path, help="perf script's output (FROM=)")
    p.add_argument("--system-map", type=Path, help="the System.map of the kernel that ran: "
                   "names samples perf printed no symbol for (KASLR off), and gives the "
                   "functions' sizes, for the region's part (SYSTEM_MAP=)")
    p.add_argument("--room", metavar="BYTES", type=int, default=ROOM_DEFAULT,
                   help="the part of the region the hottest functions take, with a System.map "
                   "(default %d, half a 32 KiB L1I)" % ROOM_DEFAULT)
    p.add_argument("--select", choices=SELECTS, default=SELECT_DEFAULT,
                   help="how that part is chosen, as for the simulator's (default %s)"
                   % SELECT_DEFAULT)
    p.add_argument("--out", type=Path, default=DEFAULT,
                   help="where the profile goes (default %s)" % DEFAULT.relative_to(HERE.parent))
    opts = p.parse_args(argv)
    counts, source = from_perf(opts.perf_script, opts.system_map)
    with create(opts.out) as out:
        if opts.system_map:
            write(out, counts, "perf script, " + source, [("perf", counts)],
                  sizes(opts.system_map), opts.room, opts.select)
        else:
            write(out, counts, "perf script, %s; hottest first (no System.map, so no sizes "
                  "for a part chosen by %s)" % (source, opts.select), [])
    print("%s: %d functions, %s" % (opts.out, len(read(opts.out)), source))
    return 0


def text_sections(archives):
    """{(function, object): bytes} of the .text.NAME sections of a kernel
    build's archives (vmlinux.a first, then the lib.a files), as
    scripts/generate_hot_text_lds.sh reads them (readelf -SW;
    .text.unlikely.* and names that are no function left out)."""
    # From the object dir, as the build runs it: members are named as there.
    top = Path(archives[0]).resolve().parent
    r = subprocess.run(["readelf", "-SW"] + [os.path.relpath(Path(a).resolve(), top)
                                             for a in archives],
                       cwd=top, capture_output=True, text=True)
    if r.returncode or "File: " not in r.stdout:
        raise Error("%s: readelf -SW failed: %s" % (" ".join(map(str, archives)),
                                                     (r.stderr.strip() or "no member")[:200]))
    out, member = {}, None
    for line in r.stdout.splitlines():
        if line.startswith("File: "):
            # A thin archive's member is ARCHIVE[PATH], named as ld names it:
            # the archive's directory, then PATH; a regular one's ARCHIVE(NAME).
            archive, sep, member = line[6:].partition("[")
            if not sep:
                archive, _, member = line[6:].partition("(")
            member = member.rstrip("])")
            if sep and "/" in archive:
                member = archive.rsplit("/", 1)[0] + "/" + member
            continue
        m = re.match(r"\s*\[\s*\d+\] \.text\.(\S+)\s+PROGBITS\s+\S+\s+\S+\s+([0-9a-f]+)", line)
        if m and member and not m.group(1).startswith("unlikely.") and NAME.match(m.group(1)):
            out.setdefault((m.group(1), member), int(m.group(2), 16))
    if not out:
        raise Error("%s: no .text.NAME section: not built with -ffunction-sections "
                    "(HOT_TEXT_ORDER)?" % " ".join(map(str, archives)))
    return out


def placed_bytes(profile_rows, sections):
    """The bytes of the sections a profile names, as the build places them
    (a name without OBJECT: every object's function of that name)."""
    return sum(n for (name, obj), n in sections.items()
               for _, f, o in profile_rows if f == name and (o is None or o == obj))


def sham(argv):
    """A sham profile: random functions, as many bytes as a real one's."""
    import argparse
    p = argparse.ArgumentParser(prog="python3 -m falign.hot_text sham", description=sham.__doc__)
    p.add_argument("--like", type=Path, required=True, help="the profile to match in bytes")
    p.add_argument("--objects", type=Path, nargs="+", required=True,
                   help="vmlinux.a and the lib.a files of a build with HOT_TEXT_ORDER (its "
                   "object dir), as the build's linker script reads them")
    p.add_argument("--seed", type=int, required=True, help="the draw's seed")
    p.add_argument("--out", type=Path, required=True, help="where the sham goes")
    opts = p.parse_args(argv)
    like, sections = read(opts.like), text_sections(opts.objects)
    want = placed_bytes(like, sections)
    # Drawn from every function the build can place, the profile's too: a
    # random choice knows nothing of what is hot, so it takes hot functions
    # at their share of the text.
    pool = sorted(sections)
    random.Random(opts.seed).shuffle(pool)
    drawn, got = [], 0
    for key in pool:
        if got >= want:
            break
        drawn.append(key)
        got += sections[key]
    if got < want:
        raise Error("%s: %d bytes of functions in all, fewer than the %d of %s"
                    % (" ".join(map(str, opts.objects)), got, want, opts.like))
    with create(opts.out) as out:
        names = {f for _, f, _ in like}
        out.write("# kcolour hot-text sham: COUNT<TAB>FUNCTION<TAB>OBJECT, COUNT 1 (no "
                  "measurement)\n# %d functions drawn at random (seed %d) from the %d "
                  ".text.NAME sections of %s, %d of them named by %s too: %d bytes, against "
                  "the %d of its functions that have a section of their own\n" % (
                      len(drawn), opts.seed, len(pool), " ".join(o.name for o in opts.objects),
                      sum(f in names for f, _ in drawn), opts.like.name, got, want))
        out.writelines("1\t%s\t%s\n" % key for key in drawn)
    print("%s: %d functions, %d bytes (%s: %d)" % (opts.out, len(drawn), got, opts.like, want))
    return 0


def main(argv):
    try:
        if argv[:1] == ["perf"]:
            return perf(argv[1:])
        elif argv[:1] == ["sham"]:
            return sham(argv[1:])
        elif argv[:1] == ["check"] and len(argv) == 2:
            rows = read(argv[1])
            print("%s: %d functions, hottest %s" % (argv[1], len(rows), rows[0][1]))
        elif not argv or argv[0].startswith("-"):
            return train(argv)
        else:
            print(__doc__.strip(), file=sys.stderr)
            return 2
    except (Error, OSError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
