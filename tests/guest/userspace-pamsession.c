/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * capuns-pam-session SERVICE USER -- COMMAND [ARG...]
 *
 * A minimal login for the guest tests: open a PAM session for USER with
 * SERVICE (account check, setcred, open_session), then run COMMAND as
 * USER in that session (like login(1) runs the shell) and close the
 * session.  Exits with COMMAND's status, or 1 when PAM refuses (then
 * COMMAND does not run), 2 on a usage error.
 */
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <security/pam_appl.h>

static int conv(int n, const struct pam_message **msg, struct pam_response **resp,
		void *data)
{
	(void)data;
	for (int i = 0; i < n; i++)
		if (msg[i]->msg_style == PAM_ERROR_MSG || msg[i]->msg_style == PAM_TEXT_INFO)
			fprintf(stderr, "pam: %s\n", msg[i]->msg);
	*resp = NULL;
	return n ? PAM_CONV_ERR : PAM_SUCCESS;
}

int main(int argc, char **argv)
{
	struct pam_conv c = { conv, NULL };
	pam_handle_t *pamh = NULL;
	struct passwd *pw;
	int r, status;
	pid_t pid;

	if (argc < 5 || strcmp(argv[3], "--") != 0) {
		fprintf(stderr, "usage: %s SERVICE USER -- COMMAND [ARG...]\n", argv[0]);
		return 2;
	}
	pw = getpwnam(argv[2]);
	if (!pw) {
		fprintf(stderr, "%s: no user %s\n", argv[0], argv[2]);
		return 2;
	}
	r = pam_start(argv[1], argv[2], &c, &pamh);
	if (r == PAM_SUCCESS)
		r = pam_acct_mgmt(pamh, 0);
	if (r == PAM_SUCCESS)
		r = pam_setcred(pamh, PAM_ESTABLISH_CRED);
	if (r == PAM_SUCCESS)
		r = pam_open_session(pamh, 0);
	if (r != PAM_SUCCESS) {
		fprintf(stderr, "%s: PAM: %s\n", argv[0], pam_strerror(pamh, r));
		pam_end(pamh, r);
		return 1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		if (initgroups(pw->pw_name, pw->pw_gid) || setgid(pw->pw_gid) ||
		    setuid(pw->pw_uid)) {
			perror("drop privileges");
			_exit(1);
		}
		execv(argv[4], argv + 4);
		perror(argv[4]);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		;
	r = pam_close_session(pamh, 0);
	pam_setcred(pamh, PAM_DELETE_CRED);
	pam_end(pamh, r);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
