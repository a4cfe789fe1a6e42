/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Guest test of every libcapuns call, with its error paths, as root and
 * as an unprivileged user (uid 1000), on the kernel named by
 * CAPUNS_TARGET:
 *   patched    the kernel backend must be in use and follow rules 2-6;
 *   unpatched  the library must detect "none" and fail every call with
 *              CAPUNS_ENOBACKEND.
 * Changes are made in forked children, so that each case starts from the
 * full pU of the test process.  Prints TAP.
 */
#include <errno.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capuns.h"
#include "internal.h"
#include "tap.h"
/* Relative: the rule that builds this test adds no -Itests/lib. */
#include "../lib/id-maps.h"

#define ALICE 1000

static uint64_t bit(int c)
{
	return UINT64_C(1) << c;
}

static uint64_t status_field(const char *field)
{
	char *st;
	uint64_t v = ~UINT64_C(0);

	if (capuns_read_status(0, &st) == 0) {
		capuns_status_field(st, field, &v);
		free(st);
	}
	return v;
}

static uint64_t get_pu(void)
{
	capuns_set_t s = capuns_set_of(~UINT64_C(0));

	capuns_get(0, &s);
	return s.bits;
}

/*
 * Run fn in a child (optionally as alice); the child prints its own TAP
 * lines, numbered after ours, and exits with the number it printed.
 */
static void in_child(const char *name, bool as_alice, void (*fn)(void))
{
	pid_t pid;
	int status;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		TAP_OK(0, "%s: fork", name);
		return;
	}
	if (pid == 0) {
		int start = tap_n;

		if (as_alice && (setgroups(0, NULL) || setresgid(ALICE, ALICE, ALICE) ||
				 setresuid(ALICE, ALICE, ALICE))) {
			TAP_OK(0, "%s: become uid %d", name, ALICE);
			fflush(stdout);
			_exit(255);
		}
		fn();
		fflush(stdout);
		_exit(tap_failed ? 200 + (tap_n - start) : tap_n - start);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) {
		TAP_OK(0, "%s: child died", name);
		return;
	}
	int code = WEXITSTATUS(status);

	if (code == 255) {
		tap_n++;
		tap_failed++;
		return;
	}
	if (code >= 200) {
		tap_failed++;
		code -= 200;
	}
	tap_n += code;
}

/* ---- patched kernel, root ---------------------------------------------- */

static void root_lower_raise(void)
{
	TAP_EQ(capuns_is_set(12), 1, "root: cap_net_admin is in pU");
	TAP_EQ(capuns_lower(12), 0, "root: lower cap_net_admin");
	TAP_EQ(capuns_is_set(12), 0, "root: is_set says lowered");
	TAP_OK(!(status_field("CapUNs:") & bit(12)), "root: /proc CapUNs lacks bit 12");
	TAP_EQ(capuns_lower(12), 0, "root: lowering again is fine");
	TAP_EQ(capuns_raise(12), 0, "root: raise back (CAP_SETPCAP)");
	TAP_EQ(capuns_is_set(12), 1, "root: raised");
	TAP_EQ(capuns_raise(12), 0, "root: raising a set cap is fine");
	TAP_EQ(capuns_is_set(41), 1, "root: cap_sys_control (41) is in pU");
	TAP_EQ(capuns_is_set(42), -EINVAL, "root: cap 42 is EINVAL");
	TAP_EQ(capuns_lower(-1), -EINVAL, "root: cap -1 is EINVAL");
	/* The kernel's own argument checks, through the backend. */
	const struct capuns_backend *b = capuns_backend();

	TAP_EQ(b->userns_op(9, 0), -EINVAL, "root: unknown op is EINVAL");
	TAP_EQ(b->userns_op(PR_CAP_USERNS_IS_SET, 42), -EINVAL, "root: kernel rejects cap 42");
	errno = 0;
	TAP_OK(prctl(PR_CAP_USERNS, PR_CAP_USERNS_IS_SET, 0, 1, 0) == -1 && errno == EINVAL,
	       "root: nonzero arg4 is EINVAL");
	errno = 0;
	TAP_OK(prctl(PR_CAP_USERNS, PR_CAP_USERNS_CLEAR_ALL, 1, 0, 0) == -1 && errno == EINVAL,
	       "root: CLEAR_ALL with arg3 is EINVAL");
	TAP_EQ(get_pu(), capuns_set_all().bits, "root: pU full after the round trip");
}

