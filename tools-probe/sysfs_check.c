// SPDX-License-Identifier: GPL-2.0
/*
 * Cross-check against /sys/devices/system/cpu/cpuN/cache/index*.
 *
 * Hypervisors often pass through inconsistent CPUID, and Linux 6.12 itself
 * decodes some legacy AMD L1 caches wrongly, so a disagreement is reported,
 * not resolved: the user decides which side to believe.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sysfs_check.h"

struct sysfs_cache {
	unsigned long level, size, ways, line, sets;
	unsigned int type;
	unsigned int index;
};

static const char * const sysfs_type_names[] = {
	[KCOLOUR_CACHE_DATA] = "Data",
	[KCOLOUR_CACHE_INST] = "Instruction",
	[KCOLOUR_CACHE_UNIFIED] = "Unified",
};

static void mismatch(struct sysfs_report *r, const char *fmt, ...)
{
	va_list ap;

	if (r->nr >= SYSFS_MAX_MISMATCHES)
		return;
	va_start(ap, fmt);
	vsnprintf(r->mismatch[r->nr++], SYSFS_MISMATCH_LEN, fmt, ap);
	va_end(ap);
}

/* Reads one small attribute file; returns 0 or -1 if absent. */
static int read_attr(const char *dir, const char *name, char *buf, size_t len)
{
	char path[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* Parses "123", or "123K" / "4M" for the size attribute, into @out. */
static int parse_num(const char *s, unsigned long *out, int sized)
{
	unsigned long scale = 1;
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	if (end == s || errno)
		return -1;
	if (sized && *end == 'K')
		scale = 1024, end++;
	else if (sized && *end == 'M')
		scale = 1024 * 1024, end++;
	if (*end)
		return -1;
	*out *= scale;
	return 0;
}

static int read_index(const char *dir, struct sysfs_cache *c, char *err, size_t errlen)
{
	static const struct { const char *name; int sized; size_t off; } attrs[] = {
		{ "level", 0, offsetof(struct sysfs_cache, level) },
		{ "size", 1, offsetof(struct sysfs_cache, size) },
		{ "ways_of_associativity", 0, offsetof(struct sysfs_cache, ways) },
		{ "coherency_line_size", 0, offsetof(struct sysfs_cache, line) },
		{ "number_of_sets", 0, offsetof(struct sysfs_cache, sets) },
	};
	char buf[64];
	size_t i;

	for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		unsigned long *field = (unsigned long *)((char *)c + attrs[i].off);

		if (read_attr(dir, attrs[i].name, buf, sizeof(buf)) ||
		    parse_num(buf, field, attrs[i].sized)) {
			snprintf(err, errlen, "%s/%s: missing or not a number", dir, attrs[i].name);
			return -1;
		}
	}
	if (read_attr(dir, "type", buf, sizeof(buf))) {
		snprintf(err, errlen, "%s/type: missing", dir);
		return -1;
	}
	c->type = KCOLOUR_CACHE_NONE;
	for (i = 0; i < sizeof(sysfs_type_names) / sizeof(sysfs_type_names[0]); i++)
		if (sysfs_type_names[i] && !strcmp(buf, sysfs_type_names[i]))
			c->type = i;
	return 0;
}

static void compare_one(struct sysfs_report *r, const struct kcolour_cache *k,
			const struct sysfs_cache *s)
{
	const struct { const char *what; unsigned long cpuid, sysfs; } fields[] = {
		{ "size", k->size, s->size },
		{ "ways", k->ways, s->ways },
		{ "line", k->line, s->line },
		{ "sets", k->sets, s->sets },
	};
	size_t i;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (fields[i].cpuid == fields[i].sysfs)
			continue;
		/* Linux shows a fully associative cache with its real way count. */
		if (!k->ways && !strcmp(fields[i].what, "ways"))
			continue;
		mismatch(r, "L%u %s %s: CPUID %lu (%s), sysfs %lu (index%u)", k->level,
			 kcolour_type_name(k->type), fields[i].what, fields[i].cpuid,
			 kcolour_source_name(k->source), fields[i].sysfs, s->index);
	}
}

static int index_number(const char *name, unsigned int *n)
{
	char *end;

	if (strncmp(name, "index", 5) || !name[5])
		return -1;
	*n = strtoul(name + 5, &end, 10);
	return *end ? -1 : 0;
}

int sysfs_check(const char *root, unsigned int cpu, const struct kcolour_geom *g,
		struct sysfs_report *r, char *err, size_t errlen)
{
	unsigned int seen[KCOLOUR_MAX_CACHES] = { 0 };
	struct sysfs_cache s;
	struct dirent *de;
	char dir[600];
	DIR *d;
	int i;

	memset(r, 0, sizeof(*r));
	snprintf(r->dir, sizeof(r->dir), "%s/devices/system/cpu/cpu%u/cache", root, cpu);
	d = opendir(r->dir);
	if (!d)
		return 0;
	r->available = 1;
	while ((de = readdir(d))) {
		const struct kcolour_cache *k = NULL;

		if (index_number(de->d_name, &s.index))
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", r->dir, de->d_name);
		if (read_index(dir, &s, err, errlen)) {
			closedir(d);
			return -1;
		}
		r->indexes++;
		for (i = 0; i < g->nr && !k; i++)
			if (g->cache[i].level == s.level && g->cache[i].type == s.type)
				k = &g->cache[i], seen[i] = 1;
		if (k)
			compare_one(r, k, &s);
		else
			mismatch(r, "L%lu %s (index%u): in sysfs, not in CPUID", s.level,
				 s.type ? kcolour_type_name(s.type) : "unknown-type", s.index);
	}
	closedir(d);
	for (i = 0; i < g->nr; i++)
		if (!seen[i] && g->cache[i].type != KCOLOUR_CACHE_TRACE)
			mismatch(r, "L%u %s: in CPUID (%s), not in sysfs", g->cache[i].level,
				 kcolour_type_name(g->cache[i].type),
				 kcolour_source_name(g->cache[i].source));
	return 0;
}
