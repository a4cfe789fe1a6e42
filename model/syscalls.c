// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Linux 6.1's system calls on credentials, each restating the function it
 * cites (security/commoncap.c, kernel/user_namespace.c, kernel/sys.c,
 * kernel/capability.c, fs/exec.c, kernel/umh.c) on top of commoncap.c.
 * Where the patched kernel calls the series, or a stock kernel the BPF
 * backend's programs, these functions call the system's hook table
 * (hooks.h).
 */
#include "hooks.h"

#include <errno.h>

/*
 * cap_inh_is_capped() and PR_SET_SECUREBITS: CAP_SETPCAP in pE, asked of
 * cap_capable() directly, so lsm/capable has no say; the BPF backend
 * answers in its capset and set_securebits hooks.
 */
static bool setpcap_uncapped(const struct cm_sys *sys, const struct cm_cred *c)
{
	return cm_cap_capable(sys, c, c->ns, CAP_SETPCAP);
}

/* ns_capable(current_user_ns(), CAP_SETPCAP): every LSM has a say. */
static bool setpcap_in_own_ns(const struct cm_sys *sys, const struct cm_cred *c)
{
	return cm_ns_capable(sys, c, c->ns, CAP_SETPCAP);
}

/* ---- ptrace: cap_ptrace_access_check(), cap_ptrace_traceme() --------- */

/*
 * The capability side of a ptrace attach (PTRACE_ATTACH, /proc/PID/mem with
 * fscreds: PTRACE_MODE_ATTACH_FSCREDS) and of PTRACE_TRACEME (tracer: the
 * parent), past the uid and dumpability checks of __ptrace_may_access(),
 * which the model does not hold (no Yama either).  The series adds rule 12;
 * on a stock kernel the BPF backend's lsm/ptrace_access_check decides after.
 */
bool cm_ptrace_attach(const struct cm_sys *sys, const struct cm_cred *tracer,
		      const struct cm_cred *tracee, bool fscreds)
{
	const struct cm_hooks *h = sys->hooks;

	if (h->userns_may_control && !h->userns_may_control(sys, tracer, tracee))
		return false;
	if (!cm_cap_ptrace_subset(sys, tracer, fscreds ? tracer->pE : tracer->pP, tracee,
				  tracee->pP))
		return false;
	return !h->ptrace_access_check || h->ptrace_access_check(sys, tracer, tracee, fscreds);
}

/* ---- fork ------------------------------------------------------------- */

/* Rule 1: the child's credentials, pU included, are a copy. */
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
	if (!cm_kuid_mapped(sys, new->ns, f->uid) || !cm_kgid_mapped(sys, new->ns, f->gid))
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

	if (securebit_set(old, CM_SECURE_NOROOT))
		return;
	/* setuid-root with file caps: the file caps alone apply. */
	if (has_fcap && is_eff && !is_real)
		return;
	if (is_eff || is_real)
		new->pP = old->X | old->pI;
	if (is_eff)
		*effective = true;
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

	/* The new euid against the old real uid or, on newer kernels, the old
	 * euid (cm_sys.setid_by_euid); the model keeps egid in the groups. */
	is_setid = new.euid != (sys->setid_by_euid ? old->euid : old->uid);
	/* No ptrace and no no_new_privs in the model: no downgrade branch. */
	new.suid = new.fsuid = new.euid;
	if (has_fcap || is_setid)
		new.pA = 0;
	new.pP |= new.pA;
	new.pE = effective ? new.pP : new.pA;
	new.securebits &= ~CM_SECBIT(CM_SECURE_KEEP_CAPS);
	/* pU is kept (rule 1) but for rule 10, the series' or the backend's. */
	if (sys->hooks->bprm_creds_from_file)
		sys->hooks->bprm_creds_from_file(old, &new, root_uid);
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
	if (sys->hooks->capset) {
		int err = sys->hooks->capset(sys, c, inh);

		if (err)
			return err;
	}
	c->pE = eff;
	c->pI = inh;
	c->pP = perm;
	c->pA &= perm & inh;
	return 0;
}

/* ---- prctl: cap_task_prctl() ------------------------------------------ */