static void root_sets(void)
{
	capuns_set_t two = capuns_set_of(bit(0) | bit(5)), s;

	TAP_EQ(capuns_set_exactly(two), 0, "root: set_exactly {chown,kill}");
	TAP_EQ(get_pu(), two.bits, "root: pU is exactly {chown,kill}");
	TAP_EQ(capuns_raise_set(capuns_set_of(bit(12) | bit(21))), 0, "root: raise_set");
	TAP_EQ(get_pu(), two.bits | bit(12) | bit(21), "root: raised two");
	TAP_EQ(capuns_lower_set(capuns_set_of(bit(0) | bit(12))), 0, "root: lower_set");
	TAP_EQ(get_pu(), bit(5) | bit(21), "root: lowered two");
	TAP_EQ(capuns_set_exactly(capuns_set_all()), 0, "root: set_exactly all");
	TAP_EQ(get_pu(), capuns_set_all().bits, "root: pU full again");
	TAP_EQ(capuns_set_exactly(capuns_set_of(bit(50))), -EINVAL,
		   "root: set_exactly beyond CAP_LAST_CAP is EINVAL");
	TAP_EQ(get_pu(), capuns_set_all().bits, "root: ...and changed nothing");
	TAP_EQ(capuns_clear(), 0, "root: clear");
	TAP_EQ(get_pu(), 0, "root: pU empty");
	TAP_OK(capuns_get(getpid(), &s) == 0 && s.bits == 0, "root: get(getpid()) agrees");
	TAP_EQ(unshare(CLONE_NEWUSER), 0, "root: unshare a user namespace");
	TAP_EQ(status_field("CapEff:"), 0, "root: no caps in the namespace after clear");
	TAP_EQ(status_field("CapBnd:"), 0, "root: empty bounding set there");
	TAP_EQ(capuns_raise(0), -EPERM, "root: cannot raise inside (X is empty)");
}

/* unshare(CLONE_NEWUSER) and map root inside to our ids (needs CAP_SYS_ADMIN there). */
static int unshare_mapped(void)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();

	if (unshare(CLONE_NEWUSER) < 0)
		return -errno;
	return write_id_maps(0, uid, gid);
}

static void root_nested_drop(void)
{
	TAP_EQ(capuns_lower(12), 0, "nest: lower cap_net_admin");
	for (int d = 1; d <= 3; d++) {
		TAP_EQ(unshare_mapped(), 0, "nest: depth %d created and mapped", d);
		TAP_OK(!(status_field("CapEff:") & bit(12)) && (status_field("CapEff:") & bit(21)),
		       "nest: depth %d lacks cap_net_admin, keeps cap_sys_admin", d);
		TAP_EQ(capuns_is_set(12), 0, "nest: depth %d pU lacks it", d);
		TAP_EQ(capuns_raise(12), -EPERM, "nest: depth %d cannot raise it back", d);
	}
}

static void root_strict(void)
{
	unsigned bits = 99;

	TAP_OK(capuns_strict_get(&bits) == 0 && bits == 0, "strict: off by default");
	TAP_EQ(prctl(PR_CAPBSET_DROP, 12, 0, 0, 0), 0, "strict: drop cap_net_admin from X");
	TAP_EQ(capuns_is_set(12), 1, "strict: pU still has it");
	TAP_EQ(capuns_strict_set(false), 0, "strict: set");
	TAP_OK(capuns_strict_get(&bits) == 0 && bits == CAPUNS_SECBIT_STRICT, "strict: reads set");
	TAP_EQ(capuns_strict_set(true), 0, "strict: lock");
	TAP_OK(capuns_strict_get(&bits) == 0 &&
		       bits == (CAPUNS_SECBIT_STRICT | CAPUNS_SECBIT_STRICT_LOCKED),
	       "strict: reads locked");
	errno = 0;
	TAP_OK(prctl(PR_SET_SECUREBITS, 0, 0, 0, 0) == -1 && errno == EPERM,
	       "strict: locked bit cannot be cleared");
	TAP_EQ(capuns_strict_set(true), 0, "strict: setting again is a no-op");
	if (fork() == 0) {
		int ok = unshare(CLONE_NEWUSER) == 0 && !(status_field("CapEff:") & bit(12));
		_exit(ok ? 0 : 1);
	}
	int st;

	wait(&st);
	TAP_OK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "strict: a namespace lacks the cap dropped from X only");
}

