// SPDX-License-Identifier: GPL-2.0
/*
 * userns_create programs that hand bpf_cred_narrow_userns_caps() a struct
 * cred other than the one the hook was given, reached by walking
 * pointers: the creator's committed cred and its parent's.  On 6.1 they
 * load and the kfunc must refuse them at run time (-EPERM, nothing
 * changed); a kernel whose verifier tracks trusted pointers may refuse
 * them at load instead.  The test loads one program at a time.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/* A full (if empty) type: libbpf matches the kfunc's struct cred by kind. */
struct cred {
} __attribute__((preserve_access_index));

struct task_struct {
	const struct cred *cred;
	struct task_struct *real_parent;
} __attribute__((preserve_access_index));

extern int bpf_cred_narrow_userns_caps(struct cred *cred, __u64 caps) __ksym;

char _license[] SEC("license") = "GPL";

/* What the kfunc answered; 1 until a program ran. */
int last_ret = 1;

SEC("lsm/userns_create")
int BPF_PROG(walk_current, struct cred *cred, int ret)
{
	struct task_struct *task = bpf_get_current_task_btf();

	last_ret = bpf_cred_narrow_userns_caps((struct cred *)task->cred, 0);
	return 0;
}

SEC("lsm/userns_create")
int BPF_PROG(walk_parent, struct cred *cred, int ret)
{
	struct task_struct *task = bpf_get_current_task_btf();

	last_ret = bpf_cred_narrow_userns_caps((struct cred *)task->real_parent->cred, 0);
	return 0;
}
