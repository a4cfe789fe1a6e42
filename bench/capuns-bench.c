// SPDX-License-Identifier: GPL-2.0
/*
 * capuns-bench: guest microbenchmarks of the paths the userns capability
 * set touches. Each benchmark runs a fixed number of iterations and prints
 *
 *   BENCH <name> <nanoseconds per operation> <iterations>
 *
 * The harness (bench/run) boots each configuration several times, in
 * alternation, and compares medians as ratios, so only relative numbers
 * matter. Linked statically: fork+exec runs this program again as "noop".
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capuns.h"
#include "capuns-abi.h"

static const char *self_path;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void wait_ok(pid_t pid)
{
	int status;

	if (pid < 0)
		die("fork");
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "child failed (status %#x)\n", status);
		exit(2);
	}
}

/* One child per iteration: a user namespace can only be entered once. */
static void bench_userns_create(long n)
{
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(unshare(CLONE_NEWUSER) ? 1 : 0);
		wait_ok(pid);
	}
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	if (fputs(text, f) == EOF) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

/*
 * Map root to root at each level, as `unshare -r` does: a task can only
 * create a namespace below the current one when its uid and gid are mapped
 * there; the gid map needs setgroups denied first.
 */
static int enter_mapped_userns(void)
{
	if (unshare(CLONE_NEWUSER))
		return -1;
	if (write_file("/proc/self/uid_map", "0 0 1\n") ||
	    write_file("/proc/self/setgroups", "deny\n") ||
	    write_file("/proc/self/gid_map", "0 0 1\n"))
		return -1;
	return 0;
}

static void bench_userns_nested8(long n)
{
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			for (int d = 0; d < 8; d++)
				if (enter_mapped_userns())
					_exit(1);
			_exit(0);
		}
		wait_ok(pid);
	}
}

static void bench_fork_exit(long n)
{
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		wait_ok(pid);
	}
}

static void bench_fork_exec(long n)
{
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			execl(self_path, self_path, "noop", (char *)NULL);
			perror("execl");
			_exit(1);
		}
		wait_ok(pid);
	}
}

/* capable(CAP_SETUID) plus a prepare_creds/commit_creds pair per call. */
static void bench_setuid(long n)
{
	uid_t uid = getuid();

	for (long i = 0; i < n; i++)
		if (setuid(uid))
			die("setuid");
}

/* ns_capable(CAP_SYS_ADMIN) in a user namespace on every call. */
static void bench_sethostname_userns(long n)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWUTS))
			die("unshare");
		for (long i = 0; i < n; i++)
			if (sethostname("bench", 5))
				die("sethostname");
		_exit(0);
	}
	wait_ok(pid);
}

/* A child that ends with the holder. */
static pid_t fork_held(void)
{
	pid_t pid = fork();

	if (pid == 0 && prctl(PR_SET_PDEATHSIG, SIGKILL))
		_exit(1);
	return pid;
}

/* In a child: report to the holder, then wait for its end. */
static void __attribute__((noreturn)) report_and_wait(int fd, int ok)
{
	if (write(fd, ok ? "+" : "-", 1) != 1 || !ok)
		_exit(1);
	pause();
	_exit(0);
}

/*
 * The owner rule's path: root, in the initial namespace, owns a child user
 * namespace and has joined that namespace's UTS namespace, so that
 * sethostname() asks for CAP_SYS_ADMIN over the child.  cap_capable()
 * then grants it as the owner's, which the series bounds by pU and
 * kernel.cap_userns_mask.  sethostname() checks the capability before the
 * length, so a length of -1 measures the check alone: EINVAL, no lock
 * taken, nothing changed.  Call in a child process: it leaves the UTS
 * namespace of the caller.
 */
