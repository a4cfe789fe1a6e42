// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The pin tree of the BPF backend: its lock, the pinned maps, the swap of
 * the link directory on a reload, and unload.
 *
 * Reload without a window: the new programs are attached while the old
 * links are still pinned (both sets enforce the same rules on the same
 * maps for a moment, which is harmless: every hook is idempotent), pinned
 * in links-new/, and then links/ and links-new/ are exchanged in one
 * renameat2(RENAME_EXCHANGE); the old links are unpinned last.  The
 * loader's own file descriptors keep the new links alive throughout.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <linux/magic.h>

#include "c.h"
#include "capuns-bpf.h"
#include "loader.h"
#include "strutils.h"

static void loader_vmsg(int err, const char *fmt, va_list ap)
{
	fputs("capuns-bpf: ", stderr);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

void loader_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	loader_vmsg(0, fmt, ap);
	va_end(ap);
}

int loader_errno(const char *fmt, ...)
{
	/* First: the stdio below may set errno (stderr on a full disk, closed). */
	int err = errno;
	va_list ap;

	/* A failure that left errno at 0 must not read as a success. */
	if (err <= 0)
		err = EIO;
	va_start(ap, fmt);
	loader_vmsg(err, fmt, ap);
	va_end(ap);
	return -err;
}

void loader_step(const char *fmt, ...)
{
	static unsigned long step;
	const char *at = secure_getenv(LOADER_KILL_STEP_ENV);
	unsigned long n;
	char what[128];
	va_list ap;
	bool trace;

	step++;
	if (!at)
		return;
	trace = !strcmp(at, "trace");
	if (!trace && (parse_decimal(at, 1, ULONG_MAX, &n) || n != step))
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (trace) {
		loader_msg("test hook %s: step %lu, %s", LOADER_KILL_STEP_ENV, step, what);
		return;
	}
	loader_msg("test hook %s: killed after step %lu, %s", LOADER_KILL_STEP_ENV, n, what);
	raise(SIGKILL);
}

int pins_path(char *buf, size_t len, const char *dir, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int pins_check_fs(void)
{
	struct statfs st;

	if (statfs(PIN_ROOT, &st) < 0)
		return loader_errno("%s", PIN_ROOT);
	if (st.f_type != BPF_FS_MAGIC) {
		loader_msg("no bpf filesystem at %s (mount -t bpf bpf %s)", PIN_ROOT, PIN_ROOT);
		return -ENODEV;
	}
	return 0;
}

int pins_lock(void)
{
	/* The bpffs root: PIN_DIR exists only once a load has published it. */
	int fd = open(PIN_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return loader_errno("%s", PIN_ROOT);
	if (flock(fd, LOCK_EX) < 0) {
		int err = loader_errno("lock %s", PIN_ROOT);

		close(fd);
		return err;
	}
	return fd;
}

int pins_check_and_lock(void)
{
	int err = pins_check_fs();

	return err ? err : pins_lock();
}

int pins_present(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0)
		return 1;
	return errno == ENOENT ? 0 : loader_errno("%s", path);
}

/*
 * Unlink the entries of dir: every one (rank -1), or the links of one
 * rank of the pin order.  A missing dir has none.  Goes on after a
 * failure and returns the last one.
 */
static int unlink_entries(const char *dir, int rank)
{
	char path[PATH_MAX];
	struct dirent *de;
	int err = 0;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : loader_errno("%s", dir);
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (rank >= 0 && pins_link_rank(de->d_name) != rank)
			continue;
		if (pins_path(path, sizeof(path), dir, de->d_name)) {
			loader_msg("%s/%s: %s", dir, de->d_name, strerror(ENAMETOOLONG));
			err = -ENAMETOOLONG;
		} else if (unlink(path) < 0) {
			err = loader_errno("unlink %s", path);
		}
	}
	closedir(d);
	return err;
}

int pins_remove_tree(const char *dir)
{
	int err = unlink_entries(dir, -1);

	if (rmdir(dir) < 0 && errno != ENOENT)
		err = loader_errno("rmdir %s", dir);
	return err;
}

int pins_unlink(const char *path)
{
	if (unlink(path) < 0 && errno != ENOENT)
		return loader_errno("unlink %s", path);
	return 0;
}

int pins_open_map(const char *dir, const char *name)
{
	char path[PATH_MAX];
	int fd;

	if (pins_path(path, sizeof(path), dir, name))
		return -ENAMETOOLONG;
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

int pins_read_config(int fd, struct capuns_bpf_config *cfg)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(fd, &zero, cfg) < 0 ? -errno : 0;
}

int pins_map_max_entries(const char *dir, const char *name, __u32 *max)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);
	int fd, err = 0;

	fd = pins_open_map(dir, name);
	if (fd < 0)
		return fd;
	if (bpf_obj_get_info_by_fd(fd, &info, &len) < 0)
		err = -errno;
	else
		*max = info.max_entries;
	close(fd);
	return err;
}

