/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Host unit test of pam_capuns.so driven through libpam, with a private
 * PAM configuration directory (pam_start_confdir).  The library backend is
 * forced to "none" (CAPUNS_BACKEND): no kernel support is assumed, so a
 * rule that matches must FAIL the session (fail closed) unless
 * onerr=succeed, and malformed configurations must fail too.  The guest
 * tests check the real lowering on the patched kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <security/pam_appl.h>

#include "tap.h"
#include "pam-test.h"


/* Write service "svc" with one line for our module, then pam_permit. */
static void service(const char *type, const char *args)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "%s required %s %s\n"
		 "%s required pam_permit.so\n",
		 type, PAM_CAPUNS_SO, args, type);
	pam_test_write("svc", text);
}

/* Run one PAM call for user; returns its PAM code. */
static int run(const char *what, const char *user)
{
	return pam_test_call("svc", what, user);
}

static void expect(const char *type, const char *args, const char *what,
		   const char *user, int want, const char *desc)
{
	int r;

	service(type, args);
	r = run(what, user);
	TAP_OK(r == want, "%s", desc);
	if (r != want)
		printf("#   got %d, want %d (%s)\n", r, want, r >= 0 ? pam_strerror(NULL, r) : "start");
}

int main(void)
{
	char good[320], bad[320], none[320], args[1024];

	if (!mkdtemp(pam_test_dir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	setenv("CAPUNS_BACKEND", "none", 1);
	snprintf(good, sizeof(good), "conf=%s/good.conf", pam_test_dir);
	snprintf(bad, sizeof(bad), "conf=%s/bad.conf", pam_test_dir);
	snprintf(none, sizeof(none), "conf=%s/missing.conf", pam_test_dir);
	pam_test_write("good.conf", "!cap_net_admin  alice\n");
	pam_test_write("bad.conf", "!cap_net_admin  alice\n!cap_bogus *\n");

	expect("session", good, "session", "bob", PAM_SUCCESS,
	       "no matching line: module ignored, session opens");
	expect("session", good, "session", "alice", PAM_SESSION_ERR,
	       "matching line without a backend fails the session (fail closed)");
	snprintf(args, sizeof(args), "%s onerr=succeed", good);
	expect("session", args, "session", "alice", PAM_SUCCESS,
	       "onerr=succeed lets it through (logged)");
	expect("session", bad, "session", "bob", PAM_SESSION_ERR,
	       "malformed config fails the session even for an unlisted user");
	snprintf(args, sizeof(args), "%s onerr=succeed", bad);
	expect("session", args, "session", "bob", PAM_SUCCESS,
	       "malformed config with onerr=succeed opens the session");
	snprintf(args, sizeof(args), "%s onerr=fail", bad);
	expect("session", args, "session", "bob", PAM_SESSION_ERR, "explicit onerr=fail");
	expect("session", none, "session", "bob", PAM_SESSION_ERR, "missing config fails");
	snprintf(args, sizeof(args), "%s strictt", good);
	expect("session", args, "session", "bob", PAM_SESSION_ERR,
	       "unknown module argument fails");
	snprintf(args, sizeof(args), "%s onerr=maybe", good);
	expect("session", args, "session", "bob", PAM_SESSION_ERR, "bad onerr value fails");
	/* A session no rule names is not touched: it needs no backend (lockout). */
	for (const char *s = "strict\0lock\0strict=lock\0strict=on\0"; *s; s += strlen(s) + 1) {
		char desc[128];

		snprintf(args, sizeof(args), "%s %s", good, s);
		snprintf(desc, sizeof(desc), "%s, no matching line, no backend: the session opens", s);
		expect("session", args, "session", "bob", PAM_SUCCESS, desc);
	}
	snprintf(args, sizeof(args), "%s strict=off", good);
	expect("session", args, "session", "alice", PAM_SESSION_ERR,
	       "strict=off: a matching line without a backend still fails (the rule itself)");
	snprintf(args, sizeof(args), "%s strict=yes", good);
	expect("session", args, "session", "bob", PAM_SESSION_ERR,
	       "strict=yes is an unknown argument and fails");
	snprintf(args, sizeof(args), "%s debug", good);
	expect("session", args, "session", "bob", PAM_SUCCESS, "debug is accepted");

	/* Audit mode logs what a rule would do and changes nothing: no backend needed. */
	snprintf(args, sizeof(args), "%s mode=audit", good);
	expect("session", args, "session", "alice", PAM_SUCCESS,
	       "mode=audit: a matching line without a backend opens the session (logged only)");
	snprintf(args, sizeof(args), "%s mode=enforce", good);
	expect("session", args, "session", "alice", PAM_SESSION_ERR,
	       "mode=enforce: the default, a matching line without a backend fails");
	snprintf(args, sizeof(args), "%s mode=complain", good);
	expect("session", args, "session", "bob", PAM_SESSION_ERR,
	       "mode=complain is an unknown argument and fails");
	pam_test_write("audit.conf", "audit !cap_net_admin  alice\n!cap_sys_admin bob\n");
	snprintf(args, sizeof(args), "conf=%s/audit.conf", pam_test_dir);
	expect("session", args, "session", "alice", PAM_SUCCESS,
	       "an audit rule: the session opens without a backend (logged only)");
	expect("session", args, "session", "bob", PAM_SESSION_ERR,
	       "the enforcing rule beside it still fails closed without a backend");
	pam_test_write("audit-bad.conf", "audit  # no list\n");
	snprintf(args, sizeof(args), "conf=%s/audit-bad.conf", pam_test_dir);
	expect("session", args, "session", "bob", PAM_SESSION_ERR,
	       "'audit' without a capability list is a bad line and fails");

	expect("auth", good, "auth", "alice", PAM_SUCCESS,
	       "authenticate is ignored (work is in setcred)");
	expect("auth", good, "setcred", "alice", PAM_CRED_ERR,
	       "setcred with a matching line fails without a backend");
	expect("auth", good, "setcred", "bob", PAM_SUCCESS, "setcred without match");
	expect("auth", bad, "setcred", "bob", PAM_CRED_ERR, "setcred, malformed config");
	expect("auth", bad, "delcred", "alice", PAM_SUCCESS, "delete credentials is a no-op");

	/* Default configuration path is used without conf=. */
	service("session", "");
	{
		struct stat st;

		if (stat("/etc/security/capuns.conf", &st) == 0)
			printf("ok %d - default config path # SKIP "
			       "/etc/security/capuns.conf exists on this host\n", ++tap_n);
		else
			TAP_EQ(run("session", "nosuchuser-capuns"), PAM_SESSION_ERR,
				   "default config /etc/security/capuns.conf is read (absent: fails)");
	}

	pam_test_cleanup("svc\0good.conf\0bad.conf\0");
	return tap_done();
}
