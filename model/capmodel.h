/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * capmodel: an executable reference model of task credentials under the
 * capuns series (rules 1-12) on Linux 6.1.
 *
 * It is an independent statement of the rules, used to check the kernel
 * series and the BPF backend by differential testing.  It is pure C: no
 * system calls, no allocation, no global state.  Every transition takes
 * the system state and one task's credentials and returns what the system
 * call would return (>= 0, or a negative errno), mutating the credentials
 * only on success, exactly like commit_creds().
 *
 * Identities are kernel ids ("kuids", as in the init namespace) inside the
 * model.  System-call style entry points (setuid, setresuid) take ids as
 * the task sees them in its own namespace and translate them, like
 * make_kuid().  User namespaces carry a single-extent id map "0 ROOT 1" or
 * none, which is what unprivileged tools (unshare -r, bwrap) write.
 */
#ifndef CAPMODEL_H
#define CAPMODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capuns-abi.h"

typedef uint64_t cm_caps;

#define CM_CAP_LAST_PATCHED 41 /* CAP_SYS_CONTROL */
#define CM_CAP_LAST_STOCK 40   /* CAP_CHECKPOINT_RESTORE */
#define CM_BIT(c) ((cm_caps)1 << (c))

#define CM_NS_MAX 64	     /* namespaces one model run may create */
#define CM_NS_LEVEL_MAX 32   /* create_user_ns(): parent level > 32 is ENOSPC */
#define CM_ID_NONE UINT32_MAX /* invalid kuid/kgid, and (uid_t)-1 in calls */

/* Securebits (uapi/linux/securebits.h, plus rule 5). */
#define CM_SECURE_NOROOT 0
#define CM_SECURE_NO_SETUID_FIXUP 2
#define CM_SECURE_KEEP_CAPS 4
#define CM_SECURE_NO_CAP_AMBIENT_RAISE 6
#define CM_SECURE_EXEC_RESTRICT_FILE 8	   /* 6.14 on (cm_sys.exec_securebits) */
#define CM_SECURE_EXEC_DENY_INTERACTIVE 10 /* 6.14 on */
#define CM_SECURE_USERNS_STRICT_CAPS SECURE_USERNS_STRICT_CAPS /* rule 5 */
#define CM_SECURE_USERNS_STRICT_CAPS_LOCKED SECURE_USERNS_STRICT_CAPS_LOCKED
#define CM_SECBIT(b) (1U << (b))
#define CM_SECBITS_EXEC 0xf00U /* SECURE_ALL_UNPRIVILEGED and its locks: bits 8 to 11 */

/* prctl options and sub-operations the model implements. */
#define CM_PR_GET_KEEPCAPS 7
#define CM_PR_SET_KEEPCAPS 8
#define CM_PR_CAPBSET_READ 23
#define CM_PR_CAPBSET_DROP 24
#define CM_PR_GET_SECUREBITS 27
#define CM_PR_SET_SECUREBITS 28
#define CM_PR_CAP_AMBIENT 47
#define CM_PR_CAP_USERNS 48
#define CM_PR_CAP_OP_IS_SET 1 /* same values for AMBIENT and USERNS */
#define CM_PR_CAP_OP_RAISE 2
#define CM_PR_CAP_OP_LOWER 3
#define CM_PR_CAP_OP_CLEAR_ALL 4

/* Which kernel the model describes. */
enum cm_flavour {
	CM_PATCHED,   /* 6.1 with the capuns series */
	CM_UNPATCHED, /* the same 6.1 without it: no pU, caps 0..40 */
	CM_BPF,	      /* a stock kernel (caps 0..40) with the capuns BPF-LSM backend */
};

/*
 * The BPF backend's extension operations of prctl(PR_CAP_USERNS), and its
 * strict bits (bpf/README.md).  The model states their rules itself; the
 * values are the ABI's (include/capuns-bpf-abi.h).
 */
#define CM_BPF_OP_PROBE 0x4300
#define CM_BPF_OP_STRICT_GET 0x4301
#define CM_BPF_OP_STRICT_SET 0x4302
#define CM_BPF_OP_MASK_IS_SET 0x4303
#define CM_BPF_OP_MASK_LOWER 0x4304
#define CM_BPF_OP_BOUND_IS_SET 0x4305
#define CM_BPF_ABI_VERSION 2
#define CM_BPF_STRICT 0x1
#define CM_BPF_STRICT_LOCKED 0x2

/* Rule 7: the usermodehelper sysctls (kernel/usermodehelper/...). */
enum cm_umh_set { CM_UMH_BSET, CM_UMH_INHERITABLE, CM_UMH_USERNS };

struct cm_ns {
	int parent;	   /* index, -1 for the initial namespace */
	int level;	   /* 0 for the initial namespace */
	uint32_t owner;	   /* kuid of the creator's euid */
	uint32_t group;	   /* kgid of the creator's egid */
	uint32_t root_uid; /* kuid mapped to 0 inside, CM_ID_NONE if unmapped */
	uint32_t root_gid; /* kgid mapped to 0 inside, CM_ID_NONE if unmapped */
	bool setgroups_denied;
	/* Union of the sets every cred brought in (for the nesting invariant). */
	cm_caps ceiling;
	bool entered_by_setns;
};

struct cm_hooks;