static void join_owned_uts(void)
{
	int sync[2], fd;
	char path[64], c;
	pid_t pid;

	if (pipe(sync))
		die("pipe");
	pid = fork_held();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(sync[0]);
		report_and_wait(sync[1], unshare(CLONE_NEWUSER | CLONE_NEWUTS) == 0);
	}
	close(sync[1]);
	if (read(sync[0], &c, 1) != 1 || c != '+')
		die("a child's unshare(CLONE_NEWUSER | CLONE_NEWUTS)");
	close(sync[0]);
	snprintf(path, sizeof(path), "/proc/%d/ns/uts", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(path);
	if (setns(fd, CLONE_NEWUTS))
		die("setns");
	close(fd);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void *owner_check_loop(void *arg)
{
	long n = *(long *)arg;

	for (long i = 0; i < n; i++)
		if (syscall(SYS_sethostname, "bench", -1L) != -1 || errno != EINVAL)
			die("sethostname as the owner (want EINVAL)");
	return NULL;
}

/* owner_check with THREADS threads, each making n checks at once. */
static void owner_check_threads(long n, int threads)
{
	pthread_t tid[64];
	pid_t pid = fork();

	if (pid == 0) {
		join_owned_uts();
		for (int t = 0; t < threads; t++)
			if (pthread_create(&tid[t], NULL, owner_check_loop, &n))
				die("pthread_create");
		for (int t = 0; t < threads; t++)
			pthread_join(tid[t], NULL);
		_exit(0);
	}
	wait_ok(pid);
}

static void bench_owner_check(long n)
{
	owner_check_threads(n, 1);
}

/*
 * CAP_NET_ADMIN over a new network namespace on every call: bring lo up
 * (SIOCSIFFLAGS). Allowed where pU holds the capability; under --restrict
 * (pU without it) every call is refused by capuns, which counts it and
 * sends an event (rate-limited per uid): a refusal flood. In complain
 * mode the same calls pass and are reported. Either answer is fine here:
 * the time per call is what is measured.
 */
static void bench_netadmin_userns(long n)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct ifreq ifr = { .ifr_name = "lo" };
		int fd;

		if (unshare(CLONE_NEWUSER | CLONE_NEWNET))
			die("unshare");
		fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			die("socket");
		if (ioctl(fd, SIOCGIFFLAGS, &ifr))
			die("SIOCGIFFLAGS");
		ifr.ifr_flags |= IFF_UP;
		for (long i = 0; i < n; i++)
			if (ioctl(fd, SIOCSIFFLAGS, &ifr) && errno != EPERM)
				die("SIOCSIFFLAGS");
		_exit(0);
	}
	wait_ok(pid);
}

/*
 * The feature's own calls, raw: the syscall path is what is measured (a
 * kernel without the series answers EINVAL, the BPF backend encodes).
 */
static void bench_prctl_is_set(long n)
{
	for (long i = 0; i < n; i++)
		prctl(PR_CAP_USERNS, PR_CAP_USERNS_IS_SET, i % (CAP_LAST_CAP + 1), 0, 0);
}

static void bench_prctl_lower(long n)
{
	for (long i = 0; i < n; i++)
		prctl(PR_CAP_USERNS, PR_CAP_USERNS_LOWER, CAP_SYS_RAWIO, 0, 0);
}

/* A seeded mix of capability-heavy calls, as a busy container host makes. */
static void bench_mixed(long n)
{
	unsigned int seed = 42;
	uid_t uid = getuid();
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	for (long i = 0; i < n; i++) {
		switch (rand_r(&seed) % 4) {
		case 0:
			if (capget(&hdr, data))
				die("capget");
			break;
		case 1:
			if (setuid(uid))
				die("setuid");
			break;
		case 2:
			prctl(PR_CAPBSET_READ, rand_r(&seed) % (CAP_LAST_CAP + 1), 0, 0, 0);
			break;
		default:
			prctl(PR_CAP_USERNS, PR_CAP_USERNS_IS_SET, CAP_NET_ADMIN, 0, 0);
			break;
		}
	}
}

