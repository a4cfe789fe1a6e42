/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Host unit tests of the capuns.conf parser (pam/conf.c): syntax, first
 * match, users, @group, *, comments, errors with line numbers, and the
 * file checks of capuns_conf_load.  Groups used: "root" (gid 0, root's
 * primary group) exists on every Debian system.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capuns.h"
#include "conf.h"
#include "tap.h"

static uint64_t all(void)
{
	return capuns_set_all().bits;
}

static uint64_t bit(int c)
{
	return UINT64_C(1) << c;
}

static void expect_match(const char *text, const char *user, int line,
			 uint64_t keep, const char *desc)
{
	struct capuns_conf_match m;
	char err[256] = "";
	int r = capuns_conf_parse(text, user, &m, err, sizeof(err));

	TAP_OK(r == 0 && m.matched && m.line == line && m.keep.bits == keep,
	       "%s", desc);
	if (r)
		printf("#   error: %s\n", err);
	else if (!m.matched)
		printf("#   no match\n");
	else if (m.line != line || m.keep.bits != keep)
		printf("#   line %d keep %#llx\n", m.line, (unsigned long long)m.keep.bits);
}

static void expect_nomatch(const char *text, const char *user, const char *desc)
{
	struct capuns_conf_match m;
	char err[256] = "";
	int r = capuns_conf_parse(text, user, &m, err, sizeof(err));

	TAP_OK(r == 0 && !m.matched, "%s", desc);
	if (r)
		printf("#   error: %s\n", err);
}

static void expect_error(const char *text, const char *user, const char *msg,
			 const char *desc)
{
	struct capuns_conf_match m = { .matched = false, .line = 777 };
	char err[256] = "";
	int r = capuns_conf_parse(text, user, &m, err, sizeof(err));

	TAP_OK(r == -EINVAL && strstr(err, msg) && m.line == 777, "%s", desc);
	if (r != -EINVAL || !strstr(err, msg))
		printf("#   r=%d err='%s', want '%s'\n", r, err, msg);
}

static void test_parse(void)
{
	const char *conf =
		"# capuns.conf\n"
		"\n"
		"   # indented comment\n"
		"!cap_net_admin,!cap_sys_admin  alice bob   # two users\n"
		"!cap_net_admin,cap_sys_admin\t@root\n"
		"none  carol\n"
		"all   *\n";

	expect_match(conf, "alice", 4, all() & ~(bit(12) | bit(21)), "user name on line 4");
	expect_match(conf, "bob", 4, all() & ~(bit(12) | bit(21)), "second user on a line");
	expect_match(conf, "root", 5, all() & ~bit(12), "@root matches root (primary group)");
	expect_match(conf, "carol", 6, 0, "none keeps nothing");
	expect_match(conf, "dave", 7, all(), "* matches anyone else");
	expect_match("!cap_net_admin  *\n!cap_sys_admin alice\n", "alice", 1,
		     all() & ~bit(12), "first matching line wins");
	expect_match("cap_chown,cap_kill alice", "alice", 1, bit(0) | bit(5),
		     "last line without newline; plain list is the keep set");
	expect_match("\r\n!cap_sys_rawio\t*\r\n", "x", 2, all() & ~bit(17),
		     "CRLF line ends");
	expect_match("cap_sys_control,41 alice\n", "alice", 1, bit(41),
		     "cap_sys_control and numbers");
	expect_nomatch("!cap_net_admin alice\n", "alicex", "no prefix matching of users");
	expect_nomatch("!cap_net_admin Alice\n", "alice", "user names are case-sensitive");
	expect_nomatch("", "alice", "empty file matches nobody");
	expect_nomatch("# only a comment\n\n", "alice", "comments only");
	expect_nomatch("!cap_net_admin nosuchuser-capuns\n", "alice",
		       "unknown user names are not errors (they never match)");
	expect_nomatch("!cap_net_admin @root\n", "nosuchuser-capuns",
		       "unknown login user is in no group");
}

