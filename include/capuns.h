/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libcapuns: the user-namespace capability set (pU) of Linux tasks.
 *
 * pU says which capabilities any user namespace created (or entered) below
 * a task may ever hold: when credentials enter a user namespace, the
 * effective, permitted and bounding sets become pU (after the strict
 * securebit and the system mask have trimmed it).  A capability dropped
 * from pU never comes back in a nested namespace.
 *
 * Error convention: every function returning int returns a non-negative
 * value on success and a negative error code on failure: either -errno
 * (-EPERM, -EINVAL, -ESRCH, -ENOMEM, ...) or one of the CAPUNS_E* codes
 * below.  capuns_strerror() turns any of them into a message.  A failed
 * call changes no state (see capuns_set_exactly() for the one exception
 * that cannot be fully guaranteed, ENOMEM half way).
 *
 * Thread safety: all functions may be called from several threads at
 * once.  But Linux keeps capability sets, pU and securebits per THREAD:
 * capuns_raise(), capuns_lower(), capuns_clear(), capuns_set_exactly()
 * and capuns_strict_set() change the calling thread only.  Other threads
 * of the process keep their pU (and the namespaces they create keep
 * theirs).  To restrict a whole process, make the changes before creating
 * threads, or in every thread.  capuns_get(0, ...) reads the calling
 * thread; capuns_get(pid, ...) reads the thread-group leader of pid.
 * Child processes (fork, clone) and execve inherit the pU of the thread
 * that created or executed them (except execve of a setuid-root program,
 * where pU becomes the bounding set).
 *
 * Backends: the library talks to the patched kernel ("kernel"), to the
 * BPF-LSM backend on a stock kernel ("bpf"), or to neither ("none"), in
 * which case every operation fails with CAPUNS_ENOBACKEND.  The choice is
 * made once per process.  The environment variable CAPUNS_BACKEND
 * (kernel, bpf or none) forces it for testing; it is ignored in secure
 * execution (setuid programs), and a forced backend that does not work
 * becomes "none", so it can never weaken anything.
 */
#ifndef CAPUNS_H
#define CAPUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CAPUNS_API __attribute__((visibility("default")))

/*
 * The strict securebit and its lock, as capuns_strict_get() reports them.
 * They are libcapuns' own flags, not securebit numbers: the kernel series
 * gives the securebits numbers of its own (SECURE_USERNS_STRICT_CAPS and
 * _LOCKED in capuns-abi.h, which a series for another kernel may move),
 * the BPF backend keeps flags of its own, and each backend translates.
 * Everything this header defines starts with CAPUNS_ or capuns_.
 */
#define CAPUNS_SECBIT_STRICT 0x1U
#define CAPUNS_SECBIT_STRICT_LOCKED 0x2U

/* Bits a capuns_set_t can hold (the kernel ABI has 64-bit sets). */
#define CAPUNS_CAP_BITS 64

/*
 * Library-specific error codes (negative, beyond the errno range so that
 * they never collide with a kernel error).
 */
#define CAPUNS_ERRBASE 5000
/* No backend: neither a patched kernel nor the BPF backend. */
#define CAPUNS_ENOBACKEND (-(CAPUNS_ERRBASE + 1))
/* Unknown capability name, or number out of range. */
#define CAPUNS_EBADCAP (-(CAPUNS_ERRBASE + 2))
/* Malformed capability list (empty item, stray sign, ...). */
#define CAPUNS_ESYNTAX (-(CAPUNS_ERRBASE + 3))
/* The kernel or backend answered outside its ABI (e.g. no CapUNs line). */
#define CAPUNS_EPROTO (-(CAPUNS_ERRBASE + 4))

/* A capability set: bit N stands for capability N.  A plain value. */
typedef struct capuns_set {
	uint64_t bits;
} capuns_set_t;

static inline capuns_set_t capuns_set_empty(void)
{
	return (capuns_set_t){ 0 };
}

static inline capuns_set_t capuns_set_of(uint64_t bits)
{
	return (capuns_set_t){ bits };
}

static inline bool capuns_set_has(capuns_set_t s, int cap)
{
	return cap >= 0 && cap < CAPUNS_CAP_BITS && (s.bits >> cap) & 1;
}

static inline capuns_set_t capuns_set_add(capuns_set_t s, int cap)
{
	if (cap >= 0 && cap < CAPUNS_CAP_BITS)
		s.bits |= UINT64_C(1) << cap;
	return s;
}

static inline capuns_set_t capuns_set_del(capuns_set_t s, int cap)
{
	if (cap >= 0 && cap < CAPUNS_CAP_BITS)
		s.bits &= ~(UINT64_C(1) << cap);
	return s;
}

