/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Parser of /etc/security/capuns.conf (syntax in pam_capuns(8)).
 */
#ifndef CAPUNS_COMMON_CONF_H
#define CAPUNS_COMMON_CONF_H

#include <stdbool.h>
#include <stddef.h>

#include "capuns.h"

/* The build sets it from SYSCONFDIR. */
#ifndef CAPUNS_CONF_DEFAULT
#define CAPUNS_CONF_DEFAULT "/etc/security/capuns.conf"
#endif
#define CAPUNS_CONF_LINE_MAX 4096
/* The first word of a rule that is logged, not applied. */
#define CAPUNS_CONF_AUDIT "audit"

struct capuns_conf_match {
	bool matched;
	int line;          /* number of the matching line */
	capuns_set_t keep; /* pU of the login is intersected with this */
	bool audit;        /* the line starts with "audit": log, change nothing */
};

/*
 * Parse the whole text (every line is checked, not only up to the match)
 * and find the first line whose users match user.  Returns 0, or -EINVAL
 * (syntax, unknown capability or unknown @group) with a message naming the
 * line in err.  -ENOMEM.
 */
int capuns_conf_parse(const char *text, const char *user,
		      struct capuns_conf_match *m, char *err, size_t errlen);

/*
 * Read path (a regular file owned by root, or by the caller, and not
 * writable by group or others: else -EPERM) and parse it as above.
 */
int capuns_conf_load(const char *path, const char *user,
		     struct capuns_conf_match *m, char *err, size_t errlen);

/* Called with one message per problem ("line N: ..."). */
typedef void (*capuns_conf_report_fn)(void *arg, const char *message);

/*
 * capuns check-conf: read path as capuns_conf_load() does and check every
 * line (groups must exist; no user is matched).  Calls report for the
 * file's own problem (unreadable, owner, mode...) or for each bad line,
 * and goes on after a bad line.  Returns the number of problems, 0 when
 * the file is good, or -ENOMEM; *rules is the number of rule lines.
 */
int capuns_conf_check(const char *path, capuns_conf_report_fn report, void *arg,
		      int *rules);

#endif
