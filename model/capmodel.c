// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * capmodel: reference model of credentials under the capuns series.
 *
 * Each rule is one small function and cites SPEC.md (rules 1-11) or the
 * 6.1 function whose classic behaviour it restates (security/commoncap.c,
 * kernel/user_namespace.c, kernel/sys.c, kernel/capability.c, fs/exec.c).
 *
 * CAPMODEL_MUTATION (build flag, used only by the tests that prove the
 * differential runner catches bugs) breaks one rule on purpose:
 *   1  rule 3a forgotten: the strict securebit does not bound pU by X
 *   2  rule 3 skipped on setns: entering an existing namespace gives full sets
 *   3  rule 3b forgotten: the system mask is not applied
 *   4  rule 10 forgotten: setuid-root exec leaves pU as it is
 *   5  rule 2: RAISE does not require the cap in pP without CAP_SETPCAP
 *   6  rule 11 broken: no owner rule in cap_capable()
 * Mutations 1-6 break the rule for both the series and the BPF backend.
 *
 * CM_BPF describes a stock kernel with the BPF backend loaded: the kernel's
 * own sets follow stock rules (full sets in every new namespace) and the
 * backend keeps pU, the set recorded at namespace entry ("bound") and the
 * strict bits per cred, denying in lsm/capable what the series would not
 * hold (bpf/README.md).
 */
#include "capmodel.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#ifndef CAPMODEL_MUTATION
#define CAPMODEL_MUTATION 0
#endif
#define MUTANT(n) (CAPMODEL_MUTATION == (n))

#define CAP_SETPCAP 8
#define CAP_SETUID 7
#define CAP_SETGID 6
#define CAP_SYS_MODULE 16
#define CAP_SYS_ADMIN 21
#define CAP_SETFCAP 31
#define CAP_SYS_CONTROL 41

#define OVERFLOWUID 65534U /* what an unmapped id reads as */

static bool has(cm_caps set, int cap)
{
	return (set >> cap) & 1;
}

static bool subset(cm_caps a, cm_caps b)
{
	return (a & ~b) == 0;
}

static bool secure(const struct cm_cred *c, int bit)
{
	return c->securebits & CM_SECBIT(bit);
}

/* The kernel series: pU in struct cred, CAP_SYS_CONTROL, the sysctls. */
static bool series(const struct cm_sys *sys)
{
	return sys->flavour == CM_PATCHED;
}

static bool bpf(const struct cm_sys *sys)
{
	return sys->flavour == CM_BPF;
}

/* Either backend of the rules. */
static bool uns(const struct cm_sys *sys)
{
	return series(sys) || bpf(sys);
}

static bool cap_valid(const struct cm_sys *sys, uint64_t cap)
{
	return cap <= (uint64_t)sys->last_cap;
}

/* SECURE_ALL_BITS: the series adds bit 8 (rule 5). */
static unsigned int secure_all_bits(const struct cm_sys *sys)
{
	unsigned int bits = CM_SECBIT(CM_SECURE_NOROOT) | CM_SECBIT(CM_SECURE_NO_SETUID_FIXUP) |
			    CM_SECBIT(CM_SECURE_KEEP_CAPS) |
			    CM_SECBIT(CM_SECURE_NO_CAP_AMBIENT_RAISE);

	if (series(sys))
		bits |= CM_SECBIT(CM_SECURE_USERNS_STRICT_CAPS);
	return bits;
}

void cm_sys_init(struct cm_sys *sys, enum cm_flavour flavour)
{
	memset(sys, 0, sizeof(*sys));
	sys->flavour = flavour;
	sys->last_cap = flavour == CM_PATCHED ? CM_CAP_LAST_PATCHED : CM_CAP_LAST_STOCK;
	sys->full = (CM_BIT(sys->last_cap) << 1) - 1;
	sys->mask = sys->full;
	sys->umh_bset = sys->umh_inheritable = sys->umh_userns = sys->full;
	sys->nns = 1;
	sys->ns[0] = (struct cm_ns){ .parent = -1, .level = 0, .owner = 0, .group = 0,
				     .root_uid = 0, .root_gid = 0, .ceiling = sys->full };
}

/* init_cred (rule 1: init has the full pU), as it is after /init is exec'd. */
void cm_cred_init_root(const struct cm_sys *sys, struct cm_cred *c)
{
	memset(c, 0, sizeof(*c));
	c->pE = c->pP = c->X = c->pU = c->bound = sys->full;
}

/* ---- id maps ------------------------------------------------------------ */

uint32_t cm_make_kuid(const struct cm_sys *sys, int ns, uint32_t id)
{
	if (id == CM_ID_NONE)
		return CM_ID_NONE;
	if (ns == 0)
		return id;
	return id == 0 ? sys->ns[ns].root_uid : CM_ID_NONE;
}

