// SPDX-License-Identifier: GPL-2.0
/*
 * The instruction profile: see profile.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "profile.h"

/* TBs counted in the current phase. */
static struct tb_prof *touched;

/* Entry nodes, in chunks kept until exit: a TB's list is reused phase to phase. */
#define ENTRY_CHUNK	4096
struct entry_chunk {
	struct entry_chunk *next;
	size_t used;
	struct tb_entry e[ENTRY_CHUNK];
};
static struct entry_chunk *entry_chunks;

static void *must(void *p)
{
	if (!p) {
		fprintf(stderr, "kcolour-cachesim: out of memory for the profile\n");
		exit(1);
	}
	return p;
}

static void touch(struct tb_prof *t)
{
	if (!t->touched) {
		t->touched = 1;
		t->next = touched;
		touched = t;
	}
}

void prof_add(struct tb_prof *t, uint64_t insns, uint64_t execs)
{
	touch(t);
	t->insns += insns;
	t->execs += execs;
}

/* t entered from the TB before it, inside a phase: kept where both are kernel text. */
static void prof_enter(struct tb_prof *t, struct tb_prof *from)
{
	struct tb_entry **pp, *e;

	if (!t->text || !from->text)
		return;
	for (pp = &t->entries; (e = *pp); pp = &e->next)
		if (e->from == from)
			break;
	if (e) {
		*pp = e->next;
	} else {
		if (!entry_chunks || entry_chunks->used == ENTRY_CHUNK) {
			struct entry_chunk *ch = must(malloc(sizeof(*ch)));

			ch->next = entry_chunks;
			ch->used = 0;
			entry_chunks = ch;
		}
		e = &entry_chunks->e[entry_chunks->used++];
		e->from = from;
		e->count = 0;
	}
	/* To the front: a call site repeats. */
	e->next = t->entries;
	t->entries = e;
	e->count++;
	touch(t);
}

void prof_exec(struct tb_prof *t, struct tb_prof **last, uint64_t insns, int tb_start,
	       int counting)
{
	if (tb_start) {
		if (counting && *last)
			prof_enter(t, *last);
		*last = t;
	}
	if (counting)
		prof_add(t, insns, tb_start);
}

static void zero(struct tb_prof *t)
{
	struct tb_entry *e;

	t->insns = t->execs = 0;
	t->touched = 0;
	for (e = t->entries; e; e = e->next)
		e->count = 0;
}

void prof_discard(void)
{
	struct tb_prof *t;

	while ((t = touched)) {
		touched = t->next;
		zero(t);
	}
}

void prof_flush(struct prof_phase *p)
{
	struct tb_prof *t;
	struct tb_entry *e;
	size_t n = 0, k = 0;

	for (t = touched; t; t = t->next) {
		n++;
		for (e = t->entries; e; e = e->next)
			k += !!e->count;
	}
	p->rec = n ? must(malloc(n * sizeof(*p->rec))) : NULL;
	p->entry = k ? must(malloc(k * sizeof(*p->entry))) : NULL;
	p->nr = n;
	p->nr_entries = k;
	for (n = k = 0, t = touched; t; t = t->next, n++) {
		p->rec[n].pc = t->pc;
		p->rec[n].insns = t->insns;
		p->rec[n].execs = t->execs;
		for (e = t->entries; e; e = e->next)
			if (e->count)
				p->entry[k++] = (struct entry_rec){ e->from->pc, t->pc, e->count };
	}
	prof_discard();
}

void prof_phase_free(struct prof_phase *p)
{
	free(p->rec);
	free(p->entry);
	p->rec = NULL;
	p->entry = NULL;
	p->nr = p->nr_entries = 0;
}

void prof_free_entries(void)
{
	struct entry_chunk *ch;

	while ((ch = entry_chunks)) {
		entry_chunks = ch->next;
		free(ch);
	}
}

static int prof_cmp(const void *a, const void *b)
{
	const struct prof_rec *x = a, *y = b;

	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct entry_rec *x = a, *y = b;

	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

void print_profile(FILE *out, size_t idx, struct prof_phase *p)
{
	size_t i, j;

	if (p->nr)
		qsort(p->rec, p->nr, sizeof(*p->rec), prof_cmp);
	for (i = 0; i < p->nr; i = j) {
		struct prof_rec sum = p->rec[i];

		for (j = i + 1; j < p->nr && p->rec[j].pc == sum.pc; j++) {
			sum.insns += p->rec[j].insns;
			sum.execs += p->rec[j].execs;
		}
		fprintf(out, "profile phase=%zu pc=0x%016" PRIx64 " insns=%" PRIu64
			" execs=%" PRIu64 "\n", idx, sum.pc, sum.insns, sum.execs);
	}
	if (p->nr_entries)
		qsort(p->entry, p->nr_entries, sizeof(*p->entry), entry_cmp);
	for (i = 0; i < p->nr_entries; i = j) {
		struct entry_rec sum = p->entry[i];

		for (j = i + 1; j < p->nr_entries && p->entry[j].to == sum.to &&
		     p->entry[j].from == sum.from; j++)
			sum.count += p->entry[j].count;
		fprintf(out, "entry phase=%zu from=0x%016" PRIx64 " to=0x%016" PRIx64
			" count=%" PRIu64 "\n", idx, sum.from, sum.to, sum.count);
	}
}
