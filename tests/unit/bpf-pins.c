// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The loader's pin functions (bpf/pins.c) on the host, where nothing can
 * be loaded: each is made to fail, by the file system itself (a directory
 * where a pin should be, a file where a directory should be) or by an
 * injected failure of the system call (linked with --wrap), and must
 * return the errno of that failure and name it in its message.  stderr is
 * pointed at /dev/full while it runs, so that the message's own stdio
 * fails with ENOSPC: a function that reads errno after its message
 * returns -ENOSPC instead.  Also the order in which a backend's pins are
 * removed: links before the state, task_prctl's first, cred_free's last.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "loader.h"
#include "tap.h"

/* ---- injected failures ---------------------------------------------------- */

/* The next call of `call` (on `path`, or on any path when NULL) fails with err. */
static struct {
	const char *call, *path;
	int err;
} inject;

static void fail_next(const char *call, const char *path, int err)
{
	inject.call = call;
	inject.path = path;
	inject.err = err;
}

static bool injected(const char *call, const char *path)
{
	if (!inject.call || strcmp(inject.call, call) || (inject.path && strcmp(inject.path, path)))
		return false;
	errno = inject.err;
	inject.call = NULL;
	return true;
}

int __real_statfs(const char *path, struct statfs *st);
int __wrap_statfs(const char *path, struct statfs *st)
{
	return injected("statfs", path) ? -1 : __real_statfs(path, st);
}

/* Every unlink() while recording: "parent/name" of each, in order. */
static char unlinked[64][64];
static int nunlinked = -1;

int __real_unlink(const char *path);
int __wrap_unlink(const char *path)
{
	if (nunlinked >= 0 && nunlinked < 64) {
		const char *name = strrchr(path, '/'), *parent = name;

		while (parent > path && parent[-1] != '/')
			parent--;
		snprintf(unlinked[nunlinked++], sizeof(unlinked[0]), "%s", parent);
	}
	return injected("unlink", path) ? -1 : __real_unlink(path);
}

int __real_open(const char *path, int flags, ...);
int __wrap_open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (injected("open", path))
		return -1;
	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return __real_open(path, flags, mode);
}

int __real_rename(const char *from, const char *to);
int __wrap_rename(const char *from, const char *to)
{
	return injected("rename", from) ? -1 : __real_rename(from, to);
}

int __real_renameat2(int fromfd, const char *from, int tofd, const char *to, unsigned flags);
int __wrap_renameat2(int fromfd, const char *from, int tofd, const char *to, unsigned flags)
{
	return injected("renameat2", from) ? -1 : __real_renameat2(fromfd, from, tofd, to, flags);
}

/* ---- stderr --------------------------------------------------------------- */

static int saved_stderr = -1;
static char msg_path[] = "/tmp/capuns-bpf-pins.XXXXXX";

/* Messages to /dev/full (every write fails with ENOSPC) or to a file. */
static void stderr_to(bool full)
{
	int fd = full ? open("/dev/full", O_WRONLY | O_CLOEXEC)
		      : open(msg_path, O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd < 0 || dup2(fd, STDERR_FILENO) < 0) {
		perror("stderr");
		exit(2);
	}
	close(fd);
	clearerr(stderr);
}

static void stderr_back(void)
{
	fflush(stderr);
	if (dup2(saved_stderr, STDERR_FILENO) < 0)
		exit(2);
	clearerr(stderr);
}

