// SPDX-License-Identifier: GPL-2.0
/*
 * kcolour-demo: runs inside the QEMU guest of `make demo`.  Forks N tasks
 * that wait on a pipe, reads the kernel's debugfs listing of every task's
 * stack colour, and prints the lines of its own tasks and their colour
 * histogram.  Then it lets the tasks go and reaps them.  It pins itself, and
 * so its tasks, to the CPU it starts on: the kernel balances colours per
 * core, so a parent that moved between CPUs mid-way would fork from two
 * sets of counts.
 *
 * Output, one record per line (read by selftests/demo.py):
 *   T pid colour offset regs_page_offset l1_set l2_set
 *   H colour count
 *   Z tasks=N seen=M colours=C min=A max=B
 * Exit status: 0, or 1 with a message on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TASKS_FILE	"/sys/kernel/debug/x86/kstack_colour/tasks"
#define PARAMS_FILE	"/sys/kernel/debug/x86/kstack_colour/params"
#define MAX_TASKS	4096
#define MAX_COLOURS	1024

static pid_t children[MAX_TASKS];

static void fail(const char *what)
{
	fprintf(stderr, "kcolour-demo: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int is_child(pid_t pid, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (children[i] == pid)
			return 1;
	return 0;
}

static int read_colours(void)
{
	char line[256];
	int colours = 0;
	FILE *f = fopen(PARAMS_FILE, "r");

	if (!f)
		fail(PARAMS_FILE);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "colours: %d", &colours) == 1)
			break;
	fclose(f);
	if (colours < 1 || colours > MAX_COLOURS) {
		fprintf(stderr, "kcolour-demo: no colour count in %s\n", PARAMS_FILE);
		exit(1);
	}
	return colours;
}

/* Prints our children's lines and fills hist[]; returns how many were seen. */
static int read_tasks(int n, int *hist, int colours)
{
	char line[256], comm[64];
	int pid, colour, seen = 0;
	unsigned int offset;
	unsigned long page_offset;
	long l1, l2;
	FILE *f = fopen(TASKS_FILE, "r");

	if (!f)
		fail(TASKS_FILE);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%d %d %u %lx %ld %ld %63s", &pid, &colour, &offset,
			   &page_offset, &l1, &l2, comm) != 7 || !is_child(pid, n))
			continue;
		printf("T %d %d %u %#lx %ld %ld\n", pid, colour, offset, page_offset, l1, l2);
		if (colour >= 0 && colour < colours)
			hist[colour]++;
		seen++;
	}
	fclose(f);
	return seen;
}

int main(int argc, char **argv)
{
	static int hist[MAX_COLOURS];
	int n = argc > 1 ? atoi(argv[1]) : 64;
	int i, pipefd[2], colours, seen, min, max;
	cpu_set_t one;
	char c;

	if (n < 1 || n > MAX_TASKS) {
		fprintf(stderr, "usage: kcolour-demo [TASKS (1..%d)]\n", MAX_TASKS);
		return 1;
	}
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		fail("sched_setaffinity");
	if (pipe(pipefd))
		fail("pipe");
	for (i = 0; i < n; i++) {
		children[i] = fork();
		if (children[i] < 0)
			fail("fork");
		if (!children[i]) {
			close(pipefd[1]);
			/* Wait until the parent closes the pipe. */
			while (read(pipefd[0], &c, 1) > 0)
				;
			_exit(0);
		}
	}
	close(pipefd[0]);

	colours = read_colours();
	seen = read_tasks(n, hist, colours);
	min = max = hist[0];
	for (i = 0; i < colours; i++) {
		printf("H %d %d\n", i, hist[i]);
		min = hist[i] < min ? hist[i] : min;
		max = hist[i] > max ? hist[i] : max;
	}
	printf("Z tasks=%d seen=%d colours=%d min=%d max=%d\n", n, seen, colours, min, max);

	close(pipefd[1]);
	for (i = 0; i < n; i++)
		waitpid(children[i], NULL, 0);
	return seen == n ? 0 : 1;
}
