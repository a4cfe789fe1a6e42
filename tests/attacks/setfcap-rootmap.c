// SPDX-License-Identifier: GPL-2.0-only
/*
 * File capabilities written through a namespace whose root is its
 * parent's root (rule 3, the CAP_SETFCAP residue in docs/rules.md).
 *
 * create_user_ns() records whether the creator held CAP_SETFCAP in its
 * own effective set (parent_could_setfcap); without it, the new namespace
 * may not map its parent's uid 0 from inside (verify_root_map()), which
 * asks no capability and calls no LSM hook.  A task that dropped
 * CAP_SETFCAP from pU and entered a namespace has no CAP_SETFCAP there
 * under the series, so a namespace it creates below may not map that
 * root.  On the BPF backend the kernel's own effective set is full there
 * and the map succeeds; what must still fail is the use the check guards
 * against: writing security.capability, which asks CAP_SETFCAP of the
 * LSM (and meets the backend's bound).
 *
 * A control run without the drop must write the attribute, or the attack
 * cannot show anything.  Runs as an unprivileged user, prints one line.
 */
#include <linux/capability.h>
#include <sys/xattr.h>

#include "attack.h"
#include "id-maps.h"

/* linux/xattr.h would clash with sys/xattr.h */
#define FCAPS_XATTR "security.capability"

enum {
	WROTE = 0,           /* security.capability written */
	MAP_REFUSED = 10,    /* the inner namespace could not map its parent's root */
	XATTR_REFUSED = 11,  /* setxattr refused with EPERM */
	SETUP_FAILED = 20,   /* anything else: the attack could not run */
};

/* v2 file capabilities: cap_net_admin permitted and effective. */
static int write_fcaps(const char *path)
{
	struct vfs_cap_data v2 = {
		.magic_etc = VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE,
		.data = { { .permitted = 1U << CAP_NET_ADMIN } },
	};

	return setxattr(path, FCAPS_XATTR, &v2, XATTR_CAPS_SZ_2, 0) < 0 ? -errno : 0;
}

/*
 * In a child: optionally drop CAP_SETFCAP from pU, enter a namespace
 * (root = this user), then one below it that maps its parent's root
 * ("0 0 1"), and write file capabilities on path.  Exits with one of the
 * codes above.
 */
static void child(const char *path, bool drop)
{
	uid_t uid = getuid();
	gid_t gid = getgid();
	int r;

	if (drop && capuns_lower(CAP_SETFCAP) < 0)
		_exit(SETUP_FAILED);
	if (unshare(CLONE_NEWUSER) < 0 || write_id_maps(0, uid, gid))
		_exit(SETUP_FAILED);
	if (unshare(CLONE_NEWUSER) < 0)
		_exit(SETUP_FAILED);
	r = write_id_maps(0, 0, 0);
	if (r == -EPERM)
		_exit(MAP_REFUSED);
	if (r) {
		fprintf(stderr, "inner id maps: %s\n", strerror(-r));
		_exit(SETUP_FAILED);
	}
	r = write_fcaps(path);
	if (r == -EPERM)
		_exit(XATTR_REFUSED);
	if (r) {
		fprintf(stderr, "setxattr %s: %s\n", FCAPS_XATTR, strerror(-r));
		_exit(SETUP_FAILED);
	}
	_exit(WROTE);
}

static int run_child(const char *path, bool drop)
{
	pid_t pid = fork_or_die();

	if (pid == 0)
		child(path, drop);
	return wait_status(pid);
}

int main(void)
{
	char dir[] = "/tmp/setfcap-XXXXXX", control[64], target[64];
	int fd, st;

	if (!geteuid())
		cannot_run("must run as an unprivileged user");
	if (!mkdtemp(dir))
		cannot_run("mkdtemp: %s", strerror(errno));
	snprintf(control, sizeof(control), "%s/control", dir);
	snprintf(target, sizeof(target), "%s/target", dir);
	for (const char *p = control; p; p = p == control ? target : NULL) {
		fd = open(p, O_CREAT | O_WRONLY | O_EXCL, 0755);
		if (fd < 0)
			cannot_run("create %s: %s", p, strerror(errno));
		close(fd);
	}

	st = run_child(control, false);
	if (st != WROTE)
		cannot_run("control: without the drop, the nested root map and setxattr "
			   "did not both work (child status %d)", st);
	st = run_child(target, true);
	/* The verdict is the file's, whatever the child said. */
	if (getxattr(target, FCAPS_XATTR, NULL, 0) >= 0)
		escape("file capabilities written from a namespace entered without CAP_SETFCAP");
	if (errno != ENODATA)
		cannot_run("getxattr %s: %s", target, strerror(errno));
	if (st == MAP_REFUSED)
		held("the inner namespace may not map its parent's root (EPERM): its creator "
		     "had no CAP_SETFCAP");
	if (st == XATTR_REFUSED)
		held("the inner namespace maps its parent's root, but security.capability "
		     "is refused (EPERM): CAP_SETFCAP is outside the entry set");
	cannot_run("child status %d (neither refusal)", st);
}
