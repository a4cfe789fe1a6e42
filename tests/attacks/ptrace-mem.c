// SPDX-License-Identifier: GPL-2.0-only
/*
 * /proc/PID/mem (rule 12, R12): opening another process's memory for
 * writing is a PTRACE_MODE_ATTACH check.  A task whose pU lacks
 * CAP_NET_ADMIN opens the memory of an unrestricted process of the same
 * user, which it could then patch to create a namespace.  Control: an
 * unrestricted task opens a restricted one's memory.
 */
#include "attack.h"

static int open_mem(pid_t pid)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int main(void)
{
	int r = restricted_tracer(open_mem, "open /proc/PID/mem of");

	if (r == 0)
		escape("a task without cap_net_admin in pU opened /proc/PID/mem of an "
		       "unrestricted process of the same user for writing");
	if (r != -EPERM && r != -EACCES)
		cannot_run("open /proc/PID/mem: %s", strerror(-r));
	held("/proc/PID/mem of an unrestricted process: %s; the reverse is allowed", strerror(-r));
}
