/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the host tests of pam_capuns share: a private PAM configuration
 * directory (pam_start_confdir) holding the stacks and capuns.conf, and a
 * conversation function that answers nothing (the module never asks).
 * pam_test_dir is a mkdtemp() template until the test calls mkdtemp().
 */
#ifndef CAPUNS_PAM_TEST_H
#define CAPUNS_PAM_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <security/pam_appl.h>

static char pam_test_dir[] = "/tmp/capuns-pam-test.XXXXXX";

static int pam_test_conv(int n, const struct pam_message **msg, struct pam_response **resp,
			 void *data)
{
	(void)n;
	(void)msg;
	(void)resp;
	(void)data;
	return PAM_CONV_ERR;
}

/* Write pam_test_dir/name, world-readable as PAM and the module want it. */
static void pam_test_write(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", pam_test_dir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) == EOF || fclose(f) != 0) {
		printf("Bail out! cannot write %s\n", path);
		exit(1);
	}
	chmod(path, 0644);
}

/*
 * One PAM call through the stack pam_test_dir/service for user: "session"
 * (open), "setcred" (establish), "delcred" (delete) or "auth"; returns
 * its PAM code, or -1000 - the code of a failed pam_start.
 */
static int pam_test_call(const char *service, const char *what, const char *user)
{
	struct pam_conv c = { pam_test_conv, NULL };
	pam_handle_t *pamh = NULL;
	int r;

	r = pam_start_confdir(service, user, &c, pam_test_dir, &pamh);
	if (r != PAM_SUCCESS)
		return -1000 - r;
	if (strcmp(what, "session") == 0)
		r = pam_open_session(pamh, 0);
	else if (strcmp(what, "setcred") == 0)
		r = pam_setcred(pamh, PAM_ESTABLISH_CRED);
	else if (strcmp(what, "delcred") == 0)
		r = pam_setcred(pamh, PAM_DELETE_CRED);
	else
		r = pam_authenticate(pamh, 0);
	pam_end(pamh, r);
	return r;
}

/* Remove the files named in names ("a\0b\0", ending "\0\0") and the directory. */
static void pam_test_cleanup(const char *names)
{
	char path[256];

	for (const char *f = names; *f; f += strlen(f) + 1) {
		snprintf(path, sizeof(path), "%s/%s", pam_test_dir, f);
		unlink(path);
	}
	rmdir(pam_test_dir);
}

#endif
