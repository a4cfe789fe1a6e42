// SPDX-License-Identifier: GPL-2.0
/*
 * BPF-LSM policy of the kernel series' guest test: a user namespace may be
 * created, but without CAP_SYS_ADMIN inside (patch "bpf,lsm: Allow BPF-LSM
 * programs to edit capabilities in userns_create").
 *
 * Only the fields used are declared; CO-RE relocates them against the
 * running kernel's BTF.  On 6.1, kernel_cap_t is two 32-bit words.
 */
#include <linux/bpf.h>
#include <linux/capability.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

struct kernel_cap_struct {
	__u32 cap[2];
} __attribute__((preserve_access_index));

struct cred {
	struct kernel_cap_struct cap_userns;
} __attribute__((preserve_access_index));

char _license[] SEC("license") = "GPL";

/* Namespaces this program has narrowed, read by the test. */
__u64 narrowed;

SEC("lsm/userns_create")
int BPF_PROG(drop_sys_admin, struct cred *cred, int ret)
{
	if (ret)
		return ret;
	cred->cap_userns.cap[CAP_TO_INDEX(CAP_SYS_ADMIN)] &=
		~CAP_TO_MASK(CAP_SYS_ADMIN);
	__sync_fetch_and_add(&narrowed, 1);
	return 0;
}
