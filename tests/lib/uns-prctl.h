/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * prctl(PR_CAP_USERNS) as the series answers it, on either backend: the
 * BPF backend's encoded answers are decoded as libcapuns does.  Shared by
 * the differential runner and the prctl fuzzer, which call prctl(48)
 * directly (not through libcapuns) to see the raw errors.
 */
#ifndef CAPUNS_TESTS_UNS_PRCTL_H
#define CAPUNS_TESTS_UNS_PRCTL_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/prctl.h>

#include "capuns-abi.h"
#include "capuns-bpf-abi.h"

/* >= 0, or a negative errno. */
static inline long uns_prctl_answer(bool bpf, unsigned long op, unsigned long arg3,
				    unsigned long arg4, unsigned long arg5)
{
	long r = prctl(PR_CAP_USERNS, op, arg3, arg4, arg5);

	if (bpf)
		return capuns_bpf_decode(op, r, errno);
	return r < 0 ? -errno : r;
}

/*
 * The set that op (IS_SET, or a BPF extension op taking a cap) describes,
 * asked cap by cap for 0..last_cap; UINT64_MAX if any answer is neither 0
 * nor 1, so that a wrong answer shows wherever the set is compared.
 */
static inline uint64_t uns_prctl_set(bool bpf, unsigned long op, unsigned long last_cap)
{
	uint64_t set = 0;

	for (unsigned long c = 0; c <= last_cap; c++) {
		long v = uns_prctl_answer(bpf, op, c, 0, 0);

		if (v != 0 && v != 1)
			return UINT64_MAX;
		set |= (uint64_t)v << c;
	}
	return set;
}

#endif
