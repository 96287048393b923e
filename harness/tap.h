/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP output for the C unit tests (harness/tap.py and tap.sh are Python's
 * and the shell's): ok(cond, fmt, ...) prints one test line and returns
 * cond; tap_skip(reason, fmt, ...) a test that cannot run here ("# SKIP");
 * tap_end() the plan, and returns the exit status (1 on any failure).
 */
#ifndef KCOLOUR_HARNESS_TAP_H
#define KCOLOUR_HARNESS_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tests, failures;

static int __attribute__((format(printf, 2, 3))) ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tests++;
	if (!cond)
		failures++;
	printf("%sok %d - ", cond ? "" : "not ", tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return cond;
}

static void __attribute__((format(printf, 2, 3), unused))
tap_skip(const char *reason, const char *fmt, ...)
{
	va_list ap;

	printf("ok %d - ", ++tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" # SKIP %s\n", reason);
}

static int tap_end(void)
{
	printf("1..%d\n", tests);
	return failures ? 1 : 0;
}

#endif /* KCOLOUR_HARNESS_TAP_H */
