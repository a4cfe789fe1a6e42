// SPDX-License-Identifier: GPL-2.0-only
/*
 * Owner path, low ports: binding port 80 of the child's netns through a
 * passed TCP socket, by the owner whose pU lacks CAP_NET_BIND_SERVICE
 * (rule 11).
 */
#include <netinet/in.h>

#include "attack.h"

static int op(int fd)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(80),
				 .sin_addr.s_addr = htonl(INADDR_ANY) };

	return bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ? -errno : 0;
}

int main(void)
{
	int r = owner_op_on_passed_socket(CAP_NET_BIND_SERVICE, AF_INET, SOCK_STREAM, 0, op,
					  "bind to port 80");

	if (r == 0)
		escape("the owner, pU without cap_net_bind_service, bound port 80 in its "
		       "child's netns through a passed socket");
	if (r != -EACCES && r != -EPERM)
		cannot_run("bind on the passed socket: %s", strerror(-r));
	held("bind to port 80 on the passed socket: %s (owner bounded by its pU)", strerror(-r));
}
