/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ABI between the capuns BPF-LSM programs (bpf/capuns.bpf.c), their loader
 * (bpf/skeleton.c) and libcapuns' BPF backend (lib/backend_bpf.c).
 *
 * This is the one place where the answer encoding of prctl(PR_CAP_USERNS)
 * on a stock kernel is defined.
 *
 * Why an encoding: a BPF-LSM program attached to lsm/task_prctl can only
 * hand back a value that the kernel returns as is.  Returning 0 means "no
 * decision" (the stock kernel then fails the prctl with EINVAL, since the
 * option is unknown to it), and from Linux 6.12 the verifier restricts the
 * program to [-4095, 0].  So every successful answer is returned as a
 * negative value in a band of errno numbers that no kernel path of
 * prctl(48) produces:
 *
 *     return value  -(CAPUNS_BPF_RET_BASE + v),  v in [0, CAPUNS_BPF_RET_MAX]
 *
 * which userspace sees as prctl() == -1 with errno == CAPUNS_BPF_RET_BASE + v.
 * IS_SET answers v = 0 or 1; RAISE, LOWER and CLEAR_ALL answer v = 0.
 * Errors are the kernel series' own errors (EINVAL, EPERM, ENOMEM), returned
 * unencoded.  Consequence: a program calling prctl(48) directly on a stock
 * kernel sees "failure, errno 4000/4001" for its successes; only libcapuns
 * (capuns_bpf_decode() below) turns them back into the series' answers.
 *
 * The backend also answers extension operations (arg2 >= CAPUNS_BPF_OP_BASE)
 * for what the patched kernel exposes through other interfaces: the strict
 * securebit and its lock (a stock kernel refuses them in
 * PR_SET_SECUREBITS), the system mask (no kernel.cap_userns_mask sysctl)
 * and the set recorded at namespace entry (the kernel's X/pP/pE are not
 * changed on a stock kernel).  The patched kernel answers EINVAL to all
 * of them.
 *
 * Include from BPF C or userspace C; needs only <linux/types.h>.
 */
#ifndef CAPUNS_BPF_ABI_H
#define CAPUNS_BPF_ABI_H

#include <linux/types.h>

#include "capuns-abi.h"
#ifndef __bpf__
#include <errno.h>
#endif

/*
 * Bumped whenever anything below changes meaning.  Additions that older
 * programs answer with EINVAL (an operation, a map, a field taken from
 * "reserved") keep it: a reload over older programs keeps every state.
 */
#define CAPUNS_BPF_ABI_VERSION 2

/* ---- prctl answer encoding -------------------------------------------- */
#define CAPUNS_BPF_RET_BASE 4000
#define CAPUNS_BPF_RET_MAX 95 /* base + max = 4095 = MAX_ERRNO */
#define CAPUNS_BPF_RET(v) (-(CAPUNS_BPF_RET_BASE + (int)(v)))

/* ---- extension operations: prctl(PR_CAP_USERNS, op, arg3, 0, 0) -------- */
#define CAPUNS_BPF_OP_BASE 0x4300
/* arg3 = 0.  Answers CAPUNS_BPF_ABI_VERSION: the backend is loaded. */
#define CAPUNS_BPF_OP_PROBE (CAPUNS_BPF_OP_BASE + 0)
/* arg3 = 0.  Answers the strict bits of the caller: CAPUNS_BPF_STRICT_*. */
#define CAPUNS_BPF_OP_STRICT_GET (CAPUNS_BPF_OP_BASE + 1)
/*
 * arg3 = new strict bits (CAPUNS_BPF_STRICT_*).  The rules of
 * PR_SET_SECUREBITS for the strict bit and its lock: needs CAP_SETPCAP, a
 * locked bit cannot change and a lock cannot be removed; EPERM otherwise.
 */
#define CAPUNS_BPF_OP_STRICT_SET (CAPUNS_BPF_OP_BASE + 2)
/* arg3 = cap.  Answers 1 when cap is in the system mask. */
#define CAPUNS_BPF_OP_MASK_IS_SET (CAPUNS_BPF_OP_BASE + 3)
/*
 * arg3 = cap.  Drops cap from the system mask (it never grows back while
 * the backend stays loaded).  A stock kernel has no CAP_SYS_CONTROL: this
 * needs CAP_SYS_ADMIN effective in the initial user namespace; EPERM.
 */
#define CAPUNS_BPF_OP_MASK_LOWER (CAPUNS_BPF_OP_BASE + 4)
/*
 * arg3 = cap.  Answers 1 when cap is in the set the caller's credentials
 * received at user namespace entry (what the patched kernel writes into
 * X, pP and pE).  The caller's effective view is CapEff & that set.
 */
#define CAPUNS_BPF_OP_BOUND_IS_SET (CAPUNS_BPF_OP_BASE + 5)

