// SPDX-License-Identifier: GPL-2.0
/*
 * Programs the verifier must refuse: BPF-LSM may write the capability sets
 * of the cred handed to userns_create, and nothing else.  The test loads
 * them one at a time and expects each load to fail.
 */
#include <linux/bpf.h>
#include <linux/capability.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "cred_caps.bpf.h"

char _license[] SEC("license") = "GPL";

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
