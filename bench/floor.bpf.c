// SPDX-License-Identifier: GPL-2.0-only
/*
 * Trampoline floors for make bench: BPF programs that decide nothing, one
 * per way the backend could attach, so that a run can measure what the
 * attachment alone costs the hot paths (setuid, a capability check in a
 * user namespace, fork) before any rule runs.  bench/capuns-floor.c
 * attaches a chosen subset; none of them changes a result.
 */
#include "kernel.h"

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

/* The lookup a per-task design makes on every check. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} floor_task_state SEC(".maps");

/* Keeps the storage lookup from being optimised away. */
__u64 floor_found;

SEC("lsm/capable")
int BPF_PROG(floor_capable, const struct cred *cred, struct user_namespace *ns, int cap,
	     unsigned int opts)
{
	return 0;
}

SEC("lsm/capable")
int BPF_PROG(floor_capable_task, const struct cred *cred, struct user_namespace *ns, int cap,
	     unsigned int opts)
{
	__u64 *state = bpf_task_storage_get(&floor_task_state, bpf_get_current_task_btf(), 0, 0);

	if (state)
		floor_found++;
	return 0;
}

/*
 * The same with a fast path: a task that has no local storage of any map
 * (task->bpf_storage NULL) cannot have state, and needs no helper call.
 */
SEC("lsm/capable")
int BPF_PROG(floor_capable_taskptr, const struct cred *cred, struct user_namespace *ns, int cap,
	     unsigned int opts)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 *state;

	if (!task->bpf_storage)
		return 0;
	state = bpf_task_storage_get(&floor_task_state, task, 0, 0);
	if (state)
		floor_found++;
	return 0;
}

SEC("fmod_ret/security_capable")
int BPF_PROG(floor_fmod_capable, const struct cred *cred, struct user_namespace *ns, int cap,
	     unsigned int opts)
{
	return 0;
}

SEC("lsm/cred_prepare")
int BPF_PROG(floor_cred_prepare, struct cred *new, const struct cred *old, unsigned int gfp)
{
	return 0;
}

SEC("lsm/cred_free")
int BPF_PROG(floor_cred_free, struct cred *cred)
{
	return 0;
}

SEC("lsm/task_alloc")
int BPF_PROG(floor_task_alloc, struct task_struct *task, unsigned long clone_flags)
{
	return 0;
}
