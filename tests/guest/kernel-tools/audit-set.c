// SPDX-License-Identifier: GPL-2.0
/*
 * audit-set 0|1: turn the kernel's audit subsystem off or on (AUDIT_SET
 * over NETLINK_AUDIT, as "auditctl -e" does), so that a guest test can
 * check that a change is audited without auditd.  With no auditd the
 * kernel prints records to its log.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/netlink.h>

int main(int argc, char **argv)
{
	struct {
		struct nlmsghdr nlh;
		struct audit_status s;
	} req = { 0 };
	struct {
		struct nlmsghdr nlh;
		struct nlmsgerr err;
	} ack;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	ssize_t n;
	int fd;

	if (argc != 2 || (strcmp(argv[1], "0") && strcmp(argv[1], "1"))) {
		fprintf(stderr, "usage: audit-set 0|1\n");
		return 2;
	}
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (fd < 0) {
		perror("audit-set: socket(NETLINK_AUDIT)");
		return 1;
	}
	req.nlh.nlmsg_len = sizeof(req);
	req.nlh.nlmsg_type = AUDIT_SET;
	req.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.nlh.nlmsg_seq = 1;
	req.s.mask = AUDIT_STATUS_ENABLED;
	req.s.enabled = atoi(argv[1]);
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
		perror("audit-set: send AUDIT_SET");
		return 1;
	}
	n = recv(fd, &ack, sizeof(ack), 0);
	if (n < (ssize_t)sizeof(ack) || ack.nlh.nlmsg_type != NLMSG_ERROR) {
		fprintf(stderr, "audit-set: no answer from the kernel\n");
		return 1;
	}
	if (ack.err.error) {
		fprintf(stderr, "audit-set: %s\n", strerror(-ack.err.error));
		return 1;
	}
	close(fd);
	return 0;
}
