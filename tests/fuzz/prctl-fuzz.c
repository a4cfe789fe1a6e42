// SPDX-License-Identifier: GPL-2.0
/*
 * prctl-fuzz: random PR_CAP_USERNS calls, concurrent changes of pU while
 * other threads create namespaces, and garbage written to the two sysctls
 * of the series. Run in the guest on the patched kernel, last in its suite
 * (it narrows kernel.cap_userns_mask for good).
 *
 * With --bpf it fuzzes the BPF backend on a stock kernel instead: answers
 * are decoded as libcapuns does, pU and the entry bound are read through
 * the backend, and random extension operations replace the sysctls (the
 * backend's mask is lowered: unload the backend afterwards).
 *
 * Passing means: every prctl result is one the series documents for its
 * arguments, the sysctls only ever lose bits, unprivileged writes are
 * refused, and no namespace ever holds a capability its creator's pU
 * lacked. The harness adds: no panic, oops, BUG or WARN on the console.
 *
 *   prctl-fuzz [--seed N] [--calls N] [--threads N] [--writes N]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <unistd.h>

#include "capuns-abi.h"
#include "capuns-bpf-abi.h"
#include "tap.h"
#include "uns-prctl.h"

static bool bpf_mode;
static unsigned long cap_last = 41; /* CAP_SYS_CONTROL on the patched kernel */

/* xorshift64*: reproducible from --seed, no shared state between threads */
static uint64_t next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

/* Argument values that reach every branch of the checks. */
static unsigned long pick_arg(uint64_t *s)
{
	static const unsigned long edges[] = {
		0, 1, 2, 3, 4, 5, 40, 41, 42, 63, 64, 255, 0x7fffffff,
		0x80000000ul, -1ul, -2ul, -41ul, 1ul << 63, (1ul << 32) + 12,
	};
	uint64_t r = next(s);

	if (r % 3 == 0)
		return r >> 8;
	return edges[(r >> 8) % (sizeof(edges) / sizeof(edges[0]))];
}

static uint64_t status_field(const char *field)
{
	char line[256];
	uint64_t v = UINT64_MAX;
	FILE *f = fopen("/proc/thread-self/status", "r");

	if (!f)
		return v;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, strlen(field)))
			v = strtoull(line + strlen(field), NULL, 16);
	fclose(f);
	return v;
}

static uint64_t own_pU(void)
{
	return bpf_mode ? uns_prctl_set(true, PR_CAP_USERNS_IS_SET, cap_last)
			: status_field("CapUNs:");
}

/*
 * The result the series documents for (op, cap, a4, a5), given the bit the
 * thread had before: -1 = "0 or EPERM" (RAISE of an unset bit depends on
 * X, pP and CAP_SETPCAP, which other tests cover exactly).
 */
static int expected(unsigned long op, unsigned long cap, unsigned long a4,
		    unsigned long a5, int had)
{
	if (op == PR_CAP_USERNS_CLEAR_ALL)
		return (cap | a4 | a5) ? -EINVAL : 0;
	if (bpf_mode && op >= CAPUNS_BPF_OP_BASE && op < CAPUNS_BPF_OP_BASE + 0x100)
		return -2; /* an extension op: fuzz_extension_ops() checks those */
	if (cap > cap_last || a4 || a5)
		return -EINVAL;
	switch (op) {
	case PR_CAP_USERNS_IS_SET:
		return had;
	case PR_CAP_USERNS_RAISE:
		return had ? 0 : -1;
	case PR_CAP_USERNS_LOWER:
		return 0;
	default:
		return -EINVAL;
	}
}

