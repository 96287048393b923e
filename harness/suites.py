"""make check's suites, in order (make check-full: full=True, the heavy
variants: 600 s of fuzzing and every case of the selftest matrix).

Kernel images are cached outside the clone (harness/kernel.py), so a second
run only boots.
"""

import sys

from . import check, facts

T = "tools-probe/tests"
CFLAGS = ("-O2 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-missing-field-initializers "
          "-Itools-probe/include -Itools-probe")
PY = sys.executable


def single(what, cmd):
    """One TAP line for a command's exit status."""
    return ["sh", "-c", '%s && echo "ok 1 - %s" || echo "not ok 1 - %s"; echo 1..1'
            % (cmd, what, what)]


def suites(full, fuzz_seconds=None, jobs=None):
    """(name, command[, env[, background]]) in order (check.Suite);
    fuzz_seconds and jobs (the boots' at a time) from python3 -m harness
    check's flags."""
    fixtures = str(facts.path("fixtures"))
    j = ["--jobs", str(jobs)] if jobs else []
    fuzz = str(fuzz_seconds or (600 if full else 60))
    build = ("make -s -C tools-probe && cc %s -o %s/test-geom %s/test-geom.c "
             "tools-probe/lib/kcolour_decode.c tools-probe/lib/kcolour_geom.c && "
             "cc %s -o %s/test-dump %s/test-dump.c tools-probe/cpuid_dump.c"
             % (CFLAGS, T, T, CFLAGS, T, T))
    return [
        # The image without colouring (falign-layouts-quick and kernel-off
        # boot it) builds while the single-threaded suites (series) leave a
        # core idle.
        ("kernel-off-image", [PY, "-m", "harness", "image-check", "off", "--no-rebuild"], None,
         True),
        ("build", single("probe and unit tests build with -Werror", build)),
        ("geom-unit", [T + "/test-geom"]),
        ("dump-unit", [T + "/test-dump"], {"FIXTURES": fixtures}),
        ("probe-cli", ["bash", T + "/test-cli.sh", "tools-probe/kcolour-probe", fixtures]),
        ("fixtures", [PY, T + "/check_fixtures.py", "tools-probe/kcolour-probe"]),
        ("cpuid-tool", [PY, T + "/check_cpuid_tool.py", "tools-probe/kcolour-probe"]),
        ("leaf2-table", [PY, T + "/check_leaf2_table.py", "tools-probe/kcolour-probe"]),
        ("shared-style", ["bash", "scripts/check-shared-style.sh"]),
        ("fuzz", ["bash", T + "/fuzz.sh", fixtures, "build/fuzz", fuzz]),
        ("harness-unit", [PY, "harness/tests/test_harness.py"]),
        # Every Python file the project tracks: no unused import or name.
        ("pyflakes", single("pyflakes finds nothing in the tracked Python files",
                            "git ls-files -z '*.py' | xargs -0 pyflakes3")),
        ("falign-report", single("falign-report builds with -Werror", "make -s -C falign")),
        ("falign-unit", ["bash", "falign/test-falign.sh", "falign/falign-report"]),
        ("cachesim-unit", ["make", "-s", "-C", "bench/cachesim", "check",
                           "OUT=%s/build/cachesim" % facts.ROOT]),
        # The kernel series: applies, checkpatch, the shared decoder; the
        # image without colouring boots; the test image builds, and builds
        # again to the same bytes; make demo on every model; the matrix.
        ("series", ["bash", "scripts/check-series.sh"]),
        # The percentages the series and the README quote are docs/results'
        # (docs/design.md keeps the history of earlier measurements).
        ("figures", [PY, "-m", "scripts.check_figures", "stable", ".", "falign", "bench",
                     "README.md", "docs/evidence.md", "docs/real-hardware.md"]),
        # Every tracked shell script: no shellcheck finding.
        ("shellcheck", ["bash", "scripts/check-shell.sh"]),
        # The text layouts' machinery: the bench image with and without
        # the seeded pads, booted under the simulator (make falign-layouts
        # runs every choice in three layouts).  It builds make check's
        # images, first, so that the object builds after it find kbuild's
        # host tools in ccache.
        ("falign-layouts-quick", [PY, "-m", "falign.layouts", "--quick"] + j),
        ("static", [PY, "-m", "scripts.check_static"] + (["full"] if full else [])),
        # The profile format, and the series' hot-text linker script
        # generator (after the images, whose build lays build/linux).
        ("hot-text-unit", [PY, "falign/tests/test_hot_text.py"]),
        # The code-layout decision's verdicts on synthetic raw files, and its
        # committed page again from its committed raw files.
        ("falign-decision-unit", [PY, "falign/tests/test_decision.py"]),
        # make deb's configuration on Debian's own config (full: the
        # packages, from the test image's config).
        ("deb-config", [PY, "-m", "scripts.check_deb"]),
    ] + ([("deb-build", [PY, "-m", "scripts.check_deb", "build"])] if full else []) + [
        ("falign-check", [PY, "-m", "falign.check"] + (["full"] if full else [])),
        ("kernel-off", [PY, "-m", "selftests.smoke"]),
        # The test image again, in an empty object dir, beside the boots.
        ("kernel-test", [PY, "-m", "harness", "image-check", "test"], None, True),
        # make perf-ab -- CMD for real, in the test image (software events).
        ("perf-ab-guest", [PY, "bench/tests/perf_ab_guest.py"]),
        # make hot-text-profile FROM=FILE on a real perf record, in the test
        # image (cpu-clock), three perf script formats.
        ("perf-profile-guest", [PY, "falign/tests/perf_profile_guest.py"]),
        # The KUnit suite as the kernel's own runner runs it: kunit.py exec
        # on the test image (full: kunit.py run, its own kernel, too).
        ("kunit-py", [PY, "-m", "selftests.kunit_py"]),
    ] + ([("kunit-py-run", [PY, "-m", "selftests.kunit_py", "run"])] if full else []) + [
        # The kselftests installed and run as test labs run them.
        ("kselftest-lab", [PY, "-m", "selftests.kselftest_lab"]),
        # The task_struct usercopy whitelist under colouring, LKDTM's way (full:
        # on the KASAN + lockdep image too).
        ("usercopy", [PY, "-m", "selftests.usercopy"] + ([] if full else ["test"])),
        ("demo-matrix", [PY, "-m", "selftests.check_demo"]),
        ("selftests", [PY, "-m", "selftests.matrix", "full" if full else "check"] + j),
        # trinity and fork storms (full: on the KASAN + lockdep image).
        ("reliability", [PY, "-m", "selftests.reliability", "full" if full else "check"]),
        # The cache simulator bench and the sweep, reduced (make bench and
        # make bench-sweep run them whole); perf-ab's parsing and statistics
        # on canned perf stat output, and its run here (no counters on a VM).
        ("bench-unit", [PY, "bench/tests/test_bench.py"]),
        ("bench-quick", [PY, "-m", "bench", "run", "bench", "--quick"] + j),
        # Colouring and a placebo against off, paired over layouts.
        ("paired-quick", [PY, "-m", "bench", "run", "paired", "--quick"] + j),
        # Who misses and who evicts on the direct map: the join, then a run.
        ("attribution-unit", [PY, "bench/tests/test_attribution.py"]),
        ("attribution-quick", [PY, "-m", "bench", "run", "attribution", "--quick"] + j),
        # The same at the L2, by physical page frame (one boot).
        ("l2-attribution-quick", [PY, "-m", "bench", "run", "l2-attribution", "--quick"] + j),
        # Which caches' slab colours help beyond task_struct: the parsing,
        # then a run (task, and mm_struct coloured by slab_colour=).
        ("slab-colour-unit", [PY, "bench/tests/test_slab_colour.py"]),
        ("slab-colour-quick", [PY, "-m", "bench", "run", "slab-colour", "--quick"] + j),
        # Two real CPUs' caches in every boot (K8, Tiger Lake), and
        # make bench-cpu on a dump that is no fixture: this machine's own.
        ("bench-cpus-quick", [PY, "-m", "bench", "run", "cpus", "--quick"] + j),
        ("bench-cpu-quick", ["sh", "-c", "mkdir -p build && cpuid -r >build/host.cpuid-r.txt && "
                             "exec %s -m bench run cpus --quick --dump build/host.cpuid-r.txt %s"
                             % (PY, " ".join(j))]),
        ("bench-sweep-quick", [PY, "-m", "bench", "run", "sweep", "--quick"] + j),
        # The code-layout decision's machinery on make check's two images:
        # the unseen programs (redis, rsync, a tcc build) in the guest.
        ("falign-decision-quick", [PY, "-m", "falign.decision", "--quick"] + j),
        ("paired-unit", [PY, "bench/tests/test_paired.py"]),
        ("perf-ab-unit", [PY, "bench/tests/test_perfab.py"]),
        ("perf-ab-here", ["bash", "bench/tests/perf-ab-here.sh"]),
        # Every results page with a committed record (docs/results/data/NAME:
        # off-cost's raw figures, the runs' plugin output and consoles) again
        # from it, byte for byte.
        ("reports", [PY, "-m", "bench", "reports"]),
        # make hw-check: the event tables, parsing, verdicts and exits on
        # canned Intel and AMD perf output; then the whole flow under TCG
        # (make check's test image, colouring off and on by the sysctl,
        # software events: every verdict "inconclusive: no hardware counters").
        ("hw-check-unit", [PY, "hw/tests/test_hw_check.py"]),
        ("hw-check-quick", [PY, "-m", "hw.hw_check", "check", "--quick"]),
    ]


def main(full, fuzz_seconds=None, jobs=None):
    if not facts.path("fixtures").is_dir():
        print("error: no fixtures at %s (../shared beside the clone?)" % facts.path("fixtures"),
              file=sys.stderr)
        return 2
    return check.main(suites(full, fuzz_seconds, jobs))
