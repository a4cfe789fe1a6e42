/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pam_capuns: lower the user-namespace capability set (pU) of a login
 * according to /etc/security/capuns.conf.  See pam_capuns(8).
 *
 * A session that a rule matches gets pU lowered and then, by default, the
 * securebit SECURE_USERNS_STRICT_CAPS set and locked: it marks the
 * restriction as imposed by privileged code, so that a set-user-ID-root
 * program the user runs (newgrp, sg, su, sudo, pkexec) keeps it instead
 * of adding the bounding set back to pU (rule 10, R10).  A session
 * that no rule matches is not touched at all: neither its sets nor its
 * securebits, and no backend is needed for it.
 *
 * The module changes the calling thread; the login's shell, started after
 * the session is open, inherits it.  It only ever lowers.  Every failure
 * is logged, and fails the call unless onerr=succeed: a policy that
 * cannot be applied is never dropped silently.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/capability.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "c.h"
#include "capuns.h"
#include "conf.h"

#define PAM_CAPUNS_API __attribute__((visibility("default")))

/* What a session that a rule matched gets besides its pU (strict=). */
enum strict_mode {
	STRICT_LOCK, /* the default: set SECURE_USERNS_STRICT_CAPS and lock it */
	STRICT_ON,   /* set it, unlocked */
	STRICT_OFF,  /* leave the securebits alone */
	STRICT_BSET, /* drop the caps from the bounding set instead */
};

static const char *const strict_names[] = {
	[STRICT_LOCK] = "lock", [STRICT_ON] = "on", [STRICT_OFF] = "off",
	[STRICT_BSET] = "bset",
};

/*
 * systemd's user manager (user@.service, PAM service "systemd-user")
 * cannot run with the strict securebit: systemd's executor writes the
 * securebits of every process it starts to the unit's exact value
 * (SecureBits=, 0 by default), which a locked bit refuses (the manager
 * fails to start) and which clears an unlocked one. There the module
 * drops the caps from the bounding set instead: a set-user-ID-root exec
 * then adds back to pU only a bounding set without them.
 */
#define SYSTEMD_USER_SERVICE "systemd-user"

struct args {
	enum strict_mode strict;
	bool strict_given;
	bool debug, onerr_succeed;
	bool audit; /* mode=audit: every rule is only logged */
	const char *conf;
};

static int parse_strict(const char *value, enum strict_mode *mode)
{
	for (size_t i = 0; i < ARRAY_SIZE(strict_names); i++)
		if (strcmp(value, strict_names[i]) == 0) {
			*mode = (enum strict_mode)i;
			return 0;
		}
	return -EINVAL;
}

/* Module arguments; unknown ones are errors (a typo must not weaken). */
static int parse_args(pam_handle_t *pamh, int argc, const char **argv,
		      struct args *a)
{
	int bad = 0;

