/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Internal backend interface of libcapuns.
 *
 * The public API (include/capuns.h) validates its arguments and then calls
 * one of these operations.  A backend implements the pU rules of the
 * kernel series (rules 1-6) on some mechanism:
 *   kernel  the patched kernel: prctl(PR_CAP_USERNS), its strict securebits,
 *           /proc/PID/status CapUNs, kernel.cap_userns_mask
 *   bpf     a BPF-LSM program set on a stock kernel (lib/backend_bpf.c)
 *   none    neither: every operation returns CAPUNS_ENOBACKEND
 *
 * Conventions, common to every operation:
 *   - return 0 (or the documented non-negative result) on success and a
 *     negative errno-style code on failure (-EPERM, -EINVAL, ..., or one of
 *     the CAPUNS_E* codes of capuns.h); never a positive error;
 *   - on failure no state was changed;
 *   - "cap" is already checked by the caller to be in 0..CAPUNS_CAP_BITS-1,
 *     but the backend must still reject a cap its mechanism does not know
 *     (-EINVAL, as the kernel does above CAP_LAST_CAP);
 *   - capability sets are per thread: an operation acts on the calling
 *     thread only (get_userns_set and get_sets with pid != 0 read another
 *     task).
 *
 * This interface is stable: the BPF backend is written against it.
 */
#ifndef CAPUNS_BACKEND_H
#define CAPUNS_BACKEND_H

#include <linux/capability.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "capuns-abi.h"
#include "capuns.h"

/* The classic capability sets of one task. */
struct capuns_sets {
	uint64_t inheritable, permitted, effective, bounding, ambient;
};

/*
 * Rule 2 in userspace, the one place: what pU may be raised to,
 * p'U <= (pE has CAP_SETPCAP) ? X : X & pP, from the sets as the backend
 * enforces them.  Each backend's get_raisable() applies it to its own
 * enforced sets; the kernel or the BPF program still decides every raise.
 */
static inline uint64_t capuns_rule2_raisable(const struct capuns_sets *enforced)
{
	return (enforced->effective >> CAP_SETPCAP) & 1
		       ? enforced->bounding
		       : enforced->bounding & enforced->permitted;
}

struct capuns_backend {
	/* "kernel", "bpf" or "none" */
	const char *name;

	/*
	 * 0 when this backend can serve the calling process, else a negative
	 * code saying why not.  Called once, at detection.
	 */
	int (*probe)(void);

	/* pU of task pid (0: the calling thread) as a bit mask of caps. */
	int (*get_userns_set)(pid_t pid, uint64_t *set);

	/*
	 * The classic sets of task pid (0: the calling thread) as the backend
	 * enforces them (*enforced: what capability checks grant), and as the
	 * kernel shows them in /proc/PID/status (*kernel).  They differ only
	 * where the backend enforces less than the kernel's sets say: on the
	 * BPF backend, in a user namespace, the kernel's sets are full and the
	 * backend cuts them down to the set recorded at namespace entry.
	 */
	int (*get_sets)(pid_t pid, struct capuns_sets *enforced, struct capuns_sets *kernel);

	/*
	 * The caps the calling thread may raise into pU (rule 2 with the
	 * backend's own state: capuns_rule2_raisable() of its enforced sets).
	 * Caps already in pU may always be "raised" and need not be listed.
	 */
	int (*get_raisable)(uint64_t *set);

	/*
	 * op is PR_CAP_USERNS_IS_SET, _RAISE, _LOWER or _CLEAR_ALL with the
	 * kernel's semantics (rule 2).  IS_SET returns 0 or 1; the others
	 * return 0.  cap is ignored for CLEAR_ALL.  EPERM for a raise that
	 * p'U = (pE has CAP_SETPCAP) ? X : X & pP does not allow.
	 */
	int (*userns_op)(int op, int cap);

	/*
	 * Secure bits of the calling thread that concern pU: a combination of
	 * CAPUNS_SECBIT_STRICT and CAPUNS_SECBIT_STRICT_LOCKED.
	 */
	int (*get_strict)(unsigned *bits);

	/*
	 * Set SECURE_USERNS_STRICT_CAPS for the calling thread, and lock it
	 * when lock is true.  Other secure bits are left as they are.
	 * -EPERM without CAP_SETPCAP or when the bit is locked.  Only called
	 * when a bit asked for is missing (capuns_strict_set()).
	 */
	int (*set_strict)(bool lock);

	/* System-wide mask applied at every namespace entry (rule 6). */
	int (*mask_get)(uint64_t *mask);

	/*
	 * Remove caps_to_drop from the system mask (it only ever shrinks).
	 * -EPERM without mask_cap in the initial user namespace.
	 */
	int (*mask_drop)(uint64_t caps_to_drop);

	/*
	 * The capability mask_drop needs: CAP_SYS_CONTROL (kernel), or the
	 * backend's equivalent; CAPUNS_ENOBACKEND when there is none.
	 */
	int mask_cap;

	/*
	 * Complain mode and learn records (capuns.h).  NULL where the
	 * mechanism has none: the kernel series has no audit hook.
	 */
	int (*complain_get)(void);
	int (*complain_set)(bool on);
	int (*learn_start)(void);
	int (*learn_get)(uint64_t *used, uint64_t *refused);
	int (*learn_stop)(void);
};

/* The three backends; detection order is kernel, bpf, none. */
extern const struct capuns_backend capuns_backend_kernel;
extern const struct capuns_backend capuns_backend_bpf;
extern const struct capuns_backend capuns_backend_none;

#endif /* CAPUNS_BACKEND_H */