/* Random prctl(48) calls in one thread; returns the number of bad results. */
static long fuzz_prctl(uint64_t seed, long calls, int report)
{
	long bad = 0;

	for (long i = 0; i < calls; i++) {
		unsigned long op, cap, a4, a5;
		uint64_t before = own_pU();
		int had, want, got;

		op = next(&seed) % 4 ? 1 + next(&seed) % 4 : pick_arg(&seed);
		cap = next(&seed) % 2 ? next(&seed) % (cap_last + 1) : pick_arg(&seed);
		a4 = next(&seed) % 8 ? 0 : pick_arg(&seed);
		a5 = next(&seed) % 8 ? 0 : pick_arg(&seed);
		had = cap <= cap_last ? !!(before & (1ull << cap)) : 0;
		want = expected(op, cap, a4, a5, had);
		got = (int)uns_prctl_answer(bpf_mode, op, cap, a4, a5);
		if (want == -2)
			continue;
		if (want == -1 ? (got != 0 && got != -EPERM) : got != want) {
			if (report && bad < 5)
				printf("# prctl(48, %#lx, %#lx, %#lx, %#lx) = %d, want %d\n",
				       op, cap, a4, a5, got, want);
			bad++;
		}
		if (own_pU() & ~before && !(op == PR_CAP_USERNS_RAISE && got == 0)) {
			if (report)
				printf("# pU grew without a successful RAISE\n");
			bad++;
		}
	}
	return bad;
}

/*
 * A child enters a new user namespace: what it holds there must be within
 * the pU it had before, and the rule-3 sets must agree.
 */
static int child_in_new_userns(void)
{
	uint64_t pu = own_pU();

	if (unshare(CLONE_NEWUSER))
		return errno == ENOMEM || errno == ENOSPC ? 0 : 1;
	/* The backend records p'U as the bound; the kernel's sets stay stock. */
	if (bpf_mode)
		return own_pU() & ~pu ? 2
		       : own_pU() != uns_prctl_set(true, CAPUNS_BPF_OP_BOUND_IS_SET, cap_last) ? 3
		       : 0;
	if (status_field("CapEff:") & ~pu || status_field("CapBnd:") & ~pu ||
	    status_field("CapUNs:") & ~pu)
		return 2;
	if (status_field("CapEff:") != status_field("CapBnd:") ||
	    status_field("CapPrm:") != status_field("CapUNs:"))
		return 3;
	return 0;
}

struct worker {
	pthread_t thread;
	uint64_t seed;
	long iterations;
	long bad;
	int creator;
};

static atomic_int stop;

/*
 * The BPF backend keeps pU per cred object, which threads share until
 * their next credential change (bpf/README.md); a capset of the thread's
 * own sets (the raw syscall acts on the calling thread) gives it its own,
 * as the series gives every thread.
 */
static int own_cred(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	return (int)syscall(SYS_capset, &h, d);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	if (bpf_mode && !w->creator && own_cred()) {
		w->bad++;
		return NULL;
	}

	for (long i = 0; i < w->iterations && !atomic_load(&stop); i++) {
		if (w->creator) {
			pid_t pid = fork();
			int status;

			if (pid == 0)
				_exit(child_in_new_userns());
			if (pid < 0 || waitpid(pid, &status, 0) < 0 ||
			    !WIFEXITED(status) || WEXITSTATUS(status)) {
				w->bad++;
				continue;
			}
		} else {
			w->bad += fuzz_prctl(w->seed + i, 8, 0);
		}
	}
	return NULL;
}

