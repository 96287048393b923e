// SPDX-License-Identifier: GPL-2.0
/*
 * kcolour cache geometry: a CPU's caches -> colouring parameters.  Shared
 * byte for byte by the kernel and kcolour-probe; see asm/kcolour_geom.h for
 * the rules this file lives by.
 */
#include <linux/array_size.h>
#include <linux/export.h>
#include <linux/log2.h>
#include <linux/string.h>
#include <kunit/visibility.h>
#include <asm/kcolour_geom.h>

/**
 * kcolour_check_cache - check a cache's geometry, and complete it
 * @c: level, type, size, ways (0: fully associative) and line set; sets
 *     set, or 0 to derive it from the others
 *
 * Whatever the geometry's source, CPUID supplied it: a zero line or way
 * count must not reach a division, and a size that wrapped must not pass
 * for a cache.  A trace cache has no sets and no line, and is kept as it is.
 *
 * Return: true if @c describes a cache that can exist.
 */
bool kcolour_check_cache(struct kcolour_cache *c)
{
	u64 per_set;

	if (c->type == KCOLOUR_CACHE_TRACE)
		return true;
	if (!c->size || !c->line || c->line > KCOLOUR_MAX_LINE || c->level < 1 ||
	    c->level > 4 || (c->ways && c->ways > c->size / c->line))
		return false;
	per_set = (u64)(c->ways ? c->ways : c->size / c->line) * c->line;
	if (!c->ways)
		c->sets = 1;
	else if (!c->sets)
		c->sets = c->size / per_set;
	return c->sets && per_set * c->sets <= c->size;
}

/**
 * kcolour_find - the cache stack colouring can target at @level
 * @g: the CPU's caches
 * @level: 1 for the L1 data cache, 2 or more for the unified (or data) cache
 *
 * Return: the cache, or NULL if the CPU described none.
 */
const struct kcolour_cache *kcolour_find(const struct kcolour_geom *g, u8 level)
{
	int i;

	for (i = 0; i < g->nr; i++) {
		const struct kcolour_cache *c = &g->cache[i];

		if (c->level == level &&
		    (c->type == KCOLOUR_CACHE_DATA || c->type == KCOLOUR_CACHE_UNIFIED))
			return c;
	}
	return NULL;
}

/* A cache colouring can help: set-associative, and more than one set. */
static bool kcolour_colourable(const struct kcolour_cache *c)
{
	return c && c->ways && c->line && c->sets > 1;
}

/**
 * kcolour_pick_level - the level "auto" targets
 * @g: the CPU's caches
 *
 * The L1D, because its way is (nearly always) the page size, so that every
 * stack top lands in the same sets; else the L2.
 *
 * Return: 1, 2, or 0 when neither can be coloured.
 */
u8 kcolour_pick_level(const struct kcolour_geom *g)
{
	if (kcolour_colourable(kcolour_find(g, 1)))
		return 1;
	if (kcolour_colourable(kcolour_find(g, 2)))
		return 2;
	return 0;
}

/* Bytes of one way: the address span that maps onto every set once. */
u32 kcolour_way_size(const struct kcolour_cache *c)
{
	if (!kcolour_colourable(c))
		return 0;
	return c->size / c->ways;
}

/**
 * kcolour_gains - whether colouring stack tops in @c lowers its misses
 * @c: a colourable cache
 *
 * Measured for L1Ds only (see KCOLOUR_GAIN_MAX_WAYS): an L2 is coloured only
 * when asked for, and then as asked.
 *
 * Return: false for an L1D of more than KCOLOUR_GAIN_MAX_WAYS ways or a way
 * smaller than KCOLOUR_GAIN_MIN_WAY_SIZE, else true.
 */
bool kcolour_gains(const struct kcolour_cache *c)
{
	return c->level != 1 || (c->ways <= KCOLOUR_GAIN_MAX_WAYS &&
				 kcolour_way_size(c) >= KCOLOUR_GAIN_MIN_WAY_SIZE);
}
EXPORT_SYMBOL_IF_KUNIT(kcolour_gains);

/*
 * STACK_SHIFT_BITS: offset bits + index bits, i.e. log2 of the way size,
 * rounded up for odd set counts.  Taken from the way size so that sectored
 * caches (leaf 4 "physical line partitions" > 1) index above the sector.
 */
u8 kcolour_shift_bits(const struct kcolour_cache *c)
{
	if (!kcolour_colourable(c))
		return 0;
	return order_base_2(kcolour_way_size(c));
}

static u32 kcolour_round_step(u32 step)
{
	step = (step + KCOLOUR_MIN_STEP - 1) / KCOLOUR_MIN_STEP * KCOLOUR_MIN_STEP;
	return step > KCOLOUR_MAX_STEP ? KCOLOUR_MAX_STEP : step;
}

/**
 * kcolour_derive - colouring parameters for cache @c
 * @c: target cache, or NULL for none
 * @p: in: policy, max_offset, and optional shift, colours, step overrides
 *     (0 = derive); out: every field
 *
 * The colour count spreads the stacks over one way of @c, capped by the
 * offset budget: min(way / step, max_offset / step + 1), rounded down to a
 * power of two for the addr policy (a mask) and to an odd number for mod.
 * A cache that cannot be coloured gives one colour, and so does one where
 * colouring gains nothing (kcolour_gains()) unless the shift or the colour
 * count is given.
 *
 * Return: 0, or -1 if the result is "no colouring" because @c is absent,
 * fully associative or gains nothing, and no override asks otherwise.
 */