uint32_t cm_make_kgid(const struct cm_sys *sys, int ns, uint32_t id)
{
	if (id == CM_ID_NONE)
		return CM_ID_NONE;
	if (ns == 0)
		return id;
	return id == 0 ? sys->ns[ns].root_gid : CM_ID_NONE;
}

uint32_t cm_from_kuid(const struct cm_sys *sys, int ns, uint32_t kuid)
{
	if (ns == 0 || kuid == CM_ID_NONE)
		return kuid;
	return kuid == sys->ns[ns].root_uid ? 0 : CM_ID_NONE;
}

static uint32_t from_kgid(const struct cm_sys *sys, int ns, uint32_t kgid)
{
	if (ns == 0 || kgid == CM_ID_NONE)
		return kgid;
	return kgid == sys->ns[ns].root_gid ? 0 : CM_ID_NONE;
}

static bool kuid_mapped(const struct cm_sys *sys, int ns, uint32_t kuid)
{
	return kuid != CM_ID_NONE && cm_from_kuid(sys, ns, kuid) != CM_ID_NONE;
}

static bool kgid_mapped(const struct cm_sys *sys, int ns, uint32_t kgid)
{
	return kgid != CM_ID_NONE && from_kgid(sys, ns, kgid) != CM_ID_NONE;
}

/* ---- capability checks ------------------------------------------------ */

bool cm_ns_is_ancestor(const struct cm_sys *sys, int ancestor, int ns)
{
	for (; ns >= 0; ns = sys->ns[ns].parent)
		if (ns == ancestor)
			return true;
	return false;
}

/* Rule 11: the owner of a namespace, in its parent, has every cap in it. */
static bool owner_rule(const struct cm_sys *sys, const struct cm_cred *c, int ns)
{
	if (MUTANT(6))
		return false;
	return sys->ns[ns].parent == c->ns && sys->ns[ns].owner == c->euid;
}

/* cap_capable() of 6.1: walk from the target namespace up to the cred's. */
static bool cap_capable(const struct cm_sys *sys, const struct cm_cred *c, int ns, int cap)
{
	if (cap < 0 || cap > sys->last_cap)
		return false;
	for (;;) {
		if (ns == c->ns)
			return has(c->pE, cap);
		if (sys->ns[ns].level <= sys->ns[c->ns].level)
			return false;
		if (owner_rule(sys, c, ns))
			return true;
		ns = sys->ns[ns].parent;
	}
}

/*
 * The BPF backend's lsm/capable, after cap_capable() granted: a cap granted
 * from the cred's own sets (target = its own namespace) must be in bound;
 * a grant by ownership (rule 11, target below) stands.
 */
static bool bpf_capable(const struct cm_sys *sys, const struct cm_cred *c, int ns, int cap)
{
	return !bpf(sys) || ns != c->ns || has(c->bound, cap);
}

bool cm_ns_capable(const struct cm_sys *sys, const struct cm_cred *c, int ns, int cap)
{
	return cap_capable(sys, c, ns, cap) && bpf_capable(sys, c, ns, cap);
}

bool cm_capable(const struct cm_sys *sys, const struct cm_cred *c, int cap)
{
	return cm_ns_capable(sys, c, 0, cap);
}

/*
 * cap_inh_is_capped() and PR_SET_SECUREBITS: CAP_SETPCAP in pE, asked of
 * cap_capable() directly, so no other LSM (the BPF backend neither) has a
 * say.
 */
static bool setpcap_uncapped(const struct cm_sys *sys, const struct cm_cred *c)
{
	return cap_capable(sys, c, c->ns, CAP_SETPCAP);
}

/* ns_capable(current_user_ns(), CAP_SETPCAP): every LSM has a say. */
static bool setpcap_in_own_ns(const struct cm_sys *sys, const struct cm_cred *c)
{
	return cm_ns_capable(sys, c, c->ns, CAP_SETPCAP);
}

/* The sets as the series holds them: on the BPF backend, kernel set & bound. */
static cm_caps series_view(const struct cm_cred *c, cm_caps set)
{
	return set & c->bound;
}

/* ---- rule 1: fork ----------------------------------------------------- */

void cm_fork(const struct cm_cred *parent, struct cm_cred *child)
{
	*child = *parent;
}

/* ---- execve: cap_bprm_creds_from_file() ------------------------------ */

/* bprm_fill_uid(): setuid honoured only if the owner is mapped in the ns. */
static void exec_fill_uid(const struct cm_sys *sys, struct cm_cred *new, const struct cm_file *f)
{
	if (!f->setuid)
		return;
	if (!kuid_mapped(sys, new->ns, f->uid) || !kgid_mapped(sys, new->ns, f->gid))
		return;
	new->euid = f->uid;
}

