/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The measurement marker shared by the guest workloads and the
 * kcolour-cachesim QEMU plugin.  A workload maps one page at
 * KCOLOUR_MARKER_ADDR; the plugin watches guest stores by virtual address:
 * a store to KCOLOUR_MARKER_ADDR + KCOLOUR_MARKER_START starts a counting
 * phase (counters reset), a store to + KCOLOUR_MARKER_STOP ends it and the
 * plugin keeps the phase's counts.  Stores elsewhere in the page (used to
 * fault it in) mean nothing.
 *
 * The page is MAP_SHARED so that fork() leaves it writable in the parent:
 * a private page would turn copy-on-write and the stop store would take a
 * page fault inside the measured window.
 */
#ifndef KCOLOUR_MARKER_H
#define KCOLOUR_MARKER_H

#define KCOLOUR_MARKER_ADDR	0x7e0000000000ULL
#define KCOLOUR_MARKER_START	0
#define KCOLOUR_MARKER_STOP	64
#define KCOLOUR_MARKER_TOUCH	128
#define KCOLOUR_MARKER_SIZE	4096

#ifndef KCOLOUR_MARKER_NO_GUEST

#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE	0x100000
#endif

static inline void kcolour_marker_store(unsigned int offset)
{
	*(volatile uint64_t *)(uintptr_t)(KCOLOUR_MARKER_ADDR + offset) = 1;
	__asm__ __volatile__("" ::: "memory");
}

/* Map and fault in the marker page.  0, or -1 with errno set. */
static inline int kcolour_marker_map(void)
{
	void *want = (void *)(uintptr_t)KCOLOUR_MARKER_ADDR;
	void *p = mmap(want, KCOLOUR_MARKER_SIZE, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	if (p != want) {	/* a kernel without MAP_FIXED_NOREPLACE */
		munmap(p, KCOLOUR_MARKER_SIZE);
		errno = EEXIST;
		return -1;
	}
	kcolour_marker_store(KCOLOUR_MARKER_TOUCH);
	return 0;
}

static inline void kcolour_marker_start(void)
{
	kcolour_marker_store(KCOLOUR_MARKER_START);
}

static inline void kcolour_marker_stop(void)
{
	kcolour_marker_store(KCOLOUR_MARKER_STOP);
}

#endif /* KCOLOUR_MARKER_NO_GUEST */
#endif /* KCOLOUR_MARKER_H */
