// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The BPF-LSM backend (bpf/capuns.bpf.c), one function per program, in
 * the model's terms.  On a stock kernel the kernel's own sets follow stock
 * rules (full sets in every new namespace); the backend keeps pU, the set
 * recorded at namespace entry ("bound") and the strict bits per cred, and
 * denies in lsm/capable what the series would not hold (bpf/README.md).
 * Where its rule is the series' rule, it calls series.c with the sets as
 * the series sees them (cm_series_view()).
 */
#include "hooks.h"
#include "series.h"

#include <errno.h>

/*
 * lsm/capable, after cap_capable() granted: the same walk with the sets as
 * the series sees them (pE & bound in the cred's own namespace) and the
 * owner grant bounded by what the owner's namespaces would get (rule 11).  The backend's id-map
 * waiver is cm_map_root()'s rule 11, stated once for both backends.
 */
static bool cm_bpf_lsm_capable(const struct cm_sys *sys, const struct cm_cred *c, int ns, int cap)
{
	return cm_cap_capable_walk(sys, c, ns, cap, cm_series_view(c, c->pE),
				   cm_series_owner_may_use);
}

/*
 * Rule 3: lsm/userns_create and fexit/userns_install: the kernel's sets
 * are stock; bound = p'U (with the backend's strict flag), and the strict
 * bits (the backend's strict securebit and its lock) are reset.
 */
static void cm_bpf_record_userns_entry(const struct cm_sys *sys, struct cm_cred *c)
{
	c->pU = c->bound = cm_series_userns_entry_set(sys, c);
	c->uns_strict = 0;
	cm_stock_enter_userns(sys, c);
}

/*
 * lsm/bprm_creds_from_file, after the capability LSM (rule 10 as the
 * backend states it): the euid changes and pP as the series sees it
 * grows; then p'U as rule 10 (R10) says, with the backend's strict flag
 * and X as the series sees it.
 */
static void cm_bpf_bprm_creds_from_file(const struct cm_cred *old, struct cm_cred *new,
					uint32_t root_uid)
{
	(void)root_uid; /* the backend's trigger does not ask who root is */
	if (new->euid != old->euid &&
	    !subset(cm_series_view(new, new->pP), cm_series_view(new, old->pP)))
		new->pU = cm_series_setuid_exec_userns(new->pU, cm_series_view(new, new->X),
						       new->uns_strict & CM_BPF_STRICT);
}

/*
 * lsm/ptrace_access_check and lsm/ptrace_traceme, after commoncap: rule
 * 12, then commoncap's subset test again on the sets as the series sees
 * them (the kernel compared its own full ones).
 */
static bool cm_bpf_ptrace_access_check(const struct cm_sys *sys, const struct cm_cred *tracer,
				       const struct cm_cred *tracee, bool fscreds)
{
	cm_caps caller = cm_series_view(tracer, fscreds ? tracer->pE : tracer->pP);

	return cm_series_userns_may_control(sys, tracer, tracee) &&
	       (tracer->ns != tracee->ns ||
		cm_cap_ptrace_subset(sys, tracer, caller, tracee,
				     cm_series_view(tracee, tracee->pP)));
}

/*
 * Rule 5 on the backend: strict_set(), the rules of PR_SET_SECUREBITS for the strict bit and its
 * lock (a locked bit keeps its value, a lock stays) and CAP_SETPCAP as the series sees pE.
 */
static long strict_set(struct cm_cred *c, uint64_t bits)
{
	unsigned int old = c->uns_strict;

	if (bits & ~(uint64_t)(CM_BPF_STRICT | CM_BPF_STRICT_LOCKED))
		return -EPERM;
	if ((old & CM_BPF_STRICT_LOCKED) &&
	    (((old ^ bits) & CM_BPF_STRICT) || !(bits & CM_BPF_STRICT_LOCKED)))
		return -EPERM;
	if (!cap_in(cm_series_view(c, c->pE), CAP_SETPCAP))
		return -EPERM;
	c->uns_strict = (unsigned int)bits;
	return 0;
}

/*
 * Rule 6 on the backend: mask_lower(); no CAP_SYS_CONTROL on a stock
 * kernel, so CAP_SYS_ADMIN (as the series sees pE) in the initial namespace.
 */
static long mask_lower(struct cm_sys *sys, const struct cm_cred *c, uint64_t cap)
{
	if (sys->ns[c->ns].level != 0 || !cap_in(cm_series_view(c, c->pE), CAP_SYS_ADMIN))
		return -EPERM;
	sys->mask &= ~CM_BIT(cap);
	return 0;
}

