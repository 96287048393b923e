/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for the kernel's <linux/bits.h> (BIT and GENMASK only). */
#ifndef KCOLOUR_TOOLS_LINUX_BITS_H
#define KCOLOUR_TOOLS_LINUX_BITS_H

#define BIT(nr)			(1UL << (nr))
#define BIT_ULL(nr)		(1ULL << (nr))
#define GENMASK(h, l)		(((~0UL) << (l)) & (~0UL >> (63 - (h))))

#endif
