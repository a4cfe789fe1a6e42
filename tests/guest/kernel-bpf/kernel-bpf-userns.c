// SPDX-License-Identifier: GPL-2.0
/*
 * Guest test of the series' BPF-LSM patch: programs of ours, attached to
 * lsm/userns_create, change the user namespace set of the creds that a new
 * namespace starts with through the kfunc bpf_cred_narrow_userns_caps().
 * Prints TAP.
 *
 * On the patched kernel: the policy program (remove CAP_SYS_ADMIN) loads;
 * namespaces created by root and by an unprivileged user lack
 * CAP_SYS_ADMIN (capget, PR_CAPBSET_READ and a real operation that needs
 * it) and keep the rest; asking for every capability is clamped to the
 * creator's set; the kfunc refuses a cred reached by walking pointers (the
 * creator's committed cred, its parent's) and changes nothing; detaching
 * restores the old behaviour.  The verifier refuses direct stores into a
 * struct cred from any hook.
 * On the unpatched kernel (CAPUNS_TARGET=unpatched) the programs fail to
 * load: the kernel has no such kfunc.
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

#include "capuns-abi.h"
/* Relative: the rule that builds this test adds no -Itests/unit. */
#include "../../unit/tap.h"

#include "userns_edit.h"
#include "userns_edit.skel.h"
#include "userns_bad.skel.h"
#include "userns_walk.skel.h"
#include "userns_ext_target.skel.h"
#include "userns_ext.skel.h"

#define UNPRIV_UID 1000
#define UNPRIV_GID 1000

/* What libbpf said since load_log_clear(): the verifier's reasons for a refusal. */
static char load_log[16384];
static size_t load_log_len;

static void load_log_clear(void)
{
	load_log_len = 0;
	load_log[0] = '\0';
}

/* Quiet libbpf unless something fails: its messages go to TAP comments. */
static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	va_list copy;
	int n;

	if (level == LIBBPF_DEBUG)
		return 0;
	va_copy(copy, ap);
	n = vsnprintf(load_log + load_log_len, sizeof(load_log) - load_log_len, fmt, copy);
	va_end(copy);
	if (n > 0)
		load_log_len = load_log_len + n < sizeof(load_log) ? load_log_len + n : sizeof(load_log) - 1;
	printf("# ");
	return vprintf(fmt, ap);
}

static unsigned long long status_field(pid_t pid, const char *field)
{
	char line[256], path[64];
	unsigned long long v = ~0ULL;
	size_t n = strlen(field);
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return v;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':')
			v = strtoull(line + n + 1, NULL, 16);
	fclose(f);
	return v;
}

/*
 * Child: create a user namespace (after lowering @lower from pU, unless it
 * is negative) and report, as exit status bits, what it holds there.
 * 1: unshare failed, 2: CAP_SYS_ADMIN in the bounding set, 4: CAP_SYS_ADMIN
 * effective, 8: CAP_NET_ADMIN missing, 16: a UTS namespace (needs
 * CAP_SYS_ADMIN) could be created, 32: unexpected error.
 */
static int probe_child(bool unpriv, int lower)
{
	pid_t pid = fork();
	int status, bits = 0;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		unsigned long long eff;

		if (unpriv && (setgroups(0, NULL) || setresgid(UNPRIV_GID, UNPRIV_GID, UNPRIV_GID) ||
			       setresuid(UNPRIV_UID, UNPRIV_UID, UNPRIV_UID)))
			_exit(64);
		if (lower >= 0 && prctl(PR_CAP_USERNS, PR_CAP_USERNS_LOWER, lower, 0, 0))
			_exit(65);
		if (unshare(CLONE_NEWUSER))
			_exit(1);
		eff = status_field(getpid(), "CapEff");
		if (prctl(PR_CAPBSET_READ, CAP_SYS_ADMIN, 0, 0, 0) != 0)
			bits |= 2;
		if (eff & (1ULL << CAP_SYS_ADMIN))
			bits |= 4;
		if (!(eff & (1ULL << CAP_NET_ADMIN)))
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
	int bits = probe_child(unpriv, -1);

	tap_ok(bits >= 0 && !(bits & 1), "%s: unshare(CLONE_NEWUSER) succeeds under the policy", who);
	tap_ok(bits >= 0 && !(bits & (2 | 4)),
	       "%s: CAP_SYS_ADMIN absent from bounding and effective sets in the namespace (bits %d)",
	       who, bits);
	tap_ok(bits >= 0 && !(bits & 8), "%s: CAP_NET_ADMIN still held in the namespace", who);
	tap_ok(bits >= 0 && !(bits & (16 | 32)),
	       "%s: unshare(CLONE_NEWUTS) inside fails with EPERM", who);
}

static void check_restored(void)
{
	int bits = probe_child(true, -1);

	tap_ok(bits == (2 | 4 | 16),
	       "without the program: namespace holds CAP_SYS_ADMIN again (bits %d)", bits);
}

/*
 * An extension program replacing a function of a loaded userns_create
 * program, and calling the cred kfunc: is its load refused?
 */
static bool ext_program_refused(void)
{
	struct userns_ext_target *target = userns_ext_target__open_and_load();
	struct userns_ext *ext = NULL;
	bool refused = false;

	load_log_clear();
	tap_ok(target != NULL, "the userns_create program an extension would replace loads");
	if (!target)
		return false;
	ext = userns_ext__open();
	if (ext && !bpf_program__set_attach_target(ext->progs.ext_call,
						   bpf_program__fd(target->progs.ext_target),
						   "ext_point"))
		refused = userns_ext__load(ext) != 0;
	userns_ext__destroy(ext);
	userns_ext_target__destroy(target);
	return refused;
}

