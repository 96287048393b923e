/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for the kernel's <linux/types.h>, so that the shared
 * derivation (asm/kcolour_geom.h, lib/kcolour_geom.c) compiles unchanged in
 * kcolour-probe.  Like the kernel's tools/include/linux/types.h.
 */
#ifndef KCOLOUR_TOOLS_LINUX_TYPES_H
#define KCOLOUR_TOOLS_LINUX_TYPES_H

/* The system header first: libc's own headers rely on its __u32 and kin. */
#include_next <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;

#endif
