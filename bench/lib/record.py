"""A run's record: what a results page is computed from, committed under
docs/results/data/NAME/ (Run.keep() decides the files), so that
--report-only writes the page again from it (work_dir()) and python3 -m
bench reports holds the page to it.  write() puts a record in place whole
or leaves the one there was; argv says what writes the page, and pages
(Run.finish) the files the page is."""

import argparse
import shlex
import shutil
import sys
from pathlib import Path
from typing import Sequence

from harness import facts, util

ROOT = facts.ROOT
# The committed records of the runs the results pages come from.
RECORDS = ROOT / "docs/results/data"
# python3 -m bench run's NAME and the experiment's arguments (bench/__main__.py
# sets it): a record keeps them, for python3 -m bench reports.
ARGV: list[str] = []


def own_argv(argv: Sequence[str], flags: argparse.ArgumentParser) -> list[str]:
    """NAME (or MODULE) and the experiment's own flags of its arguments: the
    flags of flags (the run's: --jobs, --work...) left out."""
    return list(argv[:1]) + flags.parse_known_args(list(argv[1:]))[1]


def record_argv(flags: argparse.ArgumentParser) -> list[str]:
    """What writes this run's page, as python3 -m's arguments without the
    run's own flags: bench run NAME ... (ARGV), or the module run as
    __main__ and its arguments."""
    if ARGV:
        return ["bench", "run"] + own_argv(ARGV, flags)
    module = main_module()
    if module is None:
        raise util.Error("a record is written by python3 -m MODULE, not by a script")
    return own_argv([module] + sys.argv[1:], flags)


def main_module() -> str | None:
    """The module python3 -m runs as __main__; None for a script."""
    spec = getattr(sys.modules["__main__"], "__spec__", None)
    return spec.name if spec else None


def command_line() -> str:
    """This run's command line, for people: python3 -m bench run NAME ...
    (ARGV), or the module (or the script) run as __main__, with its
    arguments."""
    if ARGV:
        argv = ["-m", "bench", "run"] + ARGV
    else:
        module = main_module()
        argv = (["-m", module] if module else [sys.argv[0]]) + sys.argv[1:]
    return shlex.join(["python3"] + argv)


def replay_options() -> argparse.ArgumentParser:
    """The flags of every tool that writes a page with a record, an argparse
    parent parser: --report-only, --work and --out (python3 -m bench reports
    passes all three)."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--report-only", action="store_true",
                   help="boot nothing: read the work dir (a full run's: its committed "
                   "record), write the checks and the report again")
    # Absolute: the tools make -C other dirs with OUT= inside it.
    p.add_argument("--work", metavar="DIR", type=lambda d: Path(d).resolve(),
                   help="the work dir (default: the tool's, build/bench/NAME for bench "
                   "run's; with --report-only, the committed record)")
    p.add_argument("--out", metavar="DIR", type=lambda d: Path(d).resolve(),
                   help="write the page there, not into docs/results (or the work dir)")
    return p


def read_meta(path: Path, keys: Sequence[str] = ()) -> dict[str, str]:
    """A run's meta file (KEY=VALUE lines) with at least keys; util.Error
    names the file and the line or the key that is wrong."""
    meta = {}
    try:
        lines = path.read_text().splitlines()
    except OSError as e:
        raise util.Error("%s: %s" % (path, e.strerror))
    for n, line in enumerate(lines, 1):
        key, eq, value = line.partition("=")
        if not eq or not key:
            raise util.Error("%s line %d: not KEY=VALUE: %r" % (path, n, line))
        meta[key] = value
    missing = [k for k in keys if k not in meta]
    if missing:
        raise util.Error("%s: no %s" % (path, ", ".join(missing)))
    return meta


def where(work: Path) -> str:
    """Where a page says its run's files are: a record relative to
    docs/results (data/NAME/), else the dir relative to the top."""
    work = work.resolve()
    if work.parent == RECORDS.resolve():
        return "data/%s/" % work.name
    return str(work).replace(str(ROOT) + "/", "") + "/"


def work_dir(opts: argparse.Namespace, name: str) -> Path:
    """An experiment's work dir: --work; else, for a full run's --report-only,
    its committed record where there is one (RECORDS/NAME, with the argv
    write() keeps); else build/bench/NAME."""
    if opts.work:
        return Path(opts.work)
    if opts.report_only and not getattr(opts, "quick", False) and \
            (RECORDS / name / "argv").exists():
        return RECORDS / name
    return ROOT / "build/bench" / name


def write(record: Path, work: Path, files: Sequence[str], argv: Sequence[str]) -> None:
    """work's files and argv (one argument a line) into record, written
    beside (NAME.new) and swapped in (the old one NAME.old, then removed):
    a file missing leaves the record there was."""
    new = record.with_name(record.name + ".new")
    shutil.rmtree(new, ignore_errors=True)
    new.mkdir(parents=True)
    try:
        for f in files:
            shutil.copyfile(work / f, new / f)
        (new / "argv").write_text("".join(a + "\n" for a in argv))
    except OSError:
        shutil.rmtree(new)
        raise
    old = record.with_name(record.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if record.exists():
        record.rename(old)
    new.rename(record)
    shutil.rmtree(old, ignore_errors=True)


def keep_page(name: str, work: Path, files: Sequence[str], argv: Sequence[str]) -> Path:
    """The record of a writer of one page, docs/results/NAME.md, that boots
    nothing under bench run: work's files, pages and argv into RECORDS/NAME
    (write()); that record's path, for the page to be written from."""
    (work / "pages").write_text(name + ".md\n")
    write(RECORDS / name, work, list(files) + ["pages"], argv)
    return RECORDS / name
