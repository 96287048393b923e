// SPDX-License-Identifier: GPL-2.0
/*
 * forkloop N: fork a child that exits at once and wait for it, N times.
 * Every iteration allocates and frees a kernel stack and a task_struct.
 * The kcolour marker brackets the loop (after one warm-up fork).  Prints
 *     forkloop forks=N ctxt=C
 * C being the context switches the kernel counted inside the window.
 */
#include "kcolour-marker.h"
#include "wl-util.h"

static void fork_wait(void)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (!pid)
		_exit(0);
	reap(pid);
}

int main(int argc, char **argv)
{
	long long ctxt;
	long n, i;

	wl_name = "forkloop";
	if (argc != 2)
		usage_error("usage: forkloop N");
	n = parse_long("N", argv[1], 1, 100000000);
	if (kcolour_marker_map())
		die("mapping the marker page at %#llx", KCOLOUR_MARKER_ADDR);

	fork_wait();
	ctxt = wl_ctxt();
	kcolour_marker_start();
	for (i = 0; i < n; i++)
		fork_wait();
	kcolour_marker_stop();
	ctxt = wl_ctxt() - ctxt;
	printf("forkloop forks=%ld ctxt=%lld\n", n, ctxt);
	return 0;
}
