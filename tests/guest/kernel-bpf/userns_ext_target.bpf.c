// SPDX-License-Identifier: GPL-2.0
/*
 * A userns_create program with a global function, for an extension
 * program (userns_ext.bpf.c) to replace.  It changes nothing itself.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

__noinline int ext_point(__u64 id)
{
	return id ? 0 : 1;
}

SEC("lsm/userns_create")
int BPF_PROG(ext_target, void *cred, int ret)
{
	/* the answer is used, so that the call stays (-EPERM: never, the id is set) */
	return ext_point(bpf_get_current_pid_tgid()) ? -1 : 0;
}
