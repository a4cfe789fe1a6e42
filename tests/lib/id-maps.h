/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Id maps of a new user namespace, written as unshare -r writes them:
 * root inside is the writer's own uid and gid.  One writer for all the
 * tests, so that they create namespaces the same way.
 */
#ifndef CAPUNS_TESTS_ID_MAPS_H
#define CAPUNS_TESTS_ID_MAPS_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* Write text to /proc/PID/NAME (pid 0: /proc/self/NAME); 0 or -errno. */
static inline int proc_pid_write(pid_t pid, const char *name, const char *text)
{
	size_t len = strlen(text);
	char path[64];
	ssize_t n;
	int fd, e;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	else
		snprintf(path, sizeof(path), "/proc/self/%s", name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	e = errno;
	close(fd);
	if (n < 0)
		return -e;
	return (size_t)n == len ? 0 : -EIO;
}

/*
 * Map 0 to uid and gid in the user namespace of pid (0: the caller's
 * own).  setgroups gets "deny" before gid_map, or a writer without
 * CAP_SETGID over the parent namespace may not map a gid; uid_map comes
 * first so that a writer without CAP_SYS_ADMIN over the namespace gets
 * map_write()'s EPERM.  Returns 0, or -errno of the first write that failed.
 */
static inline int write_id_maps(pid_t pid, uid_t uid, gid_t gid)
{
	char line[32];
	int r;

	snprintf(line, sizeof(line), "0 %u 1\n", (unsigned)uid);
	r = proc_pid_write(pid, "uid_map", line);
	if (r)
		return r;
	r = proc_pid_write(pid, "setgroups", "deny\n");
	if (r)
		return r;
	snprintf(line, sizeof(line), "0 %u 1\n", (unsigned)gid);
	return proc_pid_write(pid, "gid_map", line);
}

#endif