static const struct bench {
	const char *name;
	void (*fn)(long n);
	long iterations;
} benches[] = {
	{ "userns_create", bench_userns_create, 400 },
	{ "userns_nested8", bench_userns_nested8, 100 },
	{ "setuid", bench_setuid, 80000 },
	{ "sethostname_userns", bench_sethostname_userns, 300000 },
	{ "owner_check", bench_owner_check, 300000 },
	{ "netadmin_userns", bench_netadmin_userns, 100000 },
	{ "fork_exit", bench_fork_exit, 400 },
	{ "fork_exec", bench_fork_exec, 200 },
	{ "prctl_is_set", bench_prctl_is_set, 600000 },
	{ "mixed", bench_mixed, 200000 },
	/* Last: lowering pU restricts this process's credential for good. */
	{ "prctl_lower", bench_prctl_lower, 300000 },
};

/*
 * --restrict: run as a restricted task, the common case capuns creates:
 * pU without CAP_NET_ADMIN, CAP_SYS_RAWIO and CAP_BPF (caps none of the
 * benchmarks needs), lowered through libcapuns before anything is timed,
 * so the same binary works on either backend.
 */
static int restrict_userns_set(void)
{
	capuns_set_t drop = capuns_set_empty();
	int err;

	drop = capuns_set_add(drop, CAP_NET_ADMIN);
	drop = capuns_set_add(drop, CAP_SYS_RAWIO);
	drop = capuns_set_add(drop, CAP_BPF);
	err = capuns_lower_set(drop);
	if (err) {
		fprintf(stderr, "capuns-bench: lowering pU: %s (backend %s)\n",
			capuns_strerror(err), capuns_backend_name());
		return -1;
	}
	if (capuns_is_set(CAP_NET_ADMIN) != 0) {
		fprintf(stderr, "capuns-bench: pU still holds CAP_NET_ADMIN\n");
		return -1;
	}
	return 0;
}

/*
 * --hold-creds=N: keep N restricted credentials alive in one process.
 * Each open file pins the credential it was opened with, and each
 * setuid() installs a fresh copy (cred_prepare copies the restriction),
 * so N files pin N distinct credentials: a cheap stand-in for N
 * restricted processes.
 */
static int hold_creds(long n)
{
	struct rlimit rl = { n + 64, n + 64 };

	if (setrlimit(RLIMIT_NOFILE, &rl))
		die("setrlimit");
	for (long i = 0; i < n; i++) {
		if (open("/dev/null", O_RDONLY) < 0)
			die("open");
		if (setuid(getuid()))
			die("setuid");
	}
	return 0;
}

/*
 * --hold-userns=N: N live user namespaces below the restricted holder,
 * one child in each, plus one child at the deepest level Linux allows:
 * create_user_ns() refuses (ENOSPC) a parent deeper than level 32, so
 * the chain is 33 namespaces below the initial one.
 */
static int hold_userns(long n)
{
	int sync[2], failed = 0, depth = 0;
	char c;

	if (pipe(sync))
		die("pipe");
	for (long i = 0; i <= n; i++) {
		pid_t pid = fork_held();

		if (pid < 0)
			die("fork");
		if (pid)
			continue;
		close(sync[0]);
		if (i < n)
			report_and_wait(sync[1], unshare(CLONE_NEWUSER) == 0);
		while (depth < 40 && !enter_mapped_userns())
			depth++;
		if (depth != 33 || errno != ENOSPC)
			fprintf(stderr, "capuns-bench: chain stopped at depth %d: %s\n",
				depth, strerror(errno));
		report_and_wait(sync[1], depth == 33 && errno == ENOSPC);
	}
	close(sync[1]);
	for (long i = 0; i <= n; i++)
		if (read(sync[0], &c, 1) != 1 || c != '+')
			failed++;
	close(sync[0]);
	if (failed)
		fprintf(stderr, "capuns-bench: %d of %ld holder children failed\n", failed, n + 1);
	return failed ? -1 : 0;
}

