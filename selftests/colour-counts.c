// SPDX-License-Identifier: GPL-2.0
/*
 * colour-counts KEY LISTING: does the params line KEY ("live") of
 * x86/kstack_colour in debugfs equal the histogram of the colours that
 * LISTING ("tasks") shows for live tasks?  Up to 100 tries
 * 200 ms apart, in this one process: a shell loop would fork a task every
 * try, and an exiting task counts until its task_struct is freed, after
 * an RCU grace period.  Prints "COUNTS KEY match 0", or "COUNTS KEY
 * mismatch DIFF" and both histograms; exits 0 on a match.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEBUGFS "/sys/kernel/debug/x86/kstack_colour/"
#define MAX_COLOURS 1024

static int live[MAX_COLOURS], listed[MAX_COLOURS];

/* The counts of the params line "KEY: a b c", or -1. */
static int read_live(const char *key)
{
	static char line[16384];
	FILE *f = fopen(DEBUGFS "params", "r");
	size_t len = strlen(key);
	int n = -1;
	char *p, *end;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':') {
			for (n = 0, p = line + len + 1; n < MAX_COLOURS; n++, p = end) {
				live[n] = strtol(p, &end, 10);
				if (end == p)
					break;
			}
		}
	fclose(f);
	return n;
}

/* The histogram of the listing's colour column; -1 if unreadable. */
static int read_listed(const char *listing)
{
	char line[256];
	FILE *f = fopen(listing, "r");
	int pid, colour;

	if (!f)
		return -1;
	memset(listed, 0, sizeof(listed));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%d %d", &pid, &colour) == 2 && colour >= 0 &&
		    colour < MAX_COLOURS)
			listed[colour]++;
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	const struct timespec pause = { 0, 200 * 1000 * 1000 };
	int tries, n = -1, i, diff = -1;
	char listing[256];

	if (argc != 3) {
		fprintf(stderr, "usage: colour-counts KEY LISTING (live tasks)\n");
		return 2;
	}
	snprintf(listing, sizeof(listing), DEBUGFS "%s", argv[2]);
	for (tries = 0; tries < 100 && diff; tries++) {
		if (tries)
			nanosleep(&pause, NULL);
		n = read_live(argv[1]);
		if (n < 0 || read_listed(listing)) {
			printf("COUNTS %s none\n", argv[1]);
			return 1;
		}
		for (diff = 0, i = 0; i < MAX_COLOURS; i++)
			diff += abs((i < n ? live[i] : 0) - listed[i]);
	}
	printf("COUNTS %s %s %d\n", argv[1], diff ? "mismatch" : "match", diff);
	if (diff) {
		printf("# live:");
		for (i = 0; i < n; i++)
			printf(" %d", live[i]);
		printf("\n# listed:");
		for (i = 0; i < n; i++)
			printf(" %d", listed[i]);
		printf("\n");
	}
	return !!diff;
}
