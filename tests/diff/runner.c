// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * capuns differential runner (guest side).
 *
 * The controller (root, initial namespace) generates seeded operation
 * sequences, has an executor process run each one for real (every step a
 * real system call; exec steps re-exec this binary, which goes on with the
 * sequence), reads one observation record per step from a pipe and compares
 * it with the reference model.  A mismatch is shrunk to a minimal
 * subsequence and printed with the command line that replays it.
 *
 *   diff-runner --flavour patched|unpatched|bpf [--count N] [--seed S]
 *               [--mask] [--expect-mismatch] [--replay [--keep i,j,...]]
 *               [--time-limit SEC]
 *
 * On the BPF backend (stock kernel, flavour bpf) prctl(PR_CAP_USERNS) answers
 * are decoded as libcapuns does, and pU, the entry bound and the strict
 * bits are observed through the backend's prctl operations.
 *
 * Output is TAP.  Built with -DCAPMODEL_MUTATION=N it runs a deliberately
 * wrong model: with --expect-mismatch, finding the bug is the pass.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "capmodel.h"
#include "capuns-abi.h"
#include "capuns-bpf-abi.h"
#include "fd-pass.h"
#include "id-maps.h"
#include "uns-prctl.h"
#include "seq.h"

#ifndef CAPMODEL_MUTATION
#define CAPMODEL_MUTATION 0
#endif

#define REPORT_FD 90
#define HELD_FD0 100
#define WORKDIR "/tmp/capuns-diff"
#define PLAIN_EXE WORKDIR "/plain"
#define SUID_EXE WORKDIR "/suid-root"
#define STEP_TIMEOUT_MS 20000

/* One observation, written by the executor after every step. */
struct rec {
	int32_t step;
	int32_t nvalid; /* caps PR_CAPBSET_READ accepts */
	int64_t ret;
	uint64_t pE, pP, pI, pA, X, pU;
	uint32_t securebits;
	uint32_t uid, euid, suid;
	int32_t has_capuns; /* /proc/self/status has a CapUNs line */
	uint64_t bound;	    /* BPF backend: set recorded at namespace entry */
	uint32_t uns_strict; /* BPF backend: strict bits */
};

/* ---- executor --------------------------------------------------------- */

static int nheld;
static int tap_no = 1; /* TAP number of this run's result line */
static bool bpf_backend; /* flavour bpf: prctl(48) answers are encoded */

static long neg_errno(long r)
{
	return r < 0 ? -errno : r;
}


static uint64_t status_field(const char *buf, const char *name, int *found)
{
	const char *p = strstr(buf, name);

	if (!p) {
		if (found)
			*found = 0;
		return 0;
	}
	if (found)
		*found = 1;
	return strtoull(p + strlen(name), NULL, 16);
}

static void observe(struct rec *r)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2];
	char buf[4096];
	ssize_t n;
	int fd;

	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d) == 0) {
		r->pE = d[0].effective | (uint64_t)d[1].effective << 32;
		r->pP = d[0].permitted | (uint64_t)d[1].permitted << 32;
		r->pI = d[0].inheritable | (uint64_t)d[1].inheritable << 32;
	}
	r->X = 0;
	r->nvalid = 0;
	/* Every valid cap, and a few past CAP_LAST_CAP that must be EINVAL. */
	for (int c = 0; c < 48; c++) {
		int v = prctl(PR_CAPBSET_READ, c, 0, 0, 0);

		if (v >= 0)
			r->nvalid++;
		if (v == 1)
			r->X |= 1ULL << c;
	}
	fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	r->pA = status_field(buf, "\nCapAmb:", NULL);
	r->pU = status_field(buf, "\n" CAPUNS_STATUS_FIELD, &r->has_capuns);
	/* capget and status must agree on pI; a disagreement shows as a mismatch. */
	if (status_field(buf, "\nCapInh:", NULL) != r->pI)
		r->pI = ~0ULL;
	r->securebits = (uint32_t)prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
	syscall(SYS_getresuid, &r->uid, &r->euid, &r->suid);
	if (bpf_backend) {
		long strict = uns_prctl_answer(true, CAPUNS_BPF_OP_STRICT_GET, 0, 0, 0);

		r->pU = uns_prctl_set(true, PR_CAP_USERNS_IS_SET, CM_CAP_LAST_STOCK);
		r->bound = uns_prctl_set(true, CAPUNS_BPF_OP_BOUND_IS_SET, CM_CAP_LAST_STOCK);
		r->uns_strict = strict < 0 ? ~0U : (uint32_t)strict;
	}
}