/*
 * get_file_caps() + bprm_caps_from_vfs_caps(): pP' = (X & fP) | (pI & fI).
 * A revision-2 xattr has rootid 0, which the initial namespace always maps,
 * so rootid_owns_currentns() holds everywhere.  With fE set, missing forced
 * caps fail the exec with EPERM.
 */
static int exec_file_caps(const struct cm_sys *sys, struct cm_cred *new, const struct cm_file *f,
			  bool *effective, bool *has_fcap)
{
	cm_caps fP = f->fP & sys->full, fI = f->fI & sys->full;

	new->pP = 0;
	if (!f->has_caps)
		return 0;
	*effective = f->fE;
	*has_fcap = true;
	new->pP = (new->X & fP) | (new->pI & fI);
	if (*effective && !subset(fP, new->pP)) {
		new->pP = 0;
		return -EPERM;
	}
	return 0;
}

/* handle_privileged_root(): root gets pP' = X | pI unless SECURE_NOROOT. */
static void exec_privileged_root(const struct cm_cred *old, struct cm_cred *new, bool has_fcap,
				 bool *effective, uint32_t root_uid)
{
	bool is_eff = root_uid != CM_ID_NONE && new->euid == root_uid;
	bool is_real = root_uid != CM_ID_NONE && new->uid == root_uid;

	if (secure(old, CM_SECURE_NOROOT))
		return;
	/* setuid-root with file caps: the file caps alone apply. */
	if (has_fcap && is_eff && !is_real)
		return;
	if (is_eff || is_real)
		new->pP = old->X | old->pI;
	if (is_eff)
		*effective = true;
}

/*
 * Rule 10: a setuid-root exec that gains privilege gets p'U = X, so that a
 * pU lowered by an unprivileged caller cannot break a privileged program.
 * "Gains privilege" as the series states it: the new euid is root, the old
 * one was not, and pP grew.
 */
static void exec_setuid_root_resets_pU(const struct cm_sys *sys, const struct cm_cred *old,
				       struct cm_cred *new, uint32_t root_uid)
{
	if (!series(sys) || MUTANT(4))
		return;
	if (root_uid != CM_ID_NONE && new->euid == root_uid && old->euid != root_uid &&
	    !subset(new->pP, old->pP))
		new->pU = new->X;
}

/*
 * Rule 10 as the BPF backend states it (lsm/bprm_creds_from_file, after the
 * capability LSM): the euid changes and pP as the series sees it grows:
 * p'U = X as the series sees it.
 */
static void exec_gain_resets_pU_bpf(const struct cm_sys *sys, const struct cm_cred *old,
				    struct cm_cred *new)
{
	if (!bpf(sys) || MUTANT(4))
		return;
	if (new->euid != old->euid &&
	    !subset(series_view(new, new->pP), series_view(new, old->pP)))
		new->pU = series_view(new, new->X);
}

int cm_execve(const struct cm_sys *sys, struct cm_cred *c, const struct cm_file *f)
{
	struct cm_cred new = *c;
	const struct cm_cred *old = c;
	bool effective = false, has_fcap = false, is_setid;
	uint32_t root_uid = cm_make_kuid(sys, c->ns, 0);
	int ret;

	exec_fill_uid(sys, &new, f);
	ret = exec_file_caps(sys, &new, f, &effective, &has_fcap);
	if (ret < 0)
		return ret;
	exec_privileged_root(old, &new, has_fcap, &effective, root_uid);

	/* __is_setuid(): compares the new euid with the OLD real uid. */
	is_setid = new.euid != old->uid;
	/* No ptrace and no no_new_privs in the model: no downgrade branch. */
	new.suid = new.fsuid = new.euid;
	if (has_fcap || is_setid)
		new.pA = 0;
	new.pP |= new.pA;
	new.pE = effective ? new.pP : new.pA;
	new.securebits &= ~CM_SECBIT(CM_SECURE_KEEP_CAPS);
	exec_setuid_root_resets_pU(sys, old, &new, root_uid); /* rule 1 otherwise */
	exec_gain_resets_pU_bpf(sys, old, &new);
	*c = new;
	return 0;
}

/* ---- capset: cap_capset() -------------------------------------------- */

int cm_capset(const struct cm_sys *sys, struct cm_cred *c, cm_caps eff, cm_caps perm,
	      cm_caps inh)
{
	/* sys_capset() drops bits above CAP_LAST_CAP silently. */
	eff &= sys->full;
	perm &= sys->full;
	inh &= sys->full;

	if (!setpcap_uncapped(sys, c) && !subset(inh, c->pI | c->pP))
		return -EPERM;
	if (!subset(inh, c->pI | c->X))
		return -EPERM;
	if (!subset(perm, c->pP))
		return -EPERM;
	if (!subset(eff, perm))
		return -EPERM;
	c->pE = eff;
	c->pI = inh;
	c->pP = perm;
	c->pA &= perm & inh;
	return 0;
}

