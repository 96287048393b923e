"""make check's deb-config: make deb's configuration step on Debian's own
6.12 config (linux-config-6.12), and its errors; and the one answer every
text gives a distribution (colouring built in, off at boot; task_struct
colouring off at boot).  The packages themselves
(hours from a distribution config on 2 cores) are built in make check-full,
from the test image's small config (deb-build).  TAP.

    python3 -m scripts.check_deb [build]  (from the top of the tree, not by its path)
"""
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from harness import deb, facts, kernel, tap, util

DEBIAN = Path("/usr/src/linux-config-6.12/config.amd64_none_amd64.xz")
TOP = facts.ROOT
OFF_AT_BOOT = "# CONFIG_KSTACK_COLOUR_DEFAULT_ON is not set"


def added_lines(pattern):
    """The lines the colouring series' patches add (without the "+")."""
    return [l[1:] for p in sorted(TOP.glob(pattern))
            for l in p.read_text().splitlines() if l.startswith("+") and not l.startswith("+++")]


def kconfig_default(lines, sym):
    """The default lines of "config SYM" among the added Kconfig lines."""
    out, inside = [], False
    for l in lines:
        if re.match(r"^(menu)?config \w+$", l):
            inside = l.split()[1] == sym
        elif inside and re.match(r"^\s+default\b", l):
            out.append(l.strip())
    return out


def one_answer(t):
    """DEFAULT_ON and TASK_STRUCT_COLOUR_DEFAULT_ON: off, wherever a
    distribution reads the answer.  Each text is checked on its own line."""
    frags = [l for f in deb.FRAGMENTS
             for l in (TOP / ("Kconfig-fragments/%s.config" % f)).read_text().splitlines()]
    t(OFF_AT_BOOT in frags and not any(re.match(r"CONFIG_\w*DEFAULT_ON=y", l) for l in frags),
      "make deb's fragments (%s): colouring built in, off at boot" % " ".join(deb.FRAGMENTS))
    probe, dump = TOP / "tools-probe/kcolour-probe", facts.path("bench-dump")
    r = subprocess.run([str(probe), "--kconfig", "--cpuid-file", str(dump)],
                       capture_output=True, text=True)
    lines = r.stdout.splitlines()
    t(r.returncode == 0 and OFF_AT_BOOT in lines and
      not any(l.startswith("CONFIG_KSTACK_COLOUR_DEFAULT_ON") for l in lines),
      "kcolour-probe --kconfig on the bench CPU: off at boot, as make deb's fragment",
      diag=r.stdout.splitlines() + r.stderr.splitlines())
    man = (TOP / "tools-probe/kcolour-probe.1").read_text()
    t("built in but off at boot" in man and "on at boot" not in man.replace("off at boot", ""),
      "kcolour-probe(1): --kconfig's fragment is off at boot")
    kconfig = added_lines("kernel-patches/0*.patch")
    for sym in ("KSTACK_COLOUR_DEFAULT_ON", "TASK_STRUCT_COLOUR_DEFAULT_ON"):
        t(any(l == "config " + sym for l in kconfig) and
          not any(d.startswith("default y") for d in kconfig_default(kconfig, sym)),
          "the series' Kconfig: %s defaults to n" % sym, diag=kconfig_default(kconfig, sym))
    rst = " ".join(" ".join(added_lines("kernel-patches/0*-Documentation-*.patch")).split())
    t("on by default when built" not in rst and
      "``CONFIG_TASK_STRUCT_COLOUR_DEFAULT_ON`` (off by default)" in rst,
      "Documentation/arch/x86/kstack-colour.rst: task_struct colouring off by default")
    readme = " ".join((TOP / "README.md").read_text().split())
    t("`CONFIG_KSTACK_COLOUR_DEFAULT_ON=n`" in readme and "DEFAULT_ON=y" not in readme,
      "README.md: a distribution carries CONFIG_KSTACK_COLOUR_DEFAULT_ON=n")


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
    one_answer(t)
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
        want = ["CONFIG_KSTACK_COLOUR=y", OFF_AT_BOOT,
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