/* extension_op(): prctl(PR_CAP_USERNS, op >= 0x4300, arg3, 0, 0). */
static long extension_op(struct cm_sys *sys, struct cm_cred *c, uint64_t op, uint64_t arg3)
{
	switch (op) {
	case CM_BPF_OP_PROBE:
		return arg3 ? -EINVAL : CM_BPF_ABI_VERSION;
	case CM_BPF_OP_STRICT_GET:
		return arg3 ? -EINVAL : (long)c->uns_strict;
	case CM_BPF_OP_STRICT_SET:
		return strict_set(c, arg3);
	}
	if (!cap_valid(sys, arg3))
		return -EINVAL;
	switch (op) {
	case CM_BPF_OP_MASK_IS_SET:
		return cap_in(sys->mask, (int)arg3);
	case CM_BPF_OP_MASK_LOWER:
		return mask_lower(sys, c, arg3);
	case CM_BPF_OP_BOUND_IS_SET:
		return cap_in(c->bound, (int)arg3);
	}
	return -EINVAL;
}

/*
 * Rule 2 on the backend: lsm/task_prctl for option 48, the extension
 * operations, else the series' function.  The answers are the decoded
 * ones (libcapuns).
 */
static long cm_bpf_task_prctl_cap_userns(struct cm_sys *sys, struct cm_cred *c, uint64_t op,
					 uint64_t arg3, uint64_t a4, uint64_t a5)
{
	if (op >= CM_BPF_OP_PROBE)
		return (a4 | a5) ? -EINVAL : extension_op(sys, c, op, arg3);
	return cm_series_prctl_cap_userns(sys, c, op, arg3, a4, a5);
}

/*
 * Rule 3c on the backend: the two CAP_SETPCAP checks that ask
 * cap_capable() directly, past lsm/capable.  The series' pE lacks
 * CAP_SETPCAP where the entry set did; the kernel's pE here is full.
 */
static bool cm_bpf_setpcap(const struct cm_cred *c)
{
	return cap_in(cm_series_view(c, c->pE), CAP_SETPCAP);
}

/*
 * lsm/capset: cap_capset()'s two checks of pI again, with pP and X as the
 * series sees them: beyond pI | pP needs CAP_SETPCAP, beyond pI | X never.
 */
static int cm_bpf_capset(const struct cm_sys *sys, const struct cm_cred *old, cm_caps inh)
{
	(void)sys;
	if (!cm_bpf_setpcap(old) && !subset(inh, old->pI | cm_series_view(old, old->pP)))
		return -EPERM;
	if (!subset(inh, old->pI | cm_series_view(old, old->X)))
		return -EPERM;
	return 0;
}

/*
 * fmod_ret/security_task_prctl for PR_SET_SECUREBITS: in front of commoncap.
 * Without CAP_SETPCAP a change of the bits any task may change passes on
 * (exec_securebits(), by CO-RE): commoncap then states the rest.
 */
static int cm_bpf_set_securebits(const struct cm_sys *sys, const struct cm_cred *c,
				 uint64_t bits)
{
	uint64_t changed = bits ^ c->securebits;
	uint64_t unpriv = cm_unpriv_securebits(sys);

	if (cm_bpf_setpcap(c) || (changed && !(changed & ~unpriv)))
		return 0;
	return -EPERM;
}

/* Rule 8: pU, the bound and the strict bits through the backend's prctl operations. */
static void cm_bpf_observe(const struct cm_cred *c, struct cm_obs *o)
{
	o->pU = c->pU;
	o->bound = c->bound;
	o->uns_strict = c->uns_strict;
}

/*
 * Rule 4 on the backend: the kernel's sets are full in a namespace; what
 * it holds is their part inside bound.  pI and pA are left out: a stock
 * capset checks pI against the kernel's X, and bound still cuts whatever
 * an exec makes of them.
 */
static const char *cm_bpf_ns_invariants(const struct cm_cred *c, cm_caps *held)
{
	*held = cm_series_view(c, c->pE | c->pP | c->X) | c->pU | c->bound;
	if (!subset(c->pU, c->bound))
		return "pU holds a cap outside the set recorded at namespace entry";
	return NULL;
}

/* A stock kernel with the capuns BPF-LSM backend loaded. */
const struct cm_hooks cm_bpf_hooks = {
	.last_cap = CM_CAP_LAST_STOCK,
	.capable = cm_bpf_lsm_capable,
	.ptrace_access_check = cm_bpf_ptrace_access_check,
	.capset = cm_bpf_capset,
	.set_securebits = cm_bpf_set_securebits,
	.enter_userns = cm_bpf_record_userns_entry,
	.bprm_creds_from_file = cm_bpf_bprm_creds_from_file,
	.prctl_cap_userns = cm_bpf_task_prctl_cap_userns,
	/* Rule 11's id-map waiver is the series' (cm_map_root()). */
	.idmap_is_self = cm_series_idmap_is_self,
	.observe = cm_bpf_observe,
	.ns_invariants = cm_bpf_ns_invariants,
};
