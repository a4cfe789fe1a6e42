// SPDX-License-Identifier: GPL-2.0-only
/*
 * The setgroups waiver of rule 11 from a sibling namespace: the owner of a
 * user namespace may write "deny" to its /proc/PID/setgroups without
 * CAP_SYS_ADMIN over it, from the namespace or its parent, where it could
 * also write the self-mapping.  From a sibling namespace, where it holds no
 * capability over the target at all, the open must fail as on a kernel
 * without the waiver: otherwise any namespace of the same user can take
 * setgroups() away from another one before that one is mapped.
 */
#include "attack.h"

/* A child in a new user namespace (no mapping) that waits to be killed. */
static pid_t spawn_unmapped(int ready)
{
	pid_t pid = fork_or_die();

	if (pid == 0) {
		if (unshare(CLONE_NEWUSER) < 0 || write(ready, "r", 1) != 1)
			_exit(2);
		for (;;)
			pause();
	}
	return pid;
}

static int open_proc(pid_t pid, const char *file, int flags)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	fd = open(path, flags | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Exit status of a child that opens pid's setgroups from a new sibling namespace. */
enum { SIB_OPENED = 0, SIB_REFUSED = 1, SIB_READ_FAILED = 3, SIB_COMM_FAILED = 4, SIB_SETUP = 5 };

static int from_sibling(pid_t target)
{
	pid_t pid = fork_or_die();
	int r;

	if (pid == 0) {
		if (unshare(CLONE_NEWUSER) < 0)
			_exit(SIB_SETUP);
		/* Controls: the file and the task's other files open for us. */
		if (open_proc(target, "setgroups", O_RDONLY) < 0)
			_exit(SIB_READ_FAILED);
		if (open_proc(target, "comm", O_WRONLY) < 0)
			_exit(SIB_COMM_FAILED);
		r = open_proc(target, "setgroups", O_WRONLY);
		_exit(r == 0 ? SIB_OPENED : r == -EACCES || r == -EPERM ? SIB_REFUSED : SIB_SETUP);
	}
	return wait_status(pid);
}

int main(void)
{
	int ready[2], r;
	pid_t target;
	char c;

	pipe_or_die(ready);
	target = spawn_unmapped(ready[1]);
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1)
		cannot_run("the target namespace was not created");
	r = from_sibling(target);
	/* Control: the owner, in the parent namespace, may open it. */
	if (r == SIB_REFUSED && open_proc(target, "setgroups", O_WRONLY) < 0)
		r = -1;
	kill(target, SIGKILL);
	wait_status(target);
	switch (r) {
	case SIB_OPENED:
		escape("a sibling namespace of the same user opened another namespace's "
		       "setgroups for writing");
	case SIB_REFUSED:
		held("setgroups of a sibling's namespace: refused; from the owner's namespace: "
		     "allowed");
	case -1:
		cannot_run("control: the owner could not open its child's setgroups for writing");
	case SIB_READ_FAILED:
		cannot_run("control: the sibling could not read the target's setgroups");
	case SIB_COMM_FAILED:
		cannot_run("control: the sibling could not open the target's comm for writing");
	default:
		cannot_run("the sibling namespace failed (status %d)", r);
	}
}