/* ---- prctl ------------------------------------------------------------ */

/* PR_CAPBSET_DROP: cap_prctl_drop(); the EPERM check comes first. */
static long prctl_capbset_drop(const struct cm_sys *sys, struct cm_cred *c, uint64_t cap)
{
	if (!setpcap_in_own_ns(sys, c))
		return -EPERM;
	if (!cap_valid(sys, cap))
		return -EINVAL;
	c->X &= ~CM_BIT(cap);
	return 0;
}

/* PR_SET_SECUREBITS: no change to locked bits, no unlocking, known bits only,
 * and CAP_SETPCAP in pE. */
static long prctl_set_securebits(const struct cm_sys *sys, struct cm_cred *c, uint64_t bits)
{
	uint64_t all_bits = secure_all_bits(sys), all_locks = all_bits << 1;
	uint64_t old = c->securebits;

	if ((((old & all_locks) >> 1) & (old ^ bits)) || (old & all_locks & ~bits) ||
	    (bits & ~(all_locks | all_bits)) || !setpcap_uncapped(sys, c))
		return -EPERM;
	c->securebits = (unsigned int)bits;
	return 0;
}

static long prctl_set_keepcaps(struct cm_cred *c, uint64_t arg)
{
	if (arg > 1)
		return -EINVAL;
	if (secure(c, CM_SECURE_KEEP_CAPS + 1))
		return -EPERM;
	if (arg)
		c->securebits |= CM_SECBIT(CM_SECURE_KEEP_CAPS);
	else
		c->securebits &= ~CM_SECBIT(CM_SECURE_KEEP_CAPS);
	return 0;
}

/* PR_CAP_AMBIENT: raise needs the cap in pP and pI and no NO_CAP_AMBIENT_RAISE. */
static long prctl_cap_ambient(const struct cm_sys *sys, struct cm_cred *c, uint64_t op,
			      uint64_t cap, uint64_t a4, uint64_t a5)
{
	if (op == CM_PR_CAP_OP_CLEAR_ALL) {
		if (cap | a4 | a5)
			return -EINVAL;
		c->pA = 0;
		return 0;
	}
	if (!cap_valid(sys, cap) || a4 || a5)
		return -EINVAL;
	if (op == CM_PR_CAP_OP_IS_SET)
		return has(c->pA, (int)cap);
	if (op != CM_PR_CAP_OP_RAISE && op != CM_PR_CAP_OP_LOWER)
		return -EINVAL;
	if (op == CM_PR_CAP_OP_RAISE) {
		if (!has(c->pP, (int)cap) || !has(c->pI, (int)cap) ||
		    secure(c, CM_SECURE_NO_CAP_AMBIENT_RAISE))
			return -EPERM;
		c->pA |= CM_BIT(cap);
	} else {
		c->pA &= ~CM_BIT(cap);
	}
	return 0;
}

/* Rule 2, RAISE: p'U = (pE ∋ CAP_SETPCAP) ? X : (X ∩ pP); an already set bit
 * always succeeds.  The sets are the series' (on the BPF backend: & bound). */
static bool uns_raiseable(const struct cm_cred *c, int cap)
{
	if (has(c->pU, cap))
		return true;
	if (!has(series_view(c, c->X), cap))
		return false;
	if (MUTANT(5))
		return true;
	return has(series_view(c, c->pE), CAP_SETPCAP) || has(series_view(c, c->pP), cap);
}

/* Rule 2: prctl(PR_CAP_USERNS, op, cap, 0, 0). */
static long prctl_cap_userns(const struct cm_sys *sys, struct cm_cred *c, uint64_t op,
			     uint64_t cap, uint64_t a4, uint64_t a5)
{
	if (op == CM_PR_CAP_OP_CLEAR_ALL) {
		if (cap | a4 | a5)
			return -EINVAL;
		c->pU = 0;
		return 0;
	}
	if (!cap_valid(sys, cap) || a4 || a5)
		return -EINVAL;
	if (op == CM_PR_CAP_OP_IS_SET)
		return has(c->pU, (int)cap);
	if (op != CM_PR_CAP_OP_RAISE && op != CM_PR_CAP_OP_LOWER)
		return -EINVAL;
	if (op == CM_PR_CAP_OP_RAISE) {
		if (!uns_raiseable(c, (int)cap))
			return -EPERM;
		c->pU |= CM_BIT(cap);
	} else {
		c->pU &= ~CM_BIT(cap);
	}
	return 0;
}

/*
 * Rule 5 on the BPF backend: the strict bits through an extension op, with
 * the rules of PR_SET_SECUREBITS for bits 8/9 (a locked bit keeps its value,
 * a lock stays) and CAP_SETPCAP as the series sees pE.
 */
