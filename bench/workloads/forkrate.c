// SPDX-License-Identifier: GPL-2.0
/*
 * forkrate FORKS ROUNDS JOBS: fork+exit throughput with kernel stack
 * colouring off against on, in one boot (bench/forkrate.py, make bench-fork).
 *
 * Each round writes 0 or 1 to the kernel.kstack_colour sysctl (it decides
 * the colouring of tasks forked from then on), then starts JOBS workers at
 * once, worker j pinned to CPU j % ncpus, each forking FORKS children that
 * _exit(0) at once and reaping each; the round is timed (CLOCK_MONOTONIC)
 * from before the first worker's fork to the last worker's end.  The rounds
 * go in ABBA order (off, on, on, off, off, on, on, off, ...) so that a drift
 * of the guest's speed over the run weighs on both settings alike; one
 * untimed round at the first setting warms up.  Prints a line a round, then
 *     forkrate round=R colour=0|1 forks=TOTAL secs=S rate=FORKS_PER_SEC
 *     forkrate done rounds=ROUNDS
 * (bench/forkrate.py takes the medians and their ratio).
 * The sysctl is set back to its value at start, on error exits too.
 */
#include <sched.h>
#include <time.h>

#include "wl-util.h"

#define SYSCTL "/proc/sys/kernel/kstack_colour"
#define MAX_JOBS 1024
#define MAX_ROUNDS 1000

static char saved[16];
static pid_t main_pid;

static int write_sysctl(const char *val)
{
	FILE *f = fopen(SYSCTL, "w");

	if (!f)
		return -1;
	return (fputs(val, f) < 0) | fclose(f);
}

/* atexit: put the sysctl back (in the main process, not in a worker). */
static void restore(void)
{
	if (getpid() == main_pid && write_sysctl(saved))
		fprintf(stderr, "forkrate: could not set %s back to %s\n", SYSCTL, saved);
}

static void worker(long cpu, long forks)
{
	cpu_set_t set;
	pid_t pid;
	long i;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("pinning to CPU %ld", cpu);
	for (i = 0; i < forks; i++) {
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid)
			_exit(0);
		reap(pid);
	}
	_exit(0);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One round at colour on (0 or 1): its seconds. */
static double round_secs(int on, long forks, long jobs, long ncpus)
{
	static pid_t pids[MAX_JOBS];
	double start;
	long j;

	if (write_sysctl(on ? "1" : "0"))
		die("writing %d to %s", on, SYSCTL);
	start = now();
	for (j = 0; j < jobs; j++) {
		pids[j] = fork();
		if (pids[j] < 0)
			die("fork");
		if (!pids[j])
			worker(j % ncpus, forks);
	}
	for (j = 0; j < jobs; j++)
		reap(pids[j]);
	return now() - start;
}

int main(int argc, char **argv)
{
	long forks, rounds, jobs, ncpus, r;
	double secs;
	FILE *f;

	wl_name = "forkrate";
	if (argc != 4)
		usage_error("usage: forkrate FORKS ROUNDS JOBS");
	forks = parse_long("FORKS", argv[1], 1, 100000000);
	rounds = parse_long("ROUNDS", argv[2], 2, MAX_ROUNDS);
	jobs = parse_long("JOBS", argv[3], 1, MAX_JOBS);
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpus < 1)
		die("sysconf(_SC_NPROCESSORS_ONLN)");

	f = fopen(SYSCTL, "r");
	if (!f)
		die("%s (a kernel without CONFIG_KSTACK_COLOUR, or no /proc?)", SYSCTL);
	if (!fgets(saved, sizeof(saved), f))
		die("reading %s", SYSCTL);
	fclose(f);
	main_pid = getpid();
	atexit(restore);

	round_secs(0, forks, jobs, ncpus);
	for (r = 0; r < rounds; r++) {
		int c = (r + 1) / 2 % 2;	/* 0 1 1 0 0 1 1 0 ... */

		secs = round_secs(c, forks, jobs, ncpus);
		printf("forkrate round=%ld colour=%d forks=%ld secs=%.4f rate=%.1f\n",
		       r, c, forks * jobs, secs, forks * jobs / secs);
		fflush(stdout);
	}
	printf("forkrate done rounds=%ld\n", rounds);
	return 0;
}
