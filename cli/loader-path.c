/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where capuns finds capuns-bpf, the BPF backend's loader (capuns bpf ...,
 * capuns monitor).  cli/cli.mk compiles this file twice:
 *
 * - for the installed capuns, the loader's installed path, fixed at build
 *   time (CAPUNS_BPF_PATH);
 * - for the build tree's capuns (CAPUNS_BPF_BESIDE), the capuns-bpf in the
 *   directory of the running program: ./build/capuns must drive the loader
 *   built with it, not whichever version is installed.
 *
 * Never a PATH lookup: whoever controls PATH must not answer for the loader.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "loader-path.h"

#ifdef CAPUNS_BPF_BESIDE

int loader_path(char *buf, size_t size)
{
	static const char name[] = "capuns-bpf";
	char *slash;
	ssize_t n;

	if (size == 0)
		return -ENAMETOOLONG;
	/* The program's own file, whatever argv[0] and PATH say. */
	n = readlink("/proc/self/exe", buf, size);
	if (n < 0)
		return -errno;
	if ((size_t)n >= size)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (!slash)
		return -ENOENT;
	if ((size_t)(slash + 1 - buf) + sizeof(name) > size)
		return -ENAMETOOLONG;
	memcpy(slash + 1, name, sizeof(name));
	return 0;
}

#else

#ifndef CAPUNS_BPF_PATH
#error "CAPUNS_BPF_PATH (where capuns-bpf is installed) must be defined by the build"
#endif

int loader_path(char *buf, size_t size)
{
	if (sizeof(CAPUNS_BPF_PATH) > size)
		return -ENAMETOOLONG;
	memcpy(buf, CAPUNS_BPF_PATH, sizeof(CAPUNS_BPF_PATH));
	return 0;
}

#endif
