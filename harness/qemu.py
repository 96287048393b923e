"""QEMU boots and the pool that runs them (kunit_kernel.py's run, with
qemu_configs/ as the models of facts.tsv).

    Boot(name, image, initramfs, out, ...)   one boot; .job() is its shell line
    run(boots, jobs, engine)                 every boot, `jobs` at a time, by the
                                             built-in pool or GNU parallel
                                             (engine="parallel"), from the
                                             same job list; -> [Result]

A job is one line of shell that runs harness/qemu-run.sh (the leaf tool that
knows QEMU's options) and leaves, beside the console log OUT/NAME.log, its
exit status in NAME.rc, its seconds in NAME.secs and QEMU's own messages in
NAME.err, so both engines give the same files.  With engine="parallel" (a bench
tool's --pool parallel) and PARALLEL_ARGS="--sshloginfile FILE", GNU parallel's
own options, the jobs run on several machines (docs/harness.md).
"""

import gzip
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import facts, util
from .facts import ROOT

QEMU_RUN = ROOT / "harness/qemu-run.sh"


def safe(name):
    return re.sub(r"[^A-Za-z0-9_.+=-]", "_", name)


# A kernel report (BUG, WARNING, lockdep's, KASAN's, ...) in a console line.
# Reports start a line: user-space faults the x86 selftests or a fuzzer
# provoke, "prog[pid] general protection fault ip:...", are not splats.
SPLAT = re.compile(r"(^|\] )(BUG: |WARNING: |Oops: |Kernel panic|UBSAN: |"
                   r"INFO: task .* blocked|kernel BUG at)|KASAN")


def dump(path, name):
    """Guest shell that prints the file at path for dumped(): each line tagged
    "DUMP name: ", so that a kernel line the console prints among them, a
    clocksource warning say, is no part of the file."""
    return "sed 's/^/DUMP %s: /' %s\n" % (name, path)


def dumped(console, name):
    """The file dump(path, name) printed on the console, untagged, in order."""
    tag = "DUMP %s: " % name
    return "".join(line[len(tag):] + "\n" for line in console.replace("\r", "").splitlines()
                   if line.startswith(tag))


# The kernel arguments that send the guest's lines through the kernel's log
# (INIT's lines()).
GUEST_LINES_ARGS = ["log_buf_len=1M", "printk.devkmsg=on", "kcolour_lines=kmsg"]


class Boot:
    """One QEMU run of IMAGE (a kernel.Image or a bzImage path)."""

    def __init__(self, name, image, initramfs, out, model=None, smp=1, mem="512M",
                 timeout=600, args=(), plugin=None, deterministic=False, single_thread=False,
                 qemu_args=(), accel=None, pin_cpu=None):
        """model: QEMU's -cpu (default facts.tsv's model-default); accel: "kvm"
        for KVM (qemu-run.sh's ACCEL; default TCG); pin_cpu: the host CPU QEMU
        runs on (PIN_CPU)."""
        self.name, self.image, self.initramfs, self.out = name, image, initramfs, Path(out)
        self.accel, self.pin_cpu = accel, pin_cpu
        self.model = model or facts.default_model()[0]
        self.smp, self.mem, self.timeout = smp, mem, timeout
        # The guest's lines through the kernel's log, whole (INIT), except
        # where the boot is deterministic: its console depends on no host.
        # Last, so that no argument of the boot's own turns them off; a log
        # that holds the guest's lines too keeps the kernel's for dmesg.
        self.args = list(args) + ([] if deterministic else GUEST_LINES_ARGS)
        self.plugin, self.deterministic = plugin, deterministic
        self.single_thread, self.qemu_args = single_thread, list(qemu_args)
        self.file = self.out / safe(name)

    def env(self):
        env = {"CPU": self.model, "SMP": str(self.smp), "MEM": self.mem,
               "TIMEOUT": str(self.timeout)}
        if self.deterministic:
            env["DETERMINISTIC"] = "1"
        if self.single_thread:
            env["SINGLE_THREAD"] = "1"
        if self.accel:
            env["ACCEL"] = self.accel
        if self.pin_cpu is not None:
            env["PIN_CPU"] = str(self.pin_cpu)
        extra = (["-plugin", self.plugin] if self.plugin else []) + self.qemu_args
        if extra:
            env["QEMU_ARGS"] = " ".join(extra)
        return env

    def command(self):
        """The qemu-run.sh command line, for people (paths from the top)."""
        return " ".join(["%s=%s" % (k, shlex.quote(v)) for k, v in self.env().items()] +
                        [shlex.quote(str(a)) for a in
                         [QEMU_RUN, str(self.image), self.initramfs, str(self.file) + ".log"] +
                         self.args]).replace(str(ROOT) + "/", "")

    def job(self):
        """One line of shell: the boot, its status and a progress line."""
        f = shlex.quote(str(self.file))
        return ("start=$(date +%%s); env %s bash %s %s %s %s.log %s >%s.out 2>%s.err; rc=$?; "
                "secs=$(($(date +%%s) - start)); echo $secs >%s.secs; echo $rc >%s.rc; "
                "echo \"[boot] %s: exit $rc (${secs}s)\" >&2"
                % (" ".join("%s=%s" % (k, shlex.quote(v)) for k, v in self.env().items()),
                   shlex.quote(str(QEMU_RUN)), shlex.quote(str(self.image)),
                   shlex.quote(str(self.initramfs)), f,
                   " ".join(shlex.quote(str(a)) for a in self.args), f, f, f, f,
                   self.name.replace('"', "'")))

    def result(self):
        return Result(self)


