/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Inside the model: what its parts share.  Each file calls only those
 * below it; a backend is reached through its hook table (hooks.h).
 *
 *   syscalls.c   the system calls of 6.1 (exec, capset, setuid, prctl,
 *                namespaces, sysctls, usermodehelper), calling the hook
 *                table where the kernel calls the series or an LSM;
 *   capmodel.c   state (it picks the flavour's table), observation and
 *                invariants;
 *   bpf.c        the BPF-LSM backend, one function per program of
 *                bpf/capuns.bpf.c; fills cm_bpf_hooks, and states the
 *                rules it shares with the series by series.h;
 *   series.c     the rules of the capuns series, one function each;
 *                fills cm_series_hooks;
 *   commoncap.c  Linux 6.1's security/commoncap.c as it is: the id maps,
 *                the walk of cap_capable(), security_capable(), the ptrace
 *                subset test; fills cm_stock_hooks.
 *
 * CAPMODEL_MUTATION (build flag, used only by the tests that prove the
 * differential runner catches bugs) breaks one rule on purpose, for both
 * the series and the BPF backend:
 *   1  rule 3a forgotten: the strict securebit does not bound pU by X
 *   2  rule 3 skipped on setns: entering an existing namespace gives full sets
 *   3  rule 3b forgotten: the system mask is not applied
 *   4  rule 10 forgotten: setuid-root exec leaves pU as it is
 *   5  rule 2: RAISE does not require the cap in pP without CAP_SETPCAP
 *   6  no owner grant in cap_capable() (the classic one of 6.1)
 *   7  rule 10 (R10): the strict bit forgotten: pU ∪= X after every
 *      privilege-gaining setuid-root exec
 *   8  rule 11 (R11): the owner grant not bounded by pU & mask
 *   9  rule 11 (R11): no self-mapping waiver: every id map needs
 *      CAP_SYS_ADMIN over the namespace
 *  10  rule 12 (R12): ptrace attach without the pU subset test (the
 *      differential runner has no ptrace: the unit tests catch it)
 *  11  rules 11 and 12 measure the owner and the tracer by pU & mask,
 *      forgetting that under the strict bit their namespaces also lose
 *      what X lacks (rule 3a)
 */
#ifndef CAPMODEL_INTERNAL_H
#define CAPMODEL_INTERNAL_H

#include "capmodel.h"

#ifndef CAPMODEL_MUTATION
#define CAPMODEL_MUTATION 0
#endif
#define MUTANT(n) (CAPMODEL_MUTATION == (n))

#define CAP_SETGID 6
#define CAP_SETUID 7
#define CAP_SETPCAP 8
#define CAP_SYS_MODULE 16
#define CAP_SYS_PTRACE 19
#define CAP_SYS_ADMIN 21
#define CAP_SETFCAP 31
#define CAP_SYS_CONTROL 41

static inline bool cap_in(cm_caps set, int cap)
{
	return (set >> cap) & 1;
}

static inline bool subset(cm_caps a, cm_caps b)
{
	return (a & ~b) == 0;
}

static inline bool securebit_set(const struct cm_cred *c, int bit)
{
	return c->securebits & CM_SECBIT(bit);
}

/*
 * The securebits a task may change without CAP_SETPCAP (the exec bits of
 * 6.14 and their locks); entering a user namespace keeps these (rule 3c).
 */
static inline unsigned int cm_unpriv_securebits(const struct cm_sys *sys)
{
	return sys->exec_securebits ? CM_SECBITS_EXEC : 0;
}

/*
 * Rule 3a's marker of a restriction imposed by privileged code: the
 * securebit on the series, the backend's own flag on BPF (neither can be
 * set on the other).
 */
static inline bool userns_strict(const struct cm_cred *c)
{
	return securebit_set(c, CM_SECURE_USERNS_STRICT_CAPS) || (c->uns_strict & CM_BPF_STRICT);
}

static inline bool cap_valid(const struct cm_sys *sys, uint64_t cap)
{
	return cap <= (uint64_t)sys->last_cap;
}

/*
 * A set as the series holds it.  On the BPF backend the kernel's set cut
 * down to the set recorded at namespace entry; elsewhere bound is full.
 */
static inline cm_caps cm_series_view(const struct cm_cred *c, cm_caps set)
{
	return set & c->bound;
}

/* ---- commoncap.c: security/commoncap.c of 6.1 and the id maps ---------- */
uint32_t cm_from_kgid(const struct cm_sys *sys, int ns, uint32_t kgid);
bool cm_kuid_mapped(const struct cm_sys *sys, int ns, uint32_t kuid);
bool cm_kgid_mapped(const struct cm_sys *sys, int ns, uint32_t kgid);
typedef bool cm_owner_may_use_fn(const struct cm_sys *sys, const struct cm_cred *c, int cap);
bool cm_cap_capable_walk(const struct cm_sys *sys, const struct cm_cred *c, int ns, int cap,
			 cm_caps eff, cm_owner_may_use_fn *owner_may_use);
bool cm_cap_capable(const struct cm_sys *sys, const struct cm_cred *c, int ns, int cap);
bool cm_cap_ptrace_subset(const struct cm_sys *sys, const struct cm_cred *tracer, cm_caps caller,
			  const struct cm_cred *tracee, cm_caps tracee_pP);
void cm_stock_enter_userns(const struct cm_sys *sys, struct cm_cred *c);
long cm_prctl_cap_set(const struct cm_sys *sys, struct cm_cred *c, cm_caps *set, uint64_t op,
		      uint64_t cap, uint64_t a4, uint64_t a5,
		      bool (*may_raise)(const struct cm_cred *c, int cap));

#endif /* CAPMODEL_INTERNAL_H */
