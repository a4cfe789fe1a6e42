// SPDX-License-Identifier: GPL-2.0-only
/*
 * setuid-root helpers (rule 10, R10): newgrp, sg, su and sudo -u self
 * run a command as the same user after a privilege-gaining exec.
 *
 *   setuid-helper HELPER strict      pU was lowered by privileged code with
 *                                    the strict bit set (a PAM session):
 *                                    the helper must not bring it back
 *   setuid-helper HELPER voluntary   the user lowers pU itself: the
 *                                    setuid-root exec adds X back (the
 *                                    "sendmail" protection), by design
 *
 * The command the helper runs is this program with --probe, which exits
 * PROBE_USABLE when CAP_NET_ADMIN is usable in a new user namespace,
 * PROBE_ABSENT when it is not (PROBE_FAILED: probe failed).  Exit statuses
 * pass through all four helpers.  They are none of the statuses the
 * helpers and the shells they start give of their own (0, 1, 2, 126,
 * 127, and above 128 for a signal): a helper that refuses, or cannot
 * find or run the probe, can then never pass for the probe's verdict.
 */
#include "attack.h"

#define SELF "/capuns/attacks/setuid-helper"
#define PROBE_USABLE 40
#define PROBE_ABSENT 41
#define PROBE_FAILED 42

static int probe(void)
{
	int r = net_admin_in_new_ns();

	if (r < 0) {
		fprintf(stderr, "setuid-helper: probe: %s\n", strerror(-r));
		return PROBE_FAILED;
	}
	return r ? PROBE_USABLE : PROBE_ABSENT;
}

/* Run the helper; returns the probe's status as the helper passed it on. */
static int run_helper(const char *helper)
{
	int in[2];
	pid_t pid;

	pipe_or_die(in);
	pid = fork_or_die();
	if (pid == 0) {
		dup2(in[0], 0);
		close(in[0]);
		close(in[1]);
		if (!strcmp(helper, "sg"))
			execl("/usr/bin/sg", "sg", "developers", "-c", SELF " --probe", (char *)NULL);
		else if (!strcmp(helper, "newgrp")) /* a shell reading stdin */
			execl("/usr/bin/newgrp", "newgrp", "developers", (char *)NULL);
		else if (!strcmp(helper, "su"))
			execl("/bin/su", "su", "alice", "-c", SELF " --probe", (char *)NULL);
		else if (!strcmp(helper, "sudo"))
			execl("/usr/bin/sudo", "sudo", "-n", "-u", "alice", SELF, "--probe", (char *)NULL);
		fprintf(stderr, "setuid-helper: exec %s: %s\n", helper, strerror(errno));
		_exit(127);
	}
	close(in[0]);
	if (!strcmp(helper, "newgrp") &&
	    write(in[1], "exec " SELF " --probe\n", strlen("exec " SELF " --probe\n")) < 0)
		cannot_run("write to newgrp's shell: %s", strerror(errno));
	close(in[1]);
	return wait_status(pid);
}

int main(int argc, char **argv)
{
	const char *helper, *mode;
	int r;

	if (argc == 2 && !strcmp(argv[1], "--probe"))
		return probe();
	if (argc != 3 || (strcmp(argv[2], "strict") && strcmp(argv[2], "voluntary")))
		cannot_run("usage: setuid-helper newgrp|sg|su|sudo strict|voluntary");
	helper = argv[1];
	mode = argv[2];
	if (!geteuid())
		cannot_run("must run as an unprivileged user");
	if (!strcmp(mode, "voluntary"))
		lower_or_die(CAP_NET_ADMIN);
	else if (capuns_is_set(CAP_NET_ADMIN) != 0)
		cannot_run("strict mode: the session did not lower cap_net_admin");
	r = net_admin_in_new_ns();
	if (r != 0)
		cannot_run("before the helper, cap_net_admin in a new namespace: %s",
			   r > 0 ? "usable (pU not lowered)" : strerror(-r));
	r = run_helper(helper);
	if (r != PROBE_USABLE && r != PROBE_ABSENT)
		cannot_run("%s did not run the probe to its end (status %d)", helper, r);
	if (!strcmp(mode, "strict")) {
		if (r == PROBE_USABLE)
			escape("%s (setuid root) gave back cap_net_admin that a strict session dropped", helper);
		held("%s: cap_net_admin stays out of pU in a strict session", helper);
	}
	if (r == PROBE_ABSENT)
		escape("%s kept a voluntary lowering through a setuid-root exec "
		       "(a privileged program would run restricted: sendmail rule broken)", helper);
	held("%s: a voluntary lowering is reset by the setuid-root exec (sendmail rule)", helper);
}