/* What the last stderr_to(false) collected. */
static const char *messages(void)
{
	static char buf[4096];
	FILE *f = fopen(msg_path, "re");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

/*
 * Run expr twice: with the message going nowhere (its result is checked)
 * and with the message collected (it must name the errno).
 */
#define CHECK_ERRNO(expr, want, what)                                                   \
	do {                                                                            \
		char want_msg_[256];                                                    \
		int got_;                                                               \
		prepare();                                                              \
		stderr_to(true);                                                        \
		arm();                                                                  \
		got_ = (expr);                                                          \
		stderr_back();                                                          \
		TAP_EQ(got_, -(want), "%s: -%s, though the message failed with ENOSPC", \
		       what, strerrorname_np(want));                                    \
		prepare();                                                              \
		stderr_to(false);                                                       \
		arm();                                                                  \
		got_ = (expr);                                                          \
		stderr_back();                                                          \
		snprintf(want_msg_, sizeof(want_msg_), ": %s\n", strerror(want));      \
		if (!tap_ok(got_ == -(want) && strstr(messages(), want_msg_),           \
			    "%s: the message names %s", what, strerrorname_np(want)))   \
			printf("#   returned %d, message '%s'\n", got_, messages());     \
	} while (0)

static char dir[] = "/tmp/capuns-bpf-pins-dir.XXXXXX";
static char path[512], sub[512], below[600];

/* Per case: what is set up before each run, and what is injected. */
static void (*prepare)(void);
static void (*arm)(void);
static void nothing(void) {}

static void make_subdir(void)
{
	if (mkdir(sub, 0700) < 0 && errno != EEXIST)
		exit(2);
}

static void make_file(void)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0)
		exit(2);
	close(fd);
}

/* A backend's tree of plain files at dir/tree: what pins_remove_backend() removes. */
static char tree[512];

static void touch(const char *sub, const char *name)
{
	char p[1024];
	int fd;

	snprintf(p, sizeof(p), "%s%s%s/%s", tree, *sub ? "/" : "", sub, name);
	fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		exit(2);
	close(fd);
}

static void make_tree(void)
{
	static const char *const links[] = { "capuns_capable", "capuns_task_prctl",
					     "capuns_cred_free", "capuns_bprm_creds_from_file",
					     "capuns_cred_prepare" };
	char p[1024];

	if (mkdir(tree, 0700) < 0)
		exit(2);
	for (int i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/%s", tree, i ? "links-new" : "links");
		if (mkdir(p, 0700) < 0)
			exit(2);
		for (size_t j = 0; j < sizeof(links) / sizeof(links[0]); j++)
			touch(i ? "links-new" : "links", links[j]);
	}
	touch("", "creds");
	touch("", "config");
	touch("", "tasks");
}

/* The same with links/ a plain file: opendir() fails with ENOTDIR. */
static void make_bad_tree(void)
{
	if (mkdir(tree, 0700) < 0)
		exit(2);
	touch("", "links");
	touch("", "creds");
}

static int remove_backend(void)
{
	int err = pins_remove_backend(tree);

	return err ? err : access(tree, F_OK) == 0 ? -EEXIST : 0;
}

static int position(const char *entry)
{
	for (int i = 0; i < nunlinked; i++)
		if (!strcmp(unlinked[i], entry))
			return i;
	return -1;
}

static void arm_statfs(void) { fail_next("statfs", PIN_ROOT, EACCES); }
static void arm_open(void) { fail_next("open", PIN_ROOT, EACCES); }
static void arm_exchange(void) { fail_next("renameat2", LINKS_NEW, EBUSY); }
/* The exchange finds no links/ here (ENOENT): then the plain rename fails. */
static void arm_rename(void) { fail_next("rename", LINKS_NEW, EXDEV); }

static int errno_after_message(void)
{
	errno = EPERM;
	return loader_errno("%s", "something");
}

static int errno_zero(void)
{
	errno = 0;
	return loader_errno("%s", "something");
}

