/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for the kernel's <linux/export.h>: nothing is exported. */
#ifndef KCOLOUR_TOOLS_LINUX_EXPORT_H
#define KCOLOUR_TOOLS_LINUX_EXPORT_H

#endif
