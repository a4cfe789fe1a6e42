// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace under the strict bit (rule 12): a strict login whose bounding
 * set lacks CAP_NET_ADMIN (pU left full) attaches to an unrestricted
 * process of the same user, given as argv[1], which it could then drive
 * into a new namespace with CAP_NET_ADMIN.  pU alone is no measure here:
 * the tracer's is full.  Control first: the tracer attaches to a child of
 * its own, whose namespaces would get the same set.
 */
#include <sys/ptrace.h>

#include "attack.h"

static int attach(pid_t pid)
{
	int status;

	if (ptrace(PTRACE_ATTACH, pid, 0, 0) < 0)
		return -errno;
	waitpid(pid, &status, __WALL); /* the attach stop */
	ptrace(PTRACE_DETACH, pid, 0, 0);
	return 0;
}

int main(int argc, char **argv)
{
	int ready[2], r;
	pid_t twin, target;
	char c;

	if (argc != 2 || (target = (pid_t)atoi(argv[1])) <= 0)
		cannot_run("usage: strict-ptrace PID (an unrestricted process of the same user)");
	require_strict_without(CAP_NET_ADMIN);
	pipe_or_die(ready);
	twin = spawn_target(-1, ready[1]);
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1)
		cannot_run("the control target did not start");
	r = attach(twin);
	kill(twin, SIGKILL);
	wait_status(twin);
	if (r < 0)
		cannot_run("control: attach to a child with the same sets: %s", strerror(-r));
	r = attach(target);
	if (r == 0)
		escape("a strict tracer, cap_net_admin outside its bounding set, attached to an "
		       "unrestricted process of the same user (pid %d)", (int)target);
	if (r != -EPERM)
		cannot_run("PTRACE_ATTACH to pid %d: %s", (int)target, strerror(-r));
	held("PTRACE_ATTACH to an unrestricted process: EPERM; to a strict twin: allowed");
}
