/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Small definitions every capuns program uses (in the manner of
 * util-linux's include/c.h).
 */
#ifndef CAPUNS_COMMON_C_H
#define CAPUNS_COMMON_C_H

/* 0, or a compile error when e is true (a negative bit-field width). */
#define BUILD_BUG_ON_ZERO(e) __extension__(sizeof(struct { int : -!!(e); }))

/* Elements of an array; a pointer, whose size says nothing, does not compile. */
#define ARRAY_SIZE(a) \
	(sizeof(a) / sizeof((a)[0]) + \
	 BUILD_BUG_ON_ZERO(__builtin_types_compatible_p(__typeof__(a), __typeof__(&(a)[0]))))

#endif /* CAPUNS_COMMON_C_H */