static void report(int step, long ret)
{
	struct rec r;

	memset(&r, 0, sizeof(r));
	r.step = step;
	r.ret = ret;
	observe(&r);
	if (write(REPORT_FD, &r, sizeof(r)) != (ssize_t)sizeof(r))
		_exit(120);
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	if (n < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	close(fd);
	return 0;
}

/* Map 0 to this process's ids in the namespace of pid (a child of ours). */
static int write_maps(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/setgroups", (int)pid);
	write_file(path, "deny"); /* the model's writer always denies first */
	return write_id_maps(pid, geteuid(), getegid());
}

static int read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

/*
 * Helpers share our memory (CLONE_VM) because fork() is the dearest step
 * under TCG; their credentials are still their own.  We stay blocked on a
 * pipe while a helper runs, so the two never use libc at the same time.
 */
static char helper_stack[256 * 1024] __attribute__((aligned(16)));

static pid_t spawn_helper(int (*fn)(void *), void *arg)
{
	return clone(fn, helper_stack + sizeof(helper_stack), CLONE_VM | SIGCHLD, arg);
}

struct unshare_helper {
	int go, ack;
	pid_t target;
};

static int unshare_helper_main(void *p)
{
	struct unshare_helper *h = p;
	int res = 0;
	char cmd;

	if (read(h->go, &cmd, 1) == 1 && cmd == 'm')
		res = write_maps(h->target);
	if (write(h->ack, &res, sizeof(res)) != sizeof(res))
		_exit(1);
	_exit(0);
}

/* unshare(CLONE_NEWUSER); a helper forked before it (still in the parent
 * namespace, with the old credentials) writes our maps. */
static long do_unshare(bool maps)
{
	int go[2], ack[2];
	pid_t h;
	long ret;
	int res = 0;
	char cmd;

	if (!maps)
		return neg_errno(unshare(CLONE_NEWUSER));
	if (pipe2(go, O_CLOEXEC) || pipe2(ack, O_CLOEXEC))
		_exit(121);
	struct unshare_helper hs = { .go = go[0], .ack = ack[1], .target = getpid() };

	h = spawn_helper(unshare_helper_main, &hs);
	if (h < 0)
		_exit(121);
	close(go[0]);
	close(ack[1]);
	ret = neg_errno(unshare(CLONE_NEWUSER));
	if (ret == 0)
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0); /* the helper opens our /proc files */
	cmd = ret == 0 ? 'm' : 'x';
	if (write(go[1], &cmd, 1) != 1 || read_full(ack[0], &res, sizeof(res)))
		_exit(122);
	close(go[1]);
	close(ack[0]);
	waitpid(h, NULL, 0);
	return ret ? ret : res;
}

static int hold_child_main(void *p)
{
	int sock = *(int *)p;
	int r = unshare(CLONE_NEWUSER) ? -errno : 0, fd;
	char go;

	/* We open our /proc files to the parent (the mm, hence this flag, is shared). */
	if (r == 0)
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	if (write(sock, &r, sizeof(r)) != sizeof(r))
		_exit(1);
	if (r)
		_exit(0);
	if (read(sock, &go, 1) != 1)
		_exit(1);
	fd = open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC);
	_exit(fd >= 0 && send_fd(sock, fd) == 0 ? 0 : 1);
}

/* A child unshares; we (parent namespace) write its maps; it sends its ns fd. */
static long do_hold_child(void)
{
	int sv[2], res, fd;
	pid_t c;
	long ret;

	if (nheld >= SEQ_MAX_HELD)
		return -EMFILE;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		_exit(123);
	c = spawn_helper(hold_child_main, &sv[1]);
	if (c < 0)
		_exit(123);
	close(sv[1]); /* the helper has its own descriptor table */
	if (read_full(sv[0], &res, sizeof(res)))
		_exit(124);
	ret = res;
	if (res == 0) {
		ret = write_maps(c);
		if (write(sv[0], "g", 1) != 1)
			_exit(124);
		fd = recv_fd(sv[0]);
		if (fd < 0 || dup2(fd, HELD_FD0 + nheld) < 0)
			_exit(124);
		close(fd);
		nheld++;
	}
	close(sv[0]);
	waitpid(c, NULL, 0);
	return ret;
}