static inline capuns_set_t capuns_set_and(capuns_set_t a, capuns_set_t b)
{
	return (capuns_set_t){ a.bits & b.bits };
}

static inline capuns_set_t capuns_set_or(capuns_set_t a, capuns_set_t b)
{
	return (capuns_set_t){ a.bits | b.bits };
}

static inline capuns_set_t capuns_set_minus(capuns_set_t a, capuns_set_t b)
{
	return (capuns_set_t){ a.bits & ~b.bits };
}

static inline bool capuns_set_equal(capuns_set_t a, capuns_set_t b)
{
	return a.bits == b.bits;
}

/* ---- Capability names and text (through libcap) ---------------------- */

/*
 * Last capability of the running kernel (/proc/sys/kernel/cap_last_cap,
 * as libcap reads it): 41 on the patched kernel, 40 on a stock 6.1.
 */
CAPUNS_API int capuns_cap_last(void);

/* Every capability of the running kernel: 0..capuns_cap_last(). */
CAPUNS_API capuns_set_t capuns_set_all(void);

/*
 * One capability by name ("cap_net_admin", case-insensitive, the whole
 * string: "cap_chown;id" and "cap_net_admin=eip" are refused) or plain
 * decimal number ("12"; no sign, no leading zero: "012" is refused, never
 * read as octal).  Accepts cap_sys_control (41), which libcap 2.66 does
 * not know, and numbers up to 41 on any kernel.  Returns the number,
 * CAPUNS_EBADCAP or -ENOMEM.
 */
CAPUNS_API int capuns_cap_from_name(const char *name);

/*
 * Name of cap into buf ("cap_net_admin"; a number for a capability nobody
 * named).  Returns the length, -ERANGE if buf is too small, CAPUNS_EBADCAP
 * for a cap outside 0..63.
 */
CAPUNS_API int capuns_cap_to_name(int cap, char *buf, size_t len);

/*
 * Parse a capability list into *out.  Grammar:
 *
 *   list := item { "," item }
 *   item := [ "+" | "-" | "!" ] cap
 *   cap  := name | number | "all" | "none"
 *
 * Items apply from left to right: "+cap" or "cap" adds, "-cap" or "!cap"
 * removes.  The list starts from the empty set, except when its first item
 * removes, in which case it starts from all (so "!cap_net_admin" is every
 * capability but cap_net_admin).  "all" is every capability of the running
 * kernel and "none" the empty set.  Spaces around items are allowed.
 *
 * Returns 0, CAPUNS_EBADCAP (unknown name) or CAPUNS_ESYNTAX; then, if
 * errpos is not NULL, *errpos points at the offending item in text.
 * *out is only written on success.
 */
CAPUNS_API int capuns_set_parse(const char *text, capuns_set_t *out,
				const char **errpos);

/* Format flags. */
#define CAPUNS_FMT_LIST 0x1 /* always list names, never "all,-cap_x" */

/*
 * Text form of set, as a malloc()ed string the caller frees: "none", "all",
 * "all,-cap_a,-cap_b" (when shorter) or "cap_a,cap_b".  Bits above
 * capuns_cap_last() are listed by name or number.  The text parses back to
 * the same set on the same kernel.  NULL with errno ENOMEM on failure.
 */
CAPUNS_API char *capuns_set_format(capuns_set_t set, unsigned flags);

/* ---- Backend ----------------------------------------------------------- */

/* "kernel", "bpf" or "none". */
CAPUNS_API const char *capuns_backend_name(void);

/*
 * Why the kernel and BPF backends are not in use (0 when one is), as an
 * error code for capuns_strerror(); on "none" this is CAPUNS_ENOBACKEND.
 */
CAPUNS_API int capuns_backend_status(void);

/* ---- The userns set of tasks ------------------------------------------ */

/* pU of pid (0: the calling thread).  -ESRCH if there is no such task. */
CAPUNS_API int capuns_get(pid_t pid, capuns_set_t *set);

/* 1 if cap is in the calling thread's pU, 0 if not. */
CAPUNS_API int capuns_is_set(int cap);

/*
 * Add cap to pU.  -EPERM unless cap is already there or in the bounding
 * set and (the permitted set, or CAP_SETPCAP is effective).
 */
CAPUNS_API int capuns_raise(int cap);

/* Remove cap from pU (always allowed). */
CAPUNS_API int capuns_lower(int cap);

/* pU := {} (always allowed). */
CAPUNS_API int capuns_clear(void);

/* Raise every cap of set; all or nothing (checked before any change). */
CAPUNS_API int capuns_raise_set(capuns_set_t set);