int main(void)
{
	int fd;

	saved_stderr = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	fd = mkstemp(msg_path);
	if (saved_stderr < 0 || fd < 0 || !mkdtemp(dir))
		return 2;
	close(fd);
	snprintf(path, sizeof(path), "%s/file", dir);
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	snprintf(tree, sizeof(tree), "%s/tree", dir);

	prepare = nothing;
	arm = nothing;
	CHECK_ERRNO(errno_after_message(), EPERM, "loader_errno()");
	/* errno 0 after a failure must still fail (closed). */
	CHECK_ERRNO(errno_zero(), EIO, "loader_errno() with errno 0");

	/* The file system says no. */
	prepare = make_subdir;
	CHECK_ERRNO(pins_unlink(sub), EISDIR, "pins_unlink() of a directory");
	prepare = make_file;
	CHECK_ERRNO(pins_remove_tree(path), ENOTDIR, "pins_remove_tree() of a file");

	/* The system call says no (the pin root is not on this host). */
	prepare = nothing;
	arm = arm_statfs;
	CHECK_ERRNO(pins_check_fs(), EACCES, "pins_check_fs(), statfs failing");
	arm = arm_open;
	CHECK_ERRNO(pins_lock(), EACCES, "pins_lock(), open failing");
	arm = arm_exchange;
	CHECK_ERRNO(pins_swap_links(), EBUSY, "pins_swap_links(), the exchange failing");
	arm = arm_rename;
	CHECK_ERRNO(pins_swap_links(), EXDEV, "pins_swap_links(), the rename without links/ failing");
	arm = nothing;
	prepare = make_file;
	snprintf(below, sizeof(below), "%s/x", path);
	CHECK_ERRNO(pins_present(below), ENOTDIR, "pins_present() below a file");
	prepare = make_bad_tree;
	CHECK_ERRNO(remove_backend(), ENOTDIR, "pins_remove_backend() with links/ a file");

	/* The order links are pinned in, and removed in reverse. */
	TAP_EQ(pins_link_rank("capuns_cred_free"), 0, "cred_free is pinned first");
	TAP_EQ(pins_link_rank("capuns_task_prctl"), PINS_LINK_RANKS - 1, "task_prctl is pinned last");
	TAP_OK(pins_link_rank("capuns_file_open") < pins_link_rank("capuns_cred_prepare") &&
		       pins_link_rank("capuns_capable") < pins_link_rank("capuns_cred_prepare"),
	       "the hooks that only read entries come before those that write them");
	TAP_OK(pins_link_rank("capuns_cred_transfer") < pins_link_rank("capuns_cred_alloc_blank"),
	       "cred_transfer comes before cred_alloc_blank");
	TAP_EQ(pins_link_rank("capuns_nonesuch"), -1, "a name not in the order has no rank");
	make_tree();
	nunlinked = 0;
	TAP_EQ(remove_backend(), 0, "pins_remove_backend() removes a whole tree");
	{
		int prctl = position("links/capuns_task_prctl"), prctl_new = position("links-new/capuns_task_prctl");
		int bprm = position("links/capuns_bprm_creds_from_file");
		int capable = position("links/capuns_capable"), prepare_ = position("links/capuns_cred_prepare");
		int free_ = position("links/capuns_cred_free"), free_new = position("links-new/capuns_cred_free");
		int creds = position("tree/creds"), config = position("tree/config"), tasks = position("tree/tasks");

		TAP_OK(nunlinked == 13, "13 pins unlinked (got %d)", nunlinked);
		TAP_OK(prctl >= 0 && prctl_new >= 0 && prctl < 2 && prctl_new < 2,
		       "task_prctl's links go first");
		TAP_OK(bprm > prctl && prepare_ > bprm && capable > prepare_ && free_ > capable,
		       "then bprm_creds_from_file, cred_prepare, capable, cred_free");
		TAP_OK(free_ >= 0 && free_new >= 0 && free_ < 10 && free_new < 10 && free_ >= 8 &&
			       free_new >= 8,
		       "cred_free's links are the last links");
		TAP_OK(creds >= 10 && config >= 10 && tasks >= 10, "the maps and the iterator after every link");
	}
	nunlinked = -1;

	unlink(path);
	rmdir(sub);
	rmdir(dir);
	unlink(msg_path);
	return tap_done();
}
