/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * BPF-LSM backend for stock kernels (bpf/capuns.bpf.c).
 *
 * Every operation of the calling thread is a prctl(PR_CAP_USERNS) answered
 * by the lsm/task_prctl program in the encoding of capuns-bpf-abi.h; the
 * pU of another task comes from the world-readable task iterator pinned
 * by the loader.  Differences from the kernel backend, by design:
 *   - /proc/PID/status has no CapUNs line and CapEff/CapPrm/CapBnd show
 *     the kernel's sets; the backend enforces them cut down to the set
 *     recorded at namespace entry (CAPUNS_BPF_OP_BOUND_IS_SET, or the
 *     task iterator for another task): bpf_get_sets();
 *   - the strict bit is not a securebit (PR_SET_SECUREBITS refuses
 *     SECURE_USERNS_STRICT_CAPS on a stock kernel): capsh --secbits cannot
 *     set it;
 *   - the system mask needs CAP_SYS_ADMIN in the initial namespace (a
 *     stock kernel has no CAP_SYS_CONTROL);
 *   - prctl changes act on the calling thread's current credentials, which
 *     threads created since the last credential change share.
 * Answers come encoded as errnos 4000..4095 (capuns-bpf-abi.h); bpf_call()
 * is the only place that decodes them, and it accepts for each operation
 * only the answers the ABI gives it.  What it cannot tell apart is a
 * seccomp filter of the caller's own that forges exactly those answers:
 * whoever installs such a filter on a process controls it anyway.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>

#include "capuns-bpf-abi.h"
#include "capuns.h"
#include "internal.h"

#define TASKS_PATH CAPUNS_BPF_PIN_DIR "/" CAPUNS_BPF_PIN_TASKS

/*
 * prctl(PR_CAP_USERNS, op, arg, 0, 0), decoded: answer >= 0 or -errno.
 * The one place of libcapuns where an encoded answer is accepted, and only
 * one that op has (capuns_bpf_decode()).
 */
static int bpf_call(unsigned long op, unsigned long arg)
{
	long rc = prctl(PR_CAP_USERNS, op, arg, 0UL, 0UL);
	int r = capuns_bpf_decode(op, rc, errno);

	return r == -EPROTO ? CAPUNS_EPROTO : r;
}

/* A set read one capability at a time through a yes/no operation. */
static int read_set(unsigned long op, uint64_t *set)
{
	uint64_t s = 0;

	for (int cap = 0; cap <= capuns_cap_last() && cap < 64; cap++) {
		int r = bpf_call(op, cap);

		if (r < 0)
			return r;
		if (r)
			s |= UINT64_C(1) << cap;
	}
	*set = s;
	return 0;
}

static int bpf_probe(void)
{
	int r = bpf_call(CAPUNS_BPF_OP_PROBE, 0);

	if (r == -EINVAL)
		return -EOPNOTSUPP; /* stock kernel, backend not loaded */
	if (r < 0)
		return r;
	return r == CAPUNS_BPF_ABI_VERSION ? 0 : CAPUNS_EPROTO;
}

/* Rule 8 on BPF: the state of task pid in the task iterator: "tid pU bound strict". */
static int tasks_lookup(pid_t pid, uint64_t *userns, uint64_t *bound)
{
	unsigned long long tid, pu, bnd, strict;
	char line[128];
	int err = -ESRCH;
	FILE *f;

	f = fopen(TASKS_PATH, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llu %llx %llx %llx", &tid, &pu, &bnd, &strict) != 4) {
			err = CAPUNS_EPROTO;
			break;
		}
		if (tid == (unsigned long long)pid) {
			*userns = pu;
			*bound = bnd;
			err = 0;
			break;
		}
	}
	if (ferror(f))
		err = -EIO;
	fclose(f);
	return err;
}

static int bpf_get_userns_set(pid_t pid, uint64_t *set)
{
	uint64_t bound;

	if (pid == 0)
		return read_set(PR_CAP_USERNS_IS_SET, set);
	return tasks_lookup(pid, set, &bound);
}

/* The set the task's credentials received at namespace entry. */
static int get_bound(pid_t pid, uint64_t *bound)
{
	uint64_t userns;

	if (pid == 0)
		return read_set(CAPUNS_BPF_OP_BOUND_IS_SET, bound);
	return tasks_lookup(pid, &userns, bound);
}

/*
 * Rule 3 as the backend enforces it: lsm/capable denies every cap
 * outside bound that the kernel grants from the task's own sets, so what
 * the task holds is each kernel set & bound.
 */
