/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for the kernel's <kunit/visibility.h>: nothing is exported. */
#ifndef KCOLOUR_TOOLS_KUNIT_VISIBILITY_H
#define KCOLOUR_TOOLS_KUNIT_VISIBILITY_H

#define VISIBLE_IF_KUNIT static
#define EXPORT_SYMBOL_IF_KUNIT(symbol)

#endif /* KCOLOUR_TOOLS_KUNIT_VISIBILITY_H */
