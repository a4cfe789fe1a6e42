/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared pieces of the attack programs in tests/attacks/.
 *
 * An attack program tries one way around the userns capability set as an
 * unprivileged user and prints exactly one line:
 *   held: WHAT             the capability was held back      (exit 0)
 *   ESCAPE: WHAT           the exact escape that worked      (exit 1)
 *   CANNOT RUN: WHY        the attack could not be set up    (exit 2)
 * A program that cannot run proves nothing, so the driver counts it as a
 * failure too.  The programs reach pU through libcapuns, so each runs
 * unchanged on the patched kernel and on the BPF backend.
 */
#ifndef CAPUNS_ATTACK_H
#define CAPUNS_ATTACK_H

#include <errno.h>
#include <grp.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capuns.h"
#include "fd-pass.h"

#define CAP_NET_BIND_SERVICE 10
#define CAP_NET_ADMIN 12
#define CAP_SYS_ADMIN 21
#define CAP_SYS_RESOURCE 24

enum { ATTACK_HELD = 0, ATTACK_ESCAPE = 1, ATTACK_CANNOT_RUN = 2 };

static void attack_report(int verdict, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void attack_report(int verdict, const char *fmt, ...)
{
	static const char *const label[] = { "held", "ESCAPE", "CANNOT RUN" };
	va_list ap;

	printf("%s: ", label[verdict]);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	exit(verdict);
}

#define held(...) attack_report(ATTACK_HELD, __VA_ARGS__)
#define escape(...) attack_report(ATTACK_ESCAPE, __VA_ARGS__)
#define cannot_run(...) attack_report(ATTACK_CANNOT_RUN, __VA_ARGS__)

/* The set-up calls of every attack: a failure there proves nothing. */
static inline pid_t fork_or_die(void)
{
	pid_t pid = fork();

	if (pid < 0)
		cannot_run("fork: %s", strerror(errno));
	return pid;
}

static inline void pipe_or_die(int fds[2])
{
	if (pipe(fds) < 0)
		cannot_run("pipe: %s", strerror(errno));
}

/* Drop cap from the calling thread's pU (any user may). */
static inline void lower_or_die(int cap)
{
	int r = capuns_lower(cap);

	if (r < 0)
		cannot_run("lower cap %d from pU: %s", cap, capuns_strerror(r));
	if (capuns_is_set(cap) != 0)
		cannot_run("cap %d still in pU after lowering", cap);
}

/* Wait for a child and return its exit status (128 + signal if killed). */
static inline int wait_status(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Bring lo up through the socket fd (SIOCSIFFLAGS: CAP_NET_ADMIN over its netns). */
static inline int set_lo_up(int fd)
{
	struct ifreq ifr = { 0 };

	strcpy(ifr.ifr_name, "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		return -errno;
	ifr.ifr_flags |= IFF_UP;
	return ioctl(fd, SIOCSIFFLAGS, &ifr) < 0 ? -errno : 0;
}

/*
 * Does the calling task get CAP_NET_ADMIN in a user namespace it creates?
 * A child unshares a user and a network namespace and brings lo up.
 * 1: it could, 0: EPERM, -errno: something else went wrong.
 */
static inline int net_admin_in_new_ns(void)
{
	pid_t pid = fork();
	int r, fd;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
			_exit(10 + (errno & 0x7f));
		fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			_exit(10 + (errno & 0x7f));
		r = set_lo_up(fd);
		_exit(r == 0 ? 1 : r == -EPERM ? 0 : 10 + (-r & 0x7f));
	}
	r = wait_status(pid);
	return r == 0 || r == 1 ? r : r >= 10 && r < 138 ? -(r - 10) : -ECHILD;
}

/*
 * The owner path (rule 11): the calling task, whose new namespaces would
 * lack cap, forks a child that creates a user and a network namespace (so
 * the caller owns both) and a socket in it.  The child tries op itself
 * (denied: the namespace lacks cap), then passes the socket back over
 * SCM_RIGHTS, and the caller, the namespace's owner acting from the
 * parent, tries op on it.  Returns op's result in the caller (0 or
 * -errno); reports CANNOT RUN when the set-up fails and ESCAPE when the
 * child itself succeeds.
 */
static inline int owner_op_on_socket_passed_up(int cap, int domain, int type, int proto,
					       int (*op)(int fd), const char *what)
{
	int sv[2], fd, r;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		cannot_run("socketpair: %s", strerror(errno));
	pid = fork_or_die();
	if (pid == 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
			cannot_run("unshare(CLONE_NEWUSER|CLONE_NEWNET): %s", strerror(errno));
		fd = socket(domain, type | SOCK_CLOEXEC, proto);
		if (fd < 0)
			cannot_run("socket in the new netns: %s", strerror(errno));
		r = op(fd);
		if (r == 0)
			escape("%s inside the new namespace itself, without cap %d in pU", what, cap);
		if (r != -EPERM && r != -EACCES)
			cannot_run("%s inside the new namespace: %s (not a capability denial)",
				   what, strerror(-r));
		if (send_fd(sv[1], fd) < 0)
			cannot_run("sendmsg(SCM_RIGHTS): %s", strerror(errno));
		_exit(0);
	}
	close(sv[1]); /* a child that reports and exits ends the wait below */
	fd = recv_fd(sv[0]);
	r = wait_status(pid);
	if (r == ATTACK_ESCAPE || r == ATTACK_CANNOT_RUN)
		exit(r); /* the child reported */
	if (r != 0 || fd < 0)
		cannot_run("the namespace child failed (status %d)", r);
	return op(fd);
}

/* The owner path after the caller dropped cap from its own pU. */
static inline int owner_op_on_passed_socket(int cap, int domain, int type, int proto,
					    int (*op)(int fd), const char *what)
{
	lower_or_die(cap);
	return owner_op_on_socket_passed_up(cap, domain, type, proto, op, what);
}

/*
 * The strict login of a PAM session, as root imposes it (attacks.sh):
 * SECURE_USERNS_STRICT_CAPS set, cap dropped from the bounding set, pU
 * left full.  New namespaces then lack cap (rule 3a) although pU holds
 * it.  Reports CANNOT RUN unless the caller is in exactly that state.
 */
static inline void require_strict_without(int cap)
{
	unsigned bits = 0;
	int r = capuns_strict_get(&bits);

	if (r < 0)
		cannot_run("read the strict bit: %s", capuns_strerror(r));
	if (!(bits & CAPUNS_SECBIT_STRICT))
		cannot_run("the strict bit is not set (bits %#x)", bits);
	if (capuns_is_set(cap) != 1)
		cannot_run("cap %d is not in pU: the attack needs a full pU", cap);
	if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) != 0)
		cannot_run("cap %d is still in the bounding set", cap);
}

