// SPDX-License-Identifier: GPL-2.0-only
/*
 * An actor with many uids against the BPF backend's quota: the root of an
 * unprivileged container.  Root (the container manager, as LXD, podman
 * --userns=auto or systemd-nspawn -U do) creates a user namespace mapped
 * 0 200000 65536; its root holds 65,536 host uids and no host privilege.
 * It runs short-lived processes, each under another of its uids with a
 * lowered pU (one credential entry each, gone when the process exits).
 * Afterwards bob, a host user who never had an entry, lowers his pU,
 * forks and unshares: the container's past uids must not have used up
 * anything bob needs (quota keys that outlive their entries, one key per
 * container uid).
 *
 * Runs as root (it plays the manager, the container and bob), prints
 * one line.
 */
#include "attack.h"
#include "id-maps.h"

/* Above the quota map's default size (a quarter of 65,536 entries). */
#define CONTAINER_UIDS 17000
#define CONTAINER_BASE 200000

/* Container process: become uid inside, lower pU, exit 0 or 100 + errno. */
static int run_as(uid_t uid)
{
	pid_t pid = fork();
	int r;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0)
			_exit(99);
		r = capuns_lower(CAP_NET_ADMIN);
		_exit(r < 0 ? 100 + (-r & 0x7f) : 0);
	}
	return wait_status(pid);
}

struct container_report { int ran, first_err, err_uid; };

/* The container's root: its processes, one uid after the other. */
static void container(int go, int report)
{
	struct container_report rep = { 0 };
	char c;

	if (read(go, &c, 1) != 1)
		_exit(2);
	if (setgroups(0, NULL) < 0 || setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0)
		_exit(3);
	for (uid_t uid = 1; uid <= CONTAINER_UIDS; uid++) {
		int r = run_as(uid);

		if (r && !rep.first_err) {
			rep.first_err = r;
			rep.err_uid = uid;
		}
		if (r == 99 || r < 0)
			break;
		rep.ran++;
	}
	if (write(report, &rep, sizeof(rep)) != sizeof(rep))
		_exit(2);
	_exit(0);
}

int main(void)
{
	int ready[2], go[2], report[2], r;
	struct container_report rep;
	char map[64];
	pid_t ct;

	if (geteuid())
		cannot_run("must start as root (plays the container manager)");
	pipe_or_die(ready);
	pipe_or_die(go);
	pipe_or_die(report);
	ct = fork_or_die();
	if (ct == 0) {
		close(ready[0]);
		close(go[1]);
		close(report[0]);
		if (unshare(CLONE_NEWUSER) < 0 || write(ready[1], "u", 1) != 1)
			_exit(4);
		container(go[0], report[1]);
	}
	close(ready[1]);
	close(go[0]);
	close(report[1]);
	if (read(ready[0], map, 1) != 1)
		cannot_run("the container's unshare failed (status %d)", wait_status(ct));
	/* What a manager writes: root and 65,535 more uids, from 200000 up. */
	snprintf(map, sizeof(map), "0 %d 65536\n", CONTAINER_BASE);
	r = proc_pid_write(ct, "uid_map", map);
	if (r || (r = proc_pid_write(ct, "gid_map", map)))
		cannot_run("id maps of the container: %s", strerror(-r));
	if (write(go[1], "g", 1) != 1)
		cannot_run("start the container: %s", strerror(errno));
	if (read(report[0], &rep, sizeof(rep)) != sizeof(rep))
		cannot_run("the container did not report (status %d)", wait_status(ct));
	wait_status(ct);
	if (!rep.ran)
		cannot_run("no container process lowered its pU (status %d)", rep.first_err);
	r = newcomer_works(BOB);
	if (r)
		escape("%d container uids came and went (%s at uid %d); then bob's restricted "
		       "fork/unshare failed: %s", rep.ran,
		       rep.first_err ? strerror(rep.first_err - 100) : "no refusal", rep.err_uid,
		       strerror(r));
	if (rep.first_err)
		escape("the container's own processes were refused after %d uids (uid %d: %s), "
		       "though each held one entry at a time", rep.ran, rep.err_uid,
		       rep.first_err >= 100 ? strerror(rep.first_err - 100) : "setuid failed");
	held("%d container uids, one restricted entry each, came and went; bob unaffected",
	     rep.ran);
}