/*
 * Operations that are not rules (complain mode, learn records) start at
 * 0x10: the model and the fuzzers probe the numbers right after the rules'
 * operations as unknown ones (EINVAL), and one of these, asked at random,
 * would switch complain mode.
 */
/*
 * arg3 = 0.  Answers 1 when the backend is in complain mode: a use of a
 * capability outside the set is reported (an event whose err is 0) and
 * allowed.  Anyone may ask.
 */
#define CAPUNS_BPF_OP_COMPLAIN_GET (CAPUNS_BPF_OP_BASE + 0x10)
/* arg3 = 0 or 1.  Leaves or enters complain mode; as MASK_LOWER: EPERM. */
#define CAPUNS_BPF_OP_COMPLAIN_SET (CAPUNS_BPF_OP_BASE + 0x11)
/*
 * arg3 = 0.  Starts recording, for the caller's credentials and every
 * credential copied from them (children, their namespaces, exec), which
 * capabilities are asked for in user namespaces below the initial one:
 * what capuns learn reports.  It records and changes no decision, so
 * anyone may start it.  Restarting empties the record.
 */
#define CAPUNS_BPF_OP_LEARN_START (CAPUNS_BPF_OP_BASE + 0x12)
/* arg3 = cap.  Answers 1 when the caller's record saw cap asked for. */
#define CAPUNS_BPF_OP_LEARN_USED (CAPUNS_BPF_OP_BASE + 0x13)
/* arg3 = cap.  Answers 1 when the caller's record saw cap refused. */
#define CAPUNS_BPF_OP_LEARN_REFUSED (CAPUNS_BPF_OP_BASE + 0x14)
/* arg3 = 0.  Stops recording for the caller and drops its record. */
#define CAPUNS_BPF_OP_LEARN_STOP (CAPUNS_BPF_OP_BASE + 0x15)

#define CAPUNS_BPF_STRICT 0x1 /* SECURE_USERNS_STRICT_CAPS */
#define CAPUNS_BPF_STRICT_LOCKED 0x2 /* SECURE_USERNS_STRICT_CAPS_LOCKED */
#define CAPUNS_BPF_STRICT_BITS (CAPUNS_BPF_STRICT | CAPUNS_BPF_STRICT_LOCKED)
/*
 * The learn record of a credential state, in the high bits of its flags:
 * the thread group id of the task that started it (pid_max is at most
 * 2^22), 0 for none.  Unlike the strict bits it survives namespace entry.
 */
#define CAPUNS_BPF_LEARN_SHIFT 8
#define CAPUNS_BPF_LEARN_ID(flags) ((flags) >> CAPUNS_BPF_LEARN_SHIFT)

#ifndef __bpf__
/*
 * The largest answer v that op has, by the definitions above: IS_SET and
 * the *_IS_SET operations answer 0 or 1, STRICT_GET the strict bits,
 * PROBE the ABI version, every change 0.  -1 for an op with no answer.
 */
static inline int capuns_bpf_answer_max(unsigned long op)
{
	switch (op) {
	case PR_CAP_USERNS_IS_SET:
	case CAPUNS_BPF_OP_MASK_IS_SET:
	case CAPUNS_BPF_OP_BOUND_IS_SET:
	case CAPUNS_BPF_OP_COMPLAIN_GET:
	case CAPUNS_BPF_OP_LEARN_USED:
	case CAPUNS_BPF_OP_LEARN_REFUSED:
		return 1;
	case PR_CAP_USERNS_RAISE:
	case PR_CAP_USERNS_LOWER:
	case PR_CAP_USERNS_CLEAR_ALL:
	case CAPUNS_BPF_OP_STRICT_SET:
	case CAPUNS_BPF_OP_MASK_LOWER:
	case CAPUNS_BPF_OP_COMPLAIN_SET:
	case CAPUNS_BPF_OP_LEARN_START:
	case CAPUNS_BPF_OP_LEARN_STOP:
		return 0;
	case CAPUNS_BPF_OP_STRICT_GET:
		return CAPUNS_BPF_STRICT | CAPUNS_BPF_STRICT_LOCKED;
	case CAPUNS_BPF_OP_PROBE:
		return CAPUNS_BPF_ABI_VERSION;
	}
	return -1;
}

/*
 * Decode the result of prctl(PR_CAP_USERNS, op, ...) answered by the
 * backend: rc is prctl's return value and err the errno it left.  Returns
 * the answer v >= 0, or a negative errno.  Only the encodings op has are
 * answers: any other value in the band (say a seccomp filter's errno, or
 * a program of another ABI) is -EPROTO, and so is a return of 0 or more
 * from prctl itself (the patched kernel answers that way).
 */
static inline int capuns_bpf_decode(unsigned long op, long rc, int err)
{
	int v = err - CAPUNS_BPF_RET_BASE;

	if (rc >= 0)
		return -EPROTO;
	if (err >= CAPUNS_BPF_RET_BASE && err <= CAPUNS_BPF_RET_BASE + CAPUNS_BPF_RET_MAX)
		return v <= capuns_bpf_answer_max(op) ? v : -EPROTO;
	return err > 0 ? -err : -EPROTO;
}
#endif

