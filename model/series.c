// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The rules of the capuns series (docs/rules.md), one function each, and
 * the hook table that puts them where the patched kernel calls them
 * (syscalls.c and commoncap.c call the table); the BPF backend (bpf.c) calls
 * those it states the same way, with the sets as the series sees them
 * (cm_series_view()).
 */
#include "hooks.h"
#include "series.h"

#include <errno.h>

/*
 * Rule 2, RAISE: p'U = (pE ∋ CAP_SETPCAP) ? X : (X ∩ pP); an already
 * set bit always succeeds.
 */
static bool may_raise_userns(const struct cm_cred *c, int cap)
{
	if (cap_in(c->pU, cap))
		return true;
	if (!cap_in(cm_series_view(c, c->X), cap))
		return false;
	if (MUTANT(5))
		return true;
	return cap_in(cm_series_view(c, c->pE), CAP_SETPCAP) ||
	       cap_in(cm_series_view(c, c->pP), cap);
}

/* Rule 2: prctl(PR_CAP_USERNS, op, cap, 0, 0). */
long cm_series_prctl_cap_userns(struct cm_sys *sys, struct cm_cred *c, uint64_t op,
				uint64_t cap, uint64_t a4, uint64_t a5)
{
	return cm_prctl_cap_set(sys, c, &c->pU, op, cap, a4, a5, may_raise_userns);
}

/*
 * Rules 3a and 3b: what a namespace created or joined by c gets,
 * p'U = pU ∩ (strict ? X : all) ∩ mask.  Rules 11 and 12 measure the
 * owner and the tracer by the same set.
 */
cm_caps cm_series_userns_entry_set(const struct cm_sys *sys, const struct cm_cred *c)
{
	cm_caps pU = c->pU;

	if (userns_strict(c) && !MUTANT(1))
		pU &= cm_series_view(c, c->X); /* 3a */
	if (!MUTANT(3))
		pU &= sys->mask; /* 3b */
	return pU;
}

/* Rule 3c: X = pP = pE = p'U (pI, pA, securebits: syscalls.c). */
static void cm_series_enter_userns(const struct cm_sys *sys, struct cm_cred *c)
{
	c->pU = cm_series_userns_entry_set(sys, c);
	c->X = c->pP = c->pE = c->pU;
}

/*
 * Rule 10 (R10): p'U after a setuid-root exec that gains privilege.
 * Adding X back keeps a pU lowered by an unprivileged caller from
 * breaking a privileged program, and only adds, so a pU never lowered
 * stays full; a restriction imposed by privileged code carries the strict
 * bit (which needs CAP_SETPCAP to set) and survives:
 * p'U = strict ? pU ∩ X : pU ∪ X.  x is X as the series sees it.
 */
cm_caps cm_series_setuid_exec_userns(cm_caps pU, cm_caps x, bool strict)
{
	if (MUTANT(4))
		return pU;
	return strict && !MUTANT(7) ? pU & x : pU | x;
}

/*
 * "Gains privilege" as the series states it: the new euid is root, the old
 * one was not, and pP grew.
 */
static void cm_series_exec_setuid_root(const struct cm_cred *old, struct cm_cred *new,
				       uint32_t root_uid)
{
	if (root_uid != CM_ID_NONE && new->euid == root_uid && old->euid != root_uid &&
	    !subset(new->pP, old->pP))
		new->pU = cm_series_setuid_exec_userns(
			new->pU, new->X, securebit_set(new, CM_SECURE_USERNS_STRICT_CAPS));
}

/*
 * The set rules 11 and 12 measure a credential by: what its namespaces
 * would get (rules 3a and 3b).  pU alone is no bound: a strict login
 * whose X lacks a cap keeps it in pU.
 */
static cm_caps could_give(const struct cm_sys *sys, const struct cm_cred *c)
{
	return MUTANT(11) ? c->pU & sys->mask : cm_series_userns_entry_set(sys, c);
}

/*
 * Rule 11 (R11): the owner of a namespace, acting from its parent,
 * holds a capability over it (and below) only if its own new namespaces
 * would hold it: no more than it could hold inside.
 */
bool cm_series_owner_may_use(const struct cm_sys *sys, const struct cm_cred *c, int cap)
{
	return MUTANT(8) || cap_in(could_give(sys, c), cap);
}

/*
 * Rule 11 (R11): the id mapping that needs no privilege anyway, one
 * extent of the writer's own euid (egid, setgroups denied) in a namespace
 * its euid owns, is written without CAP_SYS_ADMIN over the namespace.  The
 * model's writers write "0 euid 1" and "0 egid 1" after "deny".
 */
bool cm_series_idmap_is_self(const struct cm_ns *n, const struct cm_cred *writer)
{
	return !MUTANT(9) && n->owner == writer->euid;
}

/*
 * Rule 12 (R12): a tracer may attach to (PTRACE_MODE_ATTACH), or be
 * asked to trace (PTRACE_TRACEME by), a task only if what the task's
 * namespaces would get is within what the tracer's would.  No
 * CAP_SYS_PTRACE bypass.
 */
bool cm_series_userns_may_control(const struct cm_sys *sys, const struct cm_cred *tracer,
				  const struct cm_cred *tracee)
{
	return MUTANT(10) || subset(could_give(sys, tracee), could_give(sys, tracer));
}

/*
 * Rule 6: kernel.cap_userns_mask, mode 0644 owned by global root:
 * opening for writing needs euid == kuid 0 (sysctl test_perm(), no
 * capability override).  The handler then needs CAP_SYS_CONTROL in the
 * initial namespace, and only ever drops bits.
 */
static int cm_series_mask_write(struct cm_sys *sys, const struct cm_cred *c, uint64_t value)
{
	if (c->euid != 0)
		return -EACCES;
	if (!cm_capable(sys, c, CAP_SYS_CONTROL))
		return -EPERM;
	sys->mask &= value;
	return 0;
}

/* Rule 7: a usermodehelper gets pU ∩= kernel/usermodehelper/userns. */
static void cm_series_umh_cred(const struct cm_sys *sys, struct cm_cred *helper)
{
	helper->pU &= sys->umh_userns;
}

/* Rule 8: pU is read from CapUNs. */
static void cm_series_observe(const struct cm_cred *c, struct cm_obs *o)
{
	o->pU = c->pU;
}

/* Rule 4: every set, pU included, is what the cred holds in its namespace. */
static const char *cm_series_ns_invariants(const struct cm_cred *c, cm_caps *held)
{
	*held = c->pE | c->pP | c->pI | c->pA | c->X | c->pU;
	return NULL;
}

/* Linux 6.1 with the capuns series. */
const struct cm_hooks cm_series_hooks = {
	.last_cap = CM_CAP_LAST_PATCHED,
	/* Rule 5: SECURE_USERNS_STRICT_CAPS joins SECURE_ALL_BITS. */
	.secure_bits = CM_SECBIT(CM_SECURE_USERNS_STRICT_CAPS),
	.owner_may_use = cm_series_owner_may_use,
	.userns_may_control = cm_series_userns_may_control,
	.enter_userns = cm_series_enter_userns,
	.bprm_creds_from_file = cm_series_exec_setuid_root,
	.prctl_cap_userns = cm_series_prctl_cap_userns,
	.idmap_is_self = cm_series_idmap_is_self,
	.mask_write = cm_series_mask_write,
	.umh_cred = cm_series_umh_cred,
	.observe = cm_series_observe,
	.ns_invariants = cm_series_ns_invariants,
};
