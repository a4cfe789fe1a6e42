/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Host unit test of what pam_capuns does to a session, through libpam:
 * the module is linked without libcapuns' backend calls, and this program
 * provides them (capuns_get, capuns_lower_set, capuns_strict_get,
 * capuns_strict_set) over a pretend thread, recording every call.  So it
 * shows what the module asks for and in which order, which the host
 * kernel cannot: a session that a rule matches gets pU lowered and then
 * the strict securebit set and locked (rule 10, R10); a session that
 * no rule matches is not touched at all; strict= chooses; a strict bit
 * that cannot be set fails the session (fail closed).  The guest tests
 * check the same on the real backends.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <security/pam_appl.h>
#include <sys/capability.h>

#include "capuns.h"
#include "tap.h"
#include "pam-test.h"

#define NET_ADMIN 12
#define FULL UINT64_C(0x1ffffffffff) /* capabilities 0-40 */
#define STRICT CAPUNS_SECBIT_STRICT
#define LOCKED CAPUNS_SECBIT_STRICT_LOCKED

/* The pretend thread the module acts on, and the calls it made. */
static struct {
	uint64_t userns;
	unsigned bits;
	uint64_t bound;  /* the bounding set */
	bool setpcap;    /* CAP_SETPCAP in the effective set */
	int lower_error; /* what a lowering answers (0: it works) */
	char calls[256];
} t;

static void record(const char *fmt, ...)
{
	size_t n = strlen(t.calls);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t.calls + n, sizeof(t.calls) - n, fmt, ap);
	va_end(ap);
}

/* The library's calls, as libcapuns documents them (include/capuns.h). */
CAPUNS_API int capuns_get(pid_t pid, capuns_set_t *set)
{
	record("get ");
	if (pid != 0)
		return -EINVAL;
	set->bits = t.userns;
	return 0;
}

CAPUNS_API int capuns_lower_set(capuns_set_t set)
{
	record("lower(%#llx) ", (unsigned long long)set.bits);
	if (t.lower_error)
		return t.lower_error;
	t.userns &= ~set.bits;
	return 0;
}

CAPUNS_API int capuns_strict_get(unsigned *bits)
{
	record("strict_get ");
	*bits = t.bits;
	return 0;
}

/* As the backends: nothing to do when set; else CAP_SETPCAP; a lock holds. */
CAPUNS_API int capuns_strict_set(bool lock)
{
	unsigned want = STRICT | (lock ? LOCKED : 0);

	record("strict_set(%s) ", lock ? "lock" : "nolock");
	if ((t.bits & want) == want)
		return 0;
	if (!t.setpcap || (t.bits & LOCKED && !(t.bits & STRICT)))
		return -EPERM;
	t.bits |= want;
	return 0;
}

CAPUNS_API int capuns_cap_last(void)
{
	return 40;
}

/* libcap's, which the module calls for strict=bset: PR_CAPBSET_DROP. */
int cap_drop_bound(cap_value_t cap)
{
	record("drop_bound(%d) ", cap);
	if (!t.setpcap) {
		errno = EPERM;
		return -1;
	}
	t.bound &= ~(UINT64_C(1) << cap);
	return 0;
}

CAPUNS_API const char *capuns_strerror(int err)
{
	return strerror(err < 0 ? -err : err);
}

/* The PAM service of the next run(): its stack file in pam_test_dir. */
static const char *service = "svc";

/* The thread as a login process starts: root, full pU, no strict bit. */
static void fresh(void)
{
	memset(&t, 0, sizeof(t));
	t.userns = FULL;
	t.bound = FULL;
	t.setpcap = true;
}

/*
 * One PAM call ("session", "setcred" or "delcred") for user through a
 * stack of pam_capuns with args, then pam_permit (a stack whose only
 * module ignores the call would be refused); the recorded calls tell
 * what the module did.
 */