/* Lower every cap of set. */
CAPUNS_API int capuns_lower_set(capuns_set_t set);

/*
 * pU := set: raise what set adds, lower everything not in set.  Every
 * raise is checked first (-EPERM, nothing changed); raises are applied
 * before lowers, and a failing raise is undone.  Only an allocation
 * failure of the kernel while lowering (-ENOMEM) can leave pU between the
 * old and the new set, never above the old one.
 */
CAPUNS_API int capuns_set_exactly(capuns_set_t set);

/* ---- Strict securebit (SECURE_USERNS_STRICT_CAPS) ---------------------- */

/*
 * *bits := the calling thread's CAPUNS_SECBIT_STRICT and
 * CAPUNS_SECBIT_STRICT_LOCKED bits.  With the strict bit set, pU is
 * trimmed to the bounding set at namespace entry, and a set-user-ID-root
 * execve keeps pU (trimmed to the bounding set) instead of resetting it
 * to the bounding set: the bit marks a restriction imposed by privileged
 * code, such as pam_capuns.
 */
CAPUNS_API int capuns_strict_get(unsigned *bits);

/*
 * Set the strict bit for the calling thread and, if lock, lock it.
 * Needs CAP_SETPCAP (-EPERM) unless the bits asked for are set already
 * (then nothing changes); -EPERM too when the bit is locked off.
 */
CAPUNS_API int capuns_strict_set(bool lock);

/* ---- System mask (kernel.cap_userns_mask) ------------------------------ */

/* The mask applied to pU at every namespace entry. */
CAPUNS_API int capuns_mask_get(capuns_set_t *mask);

/*
 * Remove drop from the mask; it can never grow back (until reboot).
 * Needs CAP_SYS_CONTROL in the initial namespace: -EPERM otherwise.
 */
CAPUNS_API int capuns_mask_drop(capuns_set_t drop);

/*
 * The capability capuns_mask_drop() needs (in the initial namespace) with
 * the backend in use: CAP_SYS_CONTROL (41) on the kernel backend,
 * CAP_SYS_ADMIN (21) on the BPF backend (a stock kernel has no 41), or
 * CAPUNS_ENOBACKEND.
 */
CAPUNS_API int capuns_mask_cap(void);

/* ---- Classic sets of a task -------------------------------------------- */

struct capuns_task_caps {
	/*
	 * The sets as enforced: what capability checks of the task grant.  On
	 * the BPF backend, inside a user namespace it restricts, the kernel's
	 * sets are full and the backend cuts them down to the set the task's
	 * credentials received at namespace entry; elsewhere these are the
	 * kernel's sets.
	 */
	capuns_set_t inheritable, permitted, effective, bounding, ambient;
	capuns_set_t userns; /* pU through the backend */
	bool has_userns; /* false when the backend could not tell */
	/* The kernel's own view (/proc/PID/status); differs only as said above. */
	capuns_set_t kernel_inheritable, kernel_permitted, kernel_effective,
		kernel_bounding, kernel_ambient;
};

/*
 * The five classic sets of pid (0: the calling thread) as the backend
 * enforces them, the kernel's view of them, and pU.
 */
CAPUNS_API int capuns_task_caps(pid_t pid, struct capuns_task_caps *caps);

/* ---- Complain mode and learning (BPF backend) ---------------------------- */

/*
 * Complain mode, system-wide: a use of a capability outside the set of
 * the namespace it is used in is reported (capuns monitor, the journal)
 * and allowed.  capuns_complain_get() answers 1 or 0; setting it needs
 * CAP_SYS_ADMIN in the initial namespace (-EPERM).  -EOPNOTSUPP on the
 * kernel backend: the series has no audit hook, it only enforces.
 */
CAPUNS_API int capuns_complain_get(void);
CAPUNS_API int capuns_complain_set(bool on);

/*
 * Learn records: from capuns_learn_start() on, the calling process and
 * everything it starts (children, their namespaces, exec) record which
 * capabilities they ask for in user namespaces below the initial one,
 * and which of those were refused.  Recording changes no decision, so no
 * privilege is needed.  capuns_learn_get() reads the record (-ENOENT when
 * none is running), capuns_learn_stop() ends and drops it.  -EOPNOTSUPP
 * on the kernel backend, as above.
 */
CAPUNS_API int capuns_learn_start(void);
CAPUNS_API int capuns_learn_get(capuns_set_t *used, capuns_set_t *refused);
CAPUNS_API int capuns_learn_stop(void);

/* ---- Errors ------------------------------------------------------------ */

/* A message for any error code of this library (negative or positive). */
CAPUNS_API const char *capuns_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* CAPUNS_H */
