// SPDX-License-Identifier: GPL-2.0
/*
 * BPF-LSM policy of the kernel series' guest test (patch "bpf,lsm: Let
 * userns_create programs narrow the new user namespace set"): on
 * lsm/userns_create, call bpf_cred_narrow_userns_caps() the way the test's
 * current mode says, and record what the kfunc answered.
 *
 * Only the fields used are declared; CO-RE relocates them against the
 * running kernel's BTF.
 */
#include <linux/bpf.h>
#include <linux/capability.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "userns_edit.h"

/* A full (if empty) type: libbpf matches the kfunc's struct cred by kind. */
struct cred {
} __attribute__((preserve_access_index));

extern int bpf_cred_narrow_userns_caps(struct cred *cred, __u64 caps) __ksym;

char _license[] SEC("license") = "GPL";

/* Set by the test before each namespace it creates. */
int mode;
/* What the kfunc answered the last time, and how often the program ran. */
int last_ret;
__u64 runs;

SEC("lsm/userns_create")
int BPF_PROG(edit_userns_caps, struct cred *cred, int ret)
{
	if (ret)
		return ret;
	switch (mode) {
	case EDIT_DROP_SYS_ADMIN:
		last_ret = bpf_cred_narrow_userns_caps(cred, ~(1ULL << CAP_SYS_ADMIN));
		break;
	case EDIT_RAISE_ALL:
		last_ret = bpf_cred_narrow_userns_caps(cred, ~0ULL);
		break;
	default:
		return 0;
	}
	__sync_fetch_and_add(&runs, 1);
	return 0;
}