int kcolour_derive(const struct kcolour_cache *c, struct kcolour_params *p)
{
	u32 line = kcolour_colourable(c) ? c->line : 0;
	bool asked = p->shift || p->colours;
	u32 step, spread, colours, budget;

	if (p->max_offset > KCOLOUR_MAX_OFFSET_LIMIT)
		p->max_offset = KCOLOUR_MAX_OFFSET_LIMIT;
	if (!p->shift)
		p->shift = kcolour_shift_bits(c);
	step = kcolour_round_step(p->step ? p->step : (line > KCOLOUR_MIN_STEP ? line : 0));
	if (!step)
		step = KCOLOUR_MIN_STEP;
	p->step = step;

	if (!p->shift || (!asked && !kcolour_gains(c))) {
		p->colours = 1;
		return -1;
	}
	spread = p->shift < 31 ? 1U << p->shift : 1U << 31;
	budget = p->max_offset / step + 1;
	colours = p->colours ? p->colours : spread / step;
	if (colours > budget)
		colours = budget;
	if (colours > KCOLOUR_MAX_COLOURS)
		colours = KCOLOUR_MAX_COLOURS;
	if (!colours)
		colours = 1;
	if (p->policy == KCOLOUR_POLICY_ADDR)
		colours = rounddown_pow_of_two(colours);
	else if (p->policy == KCOLOUR_POLICY_MOD && !(colours & 1))
		colours--;
	p->colours = colours;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(kcolour_derive);

/**
 * kcolour_recommend - colouring parameters for a CPU's caches
 * @g: the CPU's caches
 * @p: in: level (0 = auto), policy, max_offset, and optional shift, colours
 *     and step overrides (0 = derive); out: every field
 *
 * Without a cache to colour (no cache information, or only fully associative
 * caches) and without a shift override, the shift falls back to
 * KCOLOUR_FALLBACK_SHIFT: every x86 L1D from the P6 to today's 48 KiB 12-way
 * parts has a 4 KiB way, except a few with a 32 KiB one, so spreading stack
 * tops over one page is right or harmless everywhere.
 *
 * Return: 0 when the parameters come from the geometry (or overrides), 1 when
 * the fallback was used.
 */
int kcolour_recommend(const struct kcolour_geom *g, struct kcolour_params *p)
{
	const struct kcolour_cache *c;
	int fallback = 0;

	if (!p->level)
		p->level = kcolour_pick_level(g);
	c = kcolour_find(g, p->level);
	if (!kcolour_colourable(c) && !p->shift) {
		p->shift = KCOLOUR_FALLBACK_SHIFT;
		fallback = 1;
	}
	kcolour_derive(c, p);
	return fallback;
}
EXPORT_SYMBOL_IF_KUNIT(kcolour_recommend);

/**
 * kcolour_addr_colour - the colour the addr and mod policies give @addr
 * @p: derived parameters
 * @addr: the address the policy reads (virtual for L1, physical for L2)
 *
 * Only bits above the shift may choose the colour: two stacks whose bits
 * below it differ already use different sets, and two that collide have equal
 * bits there, so colouring from those bits would move both the same way.
 *
 * Return: the colour, below @p->colours (0 when there is only one).
 */
u16 kcolour_addr_colour(const struct kcolour_params *p, u64 addr)
{
	u64 above = addr >> p->shift;

	if (p->colours <= 1)
		return 0;
	if (p->policy == KCOLOUR_POLICY_MOD)
		return above % p->colours;
	return above & (p->colours - 1);
}

static const char * const kcolour_type_names[] = {
	[KCOLOUR_CACHE_NONE] = "none",
	[KCOLOUR_CACHE_DATA] = "data",
	[KCOLOUR_CACHE_INST] = "instruction",
	[KCOLOUR_CACHE_UNIFIED] = "unified",
	[KCOLOUR_CACHE_TRACE] = "trace",
};

static const char * const kcolour_source_names[] = {
	[KCOLOUR_SRC_NONE] = "none",
	[KCOLOUR_SRC_CACHEINFO] = "cacheinfo",
	[KCOLOUR_SRC_LEAF4] = "leaf4",
	[KCOLOUR_SRC_LEAF2] = "leaf2",
	[KCOLOUR_SRC_AMD_1D] = "0x8000001d",
	[KCOLOUR_SRC_AMD_L1] = "0x80000005",
	[KCOLOUR_SRC_AMD_L2L3] = "0x80000006",
};

static const char * const kcolour_policy_names[] = {
	[KCOLOUR_POLICY_ADDR] = "addr",
	[KCOLOUR_POLICY_MOD] = "mod",
	[KCOLOUR_POLICY_RR] = "rr",
	[KCOLOUR_POLICY_BALANCED] = "balanced",
};

static const char *kcolour_name(const char * const *names, unsigned int nr, unsigned int i)
{
	return i < nr && names[i] ? names[i] : "unknown";
}

const char *kcolour_type_name(u8 type)
{
	return kcolour_name(kcolour_type_names, ARRAY_SIZE(kcolour_type_names), type);
}

const char *kcolour_source_name(u8 source)
{
	return kcolour_name(kcolour_source_names, ARRAY_SIZE(kcolour_source_names), source);
}

const char *kcolour_policy_name(u8 policy)
{
	return kcolour_name(kcolour_policy_names, ARRAY_SIZE(kcolour_policy_names), policy);
}

/* Return: the enum kcolour_policy named @s, or -1. */
int kcolour_policy_parse(const char *s)
{
	int i;

	for (i = 0; i < KCOLOUR_NR_POLICIES; i++)
		if (!strcmp(s, kcolour_policy_names[i]))
			return i;
	return -1;
}