static void root_mask_read(void)
{
	capuns_set_t m;

	TAP_OK(capuns_mask_get(&m) == 0, "mask: readable");
	/* m within all, not all within m: a mask with bits past CAP_LAST_CAP
	 * covers all too. */
	TAP_OK(capuns_set_minus(m, capuns_set_all()).bits == 0,
	       "mask: within the caps of this kernel (%#llx)", (unsigned long long)m.bits);
	TAP_EQ(capuns_mask_drop(capuns_set_of(bit(60))), -EINVAL,
		   "mask: dropping a cap beyond CAP_LAST_CAP is EINVAL");
	TAP_EQ(capuns_mask_drop(capuns_set_empty()), 0, "mask: dropping nothing is fine");
}

/* ---- patched kernel, uid 1000 ------------------------------------------ */

static void alice_calls(void)
{
	capuns_set_t all = capuns_set_all(), m, s;
	unsigned bits;

	TAP_EQ_STR(capuns_backend_name(), "kernel", "alice: kernel backend");
	TAP_EQ(status_field("CapEff:"), 0, "alice: no effective caps");
	TAP_EQ(get_pu(), all.bits, "alice: full pU inherited");
	TAP_EQ(capuns_lower(12), 0, "alice: may lower");
	TAP_EQ(capuns_raise(12), -EPERM, "alice: may not raise it back (not in pP)");
	TAP_EQ(capuns_is_set(12), 0, "alice: still lowered");
	TAP_EQ(capuns_set_exactly(all), -EPERM, "alice: set_exactly(all) is EPERM");
	TAP_EQ(get_pu(), all.bits & ~bit(12), "alice: ...and changed nothing");
	TAP_EQ(capuns_raise_set(capuns_set_of(bit(12) | bit(21))), -EPERM,
		   "alice: raise_set with one forbidden cap is EPERM");
	TAP_EQ(get_pu(), all.bits & ~bit(12), "alice: ...and changed nothing");
	TAP_EQ(capuns_set_exactly(capuns_set_of(bit(21) | bit(0))), 0,
		   "alice: set_exactly lowering only is allowed");
	TAP_EQ(get_pu(), bit(21) | bit(0), "alice: pU is {chown,sys_admin}");
	TAP_OK(capuns_strict_get(&bits) == 0 && bits == 0, "alice: strict_get");
	TAP_EQ(capuns_strict_set(false), -EPERM, "alice: strict_set needs CAP_SETPCAP");
	TAP_OK(capuns_mask_get(&m) == 0, "alice: mask readable");
	TAP_EQ(capuns_mask_drop(capuns_set_of(bit(17))), -EPERM, "alice: mask_drop is EPERM");
	TAP_OK(capuns_get(1, &s) == 0 && s.bits == all.bits, "alice: reads pU of pid 1");
	TAP_EQ(capuns_get(0x3ffffff0, &s), -ESRCH, "alice: no such pid is ESRCH");
	TAP_EQ(unshare(CLONE_NEWUSER), 0, "alice: unshare a user namespace");
	TAP_EQ(status_field("CapEff:"), bit(21) | bit(0), "alice: namespace pE = pU");
	TAP_EQ(status_field("CapBnd:"), bit(21) | bit(0), "alice: namespace X = pU");
	TAP_EQ(capuns_raise(12), -EPERM, "alice: root of the namespace cannot regain it");
	TAP_EQ(capuns_raise(21), 0, "alice: raising a cap still in X works");
}

