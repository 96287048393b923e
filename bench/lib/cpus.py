"""A real CPU as the bench simulates it: its caches from its CPUID dump
(kcolour-probe), the line the kernel derives on it, and the cost model on
the plugin's cpus= hierarchy of it."""

from bench.lib.runner import probe_caches, probe_cmdline
# the model's L1I stands in, and the report says so.
MODEL_L1I = (32768, 8, 64)


class Cpu:
    """One real CPU, a core of logical-CPU block cpu of its dump: its caches
    (probe --json) and the line the kernel derives on the boot CPU, block 0
    (--cmdline): on a hybrid part the other core type runs with that line."""

    def __init__(self, name, cpu_set, dump, cpu=0):
        self.name, self.set, self.dump, self.cpu = name, cpu_set, dump, cpu
        self.caches = probe_caches(dump, cpu)
        self.l1i_stand_in = "L1I" not in self.caches
        self.caches.setdefault("L1I", MODEL_L1I)
        self.derived = probe_cmdline(dump)

    def hierarchy(self):
        """The plugin's cpus= item: L1D-L1I-L2, each SIZE:WAYS:LINE."""
        return "-".join("%d:%d:%d" % self.caches[c] for c in ("L1D", "L1I", "L2"))

    def geometry(self, cache):
        size, ways, _ = self.caches[cache]
        return "%s %d-way" % ("%dK" % (size >> 10) if size < 1 << 20 or size % (1 << 20)
                              else "%dM" % (size >> 20), ways)


def cpu_cycles(p, i, lat):
    """bench.py's cycle model on the caches of the plugin's cpus= hierarchy i."""
    miss = {c: p.rate("cpu%d-%s" % (i + 1, c)) for c in ("L1D", "L1I", "L2")}
    return p.insns * lat["cpi"] + (miss["L1D"] + miss["L1I"]) * lat["L2"] + miss["L2"] * lat["L3"]
