/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for the kernel's <linux/string.h>: libc's. */
#ifndef KCOLOUR_TOOLS_LINUX_STRING_H
#define KCOLOUR_TOOLS_LINUX_STRING_H

#include <string.h>

#endif
