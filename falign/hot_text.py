#!/usr/bin/env python3
"""Hot-text profiles: the kernel functions a workload runs, in the order the
build places them, in one file format that a person can read and edit,
whatever measured them.

    make hot-text-profile
        the bench image under the cache simulator (profile=) on the training
        workloads, the ring and the fork loop (facts.tsv hot-text-train):
        instructions per function -> build/linux/arch/x86/hot-text.profile,
        the kernel's default HOT_TEXT_PROFILE (commit it there, make export).
        First, workload by workload (the smallest hot set first), its
        hottest functions, as many as fit in half the L1I: they lie in one
        piece, no function of another workload shares their sets, and
        half the ways are left to the code outside; the other functions
        follow, hottest first
    python3 falign/hot_text.py perf SYSTEM_MAP PERF_SCRIPT [SOURCE]
        the same from real hardware: the output of `perf script -F ip` of a
        `perf record -e cycles:k` (an instruction pointer a line), with the
        System.map of the kernel that ran, to stdout
    python3 falign/hot_text.py check PROFILE
        read it as the build would, and say what is wrong with it

The format, the kernel's (HOT_TEXT_PROFILE, scripts/generate_hot_text_lds.sh;
the falign series ships arch/x86/hot-text.profile):

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
--select density fills a workload's part with the most instructions a byte
first, where the default takes the hottest functions by count; --order c3
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
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent / "bench"), str(HERE.parent / "bench/cachesim")]
import profile_diff  # noqa: E402
from harness import facts, series, util  # noqa: E402

DEFAULT = HERE.parent / "build/linux/arch/x86/hot-text.profile"
WSET = "hot-text-train"
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
ORDERS = ("selection", "c3")
# C3's cluster limit: a page, as HFSort's.
C3_LIMIT = 4096


class Error(util.Error):
    """A profile or its inputs are wrong: the message says which file and line."""


def series_profile():
    """The series' own profile (DEFAULT), laying the tree if it is missing: a
    cached image needs no tree, but what its text was ordered by lives there."""
    series.Tree().ensure()
    return DEFAULT


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


def from_perf(system_map, perf_script):
    """{function: samples} of `perf script -F ip` output (a hex address a
    line); Error on a line that is not one."""
    syms = symbols(system_map)
    counts = collections.Counter()
    for i, line in enumerate(Path(perf_script).read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            counts[syms.lookup(int(line.split()[0], 16))] += 1
        except ValueError:
            raise Error("%s:%d: not an instruction pointer (perf script -F ip): %r"
                        % (perf_script, i, line[:80]))
    return counts


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
    """make hot-text-profile: one boot of the bench image at -smp 1."""
    from benchdata import Run, bench_caches, parser, plugin_geometry, run_args, table_path
    p = parser(__doc__, quick=False)
    p.add_argument("--room", metavar="BYTES", type=int,
                   help="a workload's part of the region (default half the L1I)")
    p.add_argument("--workloads", metavar="SET", default=WSET,
                   help="the facts.tsv workload set to train on (default %s); your own "
                   "program is a cmd line" % WSET)
    p.add_argument("--image", default="bench", help="the facts.tsv image to boot (default "
                   "bench; the test image has the same colouring and the bench's fragments)")
    p.add_argument("--leave-out", metavar="WORKLOAD", action="append", default=[],
                   help="train without this workload (ring, web, hackbench, forkloop or a "
                   "cmd line's name), for scoring the profile on it; repeatable")
    p.add_argument("--select", choices=SELECTS, default=SELECTS[0],
                   help="a workload's part of the region: its hottest functions by count, "
                   "or by density, the most instructions a byte first (default count)")
    p.add_argument("--order", choices=ORDERS, default=ORDERS[0],
                   help="a workload's part in the order of its selection, or in C3's order "
                   "of its calls (call-chain clustering; default selection)")
    p.add_argument("--out", type=Path, default=DEFAULT,
                   help="where the profile goes (default the tree's %s)" % DEFAULT.name)
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
    if not opts.out.parent.is_dir():
        raise Error("no directory for %s%s" % (
            opts.out, " (make tree first)" if opts.out == DEFAULT else ""))
    with open(opts.out, "w") as out:
        write(out, counts, source, sorted(workloads.items()),
              sizes(system_map), int(room), opts.select, calls if opts.order == "c3" else None)
    rows = read(opts.out)
    run.tap(len(rows) > 100, "%s: %d functions, the hottest %s (%d instructions)" % (
        opts.out.name, len(rows), rows[0][1], rows[0][0]))
    return run.finish(None, run.work)


def main(argv):
    try:
        if argv[:1] == ["perf"] and len(argv) in (3, 4):
            write(sys.stdout, from_perf(argv[1], argv[2]),
                  argv[3] if len(argv) == 4 else "perf samples, %s" % argv[2])
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
