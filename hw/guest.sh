# shellcheck shell=sh
# The guest side of make hw-check (hw/hw_check.py), its /run.sh: each
# workload line of /hw/workloads under perf stat, the counts on the console.
# The kernel command line holds kcolour.events=E1,E2,... (perf's names) and
# kcolour.sysctl=0|1 (kernel.kstack_colour, set before the first workload;
# absent: left as booted).  perf stat -a: every CPU, the web server's own
# work too, as the simulator counts the whole guest inside a window.  Each
# workload prints
#   HWCHECK uname RELEASE            once, first
#   HWCHECK begin LINE               then the workload's own key=value line,
#   HWPERF VALUE,UNIT,EVENT,...      perf stat -x, lines, and
#   HWCHECK end
set -e
# shellcheck disable=SC1091 # bench/workloads/phases.sh, in the guest
. /bin/phases.sh

arg() { tr ' ' '\n' </proc/cmdline | sed -n "s/^kcolour\.$1=//p"; }

events=$(arg events)
sysctl=$(arg sysctl)
if [ -n "$sysctl" ]; then
	echo "$sysctl" >/proc/sys/kernel/kstack_colour
fi
# The web server starts before the first workload, outside every count,
# as the simulator's windows leave it out (phases.sh's web_start).
if grep -q '^web ' /hw/workloads; then
	web_start
fi
mkfifo /tmp/perf.ctl /tmp/perf.ack
echo "HWCHECK uname $(uname -r)"
while read -r line; do
	echo "HWCHECK begin $line"
	# shellcheck disable=SC2086 # the workload line is words
	# Counted inside the workload's marker window only: the marker code
	# enables perf's counters as the window opens and disables them as it
	# closes (bench/workloads/kcolour-marker.h).
	KCOLOUR_PERF_CTL=/tmp/perf.ctl KCOLOUR_PERF_ACK=/tmp/perf.ack \
		perf stat -a -x, -D -1 --control fifo:/tmp/perf.ctl,/tmp/perf.ack \
		-e "$events" -o /tmp/perf.csv -- sh -c ". /bin/phases.sh; $line" \
		>/tmp/workload.out 2>&1 || { cat /tmp/workload.out; exit 1; }
	cat /tmp/workload.out
	sed 's/^/HWPERF /' /tmp/perf.csv
	echo "HWCHECK end"
done </hw/workloads
