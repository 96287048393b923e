// SPDX-License-Identifier: GPL-2.0
/*
 * ring N ROUNDS: a token ring of N processes over pipes.  Process i reads
 * the one-byte token from pipe i and writes it to pipe (i + 1) % N; the
 * parent is process 0 and sends the token round ROUNDS times.  On one CPU
 * every pass blocks the sender and wakes the receiver, so each pass is one
 * context switch: the switch-heavy load whose kernel stack tops collide in
 * L1D.  The kcolour marker brackets the measured rounds only, after all
 * processes exist and one warm-up round.  Prints
 *     ring tasks=N rounds=ROUNDS switches=N*ROUNDS ctxt=C
 * C being the context switches the kernel counted inside the window
 * (/proc/stat), a check on "one pass, one switch".
 */
#include "kcolour-marker.h"
#include "wl-util.h"

#define TOKEN	't'
#define QUIT	'q'

static void relay(int in, int out)
{
	char c;

	do {
		read_all(in, &c, 1);
		write_all(out, &c, 1);
	} while (c != QUIT);
	exit(0);
}

int main(int argc, char **argv)
{
	int pipes[64][2];
	pid_t pids[64];
	long long ctxt;
	long n, rounds, i, r;
	char c;

	wl_name = "ring";
	if (argc != 3)
		usage_error("usage: ring N ROUNDS (N tasks in 2..64)");
	n = parse_long("N", argv[1], 2, 64);
	rounds = parse_long("ROUNDS", argv[2], 1, 100000000);
	if (kcolour_marker_map())
		die("mapping the marker page at %#llx", KCOLOUR_MARKER_ADDR);

	for (i = 0; i < n; i++)
		if (pipe(pipes[i]))
			die("pipe");
	for (i = 1; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork");
		if (!pids[i])
			relay(pipes[i][0], pipes[(i + 1) % n][1]);
	}

	c = TOKEN;
	write_all(pipes[1][1], &c, 1);	/* warm-up round */
	read_all(pipes[0][0], &c, 1);

	ctxt = wl_ctxt();
	kcolour_marker_start();
	for (r = 0; r < rounds; r++) {
		write_all(pipes[1][1], &c, 1);
		read_all(pipes[0][0], &c, 1);
	}
	kcolour_marker_stop();
	ctxt = wl_ctxt() - ctxt;

	c = QUIT;
	write_all(pipes[1][1], &c, 1);
	read_all(pipes[0][0], &c, 1);
	for (i = 1; i < n; i++)
		reap(pids[i]);
	printf("ring tasks=%ld rounds=%ld switches=%ld ctxt=%lld\n",
	       n, rounds, n * rounds, ctxt);
	return 0;
}
