/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Internal helpers of libcapuns, shared between its files and reachable by
 * the unit tests through the static archive (hidden in the shared library).
 */
#ifndef CAPUNS_INTERNAL_H
#define CAPUNS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "backend.h"

#define CAPUNS_HIDDEN __attribute__((visibility("hidden")))

/*
 * Find "Field:\t<hex>" in the text of a /proc/PID/status file.
 * 0 and *val on success, -ENOENT when the field is absent, CAPUNS_EPROTO
 * when its value is not a 64-bit hex number.
 */
CAPUNS_HIDDEN int capuns_status_field(const char *status, const char *field,
				      uint64_t *val);

/*
 * Read /proc/PID/status (pid 0: /proc/thread-self/status) into a
 * malloc()ed, NUL-terminated buffer.  -ESRCH when there is no such task.
 */
CAPUNS_HIDDEN int capuns_read_status(pid_t pid, char **text);

/*
 * The five classic sets of task pid (0: the calling thread) from
 * /proc/PID/status.  CAPUNS_EPROTO when a line is missing.
 */
CAPUNS_HIDDEN int capuns_proc_sets(pid_t pid, struct capuns_sets *sets);

/*
 * get_sets() of a backend that enforces the kernel's sets as /proc shows
 * them (kernel, none): *enforced = *kernel = capuns_proc_sets().
 */
CAPUNS_HIDDEN int capuns_proc_sets_enforced(pid_t pid, struct capuns_sets *enforced,
					    struct capuns_sets *kernel);

/*
 * Parse the text of kernel.cap_userns_mask: one field in hex ("0x..."; or
 * bare with a digit a-f or 16 digits long) or decimal (the "%lu" of
 * proc_doulongvec_minmax), or the "%lu\t%lu" pair (low, high 32 bits) it
 * prints on 32-bit kernels.
 */
CAPUNS_HIDDEN int capuns_parse_mask_text(const char *text, uint64_t *mask);

/* Read a whole small file into a malloc()ed, NUL-terminated buffer. */
CAPUNS_HIDDEN int capuns_read_file(const char *path, char **text);

/* The backend in use (detected once). */
CAPUNS_HIDDEN const struct capuns_backend *capuns_backend(void);

/*
 * Forget the detected backend, so that the next call detects again.
 * For tests only: not thread-safe.
 */
CAPUNS_HIDDEN void capuns_backend_reset(void);

#endif /* CAPUNS_INTERNAL_H */
