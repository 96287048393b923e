/* SPDX-License-Identifier: GPL-2.0 */
/* Cross-check a decoded geometry against Linux's cacheinfo in sysfs. */
#ifndef KCOLOUR_SYSFS_CHECK_H
#define KCOLOUR_SYSFS_CHECK_H

#include <asm/kcolour_geom.h>

#define SYSFS_MAX_MISMATCHES	16
#define SYSFS_MISMATCH_LEN	160

struct sysfs_report {
	int available;		/* 0: no cache directory under the root */
	char dir[256];		/* the directory read */
	unsigned int indexes;	/* index* entries read */
	unsigned int nr;	/* mismatches */
	char mismatch[SYSFS_MAX_MISMATCHES][SYSFS_MISMATCH_LEN];
};

/*
 * Compares CPU @cpu's caches under ROOT (normally "/sys") with @g.  Returns 0
 * when it could read the tree (the report says whether they agree), -1 with
 * a message in @err when an entry exists but cannot be parsed.
 */
int sysfs_check(const char *root, unsigned int cpu, const struct kcolour_geom *g,
		struct sysfs_report *r, char *err, size_t errlen);

#endif
