"""python3 -m harness SUBCOMMAND: the entry points the Makefile calls, each
with its own flags (`python3 -m harness SUBCOMMAND --help`), in the shape
of tools/testing/kunit/kunit.py."""

import argparse
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import bisect_check, deb, kernel, qemu, series, tap, util


def image_check(name, rebuild=True):
    t = tap.Tap()
    try:
        img = kernel.image(name)
        t(True, "the %s image builds (%s)" % (name, img.how))
        if not rebuild:
            return t.plan()
        again = kernel.image(name, rebuild=True)
        if "unexported work" in again.how:
            # kernel.image() caches nothing from such a tree: nothing to compare with
            t.skip("rebuilt in a fresh object dir: the same bzImage, byte for byte",
                   "build/linux holds unexported work, so no cached image to compare (%s)"
                   % again.how)
        else:
            t("identical to the cache" in again.how,
              "rebuilt in a fresh object dir: the same bzImage, byte for byte (%s)" % again.how)
    except util.Error as e:
        t(False, "the %s image builds, and again to the same bzImage: %s" % (name, e))
    return t.plan()


def check(a):
    from . import check as runner, suites
    if a.logdir:
        runner.LOGDIR = a.logdir.resolve()
    return suites.main(a.full, a.fuzz_seconds, a.jobs)


def fragments(a):
    return a.fragments.split()


Flag = Tuple[List[str], Dict[str, Any]]
Command = Tuple[str, Callable[[argparse.Namespace], Optional[int]], List[Flag]]
# NAME: (help, run(args) -> exit status or None, [(flag args, flag kwargs)]).
NAME: Flag = (["name"], {"nargs": "?", "help": "an image of facts.tsv (default: test), or the "
                                               "object dir's name with --fragments"})
FRAGMENTS: Flag = (["--fragments"], {"default": "", "help": 'a fragment list, "a b" '
                                                           '(Kconfig-fragments/NAME.config)'})
COMMANDS: Dict[str, Command] = {
    "image": ("build an image, or take it from the cache; prints the bzImage path",
              lambda a: print(kernel.image(a.name, fragments(a), a.base, a.rebuild)),
              [NAME, FRAGMENTS,
               (["--base"], {"action": "store_true", "help": "the base tree, without the series"}),
               (["--rebuild"], {"action": "store_true",
                                "help": "build on a hit too; fail unless the bzImage is "
                                        "byte-identical to the cached one"})]),
    "image-check": ("TAP: the image builds, and again in a fresh object dir to the same bytes",
                    lambda a: image_check(a.name, not a.no_rebuild),
                    [(["name"], {}),
                     (["--no-rebuild"], {"action": "store_true",
                                         "help": "only build it (or take it from the cache)"})]),
    "tree": ("base + every series as commits in build/linux",
             lambda a: series.lay_tree(a.force),
             [(["--force"], {"action": "store_true", "help": "discard unsaved work"})]),
    "export": ("build/linux's commits -> kernel-patches/", lambda a: series.export(), []),
    "menuconfig": ("menuconfig in an image's object dir",
                   lambda a: kernel.menuconfig(a.name, fragments(a)), [NAME, FRAGMENTS]),
    "bisect-check": ("build every commit of the series on its own",
                     lambda a: bisect_check.main(), []),
    "deb": ("Debian packages of base + every series (bindeb-pkg), from a distribution's config",
            lambda a: deb.main(a.config, a.localmodconfig, a.configure_only,
                               localversion=a.localversion, extra=(a.fragments or "").split(),
                               hot_text_profile=a.hot_text_profile),
            [(["--config"], {"metavar": "FILE", "help": "a kernel .config, .xz too (default: "
                                                       "/boot/config-$(uname -r))"}),
             (["--localversion"], {"default": deb.LOCALVERSION,
                                   "help": "the packages' LOCALVERSION (default %s): "
                                   "distinct ones install side by side" % deb.LOCALVERSION}),
             (["--hot-text-profile"], {"metavar": "FILE",
                                       "help": "make HOT_TEXT_PROFILE=FILE, for a config "
                                       "with HOT_TEXT_ORDER"}),
             (["--fragments"], {"metavar": '"NAME ..."',
                                "help": "more Kconfig-fragments merged in (falign-64b: a "
                                "layout make hw-check compares)"}),
             (["--localmodconfig"], {"action": "store_true",
                                     "help": "only the modules loaded here (lsmod)"}),
             (["--configure-only"], {"action": "store_true",
                                     "help": "configure build/obj/deb, build nothing"})]),
    "initramfs": ("a busybox initramfs with these files",
                  lambda a: print(qemu.initramfs(a.out, [f.split(":", 1) for f in a.files])),
                  [(["out"], {}), (["files"], {"nargs": "*", "metavar": "SRC:DEST"})]),
    "check": ("make check: every suite, then 'N passed, N failed, N skipped'", check,
              [(["--full"], {"action": "store_true", "help": "make check-full's heavy variants"}),
               (["--fuzz-seconds"], {"type": int, "metavar": "N",
                                     "help": "the fuzz suite's seconds (default 60, --full 600)"}),
               (["--jobs"], {"type": int, "metavar": "N",
                             "help": "the selftests' and smoke runs' boots at a time (default 2)"}),
               (["--logdir"], {"type": Path, "metavar": "DIR",
                               "help": "each suite's TAP and stderr (default build/test-logs)"})]),
}


def parser():
    ap = argparse.ArgumentParser(prog="python3 -m harness", description=" ".join(__doc__.split()))
    sub = ap.add_subparsers(dest="command", required=True, metavar="SUBCOMMAND")
    for name, (what, run, flags) in COMMANDS.items():
        p = sub.add_parser(name, help=what, description=what)
        for args, kwargs in flags:
            p.add_argument(*args, **kwargs)
        p.set_defaults(run=run)
    return ap


def main(argv):
    a = parser().parse_args(argv)
    try:
        return a.run(a) or 0
    except util.Error as e:
        print("error: %s" % e, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
