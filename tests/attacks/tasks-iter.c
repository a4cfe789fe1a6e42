// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF backend's task iterator (/sys/fs/bpf/capuns/tasks) shows
 * "tid pU bound strict" per thread.  It must show a thread only to readers
 * who may read that thread's /proc status under hidepid=invisible: itself,
 * its own user (when the process is dumpable), or a reader with
 * CAP_SYS_PTRACE over it.  alice reads it while bob runs a restricted
 * process; she must see her own row and neither bob's nor init's.
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

int main(void)
{
	int ready[2];
	pid_t bob, alice;
	char c;
	int r;

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
	case 0: held("alice sees her own row in " TASKS ", not bob's, not init's");
	case 1: escape("alice read bob's row (pU, bound) in " TASKS);
	case 4: escape("alice read init's row in " TASKS);
	case 3: cannot_run("alice does not see her own row in " TASKS);
	}
	cannot_run("alice's reader failed (status %d)", r);
}
