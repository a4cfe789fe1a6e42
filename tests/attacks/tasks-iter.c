// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF backend's task iterator (/sys/fs/bpf/capuns/tasks) shows
 * "tid pU bound strict" per thread.  It must show a thread only to readers
 * who may read that thread's /proc status under hidepid=invisible: itself,
 * its own user (when the process is dumpable), or a reader with
 * CAP_SYS_PTRACE over it.  alice reads it while bob runs a restricted
 * process; she must see her own row and neither bob's nor init's.
 *
 * Across user namespaces the kernel asks CAP_SYS_PTRACE over the task's
 * namespace even of the same user (cap_ptrace_access_check()), which is
 * what hidepid=invisible relies on: alice's sandbox, a user namespace in
 * the host's pid namespace, must not see the row of her process outside,
 * while she, from outside, still sees her sandbox's (she owns its
 * namespace).  Both processes exec after becoming alice, so that they are
 * dumpable as a login's are.
 *
 * Runs as root (it plays alice and bob), prints one line.
 */
#include "attack.h"

#define TASKS "/sys/fs/bpf/capuns/tasks"

/* Does the iterator, read now, list tid? */
static bool listed(pid_t tid)
{
	FILE *f = fopen(TASKS, "re");
	long t;
	char rest[256];
	bool found = false;

	if (!f)
		cannot_run(TASKS ": %s", strerror(errno));
	while (fscanf(f, "%ld %255[^\n]", &t, rest) == 2)
		if (t == tid)
			found = true;
	fclose(f);
	return found;
}

/* Does the kernel let the caller read /proc/PID/environ (ptrace read access)? */
static bool kernel_lets_read(const char *pid)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/environ", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* Exec'd as alice: "idle FD" writes on FD and waits; "sandbox OUT FD" enters
 * a user namespace, writes on FD what it sees of its own row and of OUT's,
 * then waits. */
static int as_alice(int argc, char **argv)
{
	char r = '0';

	if (argc == 3 && !strcmp(argv[1], "idle")) {
		if (write(atoi(argv[2]), &r, 1) != 1)
			return 2;
		for (;;)
			pause();
	}
	if (argc != 4 || strcmp(argv[1], "sandbox"))
		return 2;
	if (unshare(CLONE_NEWUSER) < 0)
		r = 'u';
	else if (kernel_lets_read(argv[2]))
		r = 'k';
	else
		r = !listed(getpid()) ? 's' : listed(atoi(argv[2])) ? 'o' : '0';
	if (write(atoi(argv[3]), &r, 1) != 1)
		return 2;
	for (;;)
		pause();
}

/* Fork a child that becomes alice and execs this program with argv. */
static pid_t spawn_alice(char **argv)
{
	pid_t pid = fork_or_die();

	if (pid == 0) {
		become(ALICE);
		execv("/proc/self/exe", argv);
		_exit(2);
	}
	return pid;
}

int main(int argc, char **argv)
{
	int ready[2], seen[2];
	pid_t bob, alice, out, sandbox;
	char c, fdarg[16], outarg[16];
	int r;

	if (argc > 1)
		return as_alice(argc, argv);
	if (geteuid())
		cannot_run("must start as root (plays alice and bob)");
	pipe_or_die(ready);
	bob = fork_or_die();
	if (bob == 0) {
		become(BOB);
		lower_or_die(CAP_NET_ADMIN);
		if (write(ready[1], "b", 1) != 1)
			_exit(2);
		for (;;)
			pause();
	}
	close(ready[1]); /* bob dying ends the read */
	if (read(ready[0], &c, 1) != 1)
		cannot_run("bob did not start");
	if (!listed(bob) || !listed(1))
		cannot_run("root does not see bob's and init's rows: nothing to hide");
	alice = fork_or_die();
	if (alice == 0) {
		become(ALICE);
		lower_or_die(CAP_NET_ADMIN);
		r = !listed(getpid()) ? 3 : listed(bob) ? 1 : listed(1) ? 4 : 0;
		_exit(r);
	}
	r = wait_status(alice);
	kill(bob, SIGKILL);
	wait_status(bob);
	switch (r) {
	case 0: break;
	case 1: escape("alice read bob's row (pU, bound) in " TASKS);
	case 4: escape("alice read init's row in " TASKS);
	case 3: cannot_run("alice does not see her own row in " TASKS);
	default: cannot_run("alice's reader failed (status %d)", r);
	}

	/* alice outside, and her sandbox: a user namespace, the same pid namespace. */
	pipe_or_die(ready);
	snprintf(fdarg, sizeof(fdarg), "%d", ready[1]);
	out = spawn_alice((char *[]){ argv[0], "idle", fdarg, NULL });
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1)
		cannot_run("alice's process outside did not start");
	pipe_or_die(seen);
	snprintf(outarg, sizeof(outarg), "%d", (int)out);
	snprintf(fdarg, sizeof(fdarg), "%d", seen[1]);
	sandbox = spawn_alice((char *[]){ argv[0], "sandbox", outarg, fdarg, NULL });
	close(seen[1]);
	if (read(seen[0], &c, 1) != 1)
		c = 'x';
	alice = fork_or_die();
	if (alice == 0) {
		become(ALICE);
		_exit(!listed(out) ? 5 : !listed(sandbox) ? 6 : 0);
	}
	r = wait_status(alice);
	kill(out, SIGKILL);
	kill(sandbox, SIGKILL);
	wait_status(out);
	wait_status(sandbox);
	switch (c) {
	case 'o': escape("alice's sandbox (a user namespace sharing the pid namespace) read the "
			 "row of her process outside in " TASKS);
	case 's': cannot_run("alice's sandbox does not see its own row in " TASKS);
	case 'k': cannot_run("the kernel lets alice's sandbox read her process outside "
			     "(/proc/PID/environ): nothing to hide");
	case 'u': cannot_run("alice cannot create a user namespace");
	case '0': break;
	default: cannot_run("alice's sandbox failed");
	}
	if (r == 5)
		cannot_run("alice does not see her own process outside: nothing to hide");
	if (r == 6)
		cannot_run("alice does not see her sandbox's row: more hidden than the kernel hides");
	if (r)
		cannot_run("alice's reader failed (status %d)", r);
	held("alice sees her own row, not bob's nor init's; her sandbox does not see her "
	     "process outside, which sees the sandbox");
}
