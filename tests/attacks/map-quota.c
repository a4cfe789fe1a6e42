// SPDX-License-Identifier: GPL-2.0-only
/*
 * Filling the BPF backend's credential map (one entry per restricted
 * struct cred).  alice, restricted, pins as many credentials as she can:
 * each capset() makes a new cred, each io_uring personality keeps one
 * alive.  While she holds them, bob (restricted too) forks and unshares.
 * One user must not be able to refuse every other user's credentials: a
 * per-uid quota stops alice first, and says so: the kernel reports a
 * refused credential copy as ENOMEM (prepare_creds() keeps no error
 * code), the backend's event carries EDQUOT.
 *
 * Runs as root (it plays alice and bob), prints one line.
 */
#include <linux/io_uring.h>
#include <sys/capability.h>
#include <sys/syscall.h>

#include "attack.h"

#define MAX_PINS (70 * 1024) /* above the default map size */
#define PER_RING 65536 /* io_uring personality ids are 16 bit */

struct fill { long pinned; int err; };

/* alice: pin credentials until something refuses; report, then hold them. */
static void fill(int report)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];
	struct fill f = { 0 };
	int ring = -1;

	become(ALICE);
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
 * bob: lowers his pU, forks and unshares while alice holds hers.  0, or
 * the errno of the first refusal.
 */
static int bob_works(void)
{
	pid_t pid = fork_or_die();
	int r;

	if (pid == 0) {
		become(BOB);
		r = capuns_lower(CAP_NET_ADMIN);
		if (r < 0)
			_exit(100 + (-r & 0x7f));
		pid = fork();
		if (pid < 0)
			_exit(100 + errno);
		if (pid == 0)
			_exit(unshare(CLONE_NEWUSER) < 0 ? 100 + errno : 0);
		_exit(wait_status(pid));
	}
	r = wait_status(pid);
	if (r && (r < 100 || r > 227))
		cannot_run("bob's test failed (status %d)", r);
	return r ? r - 100 : 0;
}

/* Did the backend report a refusal of uid's with EDQUOT? */
static bool quota_event(uid_t uid)
{
	FILE *mon = popen("capuns-bpf monitor --backlog --json --timeout=2", "r");
	char line[512], want[64];
	bool seen = false;

	if (!mon)
		cannot_run("capuns-bpf monitor: %s", strerror(errno));
	snprintf(want, sizeof(want), "\"uid\":%d,", (int)uid);
	while (fgets(line, sizeof(line), mon))
		if (strstr(line, want) && strstr(line, "\"reason\":\"cred-refused\"") &&
		    strstr(line, "\"errno\":122}"))
			seen = true;
	if (pclose(mon) != 0)
		cannot_run("capuns-bpf monitor failed");
	return seen;
}

int main(void)
{
	int pipefd[2], bob;
	struct fill f;
	pid_t alice;

	if (geteuid())
		cannot_run("must start as root (plays alice and bob)");
	pipe_or_die(pipefd);
	alice = fork_or_die();
	if (alice == 0)
		fill(pipefd[1]);
	close(pipefd[1]); /* alice dying ends the read */
	if (read(pipefd[0], &f, sizeof(f)) != sizeof(f))
		cannot_run("alice did not report (status %d)", wait_status(alice));
	bob = bob_works();
	kill(alice, SIGKILL);
	wait_status(alice);
	if (f.err < 0)
		cannot_run("alice's pinning failed outside the backend after %ld: %s",
			   f.pinned, strerror(-f.err));
	if (bob)
		escape("alice pinned %ld restricted credentials (then %s); bob's restricted "
		       "fork/unshare failed: %s", f.pinned, f.err ? strerror(f.err) : "no refusal",
		       strerror(bob));
	if (!f.err)
		escape("alice pinned %ld restricted credentials without a refusal", f.pinned);
	if (!quota_event(ALICE))
		escape("alice was refused after %ld credentials (%s), but not by a quota "
		       "(no EDQUOT event)", f.pinned, strerror(f.err));
	held("alice stopped by the per-uid quota after %ld credentials (%s; event: EDQUOT); "
	     "bob unaffected", f.pinned, strerror(f.err));
}
