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

static bool uns(const struct cm_sys *sys)
{
	return sys->flavour == CM_PATCHED;
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

	if (uns(sys))
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
	c->pE = c->pP = c->X = c->pU = sys->full;
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
bool cm_ns_capable(const struct cm_sys *sys, const struct cm_cred *c, int ns, int cap)
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

bool cm_capable(const struct cm_sys *sys, const struct cm_cred *c, int cap)
{
	return cm_ns_capable(sys, c, 0, cap);
}

/* cap_inh_is_capped(): "capped" unless CAP_SETPCAP is in pE (own namespace). */
static bool setpcap_in_own_ns(const struct cm_sys *sys, const struct cm_cred *c)
{
	return cm_ns_capable(sys, c, c->ns, CAP_SETPCAP);
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
	if (!uns(sys) || MUTANT(4))
		return;
	if (root_uid != CM_ID_NONE && new->euid == root_uid && old->euid != root_uid &&
	    !subset(new->pP, old->pP))
		new->pU = new->X;
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

	if (!setpcap_in_own_ns(sys, c) && !subset(inh, c->pI | c->pP))
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
	    (bits & ~(all_locks | all_bits)) || !setpcap_in_own_ns(sys, c))
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
 * always succeeds. */
static bool uns_raiseable(const struct cm_sys *sys, const struct cm_cred *c, int cap)
{
	if (has(c->pU, cap))
		return true;
	if (!has(c->X, cap))
		return false;
	if (MUTANT(5))
		return true;
	return setpcap_in_own_ns(sys, c) || has(c->pP, cap);
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
		if (!uns_raiseable(sys, c, (int)cap))
			return -EPERM;
		c->pU |= CM_BIT(cap);
	} else {
		c->pU &= ~CM_BIT(cap);
	}
	return 0;
}

long cm_prctl(const struct cm_sys *sys, struct cm_cred *c, int option, uint64_t arg2,
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

static void uns_enter_bounded(const struct cm_sys *sys, struct cm_cred *c)
{
	if (secure(c, CM_SECURE_USERNS_STRICT_CAPS) && !MUTANT(1))
		c->pU &= c->X; /* 3a */
	if (!MUTANT(3))
		c->pU &= sys->mask; /* 3b */
	c->X = c->pP = c->pE = c->pU; /* 3c */
}

static void uns_enter(struct cm_sys *sys, struct cm_cred *c, int ns, bool by_setns)
{
	if (uns(sys) && !(by_setns && MUTANT(2)))
		uns_enter_bounded(sys, c);
	else
		uns_enter_stock(sys, c);
	c->pI = c->pA = 0;
	c->securebits = 0; /* SECUREBITS_DEFAULT */
	c->ns = ns;
	sys->ns[ns].ceiling |= c->X;
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
	if (!uns(sys))
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
		if (!uns(sys))
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
	if (uns(sys))
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
	o->pU = uns(sys) ? c->pU : 0; /* no CapUNs line without the series */
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

	if (!subset(c->pA, c->pP & c->pI))
		return "ambient not within permitted and inheritable";
	if (!subset(c->pE, c->pP))
		return "effective not within permitted";
	if (!subset(all, sys->full))
		return "a set holds a bit beyond CAP_LAST_CAP";
	if (!uns(sys) || c->ns == 0)
		return NULL;
	if (!subset(all, ns->ceiling))
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
		 "CapBnd=%016llx CapUNs=%016llx secbits=%#x uid=%u/%u/%u level=%d",
		 (unsigned long long)o->pE, (unsigned long long)o->pP,
		 (unsigned long long)o->pI, (unsigned long long)o->pA,
		 (unsigned long long)o->X, (unsigned long long)o->pU, o->securebits, o->uid,
		 o->euid, o->suid, o->level);
	return buf;
}
