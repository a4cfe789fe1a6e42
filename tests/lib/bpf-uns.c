// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bpf-uns: libcapuns operations from the shell, for the guest tests that
 * give the same answers on the patched kernel and on the BPF backend.
 *
 *   bpf-uns OP [ARG] [OP [ARG]...] [-- COMMAND...]
 *
 * OPs run left to right on the calling thread, then COMMAND is executed.
 * Queries print one line each; changes print nothing.  The first error
 * prints its name (EPERM, EINVAL, ENOMEM, ENOBACKEND...) and exits 1.
 *
 *   backend              backend name
 *   get [PID]            pU (hex); PID: that task's
 *   is-set CAP           0 or 1
 *   raise CAP | lower CAP | clear
 *   strict-get           strict flags (hex: CAPUNS_SECBIT_STRICT, _LOCKED)
 *   strict-set | strict-lock
 *   mask-get | mask-drop CAP
 *   eff                  effective set as enforced (hex, capuns_task_caps):
 *                        CapEff, cut down to the set recorded at namespace
 *                        entry on the BPF backend (a stock kernel's CapEff
 *                        does not show it)
 *   sethostname NAME     sethostname(2)
 *   mount-tmpfs DIR      mount("tmpfs", DIR, "tmpfs")
 *   clone NS,...         clone(2) a child with CLONE_NEW<NS> (user, net,
 *                        uts, mnt) that executes COMMAND as root of its new
 *                        user namespace; exits with its status
 *   unshare NS,...       unshare(2) CLONE_NEW<NS>, root mapped to our ids by
 *                        a helper child in the parent namespace, then
 *                        executes COMMAND
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capuns-abi.h"
#include "capuns.h"
#include "id-maps.h"

static int die_err(const char *op, int err)
{
	const char *name = NULL;

	switch (err) {
	case CAPUNS_ENOBACKEND: name = "ENOBACKEND"; break;
	case CAPUNS_EBADCAP: name = "EBADCAP"; break;
	case CAPUNS_ESYNTAX: name = "ESYNTAX"; break;
	case CAPUNS_EPROTO: name = "EPROTO"; break;
	default: name = err < 0 ? strerrorname_np(-err) : NULL;
	}
	printf("%s\n", name ? name : "EUNKNOWN");
	fprintf(stderr, "bpf-uns: %s: %s\n", op, capuns_strerror(err));
	exit(1);
}

static int need_cap(const char *op, const char *arg)
{
	int cap;

	if (!arg) {
		fprintf(stderr, "bpf-uns: %s needs a capability\n", op);
		exit(2);
	}
	cap = capuns_cap_from_name(arg);
	if (cap < 0)
		die_err(op, cap);
	return cap;
}

/* The effective set as the backend enforces it (libcapuns). */
static unsigned long long effective_enforced(void)
{
	struct capuns_task_caps c;
	int r = capuns_task_caps(0, &c);

	if (r < 0)
		die_err("eff", r);
	return c.effective.bits;
}

static int clone_flags(const char *list)
{
	char *copy = strdup(list), *save = NULL, *tok;
	int flags = 0;

	if (!copy)
		die_err("clone", -ENOMEM);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "user"))
			flags |= CLONE_NEWUSER;
		else if (!strcmp(tok, "net"))
			flags |= CLONE_NEWNET;
		else if (!strcmp(tok, "uts"))
			flags |= CLONE_NEWUTS;
		else if (!strcmp(tok, "mnt"))
			flags |= CLONE_NEWNS;
		else {
			fprintf(stderr, "bpf-uns: unknown namespace '%s'\n", tok);
			exit(2);
		}
	}
	free(copy);
	return flags;
}

static char **child_argv;
static int sync_pipe[2];

static int child_main(void *arg)
{
	char c;

	(void)arg;
	/* Wait for the id maps: without them execve drops every capability. */
	close(sync_pipe[1]);
	if (read(sync_pipe[0], &c, 1) != 1)
		return 126;
	execv(child_argv[0], child_argv);
	fprintf(stderr, "bpf-uns: exec %s: %s\n", child_argv[0], strerror(errno));
	return 127;
}

/*
 * clone(2) itself, not unshare: the userns_create hook sees the child's
 * cred while current is the parent.  Maps root in the child to our ids,
 * as unshare -r does.
 */
