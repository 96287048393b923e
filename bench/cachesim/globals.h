/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The plugin's global state, all of it.  QEMU calls the plugin back with
 * a vCPU index and at most one pointer of the plugin's own (for a
 * translation block's runs), so what every callback needs lives here:
 *
 *   opt     the arguments (options.h): written by options_parse() at
 *           install, read-only after it;
 *   caches  every vCPU's cache hierarchy and the kernel image's
 *           host-to-RAM calibration (hierarchy.h), owned by hierarchy.c;
 *   sim     the phases, their counts and the output streams (run.h),
 *           owned by run.c, which opens and closes phases on the guest's
 *           marker stores and hands the counting phase down.
 *
 * File-static, each beside the only code that uses it: the arena of
 * translation-time data (kcolour-cachesim.c), the touched-TB list and
 * entry chunks of profile= (profile.c), and the L2 extras' page colours
 * (hierarchy.c).
 *
 * Nothing is locked: QEMU runs every vCPU's callbacks on one thread
 * (qemu_plugin_install() makes sure of it).
 */
#ifndef KCOLOUR_CACHESIM_GLOBALS_H
#define KCOLOUR_CACHESIM_GLOBALS_H

struct options;
struct caches;
struct sim;

extern struct options opt;
extern struct caches caches;
extern struct sim sim;

#endif /* KCOLOUR_CACHESIM_GLOBALS_H */
