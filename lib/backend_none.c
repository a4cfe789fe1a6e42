/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The "none" backend: no patched kernel and no BPF backend.  Every
 * operation on pU fails with CAPUNS_ENOBACKEND; nothing may look like
 * success, since a caller that drops a capability must learn that it was
 * not dropped.  The classic sets are the kernel's, as it shows them.
 */
#include "capuns.h"
#include "internal.h"

static int none_probe(void)
{
	return 0;
}

static int none_get_userns_set(pid_t pid, uint64_t *set)
{
	(void)pid;
	(void)set;
	return CAPUNS_ENOBACKEND;
}

static int none_get_raisable(uint64_t *set)
{
	(void)set;
	return CAPUNS_ENOBACKEND;
}

static int none_userns_op(int op, int cap)
{
	(void)op;
	(void)cap;
	return CAPUNS_ENOBACKEND;
}

static int none_get_strict(unsigned *bits)
{
	(void)bits;
	return CAPUNS_ENOBACKEND;
}

static int none_set_strict(bool lock)
{
	(void)lock;
	return CAPUNS_ENOBACKEND;
}

static int none_mask_get(uint64_t *mask)
{
	(void)mask;
	return CAPUNS_ENOBACKEND;
}

static int none_mask_drop(uint64_t caps_to_drop)
{
	(void)caps_to_drop;
	return CAPUNS_ENOBACKEND;
}

const struct capuns_backend capuns_backend_none = {
	.name = "none",
	.probe = none_probe,
	.get_userns_set = none_get_userns_set,
	.get_sets = capuns_proc_sets_enforced, /* nothing more is enforced */
	.get_raisable = none_get_raisable,
	.userns_op = none_userns_op,
	.get_strict = none_get_strict,
	.set_strict = none_set_strict,
	.mask_get = none_mask_get,
	.mask_drop = none_mask_drop,
	.mask_cap = CAPUNS_ENOBACKEND,
};