/* ---- unpatched kernel --------------------------------------------------- */

static void none_calls(void)
{
	capuns_set_t s;
	unsigned bits;

	TAP_EQ_STR(capuns_backend_name(), "none", "unpatched: backend none");
	TAP_EQ(capuns_backend_status(), CAPUNS_ENOBACKEND, "unpatched: status ENOBACKEND");
	TAP_EQ(capuns_cap_last(), 40, "unpatched: cap_last_cap is 40");
	TAP_EQ(capuns_get(0, &s), CAPUNS_ENOBACKEND, "unpatched: get");
	TAP_EQ(capuns_is_set(12), CAPUNS_ENOBACKEND, "unpatched: is_set");
	TAP_EQ(capuns_lower(12), CAPUNS_ENOBACKEND, "unpatched: lower");
	TAP_EQ(capuns_raise(12), CAPUNS_ENOBACKEND, "unpatched: raise");
	TAP_EQ(capuns_clear(), CAPUNS_ENOBACKEND, "unpatched: clear");
	TAP_EQ(capuns_set_exactly(capuns_set_empty()), CAPUNS_ENOBACKEND,
		   "unpatched: set_exactly");
	TAP_EQ(capuns_strict_get(&bits), CAPUNS_ENOBACKEND, "unpatched: strict_get");
	TAP_EQ(capuns_strict_set(true), CAPUNS_ENOBACKEND, "unpatched: strict_set");
	TAP_EQ(capuns_mask_get(&s), CAPUNS_ENOBACKEND, "unpatched: mask_get");
	TAP_EQ(capuns_mask_drop(capuns_set_of(bit(17))), CAPUNS_ENOBACKEND,
		   "unpatched: mask_drop");
	TAP_EQ(capuns_is_set(41), -EINVAL, "unpatched: cap 41 is EINVAL here");
}

int main(void)
{
	const char *target = getenv("CAPUNS_TARGET");

	if (!target) {
		TAP_OK(0, "CAPUNS_TARGET is set");
		return tap_done();
	}
	if (strcmp(target, "unpatched") == 0) {
		none_calls();
		in_child("unpatched as alice", true, none_calls);
		return tap_done();
	}
	if (strcmp(target, "patched") != 0) {
		TAP_OK(0, "known target '%s' (patched or unpatched)", target);
		return tap_done();
	}
	TAP_EQ_STR(capuns_backend_name(), "kernel", "patched: kernel backend detected");
	TAP_EQ(capuns_backend_status(), 0, "patched: backend status 0");
	TAP_EQ(capuns_cap_last(), 41, "patched: cap_last_cap is 41 (CAP_SYS_CONTROL)");
	TAP_EQ(get_pu(), capuns_set_all().bits, "patched: root starts with a full pU");
	capuns_set_t s;

	TAP_OK(capuns_get(1, &s) == 0 && s.bits == capuns_set_all().bits, "patched: get(1)");
	TAP_EQ(capuns_get(0x3ffffff0, &s), -ESRCH, "patched: get of no pid is ESRCH");
	TAP_EQ(capuns_get(-1, &s), -EINVAL, "patched: get(-1) is EINVAL");
	in_child("lower/raise", false, root_lower_raise);
	in_child("sets", false, root_sets);
	in_child("nested drop", false, root_nested_drop);
	in_child("strict", false, root_strict);
	in_child("mask", false, root_mask_read);
	in_child("alice", true, alice_calls);
	setenv("CAPUNS_BACKEND", "none", 1);
	capuns_backend_reset();
	TAP_EQ_STR(capuns_backend_name(), "none", "patched: CAPUNS_BACKEND=none forces none");
	TAP_EQ(capuns_lower(12), CAPUNS_ENOBACKEND, "patched: forced none fails closed");
	unsetenv("CAPUNS_BACKEND");
	capuns_backend_reset();
	TAP_EQ(get_pu(), capuns_set_all().bits, "patched: test process pU untouched");
	return tap_done();
}
