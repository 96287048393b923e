// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: any bytes through the dump parser and its completeness
 * check, then whatever parsed through the decoder and the derivation for
 * every policy and level.  The first byte picks the CPU block, so multi-CPU
 * parsing is reached too.
 */
#include <stddef.h>
#include <stdint.h>

#include <asm/kcolour_geom.h>
#include <kcolour_decode.h>
#include "cpuid_dump.h"

static struct cpuid_dump dump;

static void cpuid_from_dump(void *ctx, u32 leaf, u32 subleaf, u32 *r)
{
	cpuid_dump_query(ctx, leaf, subleaf, r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct kcolour_cpu cpu;
	char err[256];
	int policy, level;

	if (!len)
		return 0;
	if (cpuid_dump_parse((const char *)data + 1, len - 1, data[0] % 4, &dump, err, sizeof(err)))
		return 0;
	/* The probe refuses an incomplete block; decode it anyway, for the decoder's sake. */
	cpuid_dump_check(&dump, "<fuzz>", data[0] % 4, err, sizeof(err));
	kcolour_decode(&cpu, cpuid_from_dump, &dump);
	for (policy = 0; policy < KCOLOUR_NR_POLICIES; policy++) {
		for (level = 0; level <= 2; level++) {
			struct kcolour_params p = { .policy = policy, .level = level,
						    .max_offset = KCOLOUR_DEFAULT_MAX_OFFSET };

			kcolour_recommend(&cpu.geom, &p);
			if (p.colours < 1 || p.step % KCOLOUR_MIN_STEP ||
			    (u32)(p.colours - 1) * p.step > p.max_offset)
				__builtin_trap();
			kcolour_addr_colour(&p, 0xffffc90000abc000ULL);
		}
	}
	return 0;
}
