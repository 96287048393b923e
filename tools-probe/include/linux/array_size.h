/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for the kernel's <linux/array_size.h>. */
#ifndef KCOLOUR_TOOLS_LINUX_ARRAY_SIZE_H
#define KCOLOUR_TOOLS_LINUX_ARRAY_SIZE_H

#define ARRAY_SIZE(arr)		(sizeof(arr) / sizeof((arr)[0]))

#endif
