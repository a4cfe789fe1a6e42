// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libcapuns accepts the BPF backend's encoded prctl(PR_CAP_USERNS)
 * answers only as the ABI defines them (capuns-bpf-abi.h), per operation,
 * and only on the BPF backend's path.  The decoder is checked value by
 * value; then a seccomp filter plays a "backend" that answers with errnos
 * of the band, which libcapuns must not take for answers it does not
 * define (and the kernel backend must not take for answers at all).
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capuns-abi.h"
#include "capuns-bpf-abi.h"
#include "capuns.h"
#include "internal.h"
#include "tap.h"

static const unsigned long ops[] = {
	PR_CAP_USERNS_IS_SET, PR_CAP_USERNS_RAISE, PR_CAP_USERNS_LOWER,
	PR_CAP_USERNS_CLEAR_ALL, CAPUNS_BPF_OP_PROBE, CAPUNS_BPF_OP_STRICT_GET,
	CAPUNS_BPF_OP_STRICT_SET, CAPUNS_BPF_OP_MASK_IS_SET, CAPUNS_BPF_OP_MASK_LOWER,
	CAPUNS_BPF_OP_BOUND_IS_SET,
};

static void test_decoder(void)
{
	int wrong = 0;

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		int max = capuns_bpf_answer_max(ops[i]);

		for (int v = 0; v <= CAPUNS_BPF_RET_MAX; v++) {
			int r = capuns_bpf_decode(ops[i], -1, CAPUNS_BPF_RET_BASE + v);

			if (r != (v <= max ? v : -EPROTO))
				wrong++;
		}
	}
	TAP_EQ(wrong, 0, "every op: exactly its own answers decode, the rest of the band is EPROTO");
	TAP_EQ(capuns_bpf_answer_max(PR_CAP_USERNS_IS_SET), 1, "IS_SET answers 0 or 1");
	TAP_EQ(capuns_bpf_answer_max(PR_CAP_USERNS_LOWER), 0, "LOWER answers 0");
	TAP_EQ(capuns_bpf_answer_max(CAPUNS_BPF_OP_STRICT_GET), 3, "STRICT_GET answers the strict bits");
	TAP_EQ(capuns_bpf_answer_max(CAPUNS_BPF_OP_PROBE), CAPUNS_BPF_ABI_VERSION,
	       "PROBE answers the ABI version");
	TAP_EQ(capuns_bpf_decode(PR_CAP_USERNS_LOWER, -1, CAPUNS_BPF_RET_BASE + 1), -EPROTO,
	       "LOWER answered 4001 is no answer");
	TAP_EQ(capuns_bpf_decode(0x4399, -1, CAPUNS_BPF_RET_BASE), -EPROTO,
	       "an op the ABI does not define has no answers");
	TAP_EQ(capuns_bpf_decode(PR_CAP_USERNS_IS_SET, 1, 0), -EPROTO,
	       "a plain return (the patched kernel's way) is no BPF answer");
	TAP_EQ(capuns_bpf_decode(PR_CAP_USERNS_RAISE, -1, EPERM), -EPERM, "errors pass as they are");
}

/*
 * A seccomp filter that fails prctl(PR_CAP_USERNS, PROBE, ...) with errno
 * probe_err and every other prctl(PR_CAP_USERNS, ...) with other_err.
 */
static int fake_backend(int probe_err, int other_err)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_prctl, 0, 4),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_CAP_USERNS, 0, 2),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CAPUNS_BPF_OP_PROBE, 1, 2),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)probe_err),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)other_err),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0 ? -errno : 0;
}

/*
 * Run fn in a child under fake_backend() (a filter cannot be removed);
 * its TAP lines go to our stdout and it hands its counts back.
 */
static void in_child(const char *backend, int probe_err, int other_err, void (*fn)(void))
{
	int counts[2] = { tap_n, 1 }, pipefd[2], status;
	pid_t pid;

	fflush(stdout);
	if (pipe(pipefd) < 0 || (pid = fork()) < 0) {
		TAP_OK(0, "fork a child for the %s backend", backend);
		return;
	}
	if (pid == 0) {
		setenv("CAPUNS_BACKEND", backend, 1);
		capuns_backend_reset();
		TAP_EQ(fake_backend(probe_err, other_err), 0, "seccomp filter installed");
		fn();
		fflush(stdout);
		counts[0] = tap_n;
		counts[1] = tap_failed;
		if (write(pipefd[1], counts, sizeof(counts)) != sizeof(counts))
			_exit(1);
		_exit(0);
	}
	close(pipefd[1]);
	if (read(pipefd[0], counts, sizeof(counts)) != sizeof(counts))
		counts[1] = 1;
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	tap_n = counts[0];
	tap_failed += counts[1];
	TAP_OK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the %s child finished", backend);
}

static void bpf_answers_outside_the_abi(void)
{
	TAP_EQ_STR(capuns_backend_name(), "bpf", "seccomp answers PROBE like the backend: bpf is used");
	TAP_EQ(capuns_lower(12), CAPUNS_EPROTO, "LOWER answered 4007: refused as EPROTO, not success");
	TAP_EQ(capuns_clear(), CAPUNS_EPROTO, "CLEAR_ALL answered 4007: EPROTO");
	TAP_EQ(capuns_is_set(12), CAPUNS_EPROTO, "IS_SET answered 4007: EPROTO");
	TAP_EQ(capuns_strict_get(&(unsigned){ 0 }), CAPUNS_EPROTO, "STRICT_GET answered 7: EPROTO");
}

static void bpf_wrong_version(void)
{
	TAP_EQ_STR(capuns_backend_name(), "none", "PROBE answered with another ABI version: no backend");
	TAP_EQ(capuns_backend_status(), CAPUNS_EPROTO, "and the reason is EPROTO");
}

static void kernel_band_errno(void)
{
	TAP_EQ_STR(capuns_backend_name(), "none",
		   "kernel backend: an errno of the band is no answer (no backend)");
	TAP_EQ(capuns_backend_status(), CAPUNS_EPROTO, "and the reason is EPROTO");
}

int main(void)
{
	test_decoder();
	/* 4000 + the ABI version for PROBE, 4007 for the rest. */
	in_child("bpf", CAPUNS_BPF_RET_BASE + CAPUNS_BPF_ABI_VERSION, CAPUNS_BPF_RET_BASE + 7,
		 bpf_answers_outside_the_abi);
	in_child("bpf", CAPUNS_BPF_RET_BASE + CAPUNS_BPF_ABI_VERSION + 1, CAPUNS_BPF_RET_BASE,
		 bpf_wrong_version);
	in_child("kernel", CAPUNS_BPF_RET_BASE + 1, CAPUNS_BPF_RET_BASE + 1, kernel_band_errno);
	return tap_done();
}