static long bpf_strict_set(struct cm_cred *c, uint64_t bits)
{
	unsigned int old = c->uns_strict;

	if (bits & ~(uint64_t)(CM_BPF_STRICT | CM_BPF_STRICT_LOCKED))
		return -EPERM;
	if ((old & CM_BPF_STRICT_LOCKED) &&
	    (((old ^ bits) & CM_BPF_STRICT) || !(bits & CM_BPF_STRICT_LOCKED)))
		return -EPERM;
	if (!has(series_view(c, c->pE), CAP_SETPCAP))
		return -EPERM;
	c->uns_strict = (unsigned int)bits;
	return 0;
}

/* Rule 6 on the BPF backend: no CAP_SYS_CONTROL on a stock kernel, so
 * CAP_SYS_ADMIN (as the series sees pE) in the initial namespace. */
static long bpf_mask_lower(struct cm_sys *sys, const struct cm_cred *c, uint64_t cap)
{
	if (sys->ns[c->ns].level != 0 || !has(series_view(c, c->pE), CAP_SYS_ADMIN))
		return -EPERM;
	sys->mask &= ~CM_BIT(cap);
	return 0;
}

/* prctl(PR_CAP_USERNS, op >= 0x4300, arg3, 0, 0) on the BPF backend. */
static long bpf_extension_op(struct cm_sys *sys, struct cm_cred *c, uint64_t op, uint64_t arg3)
{
	switch (op) {
	case CM_BPF_OP_PROBE:
		return arg3 ? -EINVAL : CM_BPF_ABI_VERSION;
	case CM_BPF_OP_STRICT_GET:
		return arg3 ? -EINVAL : (long)c->uns_strict;
	case CM_BPF_OP_STRICT_SET:
		return bpf_strict_set(c, arg3);
	}
	if (!cap_valid(sys, arg3))
		return -EINVAL;
	switch (op) {
	case CM_BPF_OP_MASK_IS_SET:
		return has(sys->mask, (int)arg3);
	case CM_BPF_OP_MASK_LOWER:
		return bpf_mask_lower(sys, c, arg3);
	case CM_BPF_OP_BOUND_IS_SET:
		return has(c->bound, (int)arg3);
	}
	return -EINVAL;
}

long cm_prctl(struct cm_sys *sys, struct cm_cred *c, int option, uint64_t arg2,
	      uint64_t arg3, uint64_t arg4, uint64_t arg5)
{
	switch (option) {
	case CM_PR_CAPBSET_READ:
		if (!cap_valid(sys, arg2))
			return -EINVAL;
		return has(c->X, (int)arg2);
	case CM_PR_CAPBSET_DROP:
		return prctl_capbset_drop(sys, c, arg2);
	case CM_PR_SET_SECUREBITS:
		return prctl_set_securebits(sys, c, arg2);
	case CM_PR_GET_SECUREBITS:
		return c->securebits;
	case CM_PR_GET_KEEPCAPS:
		return secure(c, CM_SECURE_KEEP_CAPS);
	case CM_PR_SET_KEEPCAPS:
		return prctl_set_keepcaps(c, arg2);
	case CM_PR_CAP_AMBIENT:
		return prctl_cap_ambient(sys, c, arg2, arg3, arg4, arg5);
	case CM_PR_CAP_USERNS:
		/* Unknown to the capability LSM without the series: sys_prctl's EINVAL. */
		if (!uns(sys))
			return -EINVAL;
		if (bpf(sys) && arg2 >= CM_BPF_OP_PROBE)
			return (arg4 | arg5) ? -EINVAL : bpf_extension_op(sys, c, arg2, arg3);
		return prctl_cap_userns(sys, c, arg2, arg3, arg4, arg5);
	default:
		return -EINVAL;
	}
}

/* ---- rule 3: entering a user namespace (set_cred_user_ns) ------------ */

/* Stock 6.1: a new namespace starts with every capability. */
static void uns_enter_stock(const struct cm_sys *sys, struct cm_cred *c)
{
	c->X = c->pP = c->pE = sys->full;
}

/* Rule 3a and 3b: p'U = pU ∩ (strict ? X : all) ∩ mask. */
static cm_caps uns_entry_set(const struct cm_sys *sys, const struct cm_cred *c)
{
	bool strict = series(sys) ? secure(c, CM_SECURE_USERNS_STRICT_CAPS)
				  : (c->uns_strict & CM_BPF_STRICT);
	cm_caps pU = c->pU;

	if (strict && !MUTANT(1))
		pU &= series_view(c, c->X); /* 3a */
	if (!MUTANT(3))
		pU &= sys->mask; /* 3b */
	return pU;
}

