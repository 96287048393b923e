/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by the kcolour guest workloads: die, argument and I/O checks. */
#ifndef KCOLOUR_WL_UTIL_H
#define KCOLOUR_WL_UTIL_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *wl_name = "workload";

static inline void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	fprintf(stderr, "%s: ", wl_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err));
	exit(1);
}

static inline void __attribute__((noreturn, format(printf, 1, 2))) usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", wl_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* A decimal argument in [min, max]. */
static inline long parse_long(const char *what, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		usage_error("%s must be an integer in %ld..%ld, not '%s'", what, min, max, s);
	return v;
}

/* Write or read exactly len bytes; a short read (EOF) is an error. */
static inline void write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("write fd %d", fd);
		p += n;
		len -= n;
	}
}

static inline void read_all(int fd, void *buf, size_t len)
{
	char *p = buf;
	ssize_t n;

	while (len) {
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			errno = EPIPE;
		if (n <= 0)
			die("read fd %d", fd);
		p += n;
		len -= n;
	}
}

/*
 * The system-wide context-switch count (the "ctxt" line of /proc/stat).
 * Read just outside the marker window, the difference of two readings is
 * the number of switches inside it: the denominator for per-switch figures
 * of loads whose switch count is not known in advance.
 */
static inline long long wl_ctxt(void)
{
	long long ctxt = -1;
	char line[256];
	FILE *f = fopen("/proc/stat", "r");

	if (!f)
		die("/proc/stat");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "ctxt %lld", &ctxt) == 1)
			break;
	fclose(f);
	if (ctxt < 0) {
		errno = ENOENT;
		die("no ctxt line in /proc/stat");
	}
	return ctxt;
}

/* Wait for pid and require a clean exit(0). */
static inline void reap(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid %d", (int)pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		errno = ECHILD;
		die("child %d ended with status 0x%x", (int)pid, status);
	}
}

#endif /* KCOLOUR_WL_UTIL_H */
