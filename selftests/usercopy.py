"""make check's usercopy: hardened usercopy keeps the task_struct whitelist
exact under task_struct colouring, tested the way LKDTM tests whitelists.

The test image and its KASAN + lockdep twin (both CONFIG_HARDENED_USERCOPY
and CONFIG_LKDTM), booted with kstack_colour=task on Skylake-Client: the
guest forks shells (and a sleeper a round, which keeps its task_struct)
until one's task_struct is in a slab of a colour other
than 0 (x86/kstack_colour/task_structs), and that shell writes
USERCOPY_TASK_STRUCT_TO to LKDTM's DIRECT trigger.  LKDTM then prints
kmem_dump_obj() of the task_struct, copies the whitelist (the FPU
registers) to user memory, which must pass, and then the whitelist and
one byte past it, which hardened usercopy must stop with its report (a
BUG that kills that shell, as LKDTM expects).  Nothing else may splat,
and the guest goes on to power off.
TAP; progress on stderr.  Arguments: the images (facts.tsv), by default
test and debug.

usage: python3 -m selftests.usercopy [IMAGE...]  (from the top of the tree, not by its path)
"""
import functools
import re
import sys

from harness import kernel, qemu, tap, util

OUT = util.BUILD / "usercopy"
DEBUGFS = "/sys/kernel/debug"
PROVOKE = """#!/bin/sh
# Provokes LKDTM from this shell if its task_struct's slab is coloured.
c=$(awk -v p=$$ '$1 == p { print $2 }' %s/x86/kstack_colour/task_structs)
[ "${c:-0}" -gt 0 ] || exit 1
echo "USERCOPY-TASK pid $$ colour $c"
touch /tmp/provoked
echo USERCOPY_TASK_STRUCT_TO >%s/provoke-crash/DIRECT
echo USERCOPY-SURVIVED
""" % (DEBUGFS, DEBUGFS)
# A shell that exits frees its task_struct for the next to reuse, so the
# same slab would come back every time: a sleeper holds one a round, until a
# shell's comes from a slab of another colour (10 objects a slab).
RUN = """i=0
while [ $i -lt 200 ] && [ ! -e /tmp/provoked ]; do
	sh /provoke.sh
	sleep 600 &
	i=$((i + 1))
done
echo "USERCOPY-SHELLS $i"
# LKDTM's and kmem_dump_obj()'s lines are KERN_INFO, below the console level.
dmesg | grep -E 'lkdtm|usercopy' | sed 's/^/DMESG /'
"""
IMAGES = ("test", "debug")
# The one report the provoked copy may cause: the usercopy BUG and its oops.
EXPECTED = re.compile(r"usercopy: Kernel memory exposure attempt|kernel BUG at \S*mm/usercopy\.c|"
                      r"Oops: ")

say = functools.partial(qemu.say, "usercopy")


# The guest shell's marker.  Not anchored: on a loaded host a kernel message
# can land on the same console line, before or after it (a clocksource
# watchdog line did: "USERCOPY-TASK pid 136 colour 2clocksource: ...").
MARKER = re.compile(r"USERCOPY-TASK pid \d+ colour (\d+)")


def check(t, name, console):
    """The TAP lines of one boot's console."""
    c = console.replace("\r", "")
    task = MARKER.search(c)
    t(bool(task), "%s: a shell whose task_struct slab has colour %s provokes LKDTM"
      % (name, task.group(1) if task else "(none found)"))
    dump = re.search(r"lkdtm: task_struct: slab\S* task_struct start \S+ pointer offset (\d+) "
                     r"size (\d+)", c)
    t(dump and dump.group(1) == "0", "%s: kmem_dump_obj() names the task_struct cache, "
      "pointer offset %s" % (name, dump.group(1) if dump else "(no line)"))
    good = c.find("lkdtm: attempting good copy_to_user of the whitelist")
    bad = c.find("lkdtm: attempting bad copy_to_user one byte past the whitelist")
    t(0 <= good < bad and "copy_to_user failed unexpectedly" not in c,
      "%s: the copy of the whitelist (the FPU registers) passes" % name)
    report = re.search(r"usercopy: Kernel memory exposure attempt detected from SLUB object "
                       r"'task_struct' \(offset (\d+), size (\d+)\)", c)
    t(bool(report) and bad >= 0 and "USERCOPY-SURVIVED" not in c and
      "FAIL: bad usercopy not detected" not in c,
      "%s: one byte past it: hardened usercopy's report%s" % (
          name, " (offset %s, size %s)" % report.groups() if report else " is missing"))
    splats = [line for line in c.splitlines()
              if qemu.SPLAT.search(line) and not EXPECTED.search(line)]
    t(not splats, "%s: no other BUG, WARNING, KASAN or lockdep report" % name,
      diag=splats[:5])
    t("USERCOPY-SHELLS" in c and "KCOLOUR-INIT-DONE" in c,
      "%s: the guest goes on after the report and powers off" % name)


def main(names):
    t = tap.Tap()
    try:
        images = [kernel.image(name) for name in names]
    except util.Error as e:
        t(False, "the test and debug images build: %s" % e)
        return t.plan()
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "run.sh").write_text(RUN)
    (OUT / "provoke.sh").write_text(PROVOKE)
    initramfs = qemu.initramfs(OUT / "initramfs.cpio.gz",
                               [(OUT / "run.sh", "/run.sh"), (OUT / "provoke.sh", "/provoke.sh")])
    say("booting %s with kstack_colour=task: LKDTM USERCOPY_TASK_STRUCT_TO" % " and ".join(names))
    boots = [qemu.Boot("usercopy-" + name, image, initramfs, OUT, timeout=900,
                       args=["kstack_colour=task"]) for name, image in zip(names, images)]
    for name, r in zip(names, qemu.run(boots)):
        check(t, name, r.console)
    return t.plan()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or IMAGES))