static void test_errors(void)
{
	char big[CAPUNS_CONF_LINE_MAX + 64];

	expect_error("!cap_net_admin\n", "alice", "line 1: '!cap_net_admin' names no user",
		     "caps without users");
	expect_error("* alice\n", "alice", "line 1", "caps field missing (* as caps)");
	expect_error("all alice\n!cap_bogus *\n", "alice", "line 2: '!cap_bogus': unknown capability",
		     "unknown cap after the match still fails the file");
	expect_error("!cap_net_admin,,cap_kill alice\n", "alice", "malformed", "empty item");
	/* The CLI's parser, as strict: decimal only, names consumed whole. */
	expect_error("012 alice\n", "alice", "line 1: '012': unknown capability",
		     "012 is refused, never octal 10");
	expect_error("all alice\n!cap_chown;id *\n", "alice",
		     "line 2: '!cap_chown;id': unknown capability", "cap_chown;id is refused");
	expect_error("cap_net_admin=eip alice\n", "alice",
		     "line 1: 'cap_net_admin=eip': unknown capability", "cap_net_admin=eip is refused");
	expect_match("12,10 alice\n", "alice", 1, bit(12) | bit(10), "numbers are decimal");
	expect_error("!cap_net_admin @nosuchgroup-capuns\n", "alice",
		     "line 1: unknown group 'nosuchgroup-capuns'", "unknown group");
	expect_error("!cap_net_admin @\n", "alice", "'@' without a group name", "bare @");
	expect_error("cap_chown, cap_kill alice\n", "alice", "line 1", "space inside a list");
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	expect_error(big, "alice", "longer than", "overlong line");
	TAP_EQ(capuns_conf_parse("all *", "", NULL, NULL, 0), -EINVAL, "empty user");
}

static void test_load(void)
{
	char dir[] = "/tmp/capuns-pam-conf.XXXXXX", path[128], err[256];
	struct capuns_conf_match m;
	int fd;

	if (!mkdtemp(dir)) {
		TAP_OK(0, "mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/capuns.conf", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	TAP_OK(fd >= 0 && write(fd, "!cap_net_admin alice\n", 21) == 21, "write a config");
	close(fd);
	TAP_OK(capuns_conf_load(path, "alice", &m, err, sizeof(err)) == 0 && m.matched &&
		       m.keep.bits == (all() & ~bit(12)),
	       "load a 0644 file of ours");
	chmod(path, 0664);
	TAP_EQ(capuns_conf_load(path, "alice", &m, err, sizeof(err)), -EPERM,
		   "group-writable file refused");
	TAP_OK(strstr(err, "not writable") != NULL, "message says why");
	chmod(path, 0646);
	TAP_EQ(capuns_conf_load(path, "alice", &m, err, sizeof(err)), -EPERM,
		   "world-writable file refused");
	chmod(path, 0644);
	TAP_EQ(capuns_conf_load(dir, "alice", &m, err, sizeof(err)), -EINVAL,
		   "a directory is refused");
	char link[160];

	snprintf(link, sizeof(link), "%s/link.conf", dir);
	TAP_OK(symlink(path, link) == 0, "make a symlink");
	TAP_EQ(capuns_conf_load(link, "alice", &m, err, sizeof(err)), -ELOOP,
		   "a symlink is refused");
	unlink(link);
	unlink(path);
	TAP_EQ(capuns_conf_load(path, "alice", &m, err, sizeof(err)), -ENOENT,
		   "missing file is an error");
	TAP_OK(strstr(err, "cannot open") != NULL, "missing file message");
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	TAP_OK(fd >= 0 && write(fd, "all alice\n\0!cap_kill *\n", 23) == 23, "write a NUL");
	close(fd);
	TAP_EQ(capuns_conf_load(path, "alice", &m, err, sizeof(err)), -EINVAL,
		   "a NUL byte is refused");
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	test_parse();
	test_errors();
	test_load();
	return tap_done();
}