static long do_mask(uint64_t value)
{
	char text[32];

	snprintf(text, sizeof(text), "%" PRIu64 "\n", value);
	return write_file(CAPUNS_MASK_SYSCTL, text);
}

static const char *fcaps_path(const struct seq_op *op, char *buf, size_t len)
{
	snprintf(buf, len, WORKDIR "/fcaps-%" PRIx64 "-%" PRIx64 "-%d", op->a[0], op->a[1],
		 op->a[2] != 0);
	return buf;
}

static long do_exec(const struct seq *q, int step, const char *enc)
{
	const struct seq_op *op = &q->op[step];
	char path[128], sstep[16], sheld[16];
	char *argv[] = { path, "--exec-continue", (char *)enc, sstep, sheld,
			 bpf_backend ? "bpf" : "kernel", NULL };
	char *envp[] = { NULL };

	if (op->kind == OP_EXEC_SUID)
		snprintf(path, sizeof(path), "%s", SUID_EXE);
	else if (op->kind == OP_EXEC_FCAPS)
		fcaps_path(op, path, sizeof(path));
	else
		snprintf(path, sizeof(path), "%s", PLAIN_EXE);
	snprintf(sstep, sizeof(sstep), "%d", step);
	snprintf(sheld, sizeof(sheld), "%d", nheld);
	execve(path, argv, envp);
	return -errno;
}

static void set_caps(const struct seq_op *op, long *ret)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2] = {
		{ (uint32_t)op->a[0], (uint32_t)op->a[1], (uint32_t)op->a[2] },
		{ (uint32_t)(op->a[0] >> 32), (uint32_t)(op->a[1] >> 32), (uint32_t)(op->a[2] >> 32) },
	};

	*ret = neg_errno(syscall(SYS_capset, &h, d));
}

/* Run steps [start, n) of q in this process; never returns. */
static void execute(const struct seq *q, int start, const char *enc)
{
	for (int i = start; i < q->n; i++) {
		const struct seq_op *op = &q->op[i];
		long ret = 0;
		pid_t pid;
		int status;

		switch (op->kind) {
		case OP_FORK:
			pid = fork();
			if (pid < 0)
				_exit(125);
			if (pid > 0) {
				close(REPORT_FD);
				waitpid(pid, &status, 0);
				_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 126);
			}
			break;
		case OP_EXEC_PLAIN:
		case OP_EXEC_SUID:
		case OP_EXEC_FCAPS:
			ret = do_exec(q, i, enc); /* returns only on failure */
			break;
		case OP_CAPSET:
			set_caps(op, &ret);
			break;
		case OP_PRCTL:
			if (op->a[0] == PR_CAP_USERNS)
				ret = uns_prctl_answer(bpf_backend, op->a[1], op->a[2], op->a[3],
						       op->a[4]);
			else
				ret = neg_errno(prctl((int)op->a[0], op->a[1], op->a[2], op->a[3],
						      op->a[4]));
			break;
		case OP_UNSHARE:
		case OP_UNSHARE_BARE:
			ret = do_unshare(op->kind == OP_UNSHARE);
			break;
		case OP_HOLD_CHILD:
			ret = do_hold_child();
			break;
		case OP_HOLD_SELF:
			if (nheld >= SEQ_MAX_HELD) {
				ret = -EMFILE;
				break;
			}
			ret = neg_errno(open("/proc/self/ns/user", O_RDONLY));
			if (ret >= 0) {
				if (dup2((int)ret, HELD_FD0 + nheld) < 0)
					_exit(127);
				close((int)ret);
				nheld++;
				ret = 0;
			}
			break;
		case OP_SETNS:
			ret = op->a[0] >= (uint64_t)nheld
				      ? -EBADF
				      : neg_errno(setns(HELD_FD0 + (int)op->a[0], CLONE_NEWUSER));
			break;
		case OP_SETRESUID:
			ret = neg_errno(syscall(SYS_setresuid, (uid_t)op->a[0], (uid_t)op->a[1],
						(uid_t)op->a[2]));
			break;
		case OP_SETUID:
			ret = neg_errno(syscall(SYS_setuid, (uid_t)op->a[0]));
			break;
		case OP_SETGID:
			ret = neg_errno(syscall(SYS_setresgid, (gid_t)op->a[0], (gid_t)op->a[0],
						(gid_t)op->a[0]));
			break;
		case OP_MASK:
			ret = do_mask(op->a[0]);
			break;
		default:
			ret = -ENOSYS;
		}
		report(i, ret);
	}
	_exit(0);
}