static bool bad_program_refused(const char *name)
{
	struct userns_bad *skel = userns_bad__open();
	struct bpf_program *prog;
	bool refused;

	load_log_clear();
	if (!skel)
		return false;
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, !strcmp(bpf_program__name(prog), name));
	refused = userns_bad__load(skel) != 0;
	userns_bad__destroy(skel);
	return refused;
}

/* The policy program, in each of its modes. */
static void check_edits(struct userns_edit *skel)
{
	int bits;

	skel->bss->mode = EDIT_DROP_SYS_ADMIN;
	check_narrowed(false);
	check_narrowed(true);
	tap_ok(skel->bss->last_ret == 0 && skel->bss->runs >= 2,
	       "the kfunc accepted the hook's cred (ret %d, %llu runs)",
	       skel->bss->last_ret, (unsigned long long)skel->bss->runs);

	/* Asking for everything gives no more than the creator had. */
	skel->bss->mode = EDIT_RAISE_ALL;
	skel->bss->last_ret = 1;
	bits = probe_child(true, CAP_NET_ADMIN);
	tap_ok(bits == (2 | 4 | 8 | 16) && skel->bss->last_ret == 0,
	       "a program that raises the set is clamped to the creator's (bits %d, ret %d)",
	       bits, skel->bss->last_ret);
	skel->bss->mode = EDIT_NONE;
}

/*
 * A cred reached by walking pointers: refused by the kfunc at run time,
 * or by the verifier at load; in neither case may anything change.
 */
static void check_walked(const char *name, bool refused_at_load_ok)
{
	struct userns_walk *skel = userns_walk__open();
	unsigned long long before = status_field(getpid(), "CapUNs");
	struct bpf_program *prog;
	int err, bits;

	if (!skel) {
		tap_ok(false, "%s: open the BPF object", name);
		return;
	}
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, !strcmp(bpf_program__name(prog), name));
	err = userns_walk__load(skel);
	if (err) {
		tap_ok(refused_at_load_ok, "%s: refused at load (%d)", name, err);
		userns_walk__destroy(skel);
		return;
	}
	err = userns_walk__attach(skel);
	tap_ok(err == 0, "%s: loads and attaches (%d)", name, err);
	bits = probe_child(false, -1);
	tap_ok(skel->data->last_ret == -EPERM,
	       "%s: bpf_cred_narrow_userns_caps() refuses a walked cred (ret %d)",
	       name, skel->data->last_ret);
	tap_ok(bits == (2 | 4 | 16), "%s: the new namespace is unchanged (bits %d)", name, bits);
	tap_ok(status_field(getpid(), "CapUNs") == before,
	       "%s: the test's own set is unchanged (%llx)", name,
	       status_field(getpid(), "CapUNs"));
	userns_walk__destroy(skel);
}

int main(void)
{
	const char *target = getenv("CAPUNS_TARGET");
	const char *kernel = getenv("CAPUNS_KERNEL");
	bool patched = target && !strcmp(target, "patched");
	/* Kernels whose verifier tracks trusted pointers refuse at load:
	 * every series but 6.1's (patched-6.12, patched-mainline). */
	bool trusted_ptrs = kernel && !strncmp(kernel, "patched-", strlen("patched-"));
	/* Why a call of the cred kfunc outside userns_create is refused:
	 * the kfunc filter (6.12 on), 6.1's check before verification. */
	const char *kfunc_refusal = trusted_ptrs ?
		"calling kernel function bpf_cred_narrow_userns_caps is not allowed" :
		"bpf_cred_narrow_userns_caps() is for lsm/userns_create programs only";
	struct userns_edit *skel;
	int err;

	libbpf_set_print(print_libbpf);
	if (!target || (!patched && strcmp(target, "unpatched"))) {
		tap_ok(false, "CAPUNS_TARGET is patched or unpatched (got %s)", target ? target : "unset");
		printf("1..%d\n", tap_n);
		return 1;
	}

	skel = userns_edit__open();
	tap_ok(skel != NULL, "open the BPF object");
	if (!skel) {
		printf("1..%d\n", tap_n);
		return 1;
	}
	err = userns_edit__load(skel);
	if (!patched) {
		tap_ok(err != 0, "unpatched: a program calling bpf_cred_narrow_userns_caps() is refused (%d)",
		       err);
		userns_edit__destroy(skel);
		tap_ok(probe_child(true, -1) == (2 | 4 | 16), "unpatched: namespaces hold CAP_SYS_ADMIN");
		printf("1..%d\n", tap_n);
		return tap_failed != 0;
	}
	tap_ok(err == 0, "patched: program calling bpf_cred_narrow_userns_caps() loads (%d)", err);
	err = err ?: userns_edit__attach(skel);
	tap_ok(err == 0, "patched: program attaches to lsm/userns_create (%d)", err);
	if (!err)
		check_edits(skel);
	userns_edit__destroy(skel);
	check_restored();

	check_walked("walk_current", trusted_ptrs);
	check_walked("walk_parent", trusted_ptrs);
	check_restored();

	tap_ok(bad_program_refused("write_cap_userns"),
	       "verifier refuses a direct store into the hook's cred");
	tap_ok(bad_program_refused("write_euid"), "verifier refuses a write to cred->euid");
	tap_ok(bad_program_refused("write_other_hook"),
	       "verifier refuses a cred write from lsm/cred_prepare");
	tap_ok(bad_program_refused("kfunc_other_hook") && strstr(load_log, kfunc_refusal),
	       "bpf_cred_narrow_userns_caps() from lsm/cred_prepare is refused at load, for the kfunc");
	tap_ok(ext_program_refused() && strstr(load_log, kfunc_refusal),
	       "an extension of a userns_create program calling it is refused at load, for the kfunc");
	printf("1..%d\n", tap_n);
	return tap_failed != 0;
}
