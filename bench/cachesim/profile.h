/* SPDX-License-Identifier: GPL-2.0 */
/*
 * profile=: the instructions executed inside each phase per translation
 * block start address.  Each TB has a struct tb_prof (allocated by the
 * plugin at translation); the TBs counted in the current phase form the
 * touched list, which prof_flush() turns into the phase's records and
 * print_profile() writes, summed by pc.
 *
 * No QEMU dependency; tested by test-plugin.c.
 */
#ifndef KCOLOUR_CACHESIM_PROFILE_H
#define KCOLOUR_CACHESIM_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One translation block's profile counts in the current phase. */
struct tb_prof {
	uint64_t pc;
	uint64_t insns, execs;
	struct tb_prof *next;	/* touched list */
	int touched;
};

struct prof_rec {
	uint64_t pc, insns, execs;
};

/* A run of t's TB executed inside a phase: insns instructions, execs TB entries. */
void prof_add(struct tb_prof *t, uint64_t insns, uint64_t execs);

/* Drop the profile counts of a phase that is not kept. */
void prof_discard(void);

/*
 * Move the profile counts of the current phase into *prof, *nr records
 * (touched TBs only; malloc'ed, NULL if none).
 */
void prof_flush(struct prof_rec **prof, size_t *nr);

/*
 * A phase's profile to out, by pc (prof sorted in place): a vaddr
 * translated more than once (again after a flush, or in another process)
 * had a tb_prof per translation, summed into one line.
 */
void print_profile(FILE *out, size_t idx, struct prof_rec *prof, size_t nr);

#endif /* KCOLOUR_CACHESIM_PROFILE_H */