/* SECURE_ALL_BITS (the exec bits from 6.14); the series adds its bit (rule 5). */
static unsigned int secure_all_bits(const struct cm_sys *sys)
{
	unsigned int exec = CM_SECBIT(CM_SECURE_EXEC_RESTRICT_FILE) |
			    CM_SECBIT(CM_SECURE_EXEC_DENY_INTERACTIVE);

	return CM_SECBIT(CM_SECURE_NOROOT) | CM_SECBIT(CM_SECURE_NO_SETUID_FIXUP) |
	       CM_SECBIT(CM_SECURE_KEEP_CAPS) | CM_SECBIT(CM_SECURE_NO_CAP_AMBIENT_RAISE) |
	       (sys->exec_securebits ? exec : 0) | sys->hooks->secure_bits;
}

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

/* PR_SET_SECUREBITS: CAP_SETPCAP in pE, or else (6.14 on) a change of the
 * exec bits only; no change to locked bits, no unlocking, known bits only. */
static long prctl_set_securebits(const struct cm_sys *sys, struct cm_cred *c, uint64_t bits)
{
	uint64_t all_bits = secure_all_bits(sys), all_locks = all_bits << 1;
	uint64_t old = c->securebits, changed = old ^ bits;
	uint64_t unpriv = cm_unpriv_securebits(sys);

	if (sys->hooks->set_securebits) {
		int err = sys->hooks->set_securebits(sys, c, bits);

		if (err)
			return err;
	}
	/* Without CAP_SETPCAP: no change is EPERM too (the kernel's legacy). */
	if (!setpcap_uncapped(sys, c) && (!changed || (changed & ~unpriv)))
		return -EPERM;
	if ((((old & all_locks) >> 1) & changed) || (old & all_locks & ~bits) ||
	    (bits & ~(all_locks | all_bits)))
		return -EPERM;
	c->securebits = (unsigned int)bits;
	return 0;
}

static long prctl_set_keepcaps(struct cm_cred *c, uint64_t arg)
{
	if (arg > 1)
		return -EINVAL;
	if (securebit_set(c, CM_SECURE_KEEP_CAPS + 1))
		return -EPERM;
	if (arg)
		c->securebits |= CM_SECBIT(CM_SECURE_KEEP_CAPS);
	else
		c->securebits &= ~CM_SECBIT(CM_SECURE_KEEP_CAPS);
	return 0;
}

/* PR_CAP_AMBIENT: raise needs the cap in pP and pI and no NO_CAP_AMBIENT_RAISE. */
static bool may_raise_ambient(const struct cm_cred *c, int cap)
{
	return cap_in(c->pP, cap) && cap_in(c->pI, cap) &&
	       !securebit_set(c, CM_SECURE_NO_CAP_AMBIENT_RAISE);
}

long cm_prctl(struct cm_sys *sys, struct cm_cred *c, int option, uint64_t arg2,
	      uint64_t arg3, uint64_t arg4, uint64_t arg5)
{
	switch (option) {
	case CM_PR_CAPBSET_READ:
		if (!cap_valid(sys, arg2))
			return -EINVAL;
		return cap_in(c->X, (int)arg2);
	case CM_PR_CAPBSET_DROP:
		return prctl_capbset_drop(sys, c, arg2);
	case CM_PR_SET_SECUREBITS:
		return prctl_set_securebits(sys, c, arg2);
	case CM_PR_GET_SECUREBITS:
		return c->securebits;
	case CM_PR_GET_KEEPCAPS:
		return securebit_set(c, CM_SECURE_KEEP_CAPS);
	case CM_PR_SET_KEEPCAPS:
		return prctl_set_keepcaps(c, arg2);
	case CM_PR_CAP_AMBIENT:
		return cm_prctl_cap_set(sys, c, &c->pA, arg2, arg3, arg4, arg5, may_raise_ambient);
	case CM_PR_CAP_USERNS:
		if (sys->hooks->prctl_cap_userns)
			return sys->hooks->prctl_cap_userns(sys, c, arg2, arg3, arg4, arg5);
		/* Unknown to the capability LSM without the series: sys_prctl's EINVAL. */
		return -EINVAL;
	default:
		return -EINVAL;
	}
}


