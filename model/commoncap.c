// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * security/commoncap.c of Linux 6.1 and what it stands on: the id maps,
 * the namespace walk of cap_capable(), security_capable(), the
 * permitted-subset test of ptrace, and the full sets of a new namespace.
 * The system calls built on them are in syscalls.c.
 */
#include "hooks.h"

#include <errno.h>

/* ---- id maps ------------------------------------------------------------ */

/*
 * Both maps of a namespace are the single extent "0 root 1" (or none):
 * uids and gids differ only in which root they map.
 */
static uint32_t map_root(const struct cm_sys *sys, int ns, bool gid)
{
	return gid ? sys->ns[ns].root_gid : sys->ns[ns].root_uid;
}

static uint32_t make_kid(const struct cm_sys *sys, int ns, uint32_t id, bool gid)
{
	if (id == CM_ID_NONE)
		return CM_ID_NONE;
	if (ns == 0)
		return id;
	return id == 0 ? map_root(sys, ns, gid) : CM_ID_NONE;
}

static uint32_t from_kid(const struct cm_sys *sys, int ns, uint32_t kid, bool gid)
{
	if (ns == 0 || kid == CM_ID_NONE)
		return kid;
	return kid == map_root(sys, ns, gid) ? 0 : CM_ID_NONE;
}

uint32_t cm_make_kuid(const struct cm_sys *sys, int ns, uint32_t id)
{
	return make_kid(sys, ns, id, false);
}

uint32_t cm_make_kgid(const struct cm_sys *sys, int ns, uint32_t id)
{
	return make_kid(sys, ns, id, true);
}

uint32_t cm_from_kuid(const struct cm_sys *sys, int ns, uint32_t kuid)
{
	return from_kid(sys, ns, kuid, false);
}

uint32_t cm_from_kgid(const struct cm_sys *sys, int ns, uint32_t kgid)
{
	return from_kid(sys, ns, kgid, true);
}

bool cm_kuid_mapped(const struct cm_sys *sys, int ns, uint32_t kuid)
{
	return kuid != CM_ID_NONE && cm_from_kuid(sys, ns, kuid) != CM_ID_NONE;
}

bool cm_kgid_mapped(const struct cm_sys *sys, int ns, uint32_t kgid)
{
	return kgid != CM_ID_NONE && cm_from_kgid(sys, ns, kgid) != CM_ID_NONE;
}

/* ---- capability checks ------------------------------------------------ */

bool cm_ns_is_ancestor(const struct cm_sys *sys, int ancestor, int ns)
{
	for (; ns >= 0; ns = sys->ns[ns].parent)
		if (ns == ancestor)
			return true;
	return false;
}

/*
 * The owner grant of 6.1's cap_capable(): the owner (euid) of a namespace,
 * acting from its parent, has every cap in it.
 */
static bool granted_to_owner(const struct cm_sys *sys, const struct cm_cred *c, int ns)
{
	if (MUTANT(6))
		return false;
	return sys->ns[ns].parent == c->ns && sys->ns[ns].owner == c->euid;
}

/*
 * cap_capable() of 6.1: walk from the target namespace up to the cred's,
 * where eff decides.  owner_may_use, when not NULL, is rule 11's bound on
 * the owner grant; when it does not cover cap, the walk goes on up.
 */
bool cm_cap_capable_walk(const struct cm_sys *sys, const struct cm_cred *c, int ns, int cap,
			 cm_caps eff, cm_owner_may_use_fn *owner_may_use)
{
	if (cap < 0 || cap > sys->last_cap)
		return false;
	for (;;) {
		if (ns == c->ns)
			return cap_in(eff, cap);
		if (sys->ns[ns].level <= sys->ns[c->ns].level)
			return false;
		if (granted_to_owner(sys, c, ns) &&
		    (!owner_may_use || owner_may_use(sys, c, cap)))
			return true;
		ns = sys->ns[ns].parent;
	}
}

/* cap_capable() of the running kernel: its owner_may_use hook bounds the owner (rule 11). */
bool cm_cap_capable(const struct cm_sys *sys, const struct cm_cred *c, int ns, int cap)
{
	return cm_cap_capable_walk(sys, c, ns, cap, c->pE, sys->hooks->owner_may_use);
}

/* security_capable(): the capability module, then the backend's hook. */
bool cm_ns_capable(const struct cm_sys *sys, const struct cm_cred *c, int ns, int cap)
{
	if (!cm_cap_capable(sys, c, ns, cap))
		return false;
	return !sys->hooks->capable || sys->hooks->capable(sys, c, ns, cap);
}

bool cm_capable(const struct cm_sys *sys, const struct cm_cred *c, int cap)
{
	return cm_ns_capable(sys, c, 0, cap);
}

/* ---- ptrace: cap_ptrace_access_check(), cap_ptrace_traceme() --------- */

/*
 * commoncap's permitted-subset test: in one namespace, the tracee's pP
 * within the tracer's caller set (pP, or pE for PTRACE_MODE_FSCREDS), else
 * CAP_SYS_PTRACE over the tracee's namespace (every LSM has a say).
 */
bool cm_cap_ptrace_subset(const struct cm_sys *sys, const struct cm_cred *tracer, cm_caps caller,
			  const struct cm_cred *tracee, cm_caps tracee_pP)
{
	return (tracer->ns == tracee->ns && subset(tracee_pP, caller)) ||
	       cm_ns_capable(sys, tracer, tracee->ns, CAP_SYS_PTRACE);
}

/* ---- prctl: cap_task_prctl() ------------------------------------------- */

/*
 * The four operations on one set that PR_CAP_AMBIENT has and rule 2's
 * PR_CAP_USERNS copies: CLEAR_ALL, IS_SET, RAISE (when may_raise allows),
 * LOWER, with the same EINVAL cases in the same order.
 */
long cm_prctl_cap_set(const struct cm_sys *sys, struct cm_cred *c, cm_caps *set, uint64_t op,
		      uint64_t cap, uint64_t a4, uint64_t a5,
		      bool (*may_raise)(const struct cm_cred *c, int cap))
{
	if (op == CM_PR_CAP_OP_CLEAR_ALL) {
		if (cap | a4 | a5)
			return -EINVAL;
		*set = 0;
		return 0;
	}
	if (!cap_valid(sys, cap) || a4 || a5)
		return -EINVAL;
	if (op == CM_PR_CAP_OP_IS_SET)
		return cap_in(*set, (int)cap);
	if (op != CM_PR_CAP_OP_RAISE && op != CM_PR_CAP_OP_LOWER)
		return -EINVAL;
	if (op == CM_PR_CAP_OP_RAISE) {
		if (!may_raise(c, (int)cap))
			return -EPERM;
		*set |= CM_BIT(cap);
	} else {
		*set &= ~CM_BIT(cap);
	}
	return 0;
}

/* ---- entering a user namespace: set_cred_user_ns() ------------------- */

/* Stock 6.1: a new namespace starts with every capability. */
void cm_stock_enter_userns(const struct cm_sys *sys, struct cm_cred *c)
{
	c->X = c->pP = c->pE = sys->full;
}

/* Linux 6.1 without the series and without the BPF backend. */
const struct cm_hooks cm_stock_hooks = {
	.last_cap = CM_CAP_LAST_STOCK,
	.enter_userns = cm_stock_enter_userns,
};