static int run_clone(int flags, char **argv)
{
	static char stack[256 * 1024] __attribute__((aligned(16)));
	int status, r;
	pid_t pid;

	child_argv = argv;
	if (pipe(sync_pipe) < 0)
		die_err("clone", -errno);
	pid = clone(child_main, stack + sizeof(stack), flags | SIGCHLD, NULL);
	if (pid < 0)
		die_err("clone", -errno);
	close(sync_pipe[0]);
	if (flags & CLONE_NEWUSER) {
		r = write_id_maps(pid, geteuid(), getegid());
		if (r)
			die_err("id maps", r);
	}
	if (write(sync_pipe[1], "x", 1) != 1)
		die_err("clone", -errno);
	close(sync_pipe[1]);
	if (waitpid(pid, &status, 0) < 0)
		die_err("clone", -errno);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * unshare(2), with the id maps written by a child that stays in the parent
 * namespace (as newuidmap would): a process whose pU lacks cap_sys_admin
 * cannot write its own maps once inside (map_write() wants CAP_SYS_ADMIN
 * over the namespace), on the patched kernel as with the backend.
 */
static void run_unshare(int flags, char **argv)
{
	int go[2], status, r;
	pid_t parent = getpid(), mapper;
	char c;

	if (pipe(go) < 0)
		die_err("unshare", -errno);
	mapper = fork();
	if (mapper < 0)
		die_err("unshare", -errno);
	if (mapper == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1); /* unshare failed: nothing to map */
		r = write_id_maps(parent, geteuid(), getegid());
		if (r)
			die_err("id maps", r);
		_exit(0);
	}
	close(go[0]);
	if (unshare(flags) < 0)
		die_err("unshare", -errno);
	if (flags & CLONE_NEWUSER && write(go[1], "x", 1) != 1)
		die_err("unshare", -errno);
	close(go[1]);
	if (waitpid(mapper, &status, 0) < 0)
		die_err("unshare", -errno);
	if (flags & CLONE_NEWUSER && (!WIFEXITED(status) || WEXITSTATUS(status)))
		exit(1);
	execv(argv[0], argv);
	fprintf(stderr, "bpf-uns: exec %s: %s\n", argv[0], strerror(errno));
	exit(127);
}

int main(int argc, char **argv)
{
	int i, r, clone_ns = 0, unshare_ns = 0;
	capuns_set_t set;
	unsigned bits;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		const char *op = argv[i], *arg = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(op, "backend")) {
			printf("%s\n", capuns_backend_name());
		} else if (!strcmp(op, "get")) {
			pid_t pid = 0;

			if (arg && arg[0] >= '0' && arg[0] <= '9') {
				pid = atoi(arg);
				i++;
			}
			if ((r = capuns_get(pid, &set)) < 0)
				die_err(op, r);
			printf("0x%llx\n", (unsigned long long)set.bits);
		} else if (!strcmp(op, "is-set")) {
			if ((r = capuns_is_set(need_cap(op, arg))) < 0)
				die_err(op, r);
			printf("%d\n", r);
			i++;
		} else if (!strcmp(op, "raise") || !strcmp(op, "lower")) {
			int cap = need_cap(op, arg);

			r = op[0] == 'r' ? capuns_raise(cap) : capuns_lower(cap);
			if (r < 0)
				die_err(op, r);
			i++;
		} else if (!strcmp(op, "clear")) {
			if ((r = capuns_clear()) < 0)
				die_err(op, r);
		} else if (!strcmp(op, "strict-get")) {
			if ((r = capuns_strict_get(&bits)) < 0)
				die_err(op, r);
			printf("0x%x\n", bits);
		} else if (!strcmp(op, "strict-set") || !strcmp(op, "strict-lock")) {
			if ((r = capuns_strict_set(!strcmp(op, "strict-lock"))) < 0)
				die_err(op, r);
		} else if (!strcmp(op, "mask-get")) {
			if ((r = capuns_mask_get(&set)) < 0)
				die_err(op, r);
			printf("0x%llx\n", (unsigned long long)set.bits);
		} else if (!strcmp(op, "mask-drop")) {
			if ((r = capuns_mask_drop(capuns_set_add(capuns_set_empty(),
								 need_cap(op, arg)))) < 0)
				die_err(op, r);
			i++;
		} else if (!strcmp(op, "eff")) {
			printf("0x%llx\n", effective_enforced());
		} else if (!strcmp(op, "sethostname") && arg) {
			if (sethostname(arg, strlen(arg)) < 0)
				die_err(op, -errno);
			i++;
		} else if (!strcmp(op, "mount-tmpfs") && arg) {
			if (mount("tmpfs", arg, "tmpfs", 0, NULL) < 0)
				die_err(op, -errno);
			i++;
		} else if (!strcmp(op, "clone") && arg) {
			clone_ns = clone_flags(arg);
			i++;
		} else if (!strcmp(op, "unshare") && arg) {
			unshare_ns = clone_flags(arg);
			i++;
		} else {
			fprintf(stderr, "bpf-uns: unknown or incomplete operation '%s'\n", op);
			return 2;
		}
	}
	fflush(stdout);
	if (i >= argc - 1) {
		if (clone_ns || unshare_ns) {
			fprintf(stderr, "bpf-uns: clone and unshare need -- COMMAND\n");
			return 2;
		}
		return 0;
	}
	if (clone_ns)
		return run_clone(clone_ns, argv + i + 1);
	if (unshare_ns)
		run_unshare(unshare_ns, argv + i + 1);
	execv(argv[i + 1], argv + i + 1);
	fprintf(stderr, "bpf-uns: exec %s: %s\n", argv[i + 1], strerror(errno));
	return 127;
}
