// SPDX-License-Identifier: GPL-2.0-only
/*
 * Owner path under the strict bit (rule 11): a login that root made
 * strict, with CAP_NET_ADMIN dropped from the bounding set and pU left
 * full, as pam_cap plus pam_capuns set it up.  Its new namespaces lack
 * CAP_NET_ADMIN (rule 3a), so the owner must lack it over them too: a
 * bound on pU alone would let it bring lo up through a socket its child
 * passes up over SCM_RIGHTS.
 */
#include "attack.h"

static int op(int fd)
{
	return set_lo_up(fd);
}

int main(void)
{
	int r;

	require_strict_without(CAP_NET_ADMIN);
	r = net_admin_in_new_ns();
	if (r == 1)
		escape("a new namespace holds cap_net_admin although the strict bit and the "
		       "bounding set exclude it (rule 3a)");
	if (r < 0)
		cannot_run("unshare a user and a network namespace: %s", strerror(-r));
	r = owner_op_on_socket_passed_up(CAP_NET_ADMIN, AF_INET, SOCK_DGRAM, 0, op,
					 "SIOCSIFFLAGS (lo up)");
	if (r == 0)
		escape("the owner, strict with cap_net_admin outside its bounding set, brought "
		       "lo up in its child's netns through a passed socket (SIOCSIFFLAGS)");
	if (r != -EPERM)
		cannot_run("SIOCSIFFLAGS on the passed socket: %s", strerror(-r));
	held("SIOCSIFFLAGS on the passed socket: EPERM (owner bounded by what its "
	     "namespaces get: pU & X under the strict bit)");
}