/* Rule 3c in the series: X = pP = pE = p'U. */
static void uns_enter_bounded(const struct cm_sys *sys, struct cm_cred *c)
{
	c->pU = uns_entry_set(sys, c);
	c->X = c->pP = c->pE = c->pU;
}

/* Rule 3c on the BPF backend: the kernel's sets are stock; bound = p'U, and
 * the strict bits (the backend's securebits 8/9) are reset. */
static void uns_enter_recorded(struct cm_sys *sys, struct cm_cred *c)
{
	c->pU = c->bound = uns_entry_set(sys, c);
	c->uns_strict = 0;
	uns_enter_stock(sys, c);
}

static void uns_enter(struct cm_sys *sys, struct cm_cred *c, int ns, bool by_setns)
{
	if (!uns(sys) || (by_setns && MUTANT(2)))
		uns_enter_stock(sys, c);
	else if (series(sys))
		uns_enter_bounded(sys, c);
	else
		uns_enter_recorded(sys, c);
	c->pI = c->pA = 0;
	c->securebits = 0; /* SECUREBITS_DEFAULT */
	c->ns = ns;
	sys->ns[ns].ceiling |= series_view(c, c->X);
	sys->ns[ns].entered_by_setns |= by_setns;
}

/* unshare(CLONE_NEWUSER) / clone(CLONE_NEWUSER): create_user_ns(). */
int cm_unshare_user(struct cm_sys *sys, struct cm_cred *c)
{
	const struct cm_ns *parent = &sys->ns[c->ns];
	struct cm_ns *ns;

	if (parent->level > CM_NS_LEVEL_MAX)
		return -ENOSPC;
	if (sys->nns >= CM_NS_MAX)
		return -ENOSPC; /* the model's own capacity; callers stay below it */
	/* The creator must be mapped in the parent namespace. */
	if (!kuid_mapped(sys, c->ns, c->euid) || !kgid_mapped(sys, c->ns, c->gid))
		return -EPERM;
	ns = &sys->ns[sys->nns];
	*ns = (struct cm_ns){ .parent = c->ns, .level = parent->level + 1, .owner = c->euid,
			      .group = c->gid, .root_uid = CM_ID_NONE, .root_gid = CM_ID_NONE,
			      .setgroups_denied = parent->setgroups_denied };
	uns_enter(sys, c, sys->nns++, false);
	return 0;
}

/*
 * Writing "deny" to setgroups, then "0 U 1" to uid_map and "0 G 1" to gid_map
 * of namespace ns, by a writer in its parent (U, G: the writer's ids there),
 * the way unprivileged tools do.  map_write() needs CAP_SYS_ADMIN over ns;
 * verify_root_map() needs CAP_SETFCAP in the parent when U is 0;
 * new_idmap_permitted() accepts the owner mapping its own euid/egid, or
 * needs CAP_SETUID/CAP_SETGID in the parent.
 */
int cm_map_root(struct cm_sys *sys, const struct cm_cred *w, int ns)
{
	struct cm_ns *n;
	uint32_t lower_uid, lower_gid;

	if (ns <= 0 || ns >= sys->nns)
		return -EINVAL;
	n = &sys->ns[ns];
	if (w->ns != n->parent || n->root_uid != CM_ID_NONE)
		return -EPERM;
	lower_uid = cm_from_kuid(sys, n->parent, w->euid);
	lower_gid = from_kgid(sys, n->parent, w->gid);
	if (lower_uid == CM_ID_NONE || lower_gid == CM_ID_NONE)
		return -EPERM;
	if (!cm_ns_capable(sys, w, ns, CAP_SYS_ADMIN))
		return -EPERM;
	if (lower_uid == 0 && !cm_ns_capable(sys, w, n->parent, CAP_SETFCAP))
		return -EPERM;
	if (n->owner != w->euid && !cm_ns_capable(sys, w, n->parent, CAP_SETUID))
		return -EPERM;
	n->setgroups_denied = true;
	n->root_uid = w->euid;
	if (n->owner != w->euid && !cm_ns_capable(sys, w, n->parent, CAP_SETGID))
		return -EPERM; /* uid_map stays written, as in the kernel */
	n->root_gid = w->gid;
	return 0;
}

/* setns(fd, CLONE_NEWUSER): userns_install(), then rule 3 (SPEC: also setns). */
int cm_setns_user(struct cm_sys *sys, struct cm_cred *c, int ns)
{
	if (ns < 0 || ns >= sys->nns)
		return -EINVAL;
	if (ns == c->ns)
		return -EINVAL;
	if (!cm_ns_capable(sys, c, ns, CAP_SYS_ADMIN))
		return -EPERM;
	uns_enter(sys, c, ns, true);
	return 0;
}

/* ---- set*uid: cap_task_fix_setuid() / cap_emulate_setxuid() ---------- */

