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
 * mm_struct's flags became a bitmap struct after 6.12, and 7.3 moved
 * dumpability to task->exec_state: each is picked the same way (see
 * task_dumpable_or_capable()).  Whether the kernel has the exec securebits
 * of 6.14 is told by a field that came with them (exec_securebits()).
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

struct ns_common {
	unsigned int inum;
};

struct user_namespace {
	struct user_namespace *parent;
	int level;
	kuid_t owner;
	struct ns_common ns;
};

typedef struct {
	__u32 val;
} kgid_t;

struct cred {
	kuid_t uid;
	kgid_t gid;
	kuid_t suid;
	kgid_t sgid;
	kuid_t euid;
	kgid_t egid;
	kuid_t fsuid;
	kgid_t fsgid;
	unsigned securebits;
	struct kernel_cap_struct cap_inheritable;
	struct kernel_cap_struct cap_permitted;
	struct kernel_cap_struct cap_effective;
	struct kernel_cap_struct cap_bset;
	struct user_namespace *user_ns;
};

/* The same struct cred seen with the 6.3+ kernel_cap_t. */
struct cred___v63 {
	struct kernel_cap_u64 cap_inheritable;
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

struct mm_struct {
	unsigned long flags; /* MMF_DUMPABLE_MASK: bits 0-1 */
	struct user_namespace *user_ns;
};

/* mm->flags in newer kernels (7.3 has it): mm_flags_t, a bitmap in a struct. */
struct mm_flags_bitmap {
	unsigned long __mm_flags[1];
};

struct mm_struct___bitmap {
	struct mm_flags_bitmap flags;
};

struct nameidata;

struct task_struct {
	int pid;
	int tgid;
	struct mm_struct *mm;
	const struct cred *real_cred;
	const struct cred *cred;
	struct pid *thread_pid;
	struct nameidata *nameidata;
	char comm[16];
	struct bpf_local_storage *bpf_storage;
};

/*
 * 7.3 keeps a task's dumpability and the user namespace that governs it in
 * task->exec_state, no longer in its mm (mm_struct has no user_ns there),
 * and checks it for tasks without an mm too.
 */
enum task_dumpable {
	TASK_DUMPABLE_OWNER = 1,
};

struct task_exec_state {
	enum task_dumpable dumpable;
	struct user_namespace *user_ns;
};

struct task_struct___exec_state {
	struct task_exec_state *exec_state;
};

/* x86-64 */
struct pt_regs {
	unsigned long orig_ax;
};

typedef struct {
	__s64 counter;
} atomic_long_t;

struct mutex {
	atomic_long_t owner; /* task pointer | MUTEX_FLAGS */
};

/* ---- files: the opens the backend looks at (lsm/file_open, setgroups) */

struct super_block {
	unsigned long s_magic;
};

struct file_operations;

struct inode {
	const struct file_operations *i_fop;
	struct super_block *i_sb;
};

struct dentry {
	struct inode *d_inode;
	void *d_fsdata;
};

struct vfsmount;

struct path {
	struct vfsmount *mnt;
	struct dentry *dentry;
};

struct nameidata {
	struct path path;
};

struct file {
	struct path f_path;
	struct inode *f_inode;
	unsigned int f_mode;
	const struct cred *f_cred;
};

struct proc_ops {
	void *proc_poll;
};

struct proc_dir_entry {
	const struct proc_ops *proc_ops;
};

struct proc_inode {
	struct proc_dir_entry *pde;
	struct inode vfs_inode;
};

struct kernfs_node {
	void *priv;
};

struct cftype {
	void *poll;
};

struct linux_binprm {
	struct cred *cred;
};

/*
 * execveat(AT_EXECVE_CHECK) marks its binprm: 6.14 added it together with
 * the exec securebits it serves (SECBIT_EXEC_RESTRICT_FILE, _DENY_
 * INTERACTIVE), which the BPF side cannot see in BTF (they are macros).
 */
struct linux_binprm___exec_check {
	unsigned int is_check : 1;
};

struct nsset {
	unsigned flags;
	struct cred *cred;
};

struct seq_file;

/* A map's own fields, read from a map's address (the reserve needs its size). */
struct bpf_map {
	__u32 max_entries;
};

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