class Result:
    """What a boot left: its qemu-run.sh status (0 ok, 1 the guest failed or
    the kernel reported a BUG, 2 no end marker) and its console."""

    def __init__(self, boot):
        self.boot = boot
        rc = Path(str(boot.file) + ".rc")
        self.status = int(rc.read_text()) if rc.exists() else -1
        log = Path(str(boot.file) + ".log")
        self.console = log.read_text(errors="replace") if log.exists() else ""
        err = Path(str(boot.file) + ".err")
        self.errors = err.read_text(errors="replace") if err.exists() else ""
        secs = Path(str(boot.file) + ".secs")
        self.seconds = int(secs.read_text()) if secs.exists() else None

    @property
    def ok(self):
        return self.status == 0


def run(boots, jobs=2, engine="builtin"):
    """Run every boot, `jobs` at a time (the scripts' --jobs), by the engine
    "builtin" or "parallel" (--pool); the results in the order given."""
    jobs = int(jobs or 2)
    engine = engine or "builtin"
    if not boots:
        return []
    for b in boots:
        b.out.mkdir(parents=True, exist_ok=True)
        for ext in (".rc", ".log", ".err", ".out", ".secs"):
            Path(str(b.file) + ext).unlink(missing_ok=True)
    listing = boots[0].out / ("jobs-%s.txt" % safe(boots[0].name))
    listing.write_text("".join(b.job() + "\n" for b in boots))
    if engine == "parallel":
        cmd = ["parallel", "--jobs", str(jobs), "--line-buffer"] + \
            shlex.split(os.environ.get("PARALLEL_ARGS", "")) + ["--arg-file", str(listing)]
        subprocess.run(cmd, stdin=subprocess.DEVNULL)
    elif engine == "builtin":
        with ThreadPoolExecutor(jobs) as pool:
            list(pool.map(lambda b: subprocess.run(["bash", "-c", b.job()],
                                                   stdin=subprocess.DEVNULL), boots))
    else:
        raise util.Error("pool %s: want builtin or parallel" % engine)
    return [b.result() for b in boots]


# /init of every initramfs: mount the usual file systems, quieten the
# console, run /run.sh (or a
# shell), print the end marker qemu-run.sh waits for, power off (reboot -f
# ends QEMU under -no-reboot where the kernel has no ACPI).
INIT = """#!/bin/sh
# kcolour initramfs /init (harness/qemu.py)
export PATH=/sbin:/bin:/usr/sbin:/usr/bin
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
mount -t tmpfs tmpfs /tmp
# What a distribution's /dev has and devtmpfs does not (kselftest's
# runner.sh logs to /dev/stdout).
for fd in 0:stdin 1:stdout 2:stderr; do
	ln -s /proc/self/fd/${fd%%:*} /dev/${fd#*:}
done
# Warnings and worse on the console only: a late driver message (QEMU's
# PS/2 mouse, KERN_INFO) split a guest's output line once on a loaded host.
dmesg -n 5
# The guest's lines reach the console as records of the kernel's own log
# (/dev/kmsg, KERN_WARNING), which the console prints whole: no kernel
# message can land inside one, however loaded the host (a clocksource
# warning once split a marker line mid-way).  A line /dev/kmsg refuses (over
# its 1 KiB) goes to the console as it is.  Boots that ask for it get it
# (kcolour_lines=kmsg, which the kernel hands /init as a variable, with
# printk.devkmsg=on: the harness's boots except the deterministic bench
# boots, whose lines depend on no host's timing and whose /init does not
# even look); the end marker goes the same way, last, and /init waits for
# it to be printed.  The reader is spared by the OOM killer.
lines() {
	while IFS= read -r line; do
		printf '<4>%s\\n' "$line" 2>/dev/null >/dev/kmsg || printf '%s\\n' "$line"
		case $line in KCOLOUR-INIT-DONE*) : >/tmp/.kcolour-lines-done ;; esac
	done
}
if [ -f /run.sh ]; then
	case ${kcolour_lines:-} in
	kmsg)
		mkfifo /tmp/.kcolour-lines
		lines </tmp/.kcolour-lines &
		echo -1000 >/proc/$!/oom_score_adj
		exec 3>/tmp/.kcolour-lines
		sh /run.sh >&3 2>&3
		rc=$?
		echo "KCOLOUR-INIT-DONE rc=$rc" >&3
		exec 3>&-
		i=0
		while [ ! -e /tmp/.kcolour-lines-done ] && [ $i -lt 3000 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		[ -e /tmp/.kcolour-lines-done ] || echo "KCOLOUR-INIT-DONE rc=$rc"
		;;
	*)
		sh /run.sh
		rc=$?
		echo "KCOLOUR-INIT-DONE rc=$rc"
		;;
	esac
else
	echo "no /run.sh: interactive shell; 'exit' powers off"
	setsid cttyhack sh
	rc=$?
	echo "KCOLOUR-INIT-DONE rc=$rc"
fi
sync
if [ -d /sys/firmware/acpi ]; then poweroff -f; fi
reboot -f
"""