/* ---- controller ------------------------------------------------------- */

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Where the time goes, per op kind (wall time until its record arrives). */
static double kind_time[OP__COUNT + 1];
static long kind_count[OP__COUNT + 1];

struct opts {
	struct seq_opts s;
	long count;
	uint64_t seed;
	bool replay, expect_mismatch, fuzz;
	int tap;
	double time_limit;
	char keep[1024];
};

struct outcome {
	int bad_step; /* -1: all steps match */
	int steps;
	char what[512];
	struct rec real;
	struct cm_obs model;
	long model_ret;
};


static const char *flavour_name(enum cm_flavour f)
{
	return f == CM_PATCHED ? "patched" : f == CM_BPF ? "bpf" : "unpatched";
}

static uint64_t read_mask(void)
{
	char buf[64] = "";

	if (bpf_backend)
		return uns_prctl_set(true, CAPUNS_BPF_OP_MASK_IS_SET, CM_CAP_LAST_STOCK);
	int fd = open(CAPUNS_MASK_SYSCTL, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return ~0ULL;
	buf[n] = '\0';
	return strtoull(buf, NULL, 0);
}

static bool obs_equal(const struct cm_sys *sys, const struct rec *r, const struct cm_obs *o,
		      char *what, size_t len)
{
	const char *f = NULL;

	if (r->pE != o->pE)
		f = "CapEff";
	else if (r->pP != o->pP)
		f = "CapPrm";
	else if (r->pI != o->pI)
		f = "CapInh (capget vs status or model)";
	else if (r->pA != o->pA)
		f = "CapAmb";
	else if (r->X != o->X)
		f = "CapBnd (PR_CAPBSET_READ)";
	else if (r->pU != o->pU)
		f = "CapUNs";
	else if (r->securebits != o->securebits)
		f = "securebits";
	else if (r->uid != o->uid || r->euid != o->euid || r->suid != o->suid)
		f = "uid/euid/suid";
	else if (r->bound != o->bound)
		f = "bound (BPF backend: set recorded at namespace entry)";
	else if (r->uns_strict != o->uns_strict)
		f = "strict bits (BPF backend)";
	else if (r->nvalid != sys->last_cap + 1)
		f = "number of valid caps";
	else if (r->has_capuns != (sys->flavour == CM_PATCHED))
		f = "presence of the CapUNs line";
	if (f)
		snprintf(what, len, "%s differs", f);
	return f == NULL;
}

static void run_executor(const struct seq *q, int wfd)
{
	char enc[8192];

	seq_encode(q, enc, sizeof(enc));
	if (dup2(wfd, REPORT_FD) < 0)
		_exit(119);
	close(wfd);
	setpgid(0, 0);
	execute(q, 0, enc);
}

/* Run q for real and against the model; compare after every step. */
static void run_one(const struct opts *o, const struct seq *q, struct outcome *out)
{
	struct seq_state st;
	struct seq_opts so = o->s;
	int p[2];
	pid_t pid;

	memset(out, 0, sizeof(*out));
	out->bad_step = -1;
	if (so.flavour != CM_UNPATCHED)
		so.start_mask = read_mask();
	seq_state_init(&st, &so);
	if (pipe2(p, O_CLOEXEC) < 0) {
		printf("not ok %d - sequence seed %" PRIu64 ": pipe2: %s\n", tap_no, q->seed,
		       strerror(errno));
		exit(2);
	}
	/*
	 * Freed credentials and namespaces go back after an RCU grace period
	 * or a work item, which a loaded TCG guest can delay: a transient
	 * EAGAIN or ENOMEM is waited out (5 s at most), anything else fails.
	 */
	for (int tries = 0; (pid = fork()) < 0 && (errno == EAGAIN || errno == ENOMEM) &&
			    tries < 50; tries++)
		usleep(100 * 1000);
	if (pid < 0) {
		printf("not ok %d - sequence seed %" PRIu64 ": fork: %s\n", tap_no, q->seed,
		       strerror(errno));
		exit(2);
	}
	if (pid == 0) {
		close(p[0]);
		run_executor(q, p[1]);
	}
	close(p[1]);
	double t_prev = now();

	for (int i = 0; i < q->n; i++) {
		struct pollfd pf = { .fd = p[0], .events = POLLIN };
		struct rec r;
		long mret = seq_apply(&st, &q->op[i]);
		struct cm_obs mo;

		cm_observe(&st.sys, &st.cred, &mo);
		if (poll(&pf, 1, STEP_TIMEOUT_MS) != 1 || read_full(p[0], &r, sizeof(r))) {
			snprintf(out->what, sizeof(out->what), "executor stopped before reporting");
			out->bad_step = i;
			out->model = mo;
			out->model_ret = mret;
			break;
		}
		out->steps++;
		{
			double t = now();

			kind_time[q->op[i].kind] += t - t_prev;
			kind_count[q->op[i].kind]++;
			t_prev = t;
		}
		if (r.step != i || r.ret != mret || !obs_equal(&st.sys, &r, &mo, out->what,
								sizeof(out->what))) {
			if (r.step != i)
				snprintf(out->what, sizeof(out->what), "record for step %d, want %d",
					 r.step, i);
			else if (r.ret != mret)
				snprintf(out->what, sizeof(out->what), "return value differs");
			out->bad_step = i;
			out->real = r;
			out->model = mo;
			out->model_ret = mret;
			break;
		}
	}
	close(p[0]);
	{
		double t = now();

		kind_time[OP__COUNT] += t - t_prev; /* teardown */
		kind_count[OP__COUNT]++;
	}
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	/* We are a child subreaper: every helper of the killed group ends here. */
	while (waitpid(-1, NULL, 0) > 0)
		;
}

static void subseq(const struct seq *q, const bool *keep, struct seq *out)
{
	memset(out, 0, sizeof(*out));
	out->seed = q->seed;
	for (int i = 0; i < q->n; i++)
		if (keep[i])
			out->op[out->n++] = q->op[i];
}

/* Greedy one-at-a-time deletion until no single op can go. */
static int shrink(const struct opts *o, const struct seq *q, int bad_step, bool *keep)
{
	struct outcome out;
	struct seq t;
	bool changed = true;
	int runs = 0;

	for (int i = 0; i < q->n; i++)
		keep[i] = i <= bad_step;
	while (changed && runs < 400) {
		changed = false;
		for (int i = q->n - 1; i >= 0; i--) {
			if (!keep[i])
				continue;
			keep[i] = false;
			subseq(q, keep, &t);
			run_one(o, &t, &out);
			runs++;
			if (t.n > 0 && out.bad_step >= 0)
				changed = true;
			else
				keep[i] = true;
		}
	}
	return runs;
}

static void print_rec(const char *who, long ret, const struct cm_obs *ob)
{
	char buf[512];

	printf("#     %-6s ret=%ld %s\n", who, ret, cm_format_obs(ob, buf, sizeof(buf)));
}

static void rec_to_obs(const struct rec *r, struct cm_obs *ob)
{
	memset(ob, 0, sizeof(*ob));
	ob->pE = r->pE;
	ob->pP = r->pP;
	ob->pI = r->pI;
	ob->pA = r->pA;
	ob->X = r->X;
	ob->pU = r->pU;
	ob->securebits = r->securebits;
	ob->bound = r->bound;
	ob->uns_strict = r->uns_strict;
	ob->uid = r->uid;
	ob->euid = r->euid;
	ob->suid = r->suid;
	ob->level = -1; /* not observable */
}

static void print_mismatch(const struct opts *o, const struct seq *q, const bool *keep,
			   const struct outcome *out)
{
	struct cm_obs real;
	char buf[256], keeps[1024] = "";
	size_t off = 0;

	printf("#   reproduce: diff-runner --flavour %s%s%s --seed %" PRIu64 " --replay",
	       flavour_name(o->s.flavour), o->s.fcaps ? "" : " --no-fcaps",
	       o->s.mask ? " --mask" : "", q->seed);
	for (int i = 0; i < q->n; i++)
		if (keep[i])
			off += (size_t)snprintf(keeps + off, sizeof(keeps) - off, "%s%d",
						off ? "," : "", i);
	printf(" --keep %s\n", keeps);
	for (int i = 0, k = 0; i < q->n; i++) {
		if (!keep[i])
			continue;
		printf("#   %2d. %s%s\n", k, seq_format_op(&q->op[i], buf, sizeof(buf)),
		       k == out->bad_step ? "   <== differs here" : "");
		k++;
	}
	printf("#   at step %d: %s\n", out->bad_step, out->what);
	print_rec("model", out->model_ret, &out->model);
	rec_to_obs(&out->real, &real);
	print_rec("kernel", (long)out->real.ret, &real);
}

static int parse_keep(const char *s, int n, bool *keep)
{
	char *end;

	for (int i = 0; i < n; i++)
		keep[i] = false;
	while (*s) {
		long i = strtol(s, &end, 10);

		if (end == s || i < 0 || i >= n)
			return -1;
		keep[i] = true;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -1;
	}
	return 0;
}

static int replay(const struct opts *o)
{
	struct seq q, t;
	struct outcome out;
	bool keep[SEQ_MAX_OPS];
	char buf[256];

	seq_generate(&q, o->seed, &o->s);
	if (o->keep[0]) {
		if (parse_keep(o->keep, q.n, keep)) {
			printf("not ok %d - --keep names steps outside the sequence (%d steps)\n", tap_no, q.n);
			return 1;
		}
	} else {
		for (int i = 0; i < q.n; i++)
			keep[i] = true;
	}
	subseq(&q, keep, &t);
	for (int i = 0; i < t.n; i++)
		printf("# %2d. %s\n", i, seq_format_op(&t.op[i], buf, sizeof(buf)));
	run_one(o, &t, &out);
	if (out.bad_step < 0) {
		printf("ok %d - seed %" PRIu64 ": %d steps match the model\n", tap_no, o->seed, t.n);
		return 0;
	}
	for (int i = 0; i < t.n; i++)
		keep[i] = true;
	printf("not ok %d - seed %" PRIu64 ": step %d differs from the model\n", tap_no, o->seed,
	       out.bad_step);
	print_mismatch(o, &t, keep, &out);
	return 1;
}

static int batch(const struct opts *o)
{
	const int tn = o->tap;
	double t0 = now(), t;
	long steps = 0, n;
	struct outcome out;

	for (n = 0; n < o->count; n++) {
		struct seq q;

		if (o->time_limit > 0 && now() - t0 > o->time_limit)
			break;
		seq_generate(&q, o->seed + (uint64_t)n, &o->s);
		run_one(o, &q, &out);
		steps += out.steps;
		if (out.bad_step >= 0) {
			bool keep[SEQ_MAX_OPS];
			double found = now() - t0;
			int runs = shrink(o, &q, out.bad_step, keep);
			struct seq s;
			struct outcome sout;

			subseq(&q, keep, &s);
			run_one(o, &s, &sout);
			if (o->expect_mismatch) {
				printf("ok %d - mutation %d caught by sequence %ld (seed %" PRIu64
				       ") after %.1f s; shrunk to %d steps in %d runs\n",
				       tn, CAPMODEL_MUTATION, n + 1, q.seed, found, s.n, runs);
				print_mismatch(o, &q, keep, sout.bad_step >= 0 ? &sout : &out);
				return 0;
			}
			printf("not ok %d - sequence %ld (seed %" PRIu64
			       ") differs from the model at step %d: %s\n",
			       tn, n + 1, q.seed, out.bad_step, out.what);
			if (sout.bad_step < 0) {
				printf("#   (the shrunk sequence no longer differs: full sequence)\n");
				for (int i = 0; i < q.n; i++)
					keep[i] = true;
				print_mismatch(o, &q, keep, &out);
			} else {
				print_mismatch(o, &q, keep, &sout);
			}
			return 1;
		}
	}
	t = now() - t0;
	if (o->expect_mismatch) {
		printf("not ok %d - mutation %d NOT caught in %ld sequences (%.1f s)\n",
		       tn, CAPMODEL_MUTATION, n, t);
		return 1;
	}
	printf("# %ld sequences, %ld steps in %.1f s: %.1f sequences/s, %.0f steps/s\n", n, steps,
	       t, n / t, steps / t);
	for (int k = 0; k <= OP__COUNT; k++)
		if (kind_count[k])
			printf("#   %-16s %7ld x %7.2f ms\n", k < OP__COUNT ? seq_kind_name(k) : "(teardown)",
			       kind_count[k], 1e3 * kind_time[k] / (double)kind_count[k]);
	if (n < o->count && !o->fuzz) {
		printf("not ok %d - only %ld of %ld sequences ran within %.0f s\n", tn, n, o->count,
		       o->time_limit);
		return 1;
	}
	printf("ok %d - %ld sequences (%ld steps, seeds %" PRIu64 "..%" PRIu64
	       ") match the model on every step\n",
	       tn, n, steps, o->seed, o->seed + (uint64_t)n - 1);
	return 0;
}

static int copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	close(in);
	if (fchown(out, 0, 0) || fchmod(out, mode))
		n = -1;
	close(out);
	return n < 0 ? -1 : 0;
}

