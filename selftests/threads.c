// SPDX-License-Identifier: GPL-2.0
/*
 * threads N: start N threads that sleep, print "threads: N live" and sleep
 * until killed; the guest of selftests/reliability.py measures the kernel's
 * memory (/proc/meminfo, /proc/slabinfo) with them alive.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *sleeper(void *unused)
{
	(void)unused;
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	long i, n = argc == 2 ? strtol(argv[1], NULL, 10) : 0;
	pthread_attr_t attr;
	pthread_t tid;
	int err;

	if (n <= 0) {
		fprintf(stderr, "usage: threads N (N > 0)\n");
		return 2;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; i < n; i++) {
		err = pthread_create(&tid, &attr, sleeper, NULL);
		if (err) {
			fprintf(stderr, "threads: thread %ld of %ld: %s\n", i + 1, n, strerror(err));
			return 1;
		}
	}
	printf("threads: %ld live\n", n);
	fflush(stdout);
	for (;;)
		pause();
}
