/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Minimal TAP output for the C unit tests of the userspace. */
#ifndef CAPUNS_LIB_TAP_H
#define CAPUNS_LIB_TAP_H

#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

#define TAP_OK(cond, ...)                                                   \
	do {                                                                \
		int ok_ = !!(cond);                                         \
		printf("%sok %d - ", ok_ ? "" : "not ", ++tap_n);           \
		printf(__VA_ARGS__);                                        \
		printf("\n");                                               \
		if (!ok_) {                                                 \
			tap_failed++;                                       \
			printf("#   failed: %s (%s:%d)\n", #cond, __FILE__, \
			       __LINE__);                                   \
		}                                                           \
		fflush(stdout);                                             \
	} while (0)

#define TAP_EQ_INT(got, want, ...)                                          \
	do {                                                                \
		long long g_ = (got), w_ = (want);                          \
		TAP_OK(g_ == w_, __VA_ARGS__);                              \
		if (g_ != w_)                                               \
			printf("#   got %lld, want %lld\n", g_, w_);        \
	} while (0)

#define TAP_EQ_STR(got, want, ...)                                          \
	do {                                                                \
		const char *g_ = (got), *w_ = (want);                       \
		int e_ = g_ && w_ && strcmp(g_, w_) == 0;                   \
		TAP_OK(e_, __VA_ARGS__);                                    \
		if (!e_)                                                    \
			printf("#   got '%s', want '%s'\n", g_ ? g_ : "(null)", \
			       w_ ? w_ : "(null)");                         \
	} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
