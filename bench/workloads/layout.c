// SPDX-License-Identifier: GPL-2.0
/*
 * layout SEED: move where the kernel places what the bench measures.
 *
 * Before the workloads run, a holder process makes a seeded, mixed series
 * of long-lived kernel allocations and then sleeps for the rest of the
 * boot: sleeping children (task_struct, kernel stack, mm, page tables),
 * pipes with data in them (pipe_inode_info, pipe buffer pages), tmpfs
 * files of a few sizes (inode, dentry, page cache), UNIX socket pairs with
 * queued data (sock, skb; where the kernel has sockets), eventfds and
 * touched anonymous pages.  Each takes slab slots, vmalloc space and pages
 * that the workloads' own objects would otherwise get, so a different SEED
 * puts their task_structs, stacks and page tables elsewhere.  SEED 0 makes
 * nothing.  The same SEED makes the same series on every boot.  Prints
 *     layout seed=S children=N pipes=N files=N sockets=N eventfds=N pages=N
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "wl-util.h"

enum kind { CHILD, PIPE, FILE_, SOCKET, EVENTFD, PAGES, KINDS };

static const char *const kind_name[KINDS] = {
	"children", "pipes", "files", "sockets", "eventfds", "pages"
};

/* Enough steps that every kind's count varies by tens between seeds. */
#define STEPS_MIN	64
#define STEPS_SPAN	128

static uint64_t rng;

/* xorshift64*: small, and the same numbers from the same seed anywhere. */
static unsigned int rnd(unsigned int n)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (unsigned int)((rng * 0x2545f4914f6cdd1dULL) >> 32) % n;
}

static void fill(int fd, size_t len)
{
	static char buf[4096];

	while (len) {
		size_t n = len < sizeof(buf) ? len : sizeof(buf);

		write_all(fd, buf, n);
		len -= n;
	}
}

/* One allocation of the kind; 1 when made, 0 when the kernel lacks it. */
static int make(enum kind kind, int step)
{
	char name[64];
	int fds[2];
	char *p;
	pid_t pid;
	size_t n;

	switch (kind) {
	case CHILD:
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid)
			for (;;)
				pause();
		return 1;
	case PIPE:
		if (pipe(fds))
			die("pipe");
		fill(fds[1], 64 * (1 + rnd(64)));
		return 1;
	case FILE_:
		snprintf(name, sizeof(name), "/tmp/layout-%d", step);
		fds[0] = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fds[0] < 0)
			die("%s", name);
		fill(fds[0], 512 * (1 + rnd(24)));
		return 1;
	case SOCKET:
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds))
			return 0;	/* a kernel without CONFIG_UNIX */
		fill(fds[0], 128 * (1 + rnd(16)));
		return 1;
	case EVENTFD:
		if (eventfd(0, 0) < 0)
			die("eventfd");
		return 1;
	case PAGES:
		n = 4096 * (1 + rnd(8));
		p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			die("mmap");
		for (size_t i = 0; i < n; i += 4096)
			p[i] = 1;
		return 1;
	default:
		return 0;
	}
}

int main(int argc, char **argv)
{
	int made[KINDS] = { 0 }, ready[2], steps, i;
	long seed;
	char c = 0;
	pid_t pid;

	wl_name = "layout";
	if (argc != 2)
		usage_error("usage: layout SEED");
	seed = parse_long("SEED", argv[1], 0, 1000000);
	if (pipe(ready))
		die("pipe");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		/* The holder: its children are its own, never reaped. */
		signal(SIGCHLD, SIG_IGN);
		rng = 0x9e3779b97f4a7c15ULL * (uint64_t)(seed + 1);
		steps = seed ? STEPS_MIN + rnd(STEPS_SPAN) : 0;
		for (i = 0; i < steps; i++) {
			enum kind kind = rnd(KINDS);

			made[kind] += make(kind, i);
		}
		printf("layout seed=%ld", seed);
		for (i = 0; i < KINDS; i++)
			printf(" %s=%d", kind_name[i], made[i]);
		printf("\n");
		fflush(stdout);
		write_all(ready[1], &c, 1);
		for (;;)
			pause();
	}
	close(ready[1]);
	read_all(ready[0], &c, 1);
	return 0;
}
