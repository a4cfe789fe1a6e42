// SPDX-License-Identifier: GPL-2.0-only
/*
 * Owner path, x_tables: IPT_SO_SET_REPLACE (the setsockopt of
 * CVE-2021-22555) on a raw socket of the child's netns, by the owner whose
 * pU lacks CAP_NET_ADMIN (rule 11).  The replace blob is empty: past
 * the capability check ip_tables answers EINVAL, so nothing is changed.
 */
#include <netinet/in.h>

#include "attack.h"

/*
 * From <linux/netfilter_ipv4/ip_tables.h>, which cannot be included with
 * <net/if.h> (both define struct ifreq): IPT_BASE_CTL.
 */
#define IPT_SO_SET_REPLACE 64
/* Larger than struct ipt_replace; all zero: no counters, so EINVAL. */
#define REPLACE_SIZE 256

static int op(int fd)
{
	char repl[REPLACE_SIZE] = { 0 };

	if (setsockopt(fd, IPPROTO_IP, IPT_SO_SET_REPLACE, repl, sizeof(repl)) == 0)
		return 0;
	if (errno == ENOPROTOOPT)
		cannot_run("IPT_SO_SET_REPLACE: ENOPROTOOPT (no ip_tables in this kernel)");
	/* Any error but EPERM was produced past ns_capable(CAP_NET_ADMIN). */
	return errno == EPERM ? -EPERM : 0;
}

int main(void)
{
	int r = owner_op_on_passed_socket(CAP_NET_ADMIN, AF_INET, SOCK_RAW, IPPROTO_RAW, op,
					  "IPT_SO_SET_REPLACE");

	if (r == 0)
		escape("the owner, pU without cap_net_admin, passed the CAP_NET_ADMIN check of "
		       "IPT_SO_SET_REPLACE on its child's raw socket (x_tables reachable)");
	held("IPT_SO_SET_REPLACE on the passed socket: EPERM (owner bounded by its pU)");
}
