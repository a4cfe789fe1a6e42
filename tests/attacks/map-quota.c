// SPDX-License-Identifier: GPL-2.0-only
/*
 * Filling the BPF backend's credential map (one entry per restricted
 * struct cred).  Four users, alice first, one after the other, each pin as
 * many restricted credentials as they can: each capset() makes a new
 * cred, each io_uring personality keeps one alive.  While they hold them,
 * bob (restricted too) forks and unshares.  No user, and no few users
 * together, may refuse every other user's credentials: the quota stops
 * each of them at a quarter of the map, and the reserve stops the fourth
 * before the last quarter is gone; each is told so: the kernel reports a
 * refused credential copy as ENOMEM (prepare_creds() keeps no error
 * code), the backend's event carries EDQUOT.
 *
 * Runs as root (it plays all five users), prints one line.
 */
#include <linux/io_uring.h>
#include <sys/capability.h>
#include <sys/syscall.h>

#include "attack.h"

#define MAX_PINS (70 * 1024) /* above the default map size */
#define PER_RING 65536 /* io_uring personality ids are 16 bit */

struct fill { long pinned; int err; };

/* The users who pin: four quotas are the whole map. */
static const uid_t fillers[] = { ALICE, 1002, 1003, 1004 };
#define NFILLERS (sizeof(fillers) / sizeof(fillers[0]))

/* Pin credentials as uid until something refuses; report, then hold them. */
static void fill(uid_t uid, int report)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];
	struct fill f = { 0 };
	int ring = -1;

	become(uid);
	lower_or_die(CAP_NET_ADMIN);
	if (syscall(SYS_capget, &hdr, data) < 0)
		cannot_run("capget: %s", strerror(errno));
	while (f.pinned < MAX_PINS) {
		if (f.pinned % PER_RING == 0) {
			struct io_uring_params p = { 0 };

			ring = syscall(__NR_io_uring_setup, 1, &p);
			if (ring < 0) {
				f.err = -errno;
				break;
			}
		}
		/* A new credential (the capuns state is copied to it)... */
		if (syscall(SYS_capset, &hdr, data) < 0) {
			f.err = errno;
			break;
		}
		/* ...kept alive by the ring. */
		if (syscall(__NR_io_uring_register, ring, IORING_REGISTER_PERSONALITY, NULL, 0) < 0) {
			f.err = -errno;
			break;
		}
		f.pinned++;
	}
	if (write(report, &f, sizeof(f)) != sizeof(f))
		_exit(2);
	for (;;)
		pause();
}

/*
 * Which fillers did the backend report refused with EDQUOT?  One read of
 * the backlog for all of them: reading consumes it.
 */
static void quota_events(bool seen[NFILLERS])
{
	FILE *mon = popen("capuns-bpf monitor --backlog --json --timeout=2", "r");
	char line[512], want[64];

	if (!mon)
		cannot_run("capuns-bpf monitor: %s", strerror(errno));
	while (fgets(line, sizeof(line), mon)) {
		if (!strstr(line, "\"reason\":\"cred-refused\"") || !strstr(line, "\"errno\":122}"))
			continue;
		for (size_t i = 0; i < NFILLERS; i++) {
			snprintf(want, sizeof(want), "\"uid\":%d,", (int)fillers[i]);
			if (strstr(line, want))
				seen[i] = true;
		}
	}
	if (pclose(mon) != 0)
		cannot_run("capuns-bpf monitor failed");
}

int main(void)
{
	struct fill f[NFILLERS];
	bool refused[NFILLERS] = { false };
	pid_t pid[NFILLERS];
	long total = 0;
	size_t i, n;
	int bob;

	if (geteuid())
		cannot_run("must start as root (plays every user)");
	for (n = 0; n < NFILLERS; n++) {
		int pipefd[2];

		pipe_or_die(pipefd);
		pid[n] = fork_or_die();
		if (pid[n] == 0)
			fill(fillers[n], pipefd[1]);
		close(pipefd[1]); /* a filler dying ends the read */
		if (read(pipefd[0], &f[n], sizeof(f[n])) != sizeof(f[n])) {
			int st = wait_status(pid[n]);

			for (i = 0; i < n; i++)
				kill(pid[i], SIGKILL);
			cannot_run("uid %d did not report (status %d)", (int)fillers[n], st);
		}
		close(pipefd[0]);
		total += f[n].pinned;
	}
	bob = newcomer_works(BOB);
	for (i = 0; i < n; i++) {
		kill(pid[i], SIGKILL);
		wait_status(pid[i]);
	}
	for (i = 0; i < n; i++)
		if (f[i].err < 0)
			cannot_run("uid %d's pinning failed outside the backend after %ld: %s",
				   (int)fillers[i], f[i].pinned, strerror(-f[i].err));
	if (bob)
		escape("%zu users pinned %ld restricted credentials; bob's restricted "
		       "fork/unshare failed: %s", n, total, strerror(bob));
	quota_events(refused);
	for (i = 0; i < n; i++) {
		if (!f[i].err)
			escape("uid %d pinned %ld restricted credentials without a refusal",
			       (int)fillers[i], f[i].pinned);
		if (!refused[i])
			escape("uid %d was refused after %ld credentials (%s), but not by a quota "
			       "or the reserve (no EDQUOT event)", (int)fillers[i], f[i].pinned,
			       strerror(f[i].err));
	}
	held("%zu users stopped by their quotas and the reserve after %ld, %ld, %ld and %ld "
	     "credentials (events: EDQUOT); bob unaffected",
	     n, f[0].pinned, f[1].pinned, f[2].pinned, f[3].pinned);
}
