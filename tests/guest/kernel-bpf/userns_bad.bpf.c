// SPDX-License-Identifier: GPL-2.0
/*
 * Programs the verifier must refuse: no BPF program may store into a
 * struct cred, not even the one handed to userns_create (its user
 * namespace set changes only through bpf_cred_narrow_userns_caps()), and
 * only userns_create programs may call that kfunc.  The test loads them
 * one at a time and expects each load to fail.
 */
#include <linux/bpf.h>
#include <linux/capability.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "cred_caps.bpf.h"

extern int bpf_cred_narrow_userns_caps(struct cred *cred, __u64 caps) __ksym;

char _license[] SEC("license") = "GPL";

/* The capability field the kfunc is for, written directly. */
SEC("lsm/userns_create")
int BPF_PROG(write_cap_userns, struct cred *cred, int ret)
{
	cred_userns_lower(cred, CAP_SYS_ADMIN);
	return 0;
}

/* Not a capability field: becoming root at namespace creation. */
SEC("lsm/userns_create")
int BPF_PROG(write_euid, struct cred *cred, int ret)
{
	cred->euid.val = 0;
	return 0;
}

/* A capability field, but from a hook whose creds are not the new ones. */
SEC("lsm/cred_prepare")
int BPF_PROG(write_other_hook, struct cred *new, const struct cred *old,
	     unsigned int gfp, int ret)
{
	cred_userns_lower(new, CAP_SYS_ADMIN);
	return 0;
}

/* The kfunc, on the hook's own (trusted) cred, from another hook. */
SEC("lsm/cred_prepare")
int BPF_PROG(kfunc_other_hook, struct cred *new, const struct cred *old,
	     unsigned int gfp, int ret)
{
	bpf_cred_narrow_userns_caps(new, 0);
	return 0;
}
