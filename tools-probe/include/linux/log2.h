/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for the kernel's <linux/log2.h> (order_base_2 and
 * rounddown_pow_of_two only), with the kernel's meaning: n must not be 0
 * for rounddown_pow_of_two, and order_base_2(0) and (1) are 0.
 */
#ifndef KCOLOUR_TOOLS_LINUX_LOG2_H
#define KCOLOUR_TOOLS_LINUX_LOG2_H

static inline unsigned int kcolour_tools_ilog2(unsigned long long n)
{
	return 63 - __builtin_clzll(n);
}

#define order_base_2(n)		((n) > 1 ? kcolour_tools_ilog2((n) - 1) + 1 : 0)
#define rounddown_pow_of_two(n)	(1ULL << kcolour_tools_ilog2(n))

#endif
