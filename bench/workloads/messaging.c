// SPDX-License-Identifier: GPL-2.0
/*
 * messaging [GROUPS [FDS [LOOPS]]]: a hackbench-style load (hackbench -pipe:
 * the kcolour test kernels have no CONFIG_NET, so no socketpairs).  Each
 * group has FDS receivers, each reading its own pipe, and FDS senders that
 * write LOOPS messages of MSG_SIZE bytes to every receiver of their group;
 * MSG_SIZE <= PIPE_BUF, so messages never interleave.  All processes are
 * created first and wait on a start pipe; the kcolour marker brackets the
 * run from the start signal until every process has been reaped.  Defaults 1 group, 10 fds, 20 loops.  Prints
 *     messaging groups=G fds=F loops=L size=MSG_SIZE messages=G*F*F*L ctxt=C
 * C being the context switches the kernel counted inside the window.
 */
#include "kcolour-marker.h"
#include "wl-util.h"

#define MSG_SIZE	100
#define MAX_FDS		64

struct start_sync {
	int ready[2];	/* children -> parent: one byte each when ready */
	int wake[2];	/* parent closes the write end: everybody go */
};

static void wait_for_start(struct start_sync *s)
{
	char c = 0;
	ssize_t n;

	/* Our inherited copy of wake[1] would keep the EOF from coming. */
	if (close(s->wake[1]) || close(s->ready[0]))
		die("close");
	write_all(s->ready[1], &c, 1);
	while ((n = read(s->wake[0], &c, 1)) < 0 && errno == EINTR)
		;
	if (n)	/* only EOF, when the parent closes wake[1], means go */
		die("start pipe");
}

static void sender(struct start_sync *s, const int *out, long fds, long loops)
{
	char msg[MSG_SIZE];
	long i, j;

	memset(msg, 'm', sizeof(msg));
	wait_for_start(s);
	for (i = 0; i < loops; i++)
		for (j = 0; j < fds; j++)
			write_all(out[j], msg, sizeof(msg));
	exit(0);
}

static void receiver(struct start_sync *s, int in, long expect)
{
	char msg[MSG_SIZE];

	wait_for_start(s);
	while (expect--)
		read_all(in, msg, sizeof(msg));
	exit(0);
}

static pid_t spawn_child(void)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	return pid;
}

int main(int argc, char **argv)
{
	long groups = 1, fds = 10, loops = 20, g, i, nr = 0;
	struct start_sync s;
	int fd[2], out[MAX_FDS];
	long long ctxt;
	pid_t *pids;
	char c;

	wl_name = "messaging";
	if (argc > 4)
		usage_error("usage: messaging [GROUPS [FDS [LOOPS]]]");
	if (argc > 1)
		groups = parse_long("GROUPS", argv[1], 1, 64);
	if (argc > 2)
		fds = parse_long("FDS", argv[2], 1, MAX_FDS);
	if (argc > 3)
		loops = parse_long("LOOPS", argv[3], 1, 1000000);
	pids = calloc(groups * fds * 2, sizeof(*pids));
	if (!pids)
		die("calloc");
	if (kcolour_marker_map())
		die("mapping the marker page at %#llx", KCOLOUR_MARKER_ADDR);
	if (pipe(s.ready) || pipe(s.wake))
		die("pipe");

	for (g = 0; g < groups; g++) {
		for (i = 0; i < fds; i++) {
			if (pipe(fd))
				die("pipe");
			pids[nr] = spawn_child();
			if (!pids[nr])
				receiver(&s, fd[0], fds * loops);
			nr++;
			if (close(fd[0]))
				die("close");
			out[i] = fd[1];
		}
		for (i = 0; i < fds; i++) {
			pids[nr] = spawn_child();
			if (!pids[nr])
				sender(&s, out, fds, loops);
			nr++;
		}
		for (i = 0; i < fds; i++)
			if (close(out[i]))
				die("close");
	}
	if (close(s.wake[0]))
		die("close");
	for (i = 0; i < nr; i++)
		read_all(s.ready[0], &c, 1);

	ctxt = wl_ctxt();
	kcolour_marker_start();
	if (close(s.wake[1]))
		die("close");
	for (i = 0; i < nr; i++)
		reap(pids[i]);
	kcolour_marker_stop();
	ctxt = wl_ctxt() - ctxt;

	free(pids);
	printf("messaging groups=%ld fds=%ld loops=%ld size=%d messages=%ld ctxt=%lld\n",
	       groups, fds, loops, MSG_SIZE, groups * fds * fds * loops, ctxt);
	return 0;
}
