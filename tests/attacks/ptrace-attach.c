// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace (rule 12, R12): a task whose pU lacks CAP_NET_ADMIN attaches
 * to an unrestricted process of the same user, which it could then drive
 * into a new namespace with every capability.  Control first: the
 * unrestricted task may attach to a restricted one.
 */
#include <sys/ptrace.h>

#include "attack.h"

static int attach(pid_t pid)
{
	int status;

	if (ptrace(PTRACE_ATTACH, pid, 0, 0) < 0)
		return -errno;
	waitpid(pid, &status, 0); /* the attach stop */
	ptrace(PTRACE_DETACH, pid, 0, 0);
	return 0;
}

int main(void)
{
	int r = restricted_tracer(attach, "PTRACE_ATTACH to");

	if (r == 0)
		escape("a tracer without cap_net_admin in pU attached (PTRACE_ATTACH) to an "
		       "unrestricted process of the same user");
	if (r != -EPERM)
		cannot_run("PTRACE_ATTACH: %s", strerror(-r));
	held("PTRACE_ATTACH to an unrestricted process: EPERM; the reverse is allowed");
}
