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
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE	0x100000
#endif

static inline void kcolour_marker_store(unsigned int offset)
{
	*(volatile uint64_t *)(uintptr_t)(KCOLOUR_MARKER_ADDR + offset) = 1;
	__asm__ __volatile__("" ::: "memory");
}

/*
 * Under `perf stat --control fifo:CTL,ACK -D -1` (make hw-check's guest,
 * hw/guest.sh) the window is perf's too: KCOLOUR_PERF_CTL and
 * KCOLOUR_PERF_ACK name the two FIFOs, and the counters are enabled just
 * before a window opens and disabled just after it closes.  Without them
 * (the simulator's runs) nothing more happens, and nothing inside a window.
 */
static int kcolour_perf_ctl = -1, kcolour_perf_ack = -1;

static inline void kcolour_perf_command(const char *cmd)
{
	char ack[16];

	if (kcolour_perf_ctl < 0)
		return;
	if (write(kcolour_perf_ctl, cmd, strlen(cmd)) < 0 ||
	    read(kcolour_perf_ack, ack, sizeof(ack)) <= 0) {
		close(kcolour_perf_ctl);
		close(kcolour_perf_ack);
		kcolour_perf_ctl = kcolour_perf_ack = -1;
	}
}

static inline void kcolour_perf_open(void)
{
	const char *ctl = getenv("KCOLOUR_PERF_CTL"), *ack = getenv("KCOLOUR_PERF_ACK");

	if (!ctl || !ack || kcolour_perf_ctl >= 0)
		return;
	kcolour_perf_ctl = open(ctl, O_WRONLY | O_CLOEXEC);
	kcolour_perf_ack = open(ack, O_RDONLY | O_CLOEXEC);
	if (kcolour_perf_ctl < 0 || kcolour_perf_ack < 0) {
		if (kcolour_perf_ctl >= 0)
			close(kcolour_perf_ctl);
		if (kcolour_perf_ack >= 0)
			close(kcolour_perf_ack);
		kcolour_perf_ctl = kcolour_perf_ack = -1;
	}
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
	kcolour_perf_open();
	return 0;
}

static inline void kcolour_marker_start(void)
{
	kcolour_perf_command("enable\n");
	kcolour_marker_store(KCOLOUR_MARKER_START);
}

static inline void kcolour_marker_stop(void)
{
	kcolour_marker_store(KCOLOUR_MARKER_STOP);
	kcolour_perf_command("disable\n");
}

#endif /* KCOLOUR_MARKER_NO_GUEST */
#endif /* KCOLOUR_MARKER_H */