/* security.capability revision 2 with the effective flag as asked. */
static int set_fcaps(const char *path, uint64_t fP, uint64_t fI, bool fE)
{
	struct vfs_cap_data d = { .magic_etc = VFS_CAP_REVISION_2 | (fE ? VFS_CAP_FLAGS_EFFECTIVE : 0) };

	d.data[0].permitted = (uint32_t)fP;
	d.data[1].permitted = (uint32_t)(fP >> 32);
	d.data[0].inheritable = (uint32_t)fI;
	d.data[1].inheritable = (uint32_t)(fI >> 32);
	return setxattr(path, "security.capability", &d, XATTR_CAPS_SZ_2, 0);
}

/* Lay out the exec targets: copies of this binary, plain, setuid-root and
 * with every file-cap combination the generator uses. */
static int prepare(struct opts *o)
{
	char path[128];

	mkdir(WORKDIR, 0755);
	if (chmod(WORKDIR, 0755) || copy_file("/proc/self/exe", PLAIN_EXE, 0755) ||
	    copy_file("/proc/self/exe", SUID_EXE, 04755)) {
		printf("not ok %d - cannot prepare exec targets in %s: %s\n", tap_no, WORKDIR, strerror(errno));
		return -1;
	}
	if (!o->s.fcaps)
		return 0;
	if (copy_file("/proc/self/exe", WORKDIR "/probe", 0755) ||
	    set_fcaps(WORKDIR "/probe", 1, 0, false)) {
		printf("# file capabilities cannot be set in %s (%s): exec-fcaps is not generated\n",
		       WORKDIR, strerror(errno));
		o->s.fcaps = false;
		return 0;
	}
	/* One copy per combination: the xattr belongs to the inode. */
	for (uint64_t m = 0; m < 8; m++)
		for (int fI = 0; fI < 2; fI++)
			for (int fE = 0; fE < 2; fE++) {
				uint64_t fP = ((m & 1) ? 1ULL << 13 : 0) | ((m & 2) ? 1ULL << 21 : 0) |
					      ((m & 4) ? 1ULL << 8 : 0);
				struct seq_op op = { .kind = OP_EXEC_FCAPS,
						     .a = { fP, fI ? 1ULL << 13 : 0, (uint64_t)fE } };

				fcaps_path(&op, path, sizeof(path));
				unlink(path);
				if (copy_file("/proc/self/exe", path, 0755) ||
				    set_fcaps(path, fP, op.a[1], fE)) {
					printf("not ok %d - cannot set file caps on %s: %s\n", tap_no, path,
					       strerror(errno));
					return -1;
				}
			}
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: diff-runner --flavour patched|unpatched|bpf [--count N] [--seed S] "
			"[--mask] [--no-fcaps] [--expect-mismatch] [--time-limit SEC] "
			"[--replay [--keep i,j,...]]\n");
	exit(2);
}