/* ---- maps ------------------------------------------------------------- */

/*
 * Value of the "creds" hash map, keyed by the address of a struct cred.
 * A credential without an entry has the default state: userns = bound =
 * every capability, no strict bits.
 */
struct capuns_bpf_cred {
	__u64 userns; /* pU */
	__u64 bound; /* set received at user namespace entry (X/pP/pE bound) */
	/*
	 * Address of the user namespace this state belongs to.  When the
	 * credential is found in another one, it entered it unseen (a
	 * skipped fexit/userns_install) and rule 3 is applied then.  0: not
	 * yet known (set at userns_create, before the namespace exists).
	 */
	__u64 ns;
	/* X as the series sees it (bset & bound) when copied: rule 3a of a late entry */
	__u64 xset;
	__u32 flags; /* CAPUNS_BPF_STRICT* */
	__u32 charge; /* actor whose quota counts this entry (quota_key() of capuns.bpf.c) */
};

/* Single element of the "config" array map (key 0). */
struct capuns_bpf_config {
	__u64 mask; /* system mask (kernel.cap_userns_mask on the series) */
	__u64 denials; /* capability checks denied */
	__u64 refusals; /* operations refused because state could not be kept */
	__u64 lost_events; /* events dropped: ring buffer full */
	__u32 abi; /* CAPUNS_BPF_ABI_VERSION of the loaded programs */
	__u32 initialized; /* set by the loader on first load */
	char version[32]; /* capuns version of the loader that created the maps */
	__u64 quota_refusals; /* refusals because a uid reached its quota (EDQUOT) */
	__u64 limited_events; /* events dropped: the uid's rate limit */
	__u64 late_entries; /* namespace entries applied late (fexit skipped) */
	__u32 creds_per_uid; /* quota: credential entries one uid may hold */
	__u32 complain; /* 1: complain mode (CAPUNS_BPF_OP_COMPLAIN_SET) */
};

/* Value of the "learn" map, keyed by learn id (CAPUNS_BPF_LEARN_ID). */
struct capuns_bpf_learn {
	__u64 used; /* capabilities asked for in a user namespace */
	__u64 refused; /* ... of which refused (or, in complain mode, would be) */
};

/* Reasons of an event. */
enum capuns_bpf_reason {
	/* A capability outside the set recorded at namespace entry. */
	CAPUNS_BPF_DENY_CAP = 1,
	/* User namespace creation refused: no room to record its set. */
	CAPUNS_BPF_REFUSE_USERNS = 2,
	/* Credential copy refused (fork, setuid...): no room for the state. */
	CAPUNS_BPF_REFUSE_CRED = 3,
	/*
	 * execve refused for want of room to record rule 10's p'U (setuid
	 * root).  No longer sent: p'U = pU | X leaves a credential without
	 * state in the default one; the number stays, for older events.
	 */
	CAPUNS_BPF_REFUSE_EXEC = 4,
	/* setns into a user namespace could not be recorded: task killed. */
	CAPUNS_BPF_KILL_SETNS = 5,
	/* Credential transfer could not be recorded: task killed. */
	CAPUNS_BPF_KILL_TRANSFER = 6,
	/* ptrace access refused: the tracee's namespaces would get more than the tracer's. */
	CAPUNS_BPF_DENY_PTRACE = 7,
};

/* Ring buffer record ("events" map). */
struct capuns_bpf_event {
	__u64 ts_ns; /* CLOCK_MONOTONIC (bpf_ktime_get_ns) */
	__u32 pid; /* thread id, initial pid namespace */
	__u32 tgid;
	__u32 uid; /* real uid, initial user namespace */
	__s32 cap; /* capability, -1 if not a capability check */
	__u32 depth; /* user namespace level of the task's credentials */
	__u32 target_depth; /* level of the namespace the check was against */
	__u32 reason; /* enum capuns_bpf_reason */
	__s32 err; /* error the task received (negative errno); 0: complain mode let it pass */
	char comm[16];
};

/* Names under CAPUNS_BPF_PIN_DIR (capuns-abi.h). */
#define CAPUNS_BPF_PIN_CREDS "creds"
#define CAPUNS_BPF_PIN_CONFIG "config"
#define CAPUNS_BPF_PIN_EVENTS "events"
/* actor (a uid, or a root-owned namespace) -> its credential entries (quota) */
#define CAPUNS_BPF_PIN_QUOTA "quota"
#define CAPUNS_BPF_PIN_LEARN "learn"
#define CAPUNS_BPF_PIN_LINKS "links"
/* Task iterator, world-readable: "tid pU bound strict" per visible thread. */
#define CAPUNS_BPF_PIN_TASKS "tasks"

#endif /* CAPUNS_BPF_ABI_H */
