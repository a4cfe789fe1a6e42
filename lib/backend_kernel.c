/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Kernel backend: the capuns series on Linux 6.1.
 *   pU ops        prctl(PR_CAP_USERNS, op, cap, 0, 0)
 *   pU of a task  /proc/PID/status "CapUNs:\t%016llx"
 *   other sets    /proc/PID/status, enforced as shown
 *   strict bit    PR_GET/SET_SECUREBITS, the series' bits (capuns-abi.h)
 *   system mask   /proc/sys/kernel/cap_userns_mask
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "capuns-bpf-abi.h"
#include "capuns.h"
#include "internal.h"

/* Rule 8: pU is the CapUNs line of /proc/PID/status. */
static int kernel_get_userns_set(pid_t pid, uint64_t *set)
{
	char *status;
	int err;

	err = capuns_read_status(pid, &status);
	if (err)
		return err;
	err = capuns_status_field(status, CAPUNS_STATUS_FIELD, set);
	free(status);
	/* prctl answered but /proc does not show pU: not our kernel ABI. */
	return err == -ENOENT ? CAPUNS_EPROTO : err;
}

static int kernel_get_raisable(uint64_t *set)
{
	struct capuns_sets enforced, kernel;
	int err = capuns_proc_sets_enforced(0, &enforced, &kernel);

	if (!err)
		*set = capuns_rule2_raisable(&enforced);
	return err;
}

/*
 * prctl(PR_CAP_USERNS) failed: the kernel's errno.  The series never fails
 * with an errno of the BPF backend's answer band (capuns-bpf-abi.h): such
 * a value is no answer of this backend, and never read as one.
 */
static int kernel_errno(void)
{
	int err = errno;

	if (err >= CAPUNS_BPF_RET_BASE && err <= CAPUNS_BPF_RET_BASE + CAPUNS_BPF_RET_MAX)
		return CAPUNS_EPROTO;
	return -err;
}

static int kernel_probe(void)
{
	uint64_t set;
	int r;

	/* An unpatched kernel answers EINVAL: option 48 is unknown there. */
	r = prctl(PR_CAP_USERNS, PR_CAP_USERNS_IS_SET, 0, 0, 0);
	if (r < 0)
		return errno == EINVAL ? CAPUNS_ENOBACKEND : kernel_errno();
	if (r != 0 && r != 1)
		return CAPUNS_EPROTO;
	/*
	 * A BPF-LSM program may also answer option 48 on a stock kernel;
	 * only the patched kernel shows CapUNs in /proc.
	 */
	r = kernel_get_userns_set(0, &set);
	return r == CAPUNS_EPROTO ? CAPUNS_ENOBACKEND : r;
}

static int kernel_userns_op(int op, int cap)
{
	unsigned long arg = op == PR_CAP_USERNS_CLEAR_ALL ? 0 : (unsigned long)cap;
	int r;

	r = prctl(PR_CAP_USERNS, (unsigned long)op, arg, 0, 0);
	if (r < 0)
		return kernel_errno();
	if (op == PR_CAP_USERNS_IS_SET)
		return r ? 1 : 0;
	return 0;
}

static int kernel_get_strict(unsigned *bits)
{
	int r = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);

	if (r < 0)
		return -errno;
	*bits = (r & SECBIT_USERNS_STRICT_CAPS ? CAPUNS_SECBIT_STRICT : 0) |
		(r & SECBIT_USERNS_STRICT_CAPS_LOCKED ? CAPUNS_SECBIT_STRICT_LOCKED : 0);
	return 0;
}

/* Rule 5: the strict bit and its lock are securebits of the series (capuns-abi.h). */
static int kernel_set_strict(bool lock)
{
	unsigned long old, want;
	int r;

	r = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
	if (r < 0)
		return -errno;
	old = (unsigned long)r;
	want = old | SECBIT_USERNS_STRICT_CAPS | (lock ? SECBIT_USERNS_STRICT_CAPS_LOCKED : 0);
	if (prctl(PR_SET_SECUREBITS, want, 0, 0, 0) < 0)
		return -errno;
	return 0;
}

static int kernel_mask_get(uint64_t *mask)
{
	char *text;
	int err;

	err = capuns_read_file(CAPUNS_MASK_SYSCTL, &text);
	if (err)
		return err == -ENOENT ? CAPUNS_EPROTO : err;
	err = capuns_parse_mask_text(text, mask);
	free(text);
	return err;
}

/* Rule 6: write the sysctl; the kernel intersects. */
static int kernel_mask_drop(uint64_t caps_to_drop)
{
	uint64_t cur, now;
	char buf[32];
	ssize_t n;
	int fd, err, len;

	err = kernel_mask_get(&cur);
	if (err)
		return err;
	/*
	 * Write even when nothing would change: the kernel, not the library,
	 * says whether the caller may (CAP_SYS_CONTROL), so an unprivileged
	 * drop of an absent bit fails as any other. The kernel intersects
	 * with what it has, so a race only drops more.
	 */
	len = snprintf(buf, sizeof(buf), "0x%" PRIx64 "\n", cur & ~caps_to_drop);
	fd = open(CAPUNS_MASK_SYSCTL, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		/* Mode 0644: non-root cannot open it; say what it needs. */
		return errno == EACCES ? -EPERM : -errno;
	n = write(fd, buf, (size_t)len);
	err = n < 0 ? -errno : n != len ? -EIO : 0;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (err)
		return err;
	err = kernel_mask_get(&now);
	if (err)
		return err;
	return now & caps_to_drop ? CAPUNS_EPROTO : 0;
}

const struct capuns_backend capuns_backend_kernel = {
	.name = "kernel",
	.probe = kernel_probe,
	.get_userns_set = kernel_get_userns_set,
	.get_sets = capuns_proc_sets_enforced, /* the kernel enforces what it shows */
	.get_raisable = kernel_get_raisable,
	.userns_op = kernel_userns_op,
	.get_strict = kernel_get_strict,
	.set_strict = kernel_set_strict,
	.mask_get = kernel_mask_get,
	.mask_drop = kernel_mask_drop,
	.mask_cap = CAP_SYS_CONTROL, /* rule 6 */
};
