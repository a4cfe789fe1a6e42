/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libcapuns: backend selection and the public pU operations.
 *
 * Each public call checks its arguments, and for changes that can be
 * refused, checks the rule before touching anything, so that a refused
 * call changes no state.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "capuns.h"
#include "internal.h"

static pthread_mutex_t backend_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct capuns_backend *backend_cur;
static int backend_why = CAPUNS_ENOBACKEND;

/* Try one backend: it is used when its probe says 0. */
static bool try_backend(const struct capuns_backend *b)
{
	int err = b->probe();

	if (err == 0)
		return true;
	/*
	 * Keep the first reason that is more than "not here" (say, a kernel
	 * that answers outside the ABI) for capuns_backend_status().
	 */
	if (backend_why == CAPUNS_ENOBACKEND && err != CAPUNS_ENOBACKEND &&
	    err != -ENOENT && err != -EOPNOTSUPP)
		backend_why = err;
	return false;
}

static const struct capuns_backend *forced_backend(void)
{
	/* Not in secure execution: a setuid caller's environment is foreign. */
	const char *f = secure_getenv("CAPUNS_BACKEND");

	if (!f || !*f)
		return NULL;
	if (strcmp(f, "kernel") == 0)
		return &capuns_backend_kernel;
	if (strcmp(f, "bpf") == 0)
		return &capuns_backend_bpf;
	/* "none" and anything unknown: fail closed. */
	return &capuns_backend_none;
}

static const struct capuns_backend *detect(void)
{
	const struct capuns_backend *f = forced_backend();

	backend_why = CAPUNS_ENOBACKEND;
	if (f) {
		if (f != &capuns_backend_none && try_backend(f))
			return f;
		return &capuns_backend_none;
	}
	if (try_backend(&capuns_backend_kernel))
		return &capuns_backend_kernel;
	if (try_backend(&capuns_backend_bpf))
		return &capuns_backend_bpf;
	return &capuns_backend_none;
}

const struct capuns_backend *capuns_backend(void)
{
	const struct capuns_backend *b;

	pthread_mutex_lock(&backend_lock);
	if (!backend_cur)
		backend_cur = detect();
	b = backend_cur;
	pthread_mutex_unlock(&backend_lock);
	return b;
}

void capuns_backend_reset(void)
{
	pthread_mutex_lock(&backend_lock);
	backend_cur = NULL;
	pthread_mutex_unlock(&backend_lock);
}

const char *capuns_backend_name(void)
{
	return capuns_backend()->name;
}

int capuns_backend_status(void)
{
	int why;

	if (capuns_backend() != &capuns_backend_none)
		return 0;
	pthread_mutex_lock(&backend_lock);
	why = backend_why;
	pthread_mutex_unlock(&backend_lock);
	/* A forced "none" or plain absence both read as "no backend". */
	return why == 0 ? CAPUNS_ENOBACKEND : why;
}

/* A cap the running kernel knows (the kernel says EINVAL otherwise). */
static int check_cap(int cap)
{
	int last = capuns_cap_last();

	if (last < 0)
		return last;
	return cap >= 0 && cap <= last ? 0 : -EINVAL;
}

static int check_set(capuns_set_t set)
{
	return capuns_set_minus(set, capuns_set_all()).bits ? -EINVAL : 0;
}

int capuns_get(pid_t pid, capuns_set_t *set)
{
	uint64_t bits;
	int err;

	if (!set || pid < 0)
		return -EINVAL;
	err = capuns_backend()->get_userns_set(pid, &bits);
	if (err)
		return err;
	set->bits = bits;
	return 0;
}

int capuns_task_caps(pid_t pid, struct capuns_task_caps *caps)
{
	struct capuns_sets enforced, kernel;
	struct capuns_task_caps c = { 0 };
	int err;

	if (!caps || pid < 0)
		return -EINVAL;
	err = capuns_backend()->get_sets(pid, &enforced, &kernel);
	if (err)
		return err;
	c.inheritable.bits = enforced.inheritable;
	c.permitted.bits = enforced.permitted;
	c.effective.bits = enforced.effective;
	c.bounding.bits = enforced.bounding;
	c.ambient.bits = enforced.ambient;
	c.kernel_inheritable.bits = kernel.inheritable;
	c.kernel_permitted.bits = kernel.permitted;
	c.kernel_effective.bits = kernel.effective;
	c.kernel_bounding.bits = kernel.bounding;
	c.kernel_ambient.bits = kernel.ambient;
	c.has_userns = capuns_get(pid, &c.userns) == 0;
	*caps = c;
	return 0;
}

int capuns_is_set(int cap)
{
	int err = check_cap(cap);

	if (err)
		return err;
	return capuns_backend()->userns_op(PR_CAP_USERNS_IS_SET, cap);
}

int capuns_lower(int cap)
{
	int err = check_cap(cap);

	if (err)
		return err;
	return capuns_backend()->userns_op(PR_CAP_USERNS_LOWER, cap);
}

int capuns_raise(int cap)
{
	int err = check_cap(cap);

	if (err)
		return err;
	return capuns_backend()->userns_op(PR_CAP_USERNS_RAISE, cap);
}

int capuns_clear(void)
{
	return capuns_backend()->userns_op(PR_CAP_USERNS_CLEAR_ALL, 0);
}