/*
 * A child that lowers cap from its pU (cap < 0: stays unrestricted),
 * writes one byte to ready and waits to be killed.  Tracers in these
 * programs are always ancestors of their targets, so that Yama's
 * relational scope (on the patched kernel's config) never decides.
 */
static inline pid_t spawn_target(int cap, int ready)
{
	pid_t pid = fork_or_die();

	if (pid == 0) {
		if (cap >= 0)
			lower_or_die(cap);
		if (write(ready, "r", 1) != 1)
			_exit(2);
		for (;;)
			pause();
	}
	return pid;
}

/*
 * The ptrace pattern of rule 12: the caller tries access() on a
 * restricted target while unrestricted (control: must succeed), then
 * lowers CAP_NET_ADMIN itself and tries access() on an unrestricted
 * target.  Returns that result (0 or -errno).
 */
static inline int restricted_tracer(int (*access)(pid_t target), const char *what)
{
	int ready[2], r;
	pid_t free_task, restricted_task;
	char c;

	pipe_or_die(ready);
	free_task = spawn_target(-1, ready[1]);
	restricted_task = spawn_target(CAP_NET_ADMIN, ready[1]);
	close(ready[1]); /* a target dying ends the reads */
	if (read(ready[0], &c, 1) != 1 || read(ready[0], &c, 1) != 1)
		cannot_run("targets did not start");
	r = access(restricted_task);
	kill(restricted_task, SIGKILL);
	wait_status(restricted_task);
	if (r < 0) {
		kill(free_task, SIGKILL);
		cannot_run("control: an unrestricted task could not %s a restricted one: %s",
			   what, strerror(-r));
	}
	lower_or_die(CAP_NET_ADMIN);
	r = access(free_task);
	kill(free_task, SIGKILL);
	wait_status(free_task);
	return r;
}

/*
 * For the programs that play several users (the BPF backend's shared
 * state): become uid (group = uid) for good, in a child of root.
 */
static inline void become(uid_t uid)
{
	if (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0)
		cannot_run("become uid %d: %s", (int)uid, strerror(errno));
}

#define ALICE 1000
#define BOB 1001

/*
 * A user whom the attack never touched lowers his pU, forks and unshares,
 * as a restricted login does: the BPF backend's shared state (its maps,
 * their quotas) must still have room for him.  0, or the errno of the
 * first refusal.
 */
static inline int newcomer_works(uid_t uid)
{
	pid_t pid = fork_or_die();
	int r;

	if (pid == 0) {
		become(uid);
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
		cannot_run("uid %d's test failed (status %d)", (int)uid, r);
	return r ? r - 100 : 0;
}

#endif /* CAPUNS_ATTACK_H */
