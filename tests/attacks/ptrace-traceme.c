// SPDX-License-Identifier: GPL-2.0-only
/*
 * PTRACE_TRACEME (rule 12, R12): an unrestricted child makes its
 * restricted parent its tracer, which then drives it.  The child's pU must
 * be a subset of the parent's.
 */
#include <sys/ptrace.h>

#include "attack.h"

int main(void)
{
	int lowered[2], result[2], r;
	pid_t child;
	char c;

	if (pipe(lowered) < 0 || pipe(result) < 0)
		cannot_run("pipe: %s", strerror(errno));
	child = fork_or_die();
	if (child == 0) {
		if (read(lowered[0], &c, 1) != 1)
			_exit(2);
		r = ptrace(PTRACE_TRACEME, 0, 0, 0) < 0 ? errno : 0;
		if (write(result[1], &r, sizeof(r)) != sizeof(r))
			_exit(2);
		_exit(0);
	}
	close(lowered[0]);
	close(result[1]); /* the child dying ends the read */
	/* The child keeps the full pU it was forked with. */
	lower_or_die(CAP_NET_ADMIN);
	if (write(lowered[1], "l", 1) != 1 || read(result[0], &r, sizeof(r)) != sizeof(r))
		cannot_run("child did not answer");
	wait_status(child);
	if (r == 0)
		escape("an unrestricted child made its parent, without cap_net_admin in pU, "
		       "its tracer (PTRACE_TRACEME)");
	if (r != EPERM)
		cannot_run("PTRACE_TRACEME: %s", strerror(r));
	held("PTRACE_TRACEME under a restricted parent: EPERM");
}
