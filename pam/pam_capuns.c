/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pam_capuns: lower the user-namespace capability set (pU) of a login
 * according to /etc/security/capuns.conf.  See pam_capuns(8).
 *
 * The module changes the calling thread's pU (and, with strict/lock, its
 * securebits); the login's shell, started after the session is open,
 * inherits them.  It only ever lowers.  Every failure is logged, and fails
 * the call unless onerr=succeed: a policy that cannot be applied is never
 * dropped silently.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "capuns.h"
#include "conf.h"

#define PAM_CAPUNS_API __attribute__((visibility("default")))

struct args {
	bool strict, lock, debug, onerr_succeed;
	const char *conf;
};

/* Module arguments; unknown ones are errors (a typo must not weaken). */
static int parse_args(pam_handle_t *pamh, int argc, const char **argv,
		      struct args *a)
{
	int bad = 0;

	*a = (struct args){ .conf = CAPUNS_CONF_DEFAULT };
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "strict") == 0)
			a->strict = true;
		else if (strcmp(argv[i], "lock") == 0)
			a->strict = a->lock = true;
		else if (strcmp(argv[i], "debug") == 0)
			a->debug = true;
		else if (strncmp(argv[i], "conf=", 5) == 0 && argv[i][5])
			a->conf = argv[i] + 5;
		else if (strcmp(argv[i], "onerr=succeed") == 0)
			a->onerr_succeed = true;
		else if (strcmp(argv[i], "onerr=fail") == 0)
			a->onerr_succeed = false;
		else {
			pam_syslog(pamh, LOG_ERR, "unknown module argument '%s'", argv[i]);
			bad = -EINVAL;
		}
	}
	return bad;
}

/* pU := pU & keep, lowering only. */
static int lower_to(capuns_set_t keep)
{
	capuns_set_t cur;
	int r = capuns_get(0, &cur);

	if (r)
		return r;
	return capuns_lower_set(capuns_set_minus(cur, keep));
}

static void log_result(pam_handle_t *pamh, const struct args *a, const char *user,
		       const struct capuns_conf_match *m)
{
	capuns_set_t now;
	char *t;

	if (!a->debug)
		return;
	if (capuns_get(0, &now) != 0) {
		pam_syslog(pamh, LOG_DEBUG, "user %s: pU unreadable", user);
		return;
	}
	t = capuns_set_format(now, 0);
	if (m->matched)
		pam_syslog(pamh, LOG_DEBUG, "user %s: %s line %d: userns caps now %s%s",
			   user, a->conf, m->line, t ? t : "?", a->strict ? " (strict)" : "");
	else
		pam_syslog(pamh, LOG_DEBUG, "user %s: no line of %s matches%s", user,
			   a->conf, a->strict ? "; strict bit set" : "");
	free(t);
}

/*
 * The work common to every entry point.  Returns PAM_SUCCESS, PAM_IGNORE
 * (nothing to do) or fail_code.
 */
static int capuns_login(pam_handle_t *pamh, int argc, const char **argv,
			int fail_code)
{
	struct capuns_conf_match m = { 0 };
	const char *user = NULL;
	char err[512] = "";
	struct args a;
	int r;

	if (parse_args(pamh, argc, argv, &a) != 0) {
		r = -EINVAL;
		snprintf(err, sizeof(err), "bad module arguments");
		goto fail;
	}
	r = pam_get_user(pamh, &user, NULL);
	if (r != PAM_SUCCESS || !user || !*user) {
		pam_syslog(pamh, LOG_ERR, "cannot determine the user name: %s",
			   pam_strerror(pamh, r));
		return fail_code; /* no user, no login: onerr does not apply */
	}
	r = capuns_conf_load(a.conf, user, &m, err, sizeof(err));
	if (r)
		goto fail;
	if (m.matched) {
		r = lower_to(m.keep);
		if (r) {
			snprintf(err, sizeof(err), "cannot lower the userns caps of %s "
				 "(%s line %d): %s", user, a.conf, m.line, capuns_strerror(r));
			goto fail;
		}
	}
	if (a.strict) {
		r = capuns_strict_set(a.lock);
		if (r) {
			snprintf(err, sizeof(err), "cannot set the strict userns securebit%s: %s",
				 a.lock ? " and its lock" : "", capuns_strerror(r));
			goto fail;
		}
	}
	log_result(pamh, &a, user, &m);
	return m.matched || a.strict ? PAM_SUCCESS : PAM_IGNORE;
fail:
	pam_syslog(pamh, LOG_ERR, "%s%s", err,
		   a.onerr_succeed ? " (onerr=succeed: login allowed)" : "");
	return a.onerr_succeed ? PAM_SUCCESS : fail_code;
}

PAM_CAPUNS_API int pam_sm_open_session(pam_handle_t *pamh, int flags, int argc,
				       const char **argv)
{
	(void)flags;
	return capuns_login(pamh, argc, argv, PAM_SESSION_ERR);
}

PAM_CAPUNS_API int pam_sm_close_session(pam_handle_t *pamh, int flags, int argc,
					const char **argv)
{
	(void)pamh;
	(void)flags;
	(void)argc;
	(void)argv;
	return PAM_SUCCESS; /* a lowered pU cannot and must not come back */
}

/* The auth stack's work is in setcred, after authentication succeeded. */
PAM_CAPUNS_API int pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc,
				       const char **argv)
{
	(void)pamh;
	(void)flags;
	(void)argc;
	(void)argv;
	return PAM_IGNORE;
}

PAM_CAPUNS_API int pam_sm_setcred(pam_handle_t *pamh, int flags, int argc,
				  const char **argv)
{
	if (flags & PAM_DELETE_CRED)
		return PAM_SUCCESS;
	return capuns_login(pamh, argc, argv, PAM_CRED_ERR);
}