/* Lower every cap of set, one by one. */
static int lower_each(const struct capuns_backend *b, capuns_set_t set)
{
	int err;

	for (int c = 0; c < CAPUNS_CAP_BITS; c++) {
		if (!capuns_set_has(set, c))
			continue;
		err = b->userns_op(PR_CAP_USERNS_LOWER, c);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Raise every cap of set, after checking that the rule allows all of
 * them; on a failure half way, lower again what this call raised.
 */
static int raise_each(const struct capuns_backend *b, capuns_set_t cur,
		      capuns_set_t set)
{
	capuns_set_t todo = capuns_set_minus(set, cur), done = capuns_set_empty();
	capuns_set_t allowed;
	int err;

	if (!todo.bits)
		return 0;
	err = b->get_raisable(&allowed.bits);
	if (err)
		return err;
	if (capuns_set_minus(todo, allowed).bits)
		return -EPERM;
	for (int c = 0; c < CAPUNS_CAP_BITS; c++) {
		if (!capuns_set_has(todo, c))
			continue;
		err = b->userns_op(PR_CAP_USERNS_RAISE, c);
		if (err) {
			lower_each(b, done);
			return err;
		}
		done = capuns_set_add(done, c);
	}
	return 0;
}

/* What the set calls share: set names only capabilities of this kernel; *cur is pU now. */
static int check_set_get(capuns_set_t set, capuns_set_t *cur)
{
	int err = check_set(set);

	return err ? err : capuns_get(0, cur);
}

int capuns_raise_set(capuns_set_t set)
{
	capuns_set_t cur;
	int err = check_set_get(set, &cur);

	return err ? err : raise_each(capuns_backend(), cur, set);
}

int capuns_lower_set(capuns_set_t set)
{
	capuns_set_t cur;
	int err = check_set_get(set, &cur);

	return err ? err : lower_each(capuns_backend(), capuns_set_and(cur, set));
}

int capuns_set_exactly(capuns_set_t set)
{
	const struct capuns_backend *b = capuns_backend();
	capuns_set_t cur, drop;
	int err;

	err = check_set_get(set, &cur);
	if (err)
		return err;
	err = raise_each(b, cur, set);
	if (err)
		return err;
	drop = capuns_set_minus(cur, set);
	/* Dropping everything is one atomic credential change. */
	if (set.bits == 0 && drop.bits)
		return b->userns_op(PR_CAP_USERNS_CLEAR_ALL, 0);
	return lower_each(b, drop);
}

int capuns_strict_get(unsigned *bits)
{
	if (!bits)
		return -EINVAL;
	return capuns_backend()->get_strict(bits);
}

int capuns_strict_set(bool lock)
{
	const struct capuns_backend *b = capuns_backend();
	unsigned want = CAPUNS_SECBIT_STRICT | (lock ? CAPUNS_SECBIT_STRICT_LOCKED : 0), have;
	int err = b->get_strict(&have);

	if (err)
		return err;
	/* Set already (a session inside a strict one): no change, no CAP_SETPCAP needed. */
	if ((have & want) == want)
		return 0;
	return b->set_strict(lock);
}

int capuns_mask_get(capuns_set_t *mask)
{
	uint64_t bits;
	int err;

	if (!mask)
		return -EINVAL;
	err = capuns_backend()->mask_get(&bits);
	if (err)
		return err;
	mask->bits = bits;
	return 0;
}

int capuns_mask_drop(capuns_set_t drop)
{
	int err = check_set(drop);

	if (err)
		return err;
	return capuns_backend()->mask_drop(drop.bits);
}

int capuns_mask_cap(void)
{
	return capuns_backend()->mask_cap;
}

/* An operation the backend in use lacks: there is none, or it cannot. */
static int lacking(const struct capuns_backend *b)
{
	return b == &capuns_backend_none ? CAPUNS_ENOBACKEND : -EOPNOTSUPP;
}

int capuns_complain_get(void)
{
	const struct capuns_backend *b = capuns_backend();

	return b->complain_get ? b->complain_get() : lacking(b);
}

int capuns_complain_set(bool on)
{
	const struct capuns_backend *b = capuns_backend();

	return b->complain_set ? b->complain_set(on) : lacking(b);
}

int capuns_learn_start(void)
{
	const struct capuns_backend *b = capuns_backend();

	return b->learn_start ? b->learn_start() : lacking(b);
}

int capuns_learn_get(capuns_set_t *used, capuns_set_t *refused)
{
	const struct capuns_backend *b = capuns_backend();
	uint64_t u, r;
	int err;

	if (!used || !refused)
		return -EINVAL;
	if (!b->learn_get)
		return lacking(b);
	err = b->learn_get(&u, &r);
	if (err)
		return err;
	*used = capuns_set_of(u);
	*refused = capuns_set_of(r);
	return 0;
}

int capuns_learn_stop(void)
{
	const struct capuns_backend *b = capuns_backend();

	return b->learn_stop ? b->learn_stop() : lacking(b);
}

const char *capuns_strerror(int err)
{
	const char *s;

	if (err > 0)
		err = -err;
	switch (err) {
	case 0:
		return "Success";
	case CAPUNS_ENOBACKEND:
		return "no capuns backend: this kernel has no PR_CAP_USERNS and "
		       "the BPF backend is not loaded (load it with: capuns-bpf load)";
	case CAPUNS_EBADCAP:
		return "unknown capability (a name such as cap_net_admin, or a decimal "
		       "number without leading zeros; see capabilities(7); "
		       "cap_sys_control is 41)";
	case CAPUNS_ESYNTAX:
		return "malformed capability list "
		       "(expected [+|-|!]CAP{,[+|-|!]CAP}, CAP a name, number, all or none)";
	case CAPUNS_EPROTO:
		return "the kernel or capuns backend answered outside the capuns ABI "
		       "(kernel and library do not match)";
	}
	s = strerrordesc_np(-err);
	return s ? s : "unknown error";
}