__u32 pins_link_prog_id(const char *links, const char *name)
{
	struct bpf_link_info info = { 0 };
	__u32 len = sizeof(info), id = 0;
	char path[PATH_MAX];
	int fd;

	if (pins_path(path, sizeof(path), links, name))
		return 0;
	fd = bpf_obj_get(path);
	if (fd < 0)
		return 0;
	if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0)
		id = info.prog_id;
	close(fd);
	return id;
}

int pins_swap_links(void)
{
	/*
	 * One exchange: links/ always holds a complete set, the old or the
	 * new one (two renames left a moment, and after a kill a state,
	 * without links/, which status reported as no hook attached).
	 */
	if (renameat2(AT_FDCWD, LINKS_NEW, AT_FDCWD, LINKS_DIR, RENAME_EXCHANGE) == 0)
		return pins_remove_tree(LINKS_NEW); /* now the old links */
	if (errno != ENOENT)
		return loader_errno("exchange %s and %s", LINKS_NEW, LINKS_DIR);
	/* No links/ (its backend had lost its links): nothing to exchange with. */
	if (rename(LINKS_NEW, LINKS_DIR) < 0)
		return loader_errno("rename %s", LINKS_NEW);
	return 0;
}

/*
 * The order in which a load pins the links of the hooks, so that the pins
 * of a loader killed midway are always a consistent set (see loader.h).
 * cred_free first: no entry may outlive its credential and be applied to
 * the next credential at the same address.  Then every hook that only
 * reads entries, before any that writes them: during a reload the old
 * programs' credential filter does not count the entries the new ones
 * create (each object has its own), so an old reader may miss them, and
 * only the new readers, which always look up, see them; a new writer
 * must not be attached without every new reader.  cred_transfer before
 * cred_alloc_blank, whose blank entry it fills.  Last the two through
 * which restrictions begin, rule 10's bprm_creds_from_file and
 * task_prctl (every other restriction and the mask): on a first load
 * nobody can be restricted until task_prctl is pinned.  Every hook of
 * the object must be here (skeleton.c checks the count, pin_links() the
 * names).
 */
static const char *const link_order[] = {
	"capuns_cred_free",
	/* readers */
	"capuns_capable",
	"capuns_ptrace_access_check",
	"capuns_ptrace_traceme",
	"capuns_task_setnice",
	"capuns_task_setioprio",
	"capuns_task_setscheduler",
	"capuns_file_open",
	"capuns_capset",
	"capuns_securebits",
	/* writers */
	"capuns_cred_prepare",
	"capuns_cred_transfer",
	"capuns_cred_alloc_blank",
	"capuns_userns_create",
	"capuns_userns_install",
	"capuns_bprm_creds_from_file",
	"capuns_task_prctl",
};

_Static_assert(ARRAY_SIZE(link_order) == PINS_LINK_RANKS,
	       "PINS_LINK_RANKS is the length of the pin order");

int pins_link_rank(const char *name)
{
	for (int i = 0; i < PINS_LINK_RANKS; i++)
		if (!strcmp(name, link_order[i]))
			return i;
	return -1;
}

int pins_remove_backend(const char *dir)
{
	/* links, a reload's new links, and the old ones of earlier loaders' swap */
	enum { NDIRS = 3 };
	static const char *const link_dirs[NDIRS] = {
		CAPUNS_BPF_PIN_LINKS "-new", CAPUNS_BPF_PIN_LINKS, CAPUNS_BPF_PIN_LINKS "-old",
	};
	const size_t ndirs = NDIRS;
	char links[NDIRS][PATH_MAX];
	int err = 0, e;

	for (size_t i = 0; i < ndirs; i++)
		if (pins_path(links[i], sizeof(links[i]), dir, link_dirs[i])) {
			loader_msg("%s/%s: %s", dir, link_dirs[i], strerror(ENAMETOOLONG));
			return -ENAMETOOLONG;
		}
	/*
	 * Links first, in the reverse of the pin order, so that an unload
	 * killed midway leaves a consistent set too; then the state.
	 */
	for (int rank = PINS_LINK_RANKS - 1; rank >= 0; rank--)
		for (size_t i = 0; i < ndirs; i++)
			if ((e = unlink_entries(links[i], rank)))
				err = e;
	for (size_t i = 0; i < ndirs; i++)
		if ((e = pins_remove_tree(links[i])))
			err = e;
	if ((e = pins_remove_tree(dir)))
		err = e;
	return err;
}

int capuns_bpf_unload(void)
{
	int lock, live, stage, err = 0, e;

	lock = pins_check_and_lock();
	if (lock < 0)
		return lock;
	live = pins_present(PIN_DIR);
	stage = pins_present(STAGE_DIR);
	if (live < 0 || stage < 0) {
		err = live < 0 ? live : stage;
	} else if (!live && !stage) {
		loader_msg("not loaded");
		err = -ENOENT;
	}
	if (live > 0)
		err = pins_remove_backend(PIN_DIR);
	if (stage > 0) {
		loader_msg("removing the pins of an interrupted load (%s)", STAGE_DIR);
		if ((e = pins_remove_backend(STAGE_DIR)))
			err = e;
	}
	close(lock);
	return err;
}