	*a = (struct args){ .strict = STRICT_LOCK, .conf = CAPUNS_CONF_DEFAULT };
	for (int i = 0; i < argc; i++) {
		int r = 0;

		if (strncmp(argv[i], "strict=", 7) == 0) {
			r = parse_strict(argv[i] + 7, &a->strict);
			a->strict_given = true;
		} else if (strcmp(argv[i], "strict") == 0) { /* older name of strict=on */
			a->strict = STRICT_ON;
			a->strict_given = true;
		} else if (strcmp(argv[i], "lock") == 0) { /* older name of strict=lock */
			a->strict = STRICT_LOCK;
			a->strict_given = true;
		} else if (strcmp(argv[i], "debug") == 0)
			a->debug = true;
		else if (strncmp(argv[i], "conf=", 5) == 0 && argv[i][5])
			a->conf = argv[i] + 5;
		else if (strcmp(argv[i], "onerr=succeed") == 0)
			a->onerr_succeed = true;
		else if (strcmp(argv[i], "onerr=fail") == 0)
			a->onerr_succeed = false;
		else if (strcmp(argv[i], "mode=audit") == 0)
			a->audit = true;
		else if (strcmp(argv[i], "mode=enforce") == 0)
			a->audit = false;
		else
			r = -EINVAL;
		if (r) {
			pam_syslog(pamh, LOG_ERR, "unknown module argument '%s'", argv[i]);
			bad = r;
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

/* Drop from the bounding set every cap that keep lacks. */
static int drop_from_bounding_set(capuns_set_t keep)
{
	int last = capuns_cap_last();

	if (last < 0)
		return last;
	for (int cap = 0; cap <= last; cap++) {
		if (capuns_set_has(keep, cap))
			continue;
		/* libcap: PR_CAPBSET_DROP, which needs CAP_SETPCAP */
		if (cap_drop_bound((cap_value_t)cap) != 0)
			return -errno;
	}
	return 0;
}

/*
 * Mark the restriction as imposed (R10): the strict bit, locked for
 * strict=lock; for strict=bset, the bounding set.
 */
static int mark_imposed(enum strict_mode mode, capuns_set_t keep)
{
	switch (mode) {
	case STRICT_OFF:
		return 0;
	case STRICT_BSET:
		return drop_from_bounding_set(keep);
	default:
		return capuns_strict_set(mode == STRICT_LOCK);
	}
}

/* strict= as given, or the default for the calling PAM service. */
static enum strict_mode strict_mode_for(pam_handle_t *pamh, const struct args *a)
{
	const void *service = NULL;

	if (a->strict_given)
		return a->strict;
	if (pam_get_item(pamh, PAM_SERVICE, &service) == PAM_SUCCESS && service &&
	    strcmp(service, SYSTEMD_USER_SERVICE) == 0)
		return STRICT_BSET;
	return STRICT_LOCK;
}

static void log_result(pam_handle_t *pamh, const struct args *a, const char *user,
		       const struct capuns_conf_match *m)
{
	capuns_set_t now;
	unsigned bits = 0;
	char *t;

	if (!a->debug)
		return;
	if (!m->matched) {
		pam_syslog(pamh, LOG_DEBUG, "user %s: no line of %s matches: session untouched",
			   user, a->conf);
		return;
	}
	if (capuns_get(0, &now) != 0 || capuns_strict_get(&bits) != 0) {
		pam_syslog(pamh, LOG_DEBUG, "user %s: pU or securebits unreadable", user);
		return;
	}
	t = capuns_set_format(now, 0);
	pam_syslog(pamh, LOG_DEBUG, "user %s: %s line %d: userns caps now %s, strict bit %s%s",
		   user, a->conf, m->line, t ? t : "?",
		   bits & CAPUNS_SECBIT_STRICT ? "set" : "clear",
		   bits & CAPUNS_SECBIT_STRICT_LOCKED ? " and locked" : "");
	free(t);
}

/*
 * Audit mode (mode=audit, or an "audit" rule): say what the session would
 * get, at notice priority so that it reaches the journal without debug,
 * and change nothing.  pU is read when a backend can tell it; the rule
 * is logged either way.
 */
static void log_audit(pam_handle_t *pamh, const struct args *a, const char *user,
		      const struct capuns_conf_match *m)
{
	capuns_set_t now;
	char *keep = NULL, *would = NULL;

	keep = capuns_set_format(m->keep, 0);
	if (capuns_get(0, &now) == 0)
		would = capuns_set_format(capuns_set_and(now, m->keep), 0);
	pam_syslog(pamh, LOG_NOTICE, "audit: user %s matches %s line %d (keep %s): the session "
		   "would get userns caps %s (strict=%s); nothing changed",
		   user, a->conf, m->line, keep ? keep : "?",
		   would ? would : "(no backend to read them from)",
		   strict_names[strict_mode_for(pamh, a)]);
	free(keep);
	free(would);
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
	enum strict_mode mode;
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
	if (!m.matched) {
		/* No rule: the session is left exactly as it came (no backend needed). */
		log_result(pamh, &a, user, &m);
		return PAM_IGNORE;
	}
	if (a.audit || m.audit) {
		log_audit(pamh, &a, user, &m);
		return PAM_IGNORE;
	}
	r = lower_to(m.keep);
	if (r) {
		snprintf(err, sizeof(err), "cannot lower the userns caps of %s "
			 "(%s line %d): %s", user, a.conf, m.line, capuns_strerror(r));
		goto fail;
	}
	mode = strict_mode_for(pamh, &a);
	r = mark_imposed(mode, m.keep);
	if (r) {
		snprintf(err, sizeof(err), "cannot %s for %s (%s line %d; without it a "
			 "set-user-ID-root program would undo the rule): %s",
			 mode == STRICT_BSET ? "drop the caps from the bounding set" :
			 mode == STRICT_LOCK ? "set the strict userns securebit and its lock" :
			 "set the strict userns securebit", user, a.conf, m.line,
			 capuns_strerror(r));
		goto fail;
	}
	log_result(pamh, &a, user, &m);
	return PAM_SUCCESS;
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
