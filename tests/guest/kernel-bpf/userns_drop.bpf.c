// SPDX-License-Identifier: GPL-2.0
/*
 * BPF-LSM policy of the kernel series' guest test: a user namespace may be
 * created, but without CAP_SYS_ADMIN inside (patch "bpf,lsm: Allow BPF-LSM
 * programs to edit capabilities in userns_create").
 *
 * Only the fields used are declared (cred_caps.bpf.h); CO-RE relocates
 * them against the running kernel's BTF.
 */
#include <linux/bpf.h>
#include <linux/capability.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "cred_caps.bpf.h"

char _license[] SEC("license") = "GPL";

/* Namespaces this program has narrowed, read by the test. */
__u64 narrowed;

SEC("lsm/userns_create")
int BPF_PROG(drop_sys_admin, struct cred *cred, int ret)
{
	if (ret)
		return ret;
	cred_userns_lower(cred, CAP_SYS_ADMIN);
	__sync_fetch_and_add(&narrowed, 1);
	return 0;
}