static int bpf_get_sets(pid_t pid, struct capuns_sets *enforced, struct capuns_sets *kernel)
{
	uint64_t bound;
	int err;

	err = capuns_proc_sets(pid, kernel);
	if (!err)
		err = get_bound(pid, &bound);
	if (err)
		return err;
	enforced->inheritable = kernel->inheritable & bound;
	enforced->permitted = kernel->permitted & bound;
	enforced->effective = kernel->effective & bound;
	enforced->bounding = kernel->bounding & bound;
	enforced->ambient = kernel->ambient & bound;
	return 0;
}

static int bpf_get_raisable(uint64_t *set)
{
	struct capuns_sets enforced, kernel;
	int err = bpf_get_sets(0, &enforced, &kernel);

	if (!err)
		*set = capuns_rule2_raisable(&enforced);
	return err;
}

static int bpf_userns_op(int op, int cap)
{
	return bpf_call(op, op == PR_CAP_USERNS_CLEAR_ALL ? 0 : cap);
}

static unsigned strict_to_secbits(int bits)
{
	return (bits & CAPUNS_BPF_STRICT ? CAPUNS_SECBIT_STRICT : 0) |
	       (bits & CAPUNS_BPF_STRICT_LOCKED ? CAPUNS_SECBIT_STRICT_LOCKED : 0);
}

static int bpf_get_strict(unsigned *bits)
{
	int r = bpf_call(CAPUNS_BPF_OP_STRICT_GET, 0);

	if (r < 0)
		return r;
	*bits = strict_to_secbits(r);
	return 0;
}

/* Rule 5 on BPF: the backend's strict flags, by extension op. */
static int bpf_set_strict(bool lock)
{
	int cur = bpf_call(CAPUNS_BPF_OP_STRICT_GET, 0);
	int r;

	if (cur < 0)
		return cur;
	r = bpf_call(CAPUNS_BPF_OP_STRICT_SET,
		     cur | CAPUNS_BPF_STRICT | (lock ? CAPUNS_BPF_STRICT_LOCKED : 0));
	return r;
}

static int bpf_mask_get(uint64_t *mask)
{
	return read_set(CAPUNS_BPF_OP_MASK_IS_SET, mask);
}

/*
 * Rule 6 on BPF, bit by bit; the permission (CAP_SYS_ADMIN in the initial namespace) is
 * the same for every bit, so an EPERM comes on the first one, before any
 * change.  Bits the kernel does not know are not in the mask anyway.
 */
static int bpf_mask_drop(uint64_t caps_to_drop)
{
	for (int cap = 0; cap <= capuns_cap_last() && cap < 64; cap++) {
		int r;

		if (!(caps_to_drop & (UINT64_C(1) << cap)))
			continue;
		r = bpf_call(CAPUNS_BPF_OP_MASK_LOWER, cap);
		if (r < 0)
			return r;
	}
	return 0;
}

static int bpf_complain_get(void)
{
	return bpf_call(CAPUNS_BPF_OP_COMPLAIN_GET, 0);
}

static int bpf_complain_set(bool on)
{
	return bpf_call(CAPUNS_BPF_OP_COMPLAIN_SET, on);
}

static int bpf_learn_start(void)
{
	return bpf_call(CAPUNS_BPF_OP_LEARN_START, 0);
}

static int bpf_learn_get(uint64_t *used, uint64_t *refused)
{
	int err = read_set(CAPUNS_BPF_OP_LEARN_USED, used);

	return err ? err : read_set(CAPUNS_BPF_OP_LEARN_REFUSED, refused);
}

static int bpf_learn_stop(void)
{
	return bpf_call(CAPUNS_BPF_OP_LEARN_STOP, 0);
}

const struct capuns_backend capuns_backend_bpf = {
	.name = "bpf",
	.probe = bpf_probe,
	.get_userns_set = bpf_get_userns_set,
	.get_sets = bpf_get_sets,
	.get_raisable = bpf_get_raisable,
	.userns_op = bpf_userns_op,
	.get_strict = bpf_get_strict,
	.set_strict = bpf_set_strict,
	.mask_get = bpf_mask_get,
	.mask_drop = bpf_mask_drop,
	.mask_cap = CAP_SYS_ADMIN, /* a stock kernel has no CAP_SYS_CONTROL */
	.complain_get = bpf_complain_get,
	.complain_set = bpf_complain_set,
	.learn_start = bpf_learn_start,
	.learn_get = bpf_learn_get,
	.learn_stop = bpf_learn_stop,
};
