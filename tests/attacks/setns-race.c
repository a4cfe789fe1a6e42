// SPDX-License-Identifier: GPL-2.0-only
/*
 * setns(CLONE_NEWUSER) racing the BPF backend's fexit/userns_install
 * program.  Tracing programs keep a per-CPU recursion guard: when a task
 * is preempted inside the program (preempt=full) and another task on that
 * CPU joins a namespace, the program is skipped for the second one, which
 * would keep its old bound.  Restricted joiners (pU without
 * CAP_NET_ADMIN) enter an unrestricted namespace of alice's over and over
 * and try CAP_NET_ADMIN there, for SECONDS seconds.  Run it with
 * preemption set to full.
 *
 *   setns-race [SECONDS] [JOINERS]      (defaults 20 and 6)
 */
#include <time.h>

#include "attack.h"

/* The unrestricted holder: new user+net namespace; sends a socket of it. */
static pid_t holder(int sock)
{
	pid_t pid = fork_or_die();
	int fd;

	if (pid == 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
			cannot_run("unshare: %s", strerror(errno));
		fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || send_fd(sock, fd) < 0)
			cannot_run("holder socket: %s", strerror(errno));
		for (;;)
			pause();
	}
	return pid;
}

/*
 * One join: a child enters the namespace and tries lo up.  0: refused
 * with EPERM, the refusal the rule gives; 1: lo went up (an escape);
 * anything else failed for another reason and shows nothing.
 */
static int join_once(int userns, int netsock)
{
	pid_t pid = fork();
	int r;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (setns(userns, CLONE_NEWUSER) < 0)
			_exit(3);
		r = set_lo_up(netsock);
		_exit(r == 0 ? 1 : r == -EPERM ? 0 : 4);
	}
	return wait_status(pid);
}

int main(int argc, char **argv)
{
	int seconds = argc > 1 ? atoi(argv[1]) : 20, joiners = argc > 2 ? atoi(argv[2]) : 6;
	int sv[2], netsock, userns, results[2];
	long joins = 0, failed = 0, escapes = 0, n[3];
	char path[64];
	pid_t h;

	if (seconds <= 0 || joiners <= 0)
		cannot_run("usage: setns-race [SECONDS] [JOINERS]");
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 || pipe(results) < 0)
		cannot_run("socketpair/pipe: %s", strerror(errno));
	h = holder(sv[1]);
	close(sv[1]); /* a holder that fails and exits ends the wait */
	netsock = recv_fd(sv[0]);
	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)h);
	userns = open(path, O_RDONLY | O_CLOEXEC);
	if (netsock < 0 || userns < 0)
		cannot_run("holder's namespace: %s", strerror(errno));
	lower_or_die(CAP_NET_ADMIN);
	for (int j = 0; j < joiners; j++) {
		if (fork() == 0) {
			time_t end = time(NULL) + seconds;
			long c[3] = { 0, 0, 0 };

			while (time(NULL) < end) {
				int r = join_once(userns, netsock);

				c[0]++;
				c[1] += r == 1;
				c[2] += r != 0 && r != 1;
			}
			if (write(results[1], c, sizeof(c)) != sizeof(c))
				_exit(2);
			_exit(0);
		}
	}
	close(results[1]); /* a joiner that dies ends the wait */
	for (int j = 0; j < joiners; j++) {
		if (read(results[0], n, sizeof(n)) != sizeof(n))
			cannot_run("a joiner did not report");
		joins += n[0];
		escapes += n[1];
		failed += n[2];
	}
	kill(h, SIGKILL);
	while (wait(NULL) > 0)
		;
	if (escapes)
		escape("%ld of %ld restricted joiners held cap_net_admin in the joined namespace "
		       "(rule 3 skipped)", escapes, joins);
	if (failed)
		cannot_run("%ld of %ld joins failed", failed, joins);
	held("%ld restricted setns joins by %d racing joiners: none held cap_net_admin",
	     joins, joiners);
}