/* Hold, say so on stdout, and wait to be killed. */
static int hold(const char *what, long n)
{
	if (restrict_userns_set())
		return 2;
	if (strcmp(what, "creds") == 0 ? hold_creds(n) : hold_userns(n))
		return 2;
	printf("HELD %s %ld\n", what, n);
	fflush(stdout);
	for (;;)
		pause();
}

/* One run of argv, which must exit 0. */
static void run_once(char **argv)
{
	pid_t pid = fork();

	if (pid == 0) {
		execvp(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	wait_ok(pid);
}

/*
 * --repeat NAME N -- CMD...: a macro workload, timed like the others:
 * CMD runs N times, one after the other (after an untimed tenth), and
 * the line reads "BENCH macro_NAME <ns per run> N".
 */
static int repeat(int argc, char **argv)
{
	long n = argc > 3 ? atol(argv[3]) : 0;
	uint64_t t0;

	if (argc < 6 || n <= 0 || strcmp(argv[4], "--") != 0) {
		fprintf(stderr, "usage: capuns-bench --repeat NAME N -- CMD...\n");
		return 2;
	}
	for (long i = 0; i < n / 10; i++)
		run_once(argv + 5);
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		run_once(argv + 5);
	printf("BENCH macro_%s %.1f %ld\n", argv[2], (double)(now_ns() - t0) / n, n);
	fflush(stdout);
	return 0;
}

/*
 * --scale=T: owner_check with 1 to T threads, each making the same number
 * of checks at once.  The line for t threads reads
 * "BENCH owner_check_<t>t <ns of wall time per check> <checks>": on t
 * CPUs a check that scales keeps the same time per thread, so ns per
 * check falls as 1/t.
 */
static int scale(const char *arg)
{
	long per_thread = 200000;
	char *end;
	long t_max = strtol(arg, &end, 10);

	if (*end || t_max < 1 || t_max > 64) {
		fprintf(stderr, "capuns-bench: --scale=THREADS takes 1 to 64\n");
		return 2;
	}
	for (int t = 1; t <= t_max; t++) {
		uint64_t t0;

		owner_check_threads(per_thread / 10, t);
		t0 = now_ns();
		owner_check_threads(per_thread, t);
		printf("BENCH owner_check_%dt %.1f %ld\n", t,
		       (double)(now_ns() - t0) / (per_thread * t), per_thread * t);
		fflush(stdout);
	}
	return 0;
}

int main(int argc, char **argv)
{
	/* argv[0] may be a bare name found through PATH */
	self_path = "/proc/self/exe";
	if (argc > 1 && strcmp(argv[1], "noop") == 0)
		return 0;
	if (argc > 1 && strcmp(argv[1], "--repeat") == 0)
		return repeat(argc, argv);
	if (argc > 1 && strncmp(argv[1], "--scale=", 8) == 0)
		return scale(argv[1] + 8);
	if (argc > 1 && strncmp(argv[1], "--hold-creds=", 13) == 0)
		return hold("creds", atol(argv[1] + 13));
	if (argc > 1 && strncmp(argv[1], "--hold-userns=", 14) == 0)
		return hold("userns", atol(argv[1] + 14));
	if (argc > 1 && strcmp(argv[1], "--restrict") == 0) {
		if (restrict_userns_set())
			return 2;
		argc--;
		argv++;
	}

	for (size_t b = 0; b < sizeof(benches) / sizeof(benches[0]); b++) {
		const struct bench *x = &benches[b];
		uint64_t t0;

		if (argc > 1 && !strstr(argv[1], x->name))
			continue;
		/* one untimed warm-up pass of a tenth of the work */
		x->fn(x->iterations / 10);
		t0 = now_ns();
		x->fn(x->iterations);
		printf("BENCH %s %.1f %ld\n", x->name,
		       (double)(now_ns() - t0) / x->iterations, x->iterations);
		fflush(stdout);
	}
	return 0;
}
