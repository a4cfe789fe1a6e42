// SPDX-License-Identifier: GPL-2.0-only
/*
 * CAP_SETPCAP checks that never reach the LSM's capable hook (rule 3c):
 * capset(2) asks cap_capable() directly whether pI may go beyond pI | pP
 * (cap_inh_is_capped()), and so does PR_SET_SECUREBITS.  A task that
 * dropped CAP_SETPCAP from pU and entered a user namespace holds no
 * CAP_SETPCAP in pE there under the series, so both fail with EPERM.  On
 * the BPF backend the kernel's own pE is full inside: without hooks of
 * its own the backend would let the task raise pI and set securebits.
 *
 * Runs as an unprivileged user, prints one line.
 */
#include <sys/capability.h>
#include <linux/securebits.h>

#include "attack.h"
#include "id-maps.h"

/* capset: add CAP_SETPCAP to pI.  0 or -errno. */
static int raise_inheritable(void)
{
	cap_value_t setpcap = CAP_SETPCAP;
	cap_t caps = cap_get_proc();
	int r = 0;

	if (!caps)
		cannot_run("cap_get_proc: %s", strerror(errno));
	if (cap_set_flag(caps, CAP_INHERITABLE, 1, &setpcap, CAP_SET) < 0)
		cannot_run("cap_set_flag: %s", strerror(errno));
	if (cap_set_proc(caps) < 0)
		r = -errno;
	cap_free(caps);
	return r;
}

int main(void)
{
	uid_t uid = getuid(); /* 65534 inside until the map is written */
	gid_t gid = getgid();
	int capset_err, secbits_err, r;

	if (!geteuid())
		cannot_run("must run as an unprivileged user");
	lower_or_die(CAP_SETPCAP);
	if (unshare(CLONE_NEWUSER) < 0)
		cannot_run("unshare(CLONE_NEWUSER): %s", strerror(errno));
	r = write_id_maps(0, uid, gid);
	if (r)
		cannot_run("id maps: %s", strerror(-r));
	capset_err = raise_inheritable();
	secbits_err = prctl(PR_SET_SECUREBITS, SECBIT_NOROOT, 0, 0, 0) < 0 ? -errno : 0;
	if (!capset_err)
		escape("capset put CAP_SETPCAP in pI inside a namespace entered without it");
	if (!secbits_err)
		escape("PR_SET_SECUREBITS succeeded inside a namespace entered without CAP_SETPCAP");
	if (capset_err != -EPERM || secbits_err != -EPERM)
		cannot_run("capset: %s, PR_SET_SECUREBITS: %s (expected EPERM from both)",
			   strerror(-capset_err), strerror(-secbits_err));
	held("capset of pI and PR_SET_SECUREBITS refused (EPERM) without CAP_SETPCAP in the entry set");
}