/* ---- entering a user namespace: set_cred_user_ns() ------------------- */

/* Rule 3 on create and setns: the series, the BPF backend, or stock. */
static void enter_userns(struct cm_sys *sys, struct cm_cred *c, int ns, bool by_setns)
{
	if (by_setns && MUTANT(2))
		cm_stock_enter_userns(sys, c);
	else
		sys->hooks->enter_userns(sys, c);
	c->pI = c->pA = 0;
	/* Rule 3c: SECUREBITS_DEFAULT, but the exec bits (6.14 on) stay. */
	c->securebits &= cm_unpriv_securebits(sys);
	c->ns = ns;
	sys->ns[ns].ceiling |= cm_series_view(c, c->X);
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
	if (!cm_kuid_mapped(sys, c->ns, c->euid) || !cm_kgid_mapped(sys, c->ns, c->gid))
		return -EPERM;
	ns = &sys->ns[sys->nns];
	*ns = (struct cm_ns){ .parent = c->ns, .level = parent->level + 1, .owner = c->euid,
			      .group = c->gid, .root_uid = CM_ID_NONE, .root_gid = CM_ID_NONE,
			      .setgroups_denied = parent->setgroups_denied };
	enter_userns(sys, c, sys->nns++, false);
	return 0;
}

/*
 * Writing "deny" to setgroups, then "0 U 1" to uid_map and "0 G 1" to gid_map
 * of namespace ns, by a writer in its parent (U, G: the writer's ids there),
 * the way unprivileged tools do.  map_write() needs CAP_SYS_ADMIN over ns
 * (with the series or the BPF backend, not for the writer's own ids, rule
 * 11); verify_root_map() needs CAP_SETFCAP in the parent when U is 0;
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
	lower_gid = cm_from_kgid(sys, n->parent, w->gid);
	if (lower_uid == CM_ID_NONE || lower_gid == CM_ID_NONE)
		return -EPERM;
	/* Rule 11: the self-mapping needs no CAP_SYS_ADMIN over ns. */
	if (!(sys->hooks->idmap_is_self && sys->hooks->idmap_is_self(n, w)) &&
	    !cm_ns_capable(sys, w, ns, CAP_SYS_ADMIN))
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

/* setns(fd, CLONE_NEWUSER): userns_install(), then rule 3 (rule 3 covers setns too). */
int cm_setns_user(struct cm_sys *sys, struct cm_cred *c, int ns)
{
	if (ns < 0 || ns >= sys->nns)
		return -EINVAL;
	if (ns == c->ns)
		return -EINVAL;
	if (!cm_ns_capable(sys, c, ns, CAP_SYS_ADMIN))
		return -EPERM;
	enter_userns(sys, c, ns, true);
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

	if (securebit_set(old, CM_SECURE_NO_SETUID_FIXUP))
		return;
	if (was_root && !now_root) {
		if (!securebit_set(old, CM_SECURE_KEEP_CAPS))
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

/* ---- sysctls ------------------------------------------------------------ */

/* kernel.cap_userns_mask (rule 6): only the series has it. */
int cm_mask_write(struct cm_sys *sys, const struct cm_cred *c, uint64_t value)
{
	if (!sys->hooks->mask_write)
		return -ENOENT;
	return sys->hooks->mask_write(sys, c, value);
}

/* ---- usermodehelper ---------------------------------------------------- */

/*
 * kernel/usermodehelper/{bset,inheritable} (and the series' userns, rule 7):
 * mode 0600 root; proc_cap_handler() needs CAP_SETPCAP and CAP_SYS_MODULE.
 */
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
		if (!sys->hooks->umh_cred) /* the sysctl comes with its use */
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

/* call_usermodehelper_exec_async(): a kernel cred, then the sysctls; the
 * helper binary is exec'd from there (cm_execve). */
void cm_umh_cred(const struct cm_sys *sys, struct cm_cred *h)
{
	cm_cred_init_root(sys, h);
	h->X &= sys->umh_bset;
	h->pI &= sys->umh_inheritable;
	if (sys->hooks->umh_cred)
		sys->hooks->umh_cred(sys, h);
}
