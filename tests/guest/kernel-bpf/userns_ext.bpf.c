// SPDX-License-Identifier: GPL-2.0
/*
 * An extension program that replaces a function of a userns_create
 * program (userns_ext_target.bpf.c) and calls bpf_cred_narrow_userns_caps():
 * only a BPF_LSM_MAC program on userns_create itself may, so the load
 * must fail, for that reason, on both series.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct cred {
} __attribute__((preserve_access_index));

extern int bpf_cred_narrow_userns_caps(struct cred *cred, __u64 caps) __ksym;

char _license[] SEC("license") = "GPL";

SEC("freplace/ext_point")
int ext_call(__u64 id)
{
	/* any cred: the call itself must keep the program from loading */
	return bpf_cred_narrow_userns_caps((struct cred *)id, 0) ? 1 : 0;
}
