// SPDX-License-Identifier: GPL-2.0-only
/*
 * Owner path, SIOCSIFFLAGS: a task whose pU lacks CAP_NET_ADMIN brings lo
 * up in the network namespace of a user namespace it created, through a
 * socket the namespace passed to it over SCM_RIGHTS (rule 11).
 */
#include "attack.h"

static int op(int fd)
{
	return set_lo_up(fd);
}

int main(void)
{
	int r = owner_op_on_passed_socket(CAP_NET_ADMIN, AF_INET, SOCK_DGRAM, 0, op,
					  "SIOCSIFFLAGS (lo up)");

	if (r == 0)
		escape("the owner, pU without cap_net_admin, brought lo up in its child's "
		       "netns through a passed socket (SIOCSIFFLAGS)");
	if (r != -EPERM)
		cannot_run("SIOCSIFFLAGS on the passed socket: %s", strerror(-r));
	held("SIOCSIFFLAGS on the passed socket: EPERM (owner bounded by its pU)");
}
