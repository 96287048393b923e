"""python3 -m harness COMMAND: the entry points the Makefile calls.

    image [NAME] [--fragments "a b"] [--base] [--rebuild]
                        build (or take from the cache) an image of facts.tsv
                        (default: test) or of a fragment list; prints the
                        bzImage path on stdout, progress on stderr.
                        --rebuild builds on a hit too and fails unless the
                        bzImage is byte-identical to the cached one
    tree [--force]      base + series as commits in build/linux
    export              build/linux's commits -> kernel-patches/
    menuconfig [NAME]   menuconfig in that image's object dir
    bisect-check        build every commit of the series on its own
    image-check NAME    TAP: the image builds (or is cached), and a rebuild in a
                        fresh object dir gives the same bzImage, byte for byte
    initramfs OUT [SRC:DEST...]
                        a busybox initramfs with those files (make initramfs)
    check [--full]      make check (make check-full): every suite
"""

import argparse
import sys

from . import kernel, qemu, tap


def image_check(name):
    t = tap.Tap()
    try:
        img = kernel.image(name)
        t(True, "the %s image builds (%s)" % (name, img.how))
        again = kernel.image(name, rebuild=True)
        t(True, "rebuilt in a fresh object dir: the same bzImage, byte for byte (%s)" % again.how)
    except kernel.Error as e:
        t(False, "the %s image builds, and again to the same bzImage: %s" % (name, e))
    return t.plan()


def main(argv):
    ap = argparse.ArgumentParser(prog="python3 -m harness", usage=__doc__)
    ap.add_argument("command", choices=["image", "image-check", "initramfs", "tree", "export",
                                        "menuconfig", "bisect-check", "check"])
    ap.add_argument("name", nargs="?")
    ap.add_argument("files", nargs="*")
    ap.add_argument("--fragments", default="")
    ap.add_argument("--base", action="store_true")
    ap.add_argument("--rebuild", action="store_true")
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--full", action="store_true")
    a = ap.parse_args(argv)
    try:
        if a.command == "image":
            print(kernel.image(a.name, a.fragments.split(), a.base, a.rebuild))
        elif a.command == "image-check":
            return image_check(a.name)
        elif a.command == "initramfs":
            print(qemu.initramfs(a.name, [f.split(":", 1) for f in a.files]))
        elif a.command == "tree":
            kernel.lay_tree(a.force)
        elif a.command == "export":
            kernel.export()
        elif a.command == "menuconfig":
            kernel.menuconfig(a.name, a.fragments.split())
        elif a.command == "bisect-check":
            return kernel.bisect_check()
        elif a.command == "check":
            from . import suites
            return suites.main(a.full)
    except kernel.Error as e:
        print("error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