static void emulate_setxuid(const struct cm_sys *sys, const struct cm_cred *old,
			    struct cm_cred *new)
{
	uint32_t root = cm_make_kuid(sys, old->ns, 0);
	bool was_root = root != CM_ID_NONE &&
			(old->uid == root || old->euid == root || old->suid == root);
	bool now_root = root != CM_ID_NONE &&
			(new->uid == root || new->euid == root || new->suid == root);

	if (secure(old, CM_SECURE_NO_SETUID_FIXUP))
		return;
	if (was_root && !now_root) {
		if (!secure(old, CM_SECURE_KEEP_CAPS))
			new->pP = new->pE = 0;
		new->pA = 0;
	}
	if (root != CM_ID_NONE && old->euid == root && new->euid != root)
		new->pE = 0;
	if (root != CM_ID_NONE && old->euid != root && new->euid == root)
		new->pE = new->pP;
}

/* setuid(2): __sys_setuid(). */
int cm_setuid(const struct cm_sys *sys, struct cm_cred *c, uint32_t uid)
{
	uint32_t k = cm_make_kuid(sys, c->ns, uid);
	struct cm_cred new = *c;

	if (k == CM_ID_NONE)
		return -EINVAL;
	if (cm_ns_capable(sys, c, c->ns, CAP_SETUID))
		new.uid = new.suid = k;
	else if (k != c->uid && k != c->suid)
		return -EPERM;
	new.euid = new.fsuid = k;
	emulate_setxuid(sys, c, &new);
	*c = new;
	return 0;
}

/* setresuid(2): __sys_setresuid(), with its no-op shortcut. */
int cm_setresuid(const struct cm_sys *sys, struct cm_cred *c, uint32_t ruid, uint32_t euid,
		 uint32_t suid)
{
	uint32_t kr = cm_make_kuid(sys, c->ns, ruid), ke = cm_make_kuid(sys, c->ns, euid),
		 ks = cm_make_kuid(sys, c->ns, suid);
	struct cm_cred new = *c;
#define KNOWN(k) ((k) == c->uid || (k) == c->euid || (k) == c->suid)

	if ((ruid != CM_ID_NONE && kr == CM_ID_NONE) || (euid != CM_ID_NONE && ke == CM_ID_NONE) ||
	    (suid != CM_ID_NONE && ks == CM_ID_NONE))
		return -EINVAL;
	if ((ruid == CM_ID_NONE || kr == c->uid) &&
	    (euid == CM_ID_NONE || (ke == c->euid && ke == c->fsuid)) &&
	    (suid == CM_ID_NONE || ks == c->suid))
		return 0;
	if (((ruid != CM_ID_NONE && !KNOWN(kr)) || (euid != CM_ID_NONE && !KNOWN(ke)) ||
	     (suid != CM_ID_NONE && !KNOWN(ks))) &&
	    !cm_ns_capable(sys, c, c->ns, CAP_SETUID))
		return -EPERM;
#undef KNOWN
	if (ruid != CM_ID_NONE)
		new.uid = kr;
	if (euid != CM_ID_NONE)
		new.euid = ke;
	if (suid != CM_ID_NONE)
		new.suid = ks;
	new.fsuid = new.euid;
	emulate_setxuid(sys, c, &new);
	*c = new;
	return 0;
}

/* setresgid(g, g, g): groups never touch capabilities; only the checks. */
int cm_setgid_all(const struct cm_sys *sys, struct cm_cred *c, uint32_t gid)
{
	uint32_t k = cm_make_kgid(sys, c->ns, gid);

	if (k == CM_ID_NONE)
		return -EINVAL;
	if (k == c->gid)
		return 0;
	if (!cm_ns_capable(sys, c, c->ns, CAP_SETGID))
		return -EPERM;
	c->gid = k;
	return 0;
}

/* ---- rule 6: kernel.cap_userns_mask ---------------------------------- */

/*
 * Mode 0644 owned by global root: opening for writing needs euid == kuid 0
 * (sysctl test_perm(), no capability override).  The handler then needs
 * CAP_SYS_CONTROL in the initial namespace, and only ever drops bits.
 */
int cm_mask_write(struct cm_sys *sys, const struct cm_cred *c, uint64_t value)
{
	if (!series(sys))
		return -ENOENT;
	if (c->euid != 0)
		return -EACCES;
	if (!cm_capable(sys, c, CAP_SYS_CONTROL))
		return -EPERM;
	sys->mask &= value;
	return 0;
}

/* ---- rule 7: usermodehelper ------------------------------------------ */

