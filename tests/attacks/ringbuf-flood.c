// SPDX-License-Identifier: GPL-2.0-only
/*
 * Blinding the BPF backend's monitor: alice makes denials as fast as she
 * can (lo up in a user namespace without cap_net_admin) while no one reads
 * the event ring buffer, then bob makes one.  His event must
 * still be there for `capuns-bpf monitor --backlog`: a per-uid rate limit
 * keeps one user from filling the ring.
 *
 * Runs as root (it plays alice and bob), prints one line.
 */
#include "attack.h"

#define FLOOD 20000

/* uid makes n denials of CAP_NET_ADMIN (lo up in a new user+net namespace). */
static void deny(uid_t uid, int n)
{
	pid_t pid = fork_or_die();
	int r, fd;

	if (pid == 0) {
		become(uid);
		lower_or_die(CAP_NET_ADMIN);
		if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
			cannot_run("unshare: %s", strerror(errno));
		fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			cannot_run("socket: %s", strerror(errno));
		for (int i = 0; i < n; i++)
			if (set_lo_up(fd) == 0)
				escape("lo up without cap_net_admin in pU");
		_exit(0);
	}
	r = wait_status(pid);
	if (r)
		exit(r); /* the child reported */
}

int main(void)
{
	char line[512], want[32];
	long alice_events = 0;
	bool bob_seen = false;
	FILE *mon;

	if (geteuid())
		cannot_run("must start as root (plays alice and bob)");
	deny(ALICE, FLOOD);
	deny(BOB, 1);
	mon = popen("capuns-bpf monitor --backlog --json --timeout=2", "r");
	if (!mon)
		cannot_run("capuns-bpf monitor: %s", strerror(errno));
	snprintf(want, sizeof(want), "\"uid\":%d,", BOB);
	while (fgets(line, sizeof(line), mon)) {
		if (strstr(line, want))
			bob_seen = true;
		snprintf(want, sizeof(want), "\"uid\":%d,", ALICE);
		alice_events += !!strstr(line, want);
		snprintf(want, sizeof(want), "\"uid\":%d,", BOB);
	}
	if (pclose(mon) != 0)
		cannot_run("capuns-bpf monitor failed");
	if (!bob_seen)
		escape("alice's %d denials filled the event ring buffer (%ld of hers in it): "
		       "bob's denial was never reported", FLOOD, alice_events);
	held("bob's denial reported after alice's %d (%ld of hers kept, the rest rate-limited)",
	     FLOOD, alice_events);
}
