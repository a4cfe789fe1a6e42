// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The pin tree of the BPF backend: its lock, the pinned maps, the swap of
 * the link directory on a reload, and unload.
 *
 * Reload without a window: the new programs are attached while the old
 * links are still pinned (both sets enforce the same rules on the same
 * maps for a moment, which is harmless: every hook is idempotent), pinned
 * in links-new/, and then links/ is renamed to links-old/ and links-new/ to
 * links/ (two renames in bpffs); the old links are unpinned last.  The
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

#include "capuns-bpf.h"
#include "loader.h"

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
	static long step;
	const char *at = secure_getenv(LOADER_KILL_STEP_ENV);
	char what[128];
	va_list ap;
	char *end;
	long n;

	step++;
	if (!at)
		return;
	errno = 0;
	n = strtol(at, &end, 10);
	if (errno || end == at || *end || n != step)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	loader_msg("test hook %s: killed after step %ld, %s", LOADER_KILL_STEP_ENV, n, what);
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

int pins_lock(bool create)
{
	int fd;

	if (create && mkdir(PIN_DIR, 0755) < 0 && errno != EEXIST)
		return loader_errno("mkdir %s", PIN_DIR);
	fd = open(PIN_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : loader_errno("%s", PIN_DIR);
	if (flock(fd, LOCK_EX) < 0) {
		int err = loader_errno("lock %s", PIN_DIR);

		close(fd);
		return err;
	}
	return fd;
}

int pins_remove_tree(const char *dir)
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
		if (pins_path(path, sizeof(path), dir, de->d_name)) {
			loader_msg("%s/%s: %s", dir, de->d_name, strerror(ENAMETOOLONG));
			err = -ENAMETOOLONG;
		} else if (unlink(path) < 0) {
			err = loader_errno("unlink %s", path);
		}
	}
	closedir(d);
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

int pins_open_map(const char *name)
{
	char path[PATH_MAX];
	int fd;

	if (pins_path(path, sizeof(path), PIN_DIR, name))
		return -ENAMETOOLONG;
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

int pins_read_config(int fd, struct capuns_bpf_config *cfg)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(fd, &zero, cfg) < 0 ? -errno : 0;
}

int pins_map_max_entries(const char *name, __u32 *max)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);
	int fd, err = 0;

	fd = pins_open_map(name);
	if (fd < 0)
		return fd;
	if (bpf_obj_get_info_by_fd(fd, &info, &len) < 0)
		err = -errno;
	else
		*max = info.max_entries;
	close(fd);
	return err;
}

__u32 pins_link_prog_id(const char *name)
{
	struct bpf_link_info info = { 0 };
	__u32 len = sizeof(info), id = 0;
	char path[PATH_MAX];
	int fd;

	if (pins_path(path, sizeof(path), LINKS_DIR, name))
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
	int err;

	err = pins_remove_tree(LINKS_OLD);
	if (err)
		return err;
	if (rename(LINKS_DIR, LINKS_OLD) < 0 && errno != ENOENT)
		return loader_errno("rename %s", LINKS_DIR);
	if (rename(LINKS_NEW, LINKS_DIR) < 0) {
		err = loader_errno("rename %s", LINKS_NEW);
		/* Put the old links back: they still enforce. */
		if (rename(LINKS_OLD, LINKS_DIR) < 0 && errno != ENOENT)
			(void)loader_errno("rename %s back", LINKS_OLD);
		return err;
	}
	return pins_remove_tree(LINKS_OLD);
}

void pins_remove_maps(void)
{
	pins_unlink(PIN_DIR "/" CAPUNS_BPF_PIN_CREDS);
	pins_unlink(PIN_DIR "/" CAPUNS_BPF_PIN_CONFIG);
	pins_unlink(PIN_DIR "/" CAPUNS_BPF_PIN_EVENTS);
	pins_unlink(PIN_DIR "/" CAPUNS_BPF_PIN_QUOTA);
}

int capuns_bpf_unload(void)
{
	static const char *const trees[] = { LINKS_NEW, LINKS_DIR, LINKS_OLD };
	static const char *const pins[] = {
		TASKS_NEW, TASKS_PIN, PIN_DIR "/" CAPUNS_BPF_PIN_CREDS,
		PIN_DIR "/" CAPUNS_BPF_PIN_CONFIG, PIN_DIR "/" CAPUNS_BPF_PIN_EVENTS,
		PIN_DIR "/" CAPUNS_BPF_PIN_QUOTA,
	};
	int lock, err = 0, e;

	e = pins_check_fs();
	if (e)
		return e;
	lock = pins_lock(false);
	if (lock == -ENOENT) {
		loader_msg("not loaded");
		return -ENOENT;
	}
	if (lock < 0)
		return lock;
	/* Links first: enforcement ends, then the state goes. */
	for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++)
		if ((e = pins_remove_tree(trees[i])))
			err = e;
	for (size_t i = 0; i < sizeof(pins) / sizeof(pins[0]); i++)
		if ((e = pins_unlink(pins[i])))
			err = e;
	if (rmdir(PIN_DIR) < 0)
		err = loader_errno("rmdir %s", PIN_DIR);
	close(lock);
	return err;
}
