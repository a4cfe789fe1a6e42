/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The hook table: what a backend adds to Linux 6.1's capability rules,
 * in the places the kernel gives it (struct security_hook_list for the BPF
 * backend, the series' own calls in commoncap and kernel/).  syscalls.c and
 * commoncap.c call a hook only through the table of the system's flavour,
 * never by name, so neither depends on a backend.  A NULL hook is stock
 * 6.1's behaviour.  Each backend fills one table: stock (commoncap.c),
 * the series (series.c), the BPF backend (bpf.c).
 */
#ifndef CAPMODEL_HOOKS_H
#define CAPMODEL_HOOKS_H

#include "internal.h"

struct cm_hooks {
	int last_cap; /* CAP_LAST_CAP of the kernel */
	/* Bits the backend adds to SECURE_ALL_BITS (rule 5). */
	unsigned int secure_bits;

	/* In cap_capable(): may the owner of a namespace use cap there (rule 11)? */
	cm_owner_may_use_fn *owner_may_use;
	/* security_capable(), after cap_capable() granted. */
	bool (*capable)(const struct cm_sys *sys, const struct cm_cred *c, int ns, int cap);
	/* In cap_ptrace_access_check()/cap_ptrace_traceme(), first (rule 12). */
	bool (*userns_may_control)(const struct cm_sys *sys, const struct cm_cred *tracer,
				   const struct cm_cred *tracee);
	/* security_capset(), after cap_capset() accepted: 0 or -errno. */
	int (*capset)(const struct cm_sys *sys, const struct cm_cred *old, cm_caps inh);
	/* In front of security_task_prctl(PR_SET_SECUREBITS, bits) (fmod_ret): 0 or -errno. */
	int (*set_securebits)(const struct cm_sys *sys, const struct cm_cred *c, uint64_t bits);
	/* security_ptrace_access_check(), after the capability module. */
	bool (*ptrace_access_check)(const struct cm_sys *sys, const struct cm_cred *tracer,
				    const struct cm_cred *tracee, bool fscreds);
	/* Entering a user namespace (rule 3); never NULL. */
	void (*enter_userns)(const struct cm_sys *sys, struct cm_cred *c);
	/* End of cap_bprm_creds_from_file() (rule 10). */
	void (*bprm_creds_from_file)(const struct cm_cred *old, struct cm_cred *new,
				     uint32_t root_uid);
	/* prctl(PR_CAP_USERNS) (rule 2); NULL: unknown option. */
	long (*prctl_cap_userns)(struct cm_sys *sys, struct cm_cred *c, uint64_t op,
				 uint64_t arg3, uint64_t a4, uint64_t a5);
	/* map_write(): an id map written without CAP_SYS_ADMIN (rule 11). */
	bool (*idmap_is_self)(const struct cm_ns *n, const struct cm_cred *writer);
	/* kernel.cap_userns_mask (rule 6); NULL: no such sysctl. */
	int (*mask_write)(struct cm_sys *sys, const struct cm_cred *c, uint64_t value);
	/* A usermodehelper's cred and kernel/usermodehelper/userns (rule 7);
	 * NULL: no such sysctl. */
	void (*umh_cred)(const struct cm_sys *sys, struct cm_cred *helper);
	/* What userspace reads of the backend's state (rule 8). */
	void (*observe)(const struct cm_cred *c, struct cm_obs *o);
	/* Rule 4 in a non-initial namespace: *held gets what c holds there;
	 * returns a broken invariant of the backend's own, or NULL.  NULL
	 * hook: no pU, no rule 4. */
	const char *(*ns_invariants)(const struct cm_cred *c, cm_caps *held);
};

extern const struct cm_hooks cm_stock_hooks;  /* commoncap.c: 6.1 unpatched */
extern const struct cm_hooks cm_series_hooks; /* series.c */
extern const struct cm_hooks cm_bpf_hooks;    /* bpf.c */

#endif /* CAPMODEL_HOOKS_H */
