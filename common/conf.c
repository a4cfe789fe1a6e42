/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * capuns.conf: one rule per line,
 *
 *     [audit]  CAPS  WHO...
 *
 * CAPS is a capability list in the grammar of capuns_set_parse() and names
 * the userns capabilities the login keeps; WHO is a user name, @group or *.
 * A rule that starts with the word "audit" is only logged, not applied
 * (no capability is named "audit", so the word cannot be a CAPS).
 * '#' starts a comment.  The first line whose WHO matches wins.  Any error
 * anywhere in the file fails the whole file: a policy file that is only
 * partly understood must not be half applied.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"

static int conf_error(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int conf_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Is user a member of group gid (primary or supplementary)? */
static int user_in_group(const char *user, const struct group *gr, bool *in)
{
	struct passwd pw, *pwp = NULL;
	char buf[4096];
	gid_t *groups;
	int n = 64, r;

	*in = false;
	r = getpwnam_r(user, &pw, buf, sizeof(buf), &pwp);
	if (r)
		return -r;
	if (!pwp)
		return 0; /* unknown user: in no group */
	for (;;) {
		int want = n;

		groups = calloc((size_t)n, sizeof(*groups));
		if (!groups)
			return -ENOMEM;
		if (getgrouplist(user, pw.pw_gid, groups, &want) >= 0) {
			for (int i = 0; i < want; i++)
				if (groups[i] == gr->gr_gid)
					*in = true;
			free(groups);
			return 0;
		}
		free(groups);
		if (want <= n || want > 65536)
			return -EIO;
		n = want;
	}
}

/* Does one WHO token match user?  Unknown groups are errors. */
static int who_matches(const char *who, const char *user, bool *match,
		       int lineno, char *err, size_t errlen)
{
	struct group gr, *grp = NULL;
	char buf[16384];
	int r;

	*match = false;
	if (strcmp(who, "*") == 0) {
		*match = user != NULL;
		return 0;
	}
	if (who[0] != '@') {
		*match = user && strcmp(who, user) == 0;
		return 0;
	}
	if (!who[1])
		return conf_error(err, errlen, "line %d: '@' without a group name", lineno);
	r = getgrnam_r(who + 1, &gr, buf, sizeof(buf), &grp);
	if (r)
		return conf_error(err, errlen, "line %d: cannot look up group '%s': %s",
				  lineno, who + 1, strerror(r));
	/* A misspelt group would silently exempt its members: refuse it. */
	if (!grp)
		return conf_error(err, errlen, "line %d: unknown group '%s'", lineno, who + 1);
	if (!user)
		return 0; /* checking only */
	r = user_in_group(user, grp, match);
	if (r)
		return conf_error(err, errlen, "line %d: cannot list the groups of '%s': %s",
				  lineno, user, strerror(-r));
	return 0;
}

/* One line (NUL-terminated, comment already cut): 1 for a rule, 0 for a
 * blank line, or an error. */
static int parse_line(char *line, int lineno, const char *user,
		      struct capuns_conf_match *m, char *err, size_t errlen)
{
	const char *sep = " \t\r\v\f";
	char *save = NULL, *caps, *who;
	const char *pos = NULL;
	capuns_set_t keep;
	bool any = false, match, hit = false, audit = false;
	int r;

	caps = strtok_r(line, sep, &save);
	if (!caps)
		return 0; /* blank */
	if (strcmp(caps, CAPUNS_CONF_AUDIT) == 0) {
		audit = true;
		caps = strtok_r(NULL, sep, &save);
		if (!caps)
			return conf_error(err, errlen, "line %d: '%s' names no capability list",
					  lineno, CAPUNS_CONF_AUDIT);
	}
	r = capuns_set_parse(caps, &keep, &pos);
	if (r)
		return conf_error(err, errlen, "line %d: '%s': %s", lineno, caps,
				  capuns_strerror(r));
	while ((who = strtok_r(NULL, sep, &save))) {
		any = true;
		r = who_matches(who, user, &match, lineno, err, errlen);
		if (r)
			return r;
		hit |= match;
	}
	if (!any)
		return conf_error(err, errlen,
				  "line %d: '%s' names no user, @group or *", lineno, caps);
	if (hit && !m->matched) {
		m->matched = true;
		m->line = lineno;
		m->keep = keep;
		m->audit = audit;
	}
	return 1; /* a rule */
}

/*
 * Every line of text against user (NULL: check only).  A bad line stops
 * the walk, unless report is set: then it is reported and the walk goes
 * on.  Returns the first error (0 when none); *bad counts the bad lines.
 */
static int conf_lines(const char *text, const char *user, struct capuns_conf_match *res,
		      char *err, size_t errlen, capuns_conf_report_fn report, void *arg,
		      int *bad, int *rules)
{
	char line[CAPUNS_CONF_LINE_MAX + 1];
	const char *p = text, *nl;
	int lineno = 0, r, first = 0;

	*bad = *rules = 0;
	while (*p) {
		size_t n;
		char *hash;

		lineno++;
		nl = strchr(p, '\n');
		n = nl ? (size_t)(nl - p) : strlen(p);
		if (n > CAPUNS_CONF_LINE_MAX) {
			r = conf_error(err, errlen, "line %d: longer than %d bytes",
				       lineno, CAPUNS_CONF_LINE_MAX);
		} else {
			memcpy(line, p, n);
			line[n] = '\0';
			hash = strchr(line, '#');
			if (hash)
				*hash = '\0';
			r = parse_line(line, lineno, user, res, err, errlen);
		}
		if (r > 0) {
			(*rules)++;
			r = 0;
		}
		if (r) {
			(*bad)++;
			first = first ?: r;
			if (!report)
				return r;
			report(arg, err);
		}
		p = nl ? nl + 1 : p + n;
	}
	return first;
}

int capuns_conf_parse(const char *text, const char *user,
		      struct capuns_conf_match *m, char *err, size_t errlen)
{
	struct capuns_conf_match res = { 0 };
	int bad, rules, r;

	if (!text || !user || !*user || !m)
		return conf_error(err, errlen, "no text or no user");
	r = conf_lines(text, user, &res, err, errlen, NULL, NULL, &bad, &rules);
	if (r)
		return r;
	*m = res;
	return 0;
}

/*
 * The text of path, as pam_capuns trusts it: a regular file (not a
 * link), owned by root or the caller, not writable by group or others, at
 * most 1 MiB, without NUL bytes, not growing while read.  *text is
 * malloc()ed.
 */
static int conf_read(const char *path, char **textp, char *err, size_t errlen)
{
	size_t size = 0, len = 0;
	struct stat st;
	char *text = NULL;
	ssize_t n;
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		conf_error(err, errlen, "cannot open %s: %s", path, strerror(-r));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		conf_error(err, errlen, "cannot stat %s: %s", path, strerror(-r));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		r = conf_error(err, errlen, "%s is not a regular file", path);
		goto out;
	}
	/* Whoever can write the policy decides it: only root (or the caller). */
	if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & 022)) {
		conf_error(err, errlen, "%s must be owned by root and not writable "
			   "by group or others", path);
		r = -EPERM;
		goto out;
	}
	if (st.st_size > 1 << 20) {
		r = conf_error(err, errlen, "%s is larger than 1 MiB", path);
		goto out;
	}
	size = (size_t)st.st_size + 1;
	text = malloc(size);
	if (!text) {
		r = -ENOMEM;
		goto out;
	}
	while (len + 1 < size && (n = read(fd, text + len, size - 1 - len)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			conf_error(err, errlen, "cannot read %s: %s", path, strerror(-r));
			goto out;
		}
		len += (size_t)n;
	}
	text[len] = '\0';
	/* A file that grew while read would be cut mid-line: refuse it. */
	{
		char extra;

		if (read(fd, &extra, 1) != 0) {
			r = conf_error(err, errlen, "%s changed while being read", path);
			goto out;
		}
	}
	if (strlen(text) != len) {
		r = conf_error(err, errlen, "%s contains a NUL byte", path);
		goto out;
	}
	*textp = text;
	text = NULL;
	r = 0;
out:
	free(text);
	close(fd);
	return r;
}

int capuns_conf_load(const char *path, const char *user,
		     struct capuns_conf_match *m, char *err, size_t errlen)
{
	char *text = NULL;
	int r = conf_read(path, &text, err, errlen);

	if (r)
		return r;
	r = capuns_conf_parse(text, user, m, err, errlen);
	free(text);
	return r;
}

int capuns_conf_check(const char *path, capuns_conf_report_fn report, void *arg,
		      int *rules)
{
	struct capuns_conf_match res = { 0 };
	char err[512];
	char *text = NULL;
	int bad, r;

	*rules = 0;
	r = conf_read(path, &text, err, sizeof(err));
	if (r) {
		report(arg, err);
		return r == -ENOMEM ? r : 1;
	}
	conf_lines(text, NULL, &res, err, sizeof(err), report, arg, &bad, rules);
	free(text);
	return bad;
}