static int read_sysctl(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* Both the "%lx"-style and the "lo\thi" two-word forms of a cap sysctl. */
static uint64_t parse_caps(const char *text)
{
	char *end;
	unsigned long long lo = strtoull(text, &end, 0), hi;

	while (*end == ' ' || *end == '\t')
		end++;
	if (*end && *end != '\n') {
		hi = strtoull(end, NULL, 0);
		return lo | hi << 32;
	}
	return lo;
}

static void garbage(uint64_t *s, char *buf, size_t len)
{
	static const char *const forms[] = {
		"0x%llx", "%llu", "-%llu", "%llx", "  0x%llx\n", "0x%llx junk",
		"%llu\t%llu", "0x", "", "zzz", "99999999999999999999999999",
		"0x1ffffffffffffffffff", "1e9", "\n", "-1", "18446744073709551615",
	};
	const char *f = forms[next(s) % (sizeof(forms) / sizeof(forms[0]))];
	unsigned long long v = next(s);

	/* keep most bits most of the time so later writes still mean something */
	if (next(s) % 4)
		v = ~(1ull << (next(s) % 42)) & ((1ull << 42) - 1);
	snprintf(buf, len, f, v, v >> 32);
}

static void fuzz_sysctl(const char *path, uint64_t seed, int writes)
{
	char before_text[128], after_text[128], buf[128];
	long grew = 0, unpriv_ok = 0, unreadable = 0;

	for (int i = 0; i < writes; i++) {
		uint64_t before, after;
		pid_t pid;
		int fd, status;

		if (read_sysctl(path, before_text, sizeof(before_text))) {
			unreadable++;
			continue;
		}
		before = parse_caps(before_text);
		garbage(&seed, buf, sizeof(buf));
		fd = open(path, O_WRONLY);
		if (fd >= 0) {
			if (write(fd, buf, strlen(buf)) < 0)
				(void)0; /* refusing garbage is a documented answer */
			close(fd);
		}
		/* the same write as alice must be refused and change nothing */
		pid = fork();
		if (pid == 0) {
			if (setgid(1000) || setuid(1000))
				_exit(2);
			fd = open(path, O_WRONLY);
			if (fd < 0)
				_exit(0);
			_exit(write(fd, "0x0", 3) < 0 ? 0 : 1);
		}
		if (pid > 0 && waitpid(pid, &status, 0) == pid &&
		    WIFEXITED(status) && WEXITSTATUS(status) == 1)
			unpriv_ok++;
		if (read_sysctl(path, after_text, sizeof(after_text))) {
			unreadable++;
			continue;
		}
		after = parse_caps(after_text);
		if (after & ~before)
			grew++;
	}
	tap_ok(!unreadable, "%s stays readable through %d garbage writes", path, writes);
	tap_ok(!grew, "%s never gains a bit (%ld writes made it grow)", path, grew);
	tap_ok(!unpriv_ok, "%s refuses every write by alice (%ld accepted)", path, unpriv_ok);
}

/* One random extension op as root; returns 1 when the answer is not documented. */
static int extension_op_bad(uint64_t *s)
{
	unsigned long op = CAPUNS_BPF_OP_BASE + next(s) % 8;
	unsigned long a3 = next(s) % 2 ? next(s) % (cap_last + 1) : pick_arg(s);
	unsigned long a4 = next(s) % 8 ? 0 : pick_arg(s);
	long got;

	if (op == CAPUNS_BPF_OP_STRICT_SET && next(s) % 4)
		a3 = next(s) % 4;
	got = uns_prctl_answer(bpf_mode, op, a3, a4, 0);
	if (a4)
		return got != -EINVAL;
	switch (op) {
	case CAPUNS_BPF_OP_PROBE:
		return got != (a3 ? -EINVAL : CAPUNS_BPF_ABI_VERSION);
	case CAPUNS_BPF_OP_STRICT_GET:
		return a3 ? got != -EINVAL : got < 0 || got > 3;
	case CAPUNS_BPF_OP_STRICT_SET:
		return a3 & ~3ul ? got != -EPERM : got != 0 && got != -EPERM;
	case CAPUNS_BPF_OP_MASK_IS_SET:
	case CAPUNS_BPF_OP_BOUND_IS_SET:
		return a3 > cap_last ? got != -EINVAL : got != 0 && got != 1;
	case CAPUNS_BPF_OP_MASK_LOWER: /* root in the initial namespace */
		return got != (a3 > cap_last ? -EINVAL : 0);
	default:
		return got != -EINVAL;
	}
}

/*
 * The backend's extension ops with random arguments: documented answers,
 * a mask that never grows, and alice refused.
 */
static void fuzz_extension_ops(uint64_t seed, int calls)
{
	long bad = 0, grew = 0, unpriv_ok = 0;

	for (int i = 0; i < calls; i++) {
		uint64_t before = uns_prctl_set(true, CAPUNS_BPF_OP_MASK_IS_SET, cap_last);
		pid_t pid;
		int status;

		bad += extension_op_bad(&seed);
		if (uns_prctl_set(true, CAPUNS_BPF_OP_MASK_IS_SET, cap_last) & ~before)
			grew++;
		if (i % 20)
			continue;
		pid = fork();
		if (pid == 0) {
			if (setgid(1000) || setuid(1000))
				_exit(2);
			unsigned long cap = next(&seed) % (cap_last + 1);

			_exit(uns_prctl_answer(true, CAPUNS_BPF_OP_MASK_LOWER, cap, 0, 0) != -EPERM ||
			      uns_prctl_answer(true, CAPUNS_BPF_OP_STRICT_SET, CAPUNS_BPF_STRICT, 0,
					       0) != -EPERM);
		}
		if (pid > 0 && waitpid(pid, &status, 0) == pid &&
		    !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
			unpriv_ok++;
	}
	tap_ok(!bad, "%d random extension ops return documented results (%ld bad)", calls, bad);
	tap_ok(!grew, "the backend's mask never gains a bit (%ld calls made it grow)", grew);
	tap_ok(!unpriv_ok, "alice cannot lower the mask or set strict bits (%ld accepted)",
	       unpriv_ok);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "calls", required_argument, NULL, 'c' },
		{ "threads", required_argument, NULL, 't' },
		{ "writes", required_argument, NULL, 'w' },
		{ "bpf", no_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t seed = 1;
	long calls = 20000, bad;
	int threads = 4, writes = 300, c;
	struct worker *w;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0) | 1; break;
		case 'c': calls = strtol(optarg, NULL, 0); break;
		case 't': threads = atoi(optarg); break;
		case 'w': writes = atoi(optarg); break;
		case 'b': bpf_mode = true; cap_last = 40; break;
		default:
			fprintf(stderr, "usage: prctl-fuzz [--seed N] [--calls N] [--threads N] [--writes N] [--bpf]\n");
			return 2;
		}
	}
	if (threads < 2 || threads > 64 || calls < 1 || writes < 0) {
		fprintf(stderr, "prctl-fuzz: --threads 2..64, --calls >= 1, --writes >= 0\n");
		return 2;
	}
	printf("# seed %llu, %ld calls, %d threads, %d writes%s\n",
	       (unsigned long long)seed, calls, threads, writes, bpf_mode ? ", BPF backend" : "");
	if (bpf_mode && uns_prctl_answer(true, CAPUNS_BPF_OP_PROBE, 0, 0, 0) != CAPUNS_BPF_ABI_VERSION) {
		tap_ok(0, "the BPF backend answers its probe");
		printf("1..%d\n", tap_n);
		return 1;
	}

	bad = fuzz_prctl(seed, calls, 1);
	tap_ok(!bad, "%ld random prctl(48) calls return documented results (%ld bad)",
	       calls, bad);

	/* half the threads change their pU, half create namespaces meanwhile */
	w = calloc(threads, sizeof(*w));
	if (!w)
		return 1;
	for (int i = 0; i < threads; i++) {
		w[i].seed = seed * 7919 + i;
		w[i].creator = i % 2;
		w[i].iterations = w[i].creator ? 150 : calls / 8 / threads;
		if (pthread_create(&w[i].thread, NULL, worker_main, &w[i])) {
			tap_ok(0, "pthread_create");
			return 1;
		}
	}
	bad = 0;
	for (int i = 0; i < threads; i++) {
		pthread_join(w[i].thread, NULL);
		bad += w[i].bad;
	}
	free(w);
	tap_ok(!bad, "%d threads: concurrent pU changes and namespace creation keep pU "
	       "an upper bound and rule 3 exact (%ld bad)", threads, bad);

	if (bpf_mode) {
		fuzz_extension_ops(seed + 1, writes);
	} else {
		fuzz_sysctl(CAPUNS_MASK_SYSCTL, seed + 1, writes);
		fuzz_sysctl("/proc/sys/kernel/usermodehelper/userns", seed + 2, writes);
	}

	/* and after all that, a namespace still gets no more than pU & mask */
	pid_t pid = fork();
	int status;

	if (pid == 0)
		_exit(child_in_new_userns());
	tap_ok(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0, "a namespace created afterwards holds nothing beyond pU");
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
