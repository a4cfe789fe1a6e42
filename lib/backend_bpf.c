/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * BPF-LSM backend for stock kernels.
 *
 * Placeholder until the BPF backend lands: its probe reports that the
 * backend is not available, so detection falls through to "none" and
 * no operation is ever served from here.
 */
#include <errno.h>

#include "backend.h"
#include "capuns.h"

static int bpf_probe(void)
{
	return -EOPNOTSUPP;
}

static int bpf_get_userns_set(pid_t pid, uint64_t *set)
{
	(void)pid;
	(void)set;
	return CAPUNS_ENOBACKEND;
}

static int bpf_userns_op(int op, int cap)
{
	(void)op;
	(void)cap;
	return CAPUNS_ENOBACKEND;
}

static int bpf_get_strict(unsigned *bits)
{
	(void)bits;
	return CAPUNS_ENOBACKEND;
}

static int bpf_set_strict(bool lock)
{
	(void)lock;
	return CAPUNS_ENOBACKEND;
}

static int bpf_mask_get(uint64_t *mask)
{
	(void)mask;
	return CAPUNS_ENOBACKEND;
}

static int bpf_mask_drop(uint64_t caps_to_drop)
{
	(void)caps_to_drop;
	return CAPUNS_ENOBACKEND;
}

const struct capuns_backend capuns_backend_bpf = {
	.name = "bpf",
	.probe = bpf_probe,
	.get_userns_set = bpf_get_userns_set,
	.userns_op = bpf_userns_op,
	.get_strict = bpf_get_strict,
	.set_strict = bpf_set_strict,
	.mask_get = bpf_mask_get,
	.mask_drop = bpf_mask_drop,
};
