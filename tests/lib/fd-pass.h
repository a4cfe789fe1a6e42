/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Passing one file descriptor over a unix socket (SCM_RIGHTS): the tests
 * hand sockets and namespace files of one namespace to a task outside it.
 */
#ifndef CAPUNS_TESTS_FD_PASS_H
#define CAPUNS_TESTS_FD_PASS_H

#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

/* The control buffer of one fd, aligned as struct cmsghdr wants. */
union fd_pass_cmsg {
	struct cmsghdr h;
	char buf[CMSG_SPACE(sizeof(int))];
};

/* Send fd over the unix socket sock, with one byte of data; 0 or -1 (errno set). */
static inline int send_fd(int sock, int fd)
{
	char byte = 'f';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	union fd_pass_cmsg u;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm;

	memset(&u, 0, sizeof(u));
	cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &m, 0) == 1 ? 0 : -1;
}

/* Receive one fd from sock; -1 on error or when the message carries none. */
static inline int recv_fd(int sock)
{
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	union fd_pass_cmsg u;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &m, 0) != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&m);
	if (!cm || cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

#endif
