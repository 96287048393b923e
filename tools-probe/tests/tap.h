/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP output for the C unit tests: ok(cond, fmt, ...) prints one test line,
 * tap_end() the plan, and returns the exit status (1 on any failure).
 */
#ifndef KCOLOUR_TESTS_TAP_H
#define KCOLOUR_TESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tests, failures;

static void __attribute__((format(printf, 2, 3))) ok(int cond, const char *fmt, ...)
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
}

static int tap_end(void)
{
	printf("1..%d\n", tests);
	return failures ? 1 : 0;
}

#endif /* KCOLOUR_TESTS_TAP_H */
