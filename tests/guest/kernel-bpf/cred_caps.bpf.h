/* SPDX-License-Identifier: GPL-2.0 */
/*
 * struct cred as the kernel-bpf programs see it, for both layouts of
 * kernel_cap_t: two 32-bit words up to Linux 6.2 (the 6.1 series), one
 * u64 from 6.3 on (the 6.12 series).  Only the fields used are declared;
 * CO-RE relocates the access that matches the running kernel, and libbpf
 * poisons the other one, which the verifier then never reaches.
 */
#ifndef CRED_CAPS_BPF_H
#define CRED_CAPS_BPF_H

#include <bpf/bpf_core_read.h>

typedef struct {
	unsigned int val;
} kuid_t;

struct kernel_cap_struct {
	__u32 cap[2];
} __attribute__((preserve_access_index));

struct cred {
	kuid_t euid;
	struct kernel_cap_struct cap_userns;
} __attribute__((preserve_access_index));

struct kernel_cap_u64 {
	__u64 val;
} __attribute__((preserve_access_index));

struct cred___u64 {
	struct kernel_cap_u64 cap_userns;
} __attribute__((preserve_access_index));

/* Remove @cap from the user namespace set of @cred, in place. */
static __always_inline void cred_userns_lower(struct cred *cred, int cap)
{
	struct cred___u64 *c64 = (void *)cred;

	if (bpf_core_field_exists(c64->cap_userns.val))
		c64->cap_userns.val &= ~(1ULL << cap);
	else
		cred->cap_userns.cap[CAP_TO_INDEX(cap)] &= ~CAP_TO_MASK(cap);
}

#endif
