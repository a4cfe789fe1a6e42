/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Minimal TAP output for the C unit tests (host) and the C guest tests. */
#ifndef CAPUNS_TAP_H
#define CAPUNS_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

/* One result line; returns ok, so that a caller can add diagnostics. */
__attribute__((format(printf, 2, 3))) static inline bool tap_ok(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", ok ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!ok)
		tap_failed++;
	fflush(stdout);
	return ok;
}

#define TAP_OK(cond, ...)                                                              \
	do {                                                                           \
		if (!tap_ok(!!(cond), __VA_ARGS__))                                    \
			printf("#   failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__);  \
	} while (0)

#define TAP_EQ(got, want, ...)                                                         \
	do {                                                                           \
		long long g_ = (long long)(got), w_ = (long long)(want);               \
		if (!tap_ok(g_ == w_, __VA_ARGS__))                                    \
			printf("#   got %lld (%#llx), want %lld (%#llx)\n", g_,          \
			       (unsigned long long)g_, w_, (unsigned long long)w_);      \
	} while (0)

#define TAP_EQ_STR(got, want, ...)                                                     \
	do {                                                                           \
		const char *g_ = (got), *w_ = (want);                                  \
		if (!tap_ok(g_ && w_ && strcmp(g_, w_) == 0, __VA_ARGS__))             \
			printf("#   got '%s', want '%s'\n", g_ ? g_ : "(null)",          \
			       w_ ? w_ : "(null)");                                    \
	} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif /* CAPUNS_TAP_H */
