/* SPDX-License-Identifier: GPL-2.0 */
/*
 * profile=: the instructions executed inside each phase per translation
 * block start address, and the entries into each kernel-text TB from the
 * kernel-text TB a vCPU ran before it (a call ends its TB, so an entry at
 * a function's first byte names its caller).  Each TB has a struct tb_prof
 * (allocated by the plugin at translation); the TBs counted in the current
 * phase form the touched list, which prof_flush() turns into the phase's
 * records and print_profile() writes, summed by pc.
 *
 * No QEMU dependency; tested by test-plugin.c.
 */
#ifndef KCOLOUR_CACHESIM_PROFILE_H
#define KCOLOUR_CACHESIM_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct tb_prof;

/* Entries into a TB from one other TB, in the current phase. */
struct tb_entry {
	struct tb_prof *from;
	uint64_t count;
	struct tb_entry *next;
};

/* One translation block's profile counts in the current phase. */
struct tb_prof {
	uint64_t pc;
	uint64_t insns, execs;
	struct tb_entry *entries;	/* the most recent source first */
	struct tb_prof *next;	/* touched list */
	int touched;
	int text;		/* pc in the kernel text: entries are kept */
};

struct prof_rec {
	uint64_t pc, insns, execs;
};

struct entry_rec {
	uint64_t from, to, count;
};

/* A phase's profile: its touched TBs' counts and their entries. */
struct prof_phase {
	struct prof_rec *rec;
	size_t nr;
	struct entry_rec *entry;
	size_t nr_entries;
};

/*
 * A run of t's TB executed (insns instructions; tb_start: it starts the
 * TB) on a vCPU whose last TB started is *last, inside a phase or not
 * (counting): the counts and, at a TB's start, the entry from *last.
 */
void prof_exec(struct tb_prof *t, struct tb_prof **last, uint64_t insns, int tb_start,
	       int counting);

/* A run of t's TB executed inside a phase: insns instructions, execs TB entries. */
void prof_add(struct tb_prof *t, uint64_t insns, uint64_t execs);

/* Drop the profile counts of a phase that is not kept. */
void prof_discard(void);

/*
 * Move the profile counts of the current phase into *p (touched TBs only;
 * malloc'ed arrays, NULL if none).
 */
void prof_flush(struct prof_phase *p);

/* Free a phase's records, and with all the entry nodes at exit. */
void prof_phase_free(struct prof_phase *p);
void prof_free_entries(void);

/*
 * A phase's profile to out, by pc (sorted in place), then its entries by
 * target and source: a vaddr translated more than once (again after a
 * flush, or in another process) had a tb_prof per translation, summed
 * into one line.
 */
void print_profile(FILE *out, size_t idx, struct prof_phase *p);

#endif /* KCOLOUR_CACHESIM_PROFILE_H */