def newc(name, mode, rdev=(0, 0)):
    """One newc cpio header without data, padded to 4 bytes."""
    head = "070701" + "".join("%08X" % v for v in (0, mode, 0, 0, 1, 0, 0, 0, 0, rdev[0], rdev[1],
                                                   len(name) + 1, 0)) + name + "\0"
    return (head + "\0" * (-len(head) % 4)).encode()


def initramfs(out, files, busybox=os.environ.get("BUSYBOX", "/bin/busybox")):
    """A gzip'd newc initramfs: Debian's static busybox and its applets, /init,
    and each (SRC, DEST) file or directory.  No root needed: owner 0:0, and
    /dev/console (needed before devtmpfs) is a header of its own.  A file
    at an applet's path (coreutils' /usr/bin/timeout) replaces it.  The same
    inputs give the same bytes: fixed times, sorted names."""
    if not os.access(busybox, os.X_OK) or \
            subprocess.run(["ldd", busybox], capture_output=True).returncode == 0:
        raise util.Error("%s is missing or not static (apt-get install busybox-static)" % busybox)
    with tempfile.TemporaryDirectory() as tmp:
        stage = Path(tmp)
        for d in "bin sbin usr/bin usr/sbin dev proc sys tmp root etc".split():
            (stage / d).mkdir(parents=True)
        shutil.copy(busybox, stage / "bin/busybox")
        applets = subprocess.run([busybox, "--list-full"], capture_output=True, text=True).stdout
        for applet in applets.split():
            if not (stage / applet).exists():
                (stage / applet).symlink_to("/bin/busybox")
        (stage / "init").write_text(INIT)
        (stage / "init").chmod(0o755)
        for src, dest in files:
            dest = stage / str(dest).lstrip("/")
            dest.parent.mkdir(parents=True, exist_ok=True)
            if dest.is_symlink():   # a file of files replaces a busybox applet
                dest.unlink()
            if Path(src).is_dir():
                shutil.copytree(src, dest, symlinks=True, dirs_exist_ok=True)
            elif Path(src).exists():
                shutil.copy2(src, dest)
            else:
                raise util.Error("initramfs: %s does not exist" % src)
        names = sorted(str(p.relative_to(stage)) for p in stage.rglob("*"))
        for n in names:
            os.utime(stage / n, (0, 0), follow_symlinks=False)
        cpio = subprocess.run(["cpio", "--quiet", "-o", "-H", "newc", "--owner", "0:0",
                               "--reproducible"], input="".join(n + "\n" for n in names).encode(),
                              cwd=stage, capture_output=True, check=True).stdout
    data = cpio + newc("dev/console", 0o020600, (5, 1)) + newc("TRAILER!!!", 0)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_bytes(gzip.compress(data, 9, mtime=0))
    return Path(out)


def script_initramfs(out, script, files=(), progs=()):
    """initramfs() at OUT/initramfs.cpio.gz whose /run.sh is SCRIPT (kept in
    OUT), with FILES [(SRC, DEST)] and PROGS, host programs put in by the ldd
    rule (programs())."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "run.sh").write_text(script)
    return initramfs(out / "initramfs.cpio.gz",
                     [(out / "run.sh", "/run.sh")] + list(files) + programs(list(progs)))


def programs(paths):
    """(SRC, DEST) of each host file or directory in paths and, for each ELF
    program or library among them, of every shared library ldd names (the
    dynamic loader too), at the same paths in the guest.  ldd does not see
    what a program loads at run time (NSS modules, lighttpd's mod_*.so):
    name those in paths."""
    out, seen = [], set()

    def add(path):
        path = Path(path)
        if path in seen:
            return
        seen.add(path)
        if not path.exists():
            raise util.Error("initramfs: %s does not exist (make deps)" % path)
        out.append((path.resolve(), path))
        files = sorted(path.rglob("*.so*")) if path.is_dir() else [path]
        for f in files:
            if f != path:
                seen.add(f)
            ldd = subprocess.run(["ldd", str(f)], capture_output=True, text=True)
            for lib in re.findall(r"(?:=> )?(/\S+) \(0x", ldd.stdout):
                add(lib)

    for p in paths:
        add(p)
    return out


def say(prog, msg, start=None):
    print("[%s] %s%s" % (prog, msg, "" if start is None else " (%ds)" % (time.time() - start)),
          file=sys.stderr, flush=True)
