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

void prof_add(struct tb_prof *t, uint64_t insns, uint64_t execs)
{
	if (!t->touched) {
		t->touched = 1;
		t->next = touched;
		touched = t;
	}
	t->insns += insns;
	t->execs += execs;
}

void prof_discard(void)
{
	struct tb_prof *t;

	while ((t = touched)) {
		touched = t->next;
		t->insns = t->execs = 0;
		t->touched = 0;
	}
}

void prof_flush(struct prof_rec **prof, size_t *nr)
{
	struct tb_prof *t;
	size_t n = 0;

	for (t = touched; t; t = t->next)
		n++;
	*prof = n ? malloc(n * sizeof(**prof)) : NULL;
	if (n && !*prof) {
		fprintf(stderr, "kcolour-cachesim: out of memory for the profile\n");
		exit(1);
	}
	*nr = n;
	for (n = 0, t = touched; t; t = t->next, n++) {
		(*prof)[n].pc = t->pc;
		(*prof)[n].insns = t->insns;
		(*prof)[n].execs = t->execs;
	}
	prof_discard();
}

static int prof_cmp(const void *a, const void *b)
{
	const struct prof_rec *x = a, *y = b;

	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

void print_profile(FILE *out, size_t idx, struct prof_rec *prof, size_t nr)
{
	size_t i, j;

	qsort(prof, nr, sizeof(*prof), prof_cmp);
	for (i = 0; i < nr; i = j) {
		struct prof_rec sum = prof[i];

		for (j = i + 1; j < nr && prof[j].pc == sum.pc; j++) {
			sum.insns += prof[j].insns;
			sum.execs += prof[j].execs;
		}
		fprintf(out, "profile phase=%zu pc=0x%016" PRIx64 " insns=%" PRIu64
			" execs=%" PRIu64 "\n", idx, sum.pc, sum.insns, sum.execs);
	}
}