/* Mode 0600 root; proc_cap_handler() needs CAP_SETPCAP and CAP_SYS_MODULE. */
int cm_umh_write(struct cm_sys *sys, const struct cm_cred *c, enum cm_umh_set which,
		 uint64_t value)
{
	cm_caps *set;

	switch (which) {
	case CM_UMH_BSET:
		set = &sys->umh_bset;
		break;
	case CM_UMH_INHERITABLE:
		set = &sys->umh_inheritable;
		break;
	case CM_UMH_USERNS:
		if (!series(sys))
			return -ENOENT;
		set = &sys->umh_userns;
		break;
	default:
		return -EINVAL;
	}
	if (c->euid != 0)
		return -EACCES;
	if (!cm_capable(sys, c, CAP_SETPCAP) || !cm_capable(sys, c, CAP_SYS_MODULE))
		return -EPERM;
	*set &= value;
	return 0;
}

/* call_usermodehelper_exec_async(): a kernel cred, then the three sysctls;
 * the helper binary is exec'd from there (cm_execve). */
void cm_umh_cred(const struct cm_sys *sys, struct cm_cred *h)
{
	cm_cred_init_root(sys, h);
	h->X &= sys->umh_bset;
	h->pI &= sys->umh_inheritable;
	if (series(sys))
		h->pU &= sys->umh_userns;
}

/* ---- observation and invariants ------------------------------------- */

static uint32_t visible_uid(const struct cm_sys *sys, int ns, uint32_t kuid)
{
	uint32_t id = cm_from_kuid(sys, ns, kuid);

	return id == CM_ID_NONE ? OVERFLOWUID : id;
}

void cm_observe(const struct cm_sys *sys, const struct cm_cred *c, struct cm_obs *o)
{
	memset(o, 0, sizeof(*o));
	o->pE = c->pE;
	o->pP = c->pP;
	o->pI = c->pI;
	o->pA = c->pA;
	o->X = c->X;
	o->pU = uns(sys) ? c->pU : 0; /* no CapUNs line, no prctl(48) without either */
	o->bound = bpf(sys) ? c->bound : 0;
	o->uns_strict = bpf(sys) ? c->uns_strict : 0;
	o->securebits = c->securebits;
	o->uid = visible_uid(sys, c->ns, c->uid);
	o->euid = visible_uid(sys, c->ns, c->euid);
	o->suid = visible_uid(sys, c->ns, c->suid);
	o->level = sys->ns[c->ns].level;
}

/*
 * Classic invariants (pA ⊆ pP ∩ pI, pE ⊆ pP, sets within CAP_FULL_SET), and
 * rule 4: inside a non-initial namespace every set, pU included, stays within
 * what was brought into it, and a namespace created from a non-initial one
 * (and never entered by setns) holds nothing its parent never held.
 */
const char *cm_check_invariants(const struct cm_sys *sys, const struct cm_cred *c)
{
	const struct cm_ns *ns = &sys->ns[c->ns];
	cm_caps all = c->pE | c->pP | c->pI | c->pA | c->X | c->pU;
	/*
	 * On the BPF backend the kernel's sets are full in a namespace; what it
	 * holds is their part inside bound.  pI and pA are left out there: a
	 * stock capset checks pI against the kernel's X, and bound still cuts
	 * whatever an exec makes of them.
	 */
	cm_caps held = bpf(sys) ? series_view(c, c->pE | c->pP | c->X) | c->pU | c->bound : all;

	if (!subset(c->pA, c->pP & c->pI))
		return "ambient not within permitted and inheritable";
	if (!subset(c->pE, c->pP))
		return "effective not within permitted";
	if (!subset(all, sys->full))
		return "a set holds a bit beyond CAP_LAST_CAP";
	if (!uns(sys) || c->ns == 0)
		return NULL;
	if (bpf(sys) && !subset(c->pU, c->bound))
		return "pU holds a cap outside the set recorded at namespace entry";
	if (!subset(held, ns->ceiling))
		return "a set holds a cap never brought into its namespace";
	for (int i = 1; i < sys->nns; i++) {
		const struct cm_ns *n = &sys->ns[i];

		if (n->parent > 0 && !n->entered_by_setns && !sys->ns[n->parent].entered_by_setns &&
		    !subset(n->ceiling, sys->ns[n->parent].ceiling))
			return "a nested namespace holds a cap absent from its parent";
	}
	return NULL;
}

char *cm_format_obs(const struct cm_obs *o, char *buf, size_t len)
{
	snprintf(buf, len,
		 "CapEff=%016llx CapPrm=%016llx CapInh=%016llx CapAmb=%016llx "
		 "CapBnd=%016llx CapUNs=%016llx bound=%016llx strict=%#x secbits=%#x "
		 "uid=%u/%u/%u level=%d",
		 (unsigned long long)o->pE, (unsigned long long)o->pP,
		 (unsigned long long)o->pI, (unsigned long long)o->pA,
		 (unsigned long long)o->X, (unsigned long long)o->pU,
		 (unsigned long long)o->bound, o->uns_strict, o->securebits, o->uid, o->euid,
		 o->suid, o->level);
	return buf;
}
