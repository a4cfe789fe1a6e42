/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The few kernel types the capuns BPF programs touch, declared by hand with
 * preserve_access_index: libbpf relocates every field access (CO-RE)
 * against the BTF of the running kernel at load time, so only the names
 * and types of the fields used here matter, not their offsets.
 *
 * Why not a generated vmlinux.h: it ties the build to one kernel's BTF
 * (the host's, or a kernel build), while these declarations build the same
 * objects from a fresh clone and load on 6.1 through current kernels.
 *
 * kernel_cap_t changed in 6.3 from struct kernel_cap_struct { __u32 cap[2]; }
 * to struct { u64 val; }: both layouts are declared as ___flavor types and
 * picked with bpf_core_field_exists() (see cap_read() in capuns.bpf.c).
 */
#ifndef CAPUNS_BPF_KERNEL_H
#define CAPUNS_BPF_KERNEL_H

#include <linux/types.h>

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

typedef struct {
	__u32 val;
} kuid_t;

/* kernel_cap_t up to 6.2 */
struct kernel_cap_struct {
	__u32 cap[2];
};

/* kernel_cap_t from 6.3 */
struct kernel_cap_u64 {
	__u64 val;
};

struct user_namespace {
	struct user_namespace *parent;
	int level;
	kuid_t owner;
};

struct cred {
	kuid_t uid;
	kuid_t euid;
	unsigned securebits;
	struct kernel_cap_struct cap_permitted;
	struct kernel_cap_struct cap_effective;
	struct kernel_cap_struct cap_bset;
	struct user_namespace *user_ns;
};

/* The same struct cred seen with the 6.3+ kernel_cap_t. */
struct cred___v63 {
	struct kernel_cap_u64 cap_permitted;
	struct kernel_cap_u64 cap_effective;
	struct kernel_cap_u64 cap_bset;
};

struct pid_namespace;

struct upid {
	int nr;
	struct pid_namespace *ns;
};

struct pid {
	unsigned int level;
	struct upid numbers[1];
};

struct task_struct {
	int pid;
	int tgid;
	const struct cred *real_cred;
	const struct cred *cred;
	struct pid *thread_pid;
	char comm[16];
};

struct linux_binprm {
	struct cred *cred;
};

struct nsset {
	unsigned flags;
	struct cred *cred;
};

struct ns_common;
struct file;
struct seq_file;

struct bpf_iter_meta {
	struct seq_file *seq;
	__u64 session_id;
	__u64 seq_num;
};

struct bpf_iter__task {
	struct bpf_iter_meta *meta;
	struct task_struct *task;
};

#pragma clang attribute pop

#endif /* CAPUNS_BPF_KERNEL_H */
