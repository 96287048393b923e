#!/usr/bin/env python3
"""make check's deb-config: make deb's configuration step on Debian's own
6.12 config (linux-config-6.12), and its errors.  The packages themselves
(hours from a distribution config on 2 cores) are built in make check-full,
from the test image's small config (deb-build).  TAP.

    python3 scripts/check_deb.py [build]
"""
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from harness import deb, kernel, tap, util  # noqa: E402

DEBIAN = Path("/usr/src/linux-config-6.12/config.amd64_none_amd64.xz")


def errors(t):
    with tempfile.TemporaryDirectory() as tmp:
        bad = Path(tmp) / "notes.txt"
        bad.write_text("CONFIG_FOO=y\nnot a kernel config\n")
        xz = Path(tmp) / "broken.xz"
        xz.write_text("not xz")
        cases = [("a file that is not a .config", {"config": bad},
                  "is not an x86_64 kernel .config"),
                 ("a missing file", {"config": Path(tmp) / "nope"}, "cannot read the config"),
                 ("a .xz that is not xz", {"config": xz}, "not an xz file")]
        real = deb.running_config
        deb.running_config = lambda: Path(tmp) / "config-none"
        cases.append(("no config given and no /boot/config-$(uname -r)", {},
                      "give one, make deb CONFIG=FILE"))
        try:
            for what, kw, want in cases:
                try:
                    deb.main(configure_only=True, obj=Path(tmp) / "obj", **kw)
                    t(False, "%s: refused" % what)
                except util.Error as e:
                    t(want in str(e), "%s: a clear error before any work: %s" % (what, e))
        finally:
            deb.running_config = real


def main(args):
    t = tap.Tap()
    errors(t)
    if "build" in args:
        try:
            config = kernel.image("test").path / "config"
            deb.main(str(config))
            debs = sorted(p.name for p in deb.OUT.glob("linux-image-*%s*.deb" % deb.LOCALVERSION))
            t(bool(debs), "bindeb-pkg from the test image's config: %s" % (debs or "no package"))
        except util.Error as e:
            t(False, "bindeb-pkg from the test image's config: %s" % e)
        return t.plan()
    if not DEBIAN.exists():
        t(False, "Debian's config %s (make deps installs linux-config-6.12)" % DEBIAN)
        return t.plan()
    try:
        deb.main(str(DEBIAN), configure_only=True)
        config = (deb.OBJ / ".config").read_text()
        want = ["CONFIG_KSTACK_COLOUR=y", "CONFIG_KSTACK_COLOUR_DEFAULT_ON=y",
                "CONFIG_TASK_STRUCT_COLOUR=y", 'CONFIG_SYSTEM_TRUSTED_KEYS=""',
                "CONFIG_MODULES=y", "CONFIG_RANDOMIZE_KSTACK_OFFSET=y"]
        missing = [w for w in want if w + "\n" not in config]
        t(not missing, "Debian's amd64 config + the series' fragments configure "
          "(olddefconfig, every fragment line kept; still a distribution's: modules, "
          "randomize_kstack_offset; its signing keys emptied)", diag=missing)
    except util.Error as e:
        t(False, "Debian's amd64 config + the series' fragments configure: %s" % e)
    return t.plan()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