static int run(const char *what, const char *user, const char *args)
{
	const char *type = strcmp(what, "session") == 0 ? "session" : "auth";
	char text[1024];

	snprintf(text, sizeof(text), "%s required %s conf=%s/capuns.conf %s\n"
		 "%s required pam_permit.so\n", type, PAM_CAPUNS_SO, pam_test_dir, args, type);
	pam_test_write(service, text);
	return pam_test_call(service, what, user);
}

/* A session of user with args on a fresh thread; then the thread as it was left. */
#define SESSION(user, args, want_r, want_userns, want_bits, want_calls, desc)           \
	do {                                                                            \
		fresh();                                                                \
		TAP_EQ(run("session", user, args), want_r, "%s: PAM result", desc);     \
		TAP_EQ(t.userns, want_userns, "%s: pU", desc);                          \
		TAP_EQ(t.bits, want_bits, "%s: strict bits", desc);                     \
		TAP_EQ_STR(t.calls, want_calls, "%s: calls, in order", desc);           \
	} while (0)

#define LOWERED (FULL & ~(UINT64_C(1) << NET_ADMIN))
#define RULE "get lower(0x1000) "

int main(void)
{
	if (!mkdtemp(pam_test_dir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	pam_test_write("capuns.conf", "!cap_net_admin  alice\n");

	SESSION("alice", "", PAM_SUCCESS, LOWERED, STRICT | LOCKED,
		RULE "strict_set(lock) ",
		"a rule matches: pU lowered, then the strict bit set and locked (the default)");
	SESSION("bob", "", PAM_SUCCESS, FULL, 0, "",
		"no rule: the session is not touched (no call at all)");
	SESSION("bob", "strict=lock", PAM_SUCCESS, FULL, 0, "", "no rule, strict=lock: not touched");
	SESSION("bob", "lock", PAM_SUCCESS, FULL, 0, "", "no rule, lock: not touched");
	SESSION("bob", "strict", PAM_SUCCESS, FULL, 0, "", "no rule, strict: not touched");
	SESSION("alice", "strict=lock", PAM_SUCCESS, LOWERED, STRICT | LOCKED,
		RULE "strict_set(lock) ", "strict=lock: set and locked");
	SESSION("alice", "strict=on", PAM_SUCCESS, LOWERED, STRICT,
		RULE "strict_set(nolock) ", "strict=on: set, not locked");
	SESSION("alice", "strict=off", PAM_SUCCESS, LOWERED, 0, RULE,
		"strict=off: pU lowered, securebits left alone");
	SESSION("alice", "lock", PAM_SUCCESS, LOWERED, STRICT | LOCKED,
		RULE "strict_set(lock) ", "lock (older name of strict=lock)");
	SESSION("alice", "strict", PAM_SUCCESS, LOWERED, STRICT,
		RULE "strict_set(nolock) ", "strict (older name of strict=on)");
	SESSION("alice", "strict=off strict=lock", PAM_SUCCESS, LOWERED, STRICT | LOCKED,
		RULE "strict_set(lock) ", "the last strict= wins");
	SESSION("alice", "strict=maybe", PAM_SESSION_ERR, FULL, 0, "",
		"strict=maybe is a bad argument: session refused before any change");
	SESSION("alice", "strict=", PAM_SESSION_ERR, FULL, 0, "",
		"strict= without a value is a bad argument");

	/* The bit cannot be set: the rule would not survive newgrp/su, so no session. */
	fresh();
	t.setpcap = false;
	TAP_EQ(run("session", "alice", ""), PAM_SESSION_ERR,
	       "no CAP_SETPCAP: the strict bit cannot be set, the session fails (fail closed)");
	TAP_EQ_STR(t.calls, RULE "strict_set(lock) ", "... after lowering pU");
	fresh();
	t.setpcap = false;
	TAP_EQ(run("session", "alice", "onerr=succeed"), PAM_SUCCESS,
	       "no CAP_SETPCAP, onerr=succeed: the session opens (logged)");
	TAP_EQ(t.userns, LOWERED, "... with pU lowered all the same");
	fresh();
	t.setpcap = false;
	t.bits = STRICT | LOCKED;
	TAP_EQ(run("session", "alice", ""), PAM_SUCCESS,
	       "inside a session that is strict and locked already: opens without CAP_SETPCAP");
	TAP_EQ(t.bits, STRICT | LOCKED, "... bits unchanged");
	fresh();
	t.bits = STRICT;
	TAP_EQ(run("session", "alice", ""), PAM_SUCCESS, "strict but unlocked before: opens");
	TAP_EQ(t.bits, STRICT | LOCKED, "... and the lock is added");
	fresh();
	t.bits = LOCKED;
	TAP_EQ(run("session", "alice", ""), PAM_SESSION_ERR,
	       "strict bit locked off: the session fails");
	fresh();
	t.bits = LOCKED;
	TAP_EQ(run("session", "alice", "strict=off"), PAM_SUCCESS,
	       "strict bit locked off, strict=off: opens with pU lowered");
	fresh();
	t.lower_error = CAPUNS_ENOBACKEND;
	TAP_EQ(run("session", "alice", ""), PAM_SESSION_ERR,
	       "pU cannot be lowered (no backend): the session fails");
	TAP_EQ_STR(t.calls, RULE, "... and the strict bit is not touched");
	TAP_EQ(t.bits, 0, "... strict bits unchanged");

	/* The auth stack: setcred does the same work. */
	fresh();
	TAP_EQ(run("setcred", "alice", ""), PAM_SUCCESS, "setcred with a rule: succeeds");
	TAP_EQ(t.bits, STRICT | LOCKED, "setcred: strict bit set and locked");
	TAP_EQ(t.userns, LOWERED, "setcred: pU lowered");
	fresh();
	TAP_EQ(run("setcred", "bob", ""), PAM_SUCCESS, "setcred without a rule: succeeds");
	TAP_EQ_STR(t.calls, "", "setcred without a rule: no call");
	fresh();
	TAP_EQ(run("delcred", "alice", ""), PAM_SUCCESS, "delete credentials: succeeds");
	TAP_EQ_STR(t.calls, "", "delete credentials: no call");

	/*
	 * systemd's user manager (PAM service systemd-user): systemd rewrites
	 * the securebits of what it starts, so there the caps leave the
	 * bounding set instead, unless strict= says otherwise.
	 */
#define DROPPED_BSET "drop_bound(12) "
	service = "systemd-user";
	SESSION("alice", "", PAM_SUCCESS, LOWERED, 0, RULE DROPPED_BSET,
		"systemd-user: pU lowered, the cap dropped from the bounding set, no strict bit");
	TAP_EQ(t.bound, LOWERED, "systemd-user: the bounding set lacks CAP_NET_ADMIN");
	SESSION("bob", "", PAM_SUCCESS, FULL, 0, "", "systemd-user, no rule: not touched");
	TAP_EQ(t.bound, FULL, "systemd-user, no rule: bounding set full");
	SESSION("alice", "strict=lock", PAM_SUCCESS, LOWERED, STRICT | LOCKED,
		RULE "strict_set(lock) ", "systemd-user with strict=lock: the argument wins");
	fresh();
	t.setpcap = false;
	TAP_EQ(run("session", "alice", ""), PAM_SESSION_ERR,
	       "systemd-user without CAP_SETPCAP: the bounding set cannot shrink, the session fails");
	service = "svc";
	SESSION("alice", "strict=bset", PAM_SUCCESS, LOWERED, 0, RULE DROPPED_BSET,
		"strict=bset in another service: the bounding set");
	TAP_EQ(t.bound, LOWERED, "strict=bset: the bounding set lacks CAP_NET_ADMIN");

	/* A rule for everyone (*) is how every session gets the strict bit. */
	pam_test_write("capuns.conf", "all  *\n");
	SESSION("bob", "", PAM_SUCCESS, FULL, STRICT | LOCKED, "get lower(0) strict_set(lock) ",
		"'all *': nothing lowered, but every session gets the strict bit, locked");

	pam_test_cleanup("svc\0systemd-user\0capuns.conf\0");
	return tap_done();
}