/*
 * Whether the running kernel is at least MAJOR.MINOR: the model follows
 * the kernel's own rules where they changed between the 6.12 and the 7.3
 * this project tests (cm_sys.setid_by_euid: 6.16; cm_sys.exec_securebits:
 * 6.14).
 */
static bool kernel_at_least(unsigned int major, unsigned int minor)
{
	struct utsname u;
	unsigned int ma = 0, mi = 0;

	if (uname(&u) || sscanf(u.release, "%u.%u", &ma, &mi) != 2)
		return false;
	return ma > major || (ma == major && mi >= minor);
}

int main(int argc, char **argv)
{
	struct opts o = { .s = { .flavour = CM_PATCHED, .fcaps = true }, .count = 1000, .seed = 1, .tap = 1 };
	bool flavour_given = false;

	if (argc == 6 && strcmp(argv[1], "--exec-continue") == 0) {
		struct seq q;
		int step = atoi(argv[3]);

		nheld = atoi(argv[4]);
		bpf_backend = strcmp(argv[5], "bpf") == 0;
		if (seq_decode(&q, argv[2]) || step < 0 || step >= q.n)
			_exit(118);
		report(step, 0);
		execute(&q, step + 1, argv[2]);
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--flavour") && v) {
			flavour_given = true;
			if (!strcmp(v, "patched"))
				o.s.flavour = CM_PATCHED;
			else if (!strcmp(v, "unpatched"))
				o.s.flavour = CM_UNPATCHED;
			else if (!strcmp(v, "bpf"))
				o.s.flavour = CM_BPF;
			else
				usage();
			i++;
		} else if (!strcmp(a, "--count") && v) {
			o.count = atol(v);
			i++;
		} else if (!strcmp(a, "--seed") && v) {
			o.seed = strtoull(v, NULL, 0);
			i++;
		} else if (!strcmp(a, "--keep") && v) {
			snprintf(o.keep, sizeof(o.keep), "%s", v);
			i++;
		} else if (!strcmp(a, "--time-limit") && v) {
			o.time_limit = atof(v);
			i++;
		} else if (!strcmp(a, "--tap-n") && v) {
			o.tap = atoi(v);
			i++;
		} else if (!strcmp(a, "--fuzz")) {
			o.fuzz = true; /* stopping at --time-limit is the plan, not a failure */
		} else if (!strcmp(a, "--mask")) {
			o.s.mask = true;
		} else if (!strcmp(a, "--no-fcaps")) {
			o.s.fcaps = false;
		} else if (!strcmp(a, "--replay")) {
			o.replay = true;
		} else if (!strcmp(a, "--expect-mismatch")) {
			o.expect_mismatch = true;
		} else {
			usage();
		}
	}
	if (!flavour_given || o.count <= 0)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	tap_no = o.tap;
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) {
		printf("not ok %d - PR_SET_CHILD_SUBREAPER: %s\n", o.tap, strerror(errno));
		return 1;
	}
	if (getuid() != 0 || geteuid() != 0) {
		printf("not ok %d - the differential runner must start as root\n", tap_no);
		return 1;
	}
	/* The kernel must be the one the model describes. */
	bpf_backend = o.s.flavour == CM_BPF;
	errno = 0;
	if (bpf_backend ? uns_prctl_answer(true, CAPUNS_BPF_OP_PROBE, 0, 0, 0) != CAPUNS_BPF_ABI_VERSION
			: (prctl(PR_CAP_USERNS, PR_CAP_USERNS_IS_SET, 0, 0, 0) < 0) !=
				  (o.s.flavour == CM_UNPATCHED)) {
		printf("not ok %d - kernel does not look %s (prctl(PR_CAP_USERNS): %s)\n", tap_no,
		       o.s.flavour == CM_BPF ? "like a stock kernel with the BPF backend loaded"
					     : flavour_name(o.s.flavour),
		       strerror(errno));
		return 1;
	}
	if (o.s.mask && o.s.flavour == CM_UNPATCHED)
		usage();
	o.s.setid_by_euid = kernel_at_least(6, 16);
	o.s.exec_securebits = kernel_at_least(6, 14);
	if (prepare(&o))
		return 1;
	printf("# diff-runner: flavour %s, model mutation %d, file caps %s, mask writes %s, "
	       "exec setid by %s, exec securebits %s\n",
	       flavour_name(o.s.flavour), CAPMODEL_MUTATION,
	       o.s.fcaps ? "on" : "off", o.s.mask ? "on" : "off",
	       o.s.setid_by_euid ? "euid" : "real uid", o.s.exec_securebits ? "on" : "off");
	return o.replay ? replay(&o) : batch(&o);
}
