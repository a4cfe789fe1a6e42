/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Minimal TAP output for the model's host unit tests. */
#ifndef MODEL_TAP_H
#define MODEL_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int tap_n, tap_failed;

__attribute__((format(printf, 2, 3))) static bool tap_ok(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", ok ? "ok" : "not ok", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!ok)
		tap_failed++;
	return ok;
}

#define TAP_EQ(got, want, ...)                                                            \
	do {                                                                              \
		long long g_ = (long long)(got), w_ = (long long)(want);                  \
		if (!tap_ok(g_ == w_, __VA_ARGS__))                                       \
			printf("#   got %lld (%#llx), want %lld (%#llx)\n", g_,             \
			       (unsigned long long)g_, w_, (unsigned long long)w_);         \
	} while (0)

static int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
