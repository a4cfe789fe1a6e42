// SPDX-License-Identifier: GPL-2.0
/*
 * Guest test of the series' BPF-LSM patch: a program of ours, attached to
 * lsm/userns_create, removes CAP_SYS_ADMIN from the user namespace set of
 * the creds that a new namespace starts with.  Prints TAP.
 *
 * On the patched kernel: the program loads, namespaces created by root and
 * by an unprivileged user lack CAP_SYS_ADMIN (capget, PR_CAPBSET_READ and
 * a real operation that needs it), other capabilities stay, and detaching
 * the program restores the old behaviour.  The verifier refuses a write to
 * a non-capability field and a write from another hook.
 * On the unpatched kernel (CAPUNS_TARGET=unpatched) the program must fail
 * to load: struct cred has no cap_userns there.
 */
#include <errno.h>
#include <grp.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <bpf/libbpf.h>

#include "userns_drop.skel.h"
#include "userns_bad.skel.h"

#define UNPRIV_UID 1000
#define UNPRIV_GID 1000

static int test_no, failed;

static void result(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", ok ? "" : "not ", ++test_no);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!ok)
		failed++;
}

/* Quiet libbpf unless something fails: its messages go to TAP comments. */
static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	printf("# ");
	return vprintf(fmt, ap);
}

static unsigned long long cap_eff(void)
{
	char line[256];
	unsigned long long v = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7))
			v = strtoull(line + 7, NULL, 16);
	fclose(f);
	return v;
}

/*
 * Child: create a user namespace and report, as exit status bits, what it
 * holds there.  1: unshare failed, 2: CAP_SYS_ADMIN in the bounding set,
 * 4: CAP_SYS_ADMIN effective, 8: CAP_NET_ADMIN missing, 16: a UTS
 * namespace (needs CAP_SYS_ADMIN) could be created.
 */
static int probe_child(bool unpriv)
{
	pid_t pid = fork();
	int status, bits = 0;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (unpriv && (setgroups(0, NULL) || setresgid(UNPRIV_GID, UNPRIV_GID, UNPRIV_GID) ||
			       setresuid(UNPRIV_UID, UNPRIV_UID, UNPRIV_UID)))
			_exit(64);
		if (unshare(CLONE_NEWUSER))
			_exit(1);
		if (prctl(PR_CAPBSET_READ, CAP_SYS_ADMIN, 0, 0, 0) != 0)
			bits |= 2;
		if (cap_eff() & (1ULL << CAP_SYS_ADMIN))
			bits |= 4;
		if (!(cap_eff() & (1ULL << CAP_NET_ADMIN)))
			bits |= 8;
		if (unshare(CLONE_NEWUTS) == 0)
			bits |= 16;
		else if (errno != EPERM)
			bits |= 32;
		_exit(bits);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void check_narrowed(bool unpriv)
{
	const char *who = unpriv ? "unprivileged user" : "root";
	int bits = probe_child(unpriv);

	result(bits >= 0 && !(bits & 1), "%s: unshare(CLONE_NEWUSER) succeeds under the policy", who);
	result(bits >= 0 && !(bits & (2 | 4)),
	       "%s: CAP_SYS_ADMIN absent from bounding and effective sets in the namespace (bits %d)",
	       who, bits);
	result(bits >= 0 && !(bits & 8), "%s: CAP_NET_ADMIN still held in the namespace", who);
	result(bits >= 0 && !(bits & (16 | 32)),
	       "%s: unshare(CLONE_NEWUTS) inside fails with EPERM", who);
}

static void check_restored(void)
{
	int bits = probe_child(true);

	result(bits == (2 | 4 | 16),
	       "without the program: namespace holds CAP_SYS_ADMIN again (bits %d)", bits);
}

static bool bad_program_refused(const char *name)
{
	struct userns_bad *skel = userns_bad__open();
	struct bpf_program *prog;
	bool refused;

	if (!skel)
		return false;
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, !strcmp(bpf_program__name(prog), name));
	refused = userns_bad__load(skel) != 0;
	userns_bad__destroy(skel);
	return refused;
}

int main(void)
{
	const char *target = getenv("CAPUNS_TARGET");
	bool patched = target && !strcmp(target, "patched");
	struct userns_drop *skel;
	int err;

	libbpf_set_print(print_libbpf);
	if (!target || (strcmp(target, "patched") && strcmp(target, "unpatched"))) {
		result(false, "CAPUNS_TARGET is patched or unpatched (got %s)", target ? target : "unset");
		printf("1..%d\n", test_no);
		return 1;
	}

	skel = userns_drop__open();
	result(skel != NULL, "open the BPF object");
	if (!skel) {
		printf("1..%d\n", test_no);
		return 1;
	}
	err = userns_drop__load(skel);
	if (!patched) {
		result(err != 0, "unpatched: a program writing cred->cap_userns is refused (%d)", err);
		userns_drop__destroy(skel);
		result(probe_child(true) == (2 | 4 | 16), "unpatched: namespaces hold CAP_SYS_ADMIN");
		printf("1..%d\n", test_no);
		return failed != 0;
	}
	result(err == 0, "patched: program writing cred->cap_userns in userns_create loads (%d)", err);
	err = err ?: userns_drop__attach(skel);
	result(err == 0, "patched: program attaches to lsm/userns_create (%d)", err);
	if (!err) {
		check_narrowed(false);
		check_narrowed(true);
		result(skel->bss->narrowed >= 2, "program ran for each namespace (%llu)",
		       (unsigned long long)skel->bss->narrowed);
	}
	userns_drop__destroy(skel);
	check_restored();

	result(bad_program_refused("write_euid"), "verifier refuses a write to cred->euid");
	result(bad_program_refused("write_other_hook"),
	       "verifier refuses a cred write from lsm/cred_prepare");
	printf("1..%d\n", test_no);
	return failed != 0;
}
