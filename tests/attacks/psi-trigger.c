// SPDX-License-Identifier: GPL-2.0-only
/*
 * PSI triggers (BPF backend: a capability read that bypasses
 * security_capable()).  psi_trigger_create() decides "privileged" (any
 * window, a real-time poller) from cap_raised(file->f_cred->cap_effective,
 * CAP_SYS_RESOURCE), the opener's raw effective set.  In a user namespace
 * created without CAP_SYS_RESOURCE in pU, the series' pE lacks it, so only
 * unprivileged triggers (windows in multiples of 2 s) are allowed.
 * Control: the same steps without the lowering create the trigger.
 */
#include "attack.h"

#define PRESSURE "/proc/pressure/memory"
/* 150 ms stall in a 1 s window: a privileged trigger (window % 2 s != 0). */
#define TRIGGER "some 150000 1000000"

/* In a child: new user namespace, then the trigger.  0 or -errno. */
static int trigger_in_new_ns(bool lower)
{
	pid_t pid = fork_or_die();
	int fd, r;

	if (pid == 0) {
		if (lower)
			lower_or_die(CAP_SYS_RESOURCE);
		if (unshare(CLONE_NEWUSER) < 0)
			_exit(100 + (errno & 0x7f));
		fd = open(PRESSURE, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			_exit(errno & 0x7f);
		r = write(fd, TRIGGER, strlen(TRIGGER) + 1) < 0 ? errno : 0;
		_exit(r & 0x7f);
	}
	r = wait_status(pid);
	if (r >= 100 && r < 228)
		cannot_run("unshare(CLONE_NEWUSER): %s", strerror(r - 100));
	return -r;
}

int main(void)
{
	int r;

	if (access(PRESSURE, F_OK) < 0)
		cannot_run(PRESSURE ": %s (kernel without PSI)", strerror(errno));
	r = trigger_in_new_ns(false);
	if (r < 0)
		cannot_run("control: a privileged trigger in a new namespace with a full pU: %s",
			   strerror(-r));
	r = trigger_in_new_ns(true);
	if (r == 0)
		escape("a privileged PSI trigger (1 s window, real-time poller) was created in a "
		       "user namespace without cap_sys_resource in pU");
	if (r != -EINVAL && r != -EPERM && r != -EACCES)
		cannot_run("trigger without cap_sys_resource: %s", strerror(-r));
	held("privileged PSI trigger without cap_sys_resource in pU: %s", strerror(-r));
}