struct cm_sys {
	enum cm_flavour flavour;
	const struct cm_hooks *hooks; /* the flavour's backend (model/hooks.h) */
	int last_cap;
	cm_caps full; /* CAP_FULL_SET of this kernel */
	cm_caps mask; /* rule 6: kernel.cap_userns_mask */
	cm_caps umh_bset, umh_inheritable, umh_userns;
	int nns;
	struct cm_ns ns[CM_NS_MAX];
	/*
	 * How execve() tells that an exec changes ids, which clears pA: the
	 * new euid against the old real uid (__is_setuid(), 6.1 and 6.12),
	 * or against the old euid (id_changed, since commoncap stopped taking
	 * an exec that changes no id for a set-user-ID one; 7.3 has it).
	 */
	bool setid_by_euid;
	/*
	 * Whether the kernel has the exec securebits (6.14 on, 7.3 has them):
	 * any task may change SECURE_EXEC_RESTRICT_FILE, _DENY_INTERACTIVE
	 * and their locks without CAP_SETPCAP, and entering a user namespace
	 * keeps them (set_cred_user_ns(), rule 3).  Without them, bits 8 to
	 * 11 are unknown (EPERM) and entry resets every securebit.
	 */
	bool exec_securebits;
};

struct cm_cred {
	cm_caps pE, pP, pI, pA, X, pU;
	/*
	 * CM_BPF only: the set recorded at namespace entry (the series writes it
	 * into X, pP and pE; the backend bounds every capability check from the
	 * cred's own sets by it) and the strict bits, which a stock kernel keeps
	 * out of securebits.  Full and 0 elsewhere.
	 */
	cm_caps bound;
	unsigned int uns_strict;
	unsigned int securebits;
	int ns;
	uint32_t uid, euid, suid, fsuid; /* kuids */
	uint32_t gid; /* kgid; the model keeps rgid = egid = sgid = fsgid */
};

/* An executable file, as execve() sees it (on a suid-capable mount). */
struct cm_file {
	uint32_t uid, gid; /* owner kuid/kgid */
	bool setuid;	   /* S_ISUID */
	bool has_caps;	   /* security.capability, revision 2 */
	cm_caps fP, fI;
	bool fE;
};

/* What userspace can observe of one task (capget, PR_CAPBSET_READ,
 * /proc/self/status, PR_GET_SECUREBITS, getresuid, the namespace depth). */
struct cm_obs {
	cm_caps pE, pP, pI, pA, X, pU;
	cm_caps bound;		 /* CM_BPF only, else 0 */
	unsigned int uns_strict; /* CM_BPF only, else 0 */
	unsigned int securebits;
	uint32_t uid, euid, suid; /* as seen inside the task's namespace */
	int level;
};

/* State. */
void cm_sys_init(struct cm_sys *sys, enum cm_flavour flavour);
void cm_cred_init_root(const struct cm_sys *sys, struct cm_cred *c);

/*
 * Capability checks as security_capable() makes them: cap_capable() of 6.1,
 * with the owner grant bounded by what the owner's namespaces would get
 * on the series (rule 11), then,
 * on CM_BPF, the backend's lsm/capable (the same rule on its own sets).
 */
bool cm_ns_capable(const struct cm_sys *sys, const struct cm_cred *c, int ns, int cap);
bool cm_capable(const struct cm_sys *sys, const struct cm_cred *c, int cap);
/*
 * May tracer attach to tracee (ptrace, /proc/PID/mem when fscreds), or may
 * tracee make tracer its tracer (PTRACE_TRACEME)?  The capability rules
 * only: commoncap's subset test and rule 12 (ids and dumpability are not
 * in the model).
 */
bool cm_ptrace_attach(const struct cm_sys *sys, const struct cm_cred *tracer,
		      const struct cm_cred *tracee, bool fscreds);
bool cm_ns_is_ancestor(const struct cm_sys *sys, int ancestor, int ns);

/* Id mapping of the single-extent maps: kuid <-> id inside ns. */
uint32_t cm_make_kuid(const struct cm_sys *sys, int ns, uint32_t id);
uint32_t cm_from_kuid(const struct cm_sys *sys, int ns, uint32_t kuid);
uint32_t cm_make_kgid(const struct cm_sys *sys, int ns, uint32_t id);

/* Transitions.  Return >= 0 on success (the syscall's value) or -errno. */
void cm_fork(const struct cm_cred *parent, struct cm_cred *child);
int cm_execve(const struct cm_sys *sys, struct cm_cred *c, const struct cm_file *f);
int cm_capset(const struct cm_sys *sys, struct cm_cred *c, cm_caps eff, cm_caps perm,
	      cm_caps inh);
long cm_prctl(struct cm_sys *sys, struct cm_cred *c, int option, uint64_t arg2,
	      uint64_t arg3, uint64_t arg4, uint64_t arg5);
int cm_unshare_user(struct cm_sys *sys, struct cm_cred *c);
int cm_map_root(struct cm_sys *sys, const struct cm_cred *writer, int ns);
int cm_setns_user(struct cm_sys *sys, struct cm_cred *c, int ns);
int cm_setuid(const struct cm_sys *sys, struct cm_cred *c, uint32_t uid);
int cm_setresuid(const struct cm_sys *sys, struct cm_cred *c, uint32_t ruid, uint32_t euid,
		 uint32_t suid);
int cm_setgid_all(const struct cm_sys *sys, struct cm_cred *c, uint32_t gid);
int cm_mask_write(struct cm_sys *sys, const struct cm_cred *c, uint64_t value);
int cm_umh_write(struct cm_sys *sys, const struct cm_cred *c, enum cm_umh_set which,
		 uint64_t value);
void cm_umh_cred(const struct cm_sys *sys, struct cm_cred *helper);

/* Observation and invariants. */
void cm_observe(const struct cm_sys *sys, const struct cm_cred *c, struct cm_obs *o);
/* Returns NULL when every invariant holds, else a static description. */
const char *cm_check_invariants(const struct cm_sys *sys, const struct cm_cred *c);
/* "pE=... pP=..." into buf (always NUL-terminated); returns buf. */
char *cm_format_obs(const struct cm_obs *o, char *buf, size_t len);

#endif /* CAPMODEL_H */
