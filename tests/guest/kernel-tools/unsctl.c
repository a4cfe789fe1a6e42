// SPDX-License-Identifier: GPL-2.0
/*
 * unsctl: drive PR_CAP_USERNS from the guest tests' shell scripts.
 *
 *   unsctl raw OP CAP [ARG4 [ARG5]]   call prctl(PR_CAP_USERNS, ...) once and
 *                                     print "ret=N" or "errno=NAME"
 *   unsctl lower CAP[,CAP...] -- CMD  lower the caps in pU, then exec CMD
 *   unsctl clear -- CMD               clear pU, then exec CMD
 *   unsctl secbit strict              print SECBIT_USERNS_STRICT_CAPS in
 *                                     decimal, for capsh --secbits: the
 *                                     scripts take the bit from here
 *
 * CAP is a libcap name (cap_net_admin) or a number.  It is a test tool:
 * raw passes its numbers unchecked, so that the kernel's checks are what
 * is tested.  Exit status 0 unless the tool itself failed (2).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <sys/capability.h>

#include "capuns-abi.h"

static int usage(void)
{
	fprintf(stderr, "usage: unsctl raw OP CAP [ARG4 [ARG5]]\n"
			"       unsctl lower CAP[,CAP...] -- CMD [ARG...]\n"
			"       unsctl clear -- CMD [ARG...]\n"
			"       unsctl secbit strict\n");
	return 2;
}

static int parse_ulong(const char *s, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 0);
	return errno || end == s || *end ? -1 : 0;
}

/* libcap knows the names; numbers (e.g. 41, unknown to it) pass through. */
static int parse_cap(const char *s, unsigned long *cap)
{
	cap_value_t v;

	if (!parse_ulong(s, cap))
		return 0;
	if (cap_from_name(s, &v))
		return -1;
	*cap = v;
	return 0;
}

static int cmd_raw(int argc, char **argv)
{
	unsigned long a[4] = { 0, 0, 0, 0 };
	int i, ret;

	if (argc < 4 || argc > 6)
		return usage();
	for (i = 2; i < argc; i++) {
		if ((i == 3 ? parse_cap(argv[i], &a[i - 2]) : parse_ulong(argv[i], &a[i - 2]))) {
			fprintf(stderr, "unsctl: bad number: %s\n", argv[i]);
			return 2;
		}
	}
	ret = prctl(PR_CAP_USERNS, a[0], a[1], a[2], a[3]);
	if (ret < 0)
		printf("errno=%s\n", strerrorname_np(errno));
	else
		printf("ret=%d\n", ret);
	return 0;
}

static int exec_after(char **cmd)
{
	if (!cmd[0])
		return usage();
	execvp(cmd[0], cmd);
	fprintf(stderr, "unsctl: exec %s: %s\n", cmd[0], strerror(errno));
	return 2;
}

static int cmd_lower(int argc, char **argv)
{
	char *list, *tok, *save = NULL;
	unsigned long cap;

	if (argc < 5 || strcmp(argv[3], "--"))
		return usage();
	list = strdup(argv[2]);
	if (!list) {
		perror("unsctl");
		return 2;
	}
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (parse_cap(tok, &cap)) {
			fprintf(stderr, "unsctl: unknown capability: %s\n", tok);
			free(list);
			return 2;
		}
		if (prctl(PR_CAP_USERNS, PR_CAP_USERNS_LOWER, cap, 0, 0)) {
			fprintf(stderr, "unsctl: lower %s: %s\n", tok, strerror(errno));
			free(list);
			return 2;
		}
	}
	free(list);
	return exec_after(argv + 4);
}

static int cmd_clear(int argc, char **argv)
{
	if (argc < 4 || strcmp(argv[2], "--"))
		return usage();
	if (prctl(PR_CAP_USERNS, PR_CAP_USERNS_CLEAR_ALL, 0, 0, 0)) {
		fprintf(stderr, "unsctl: clear: %s\n", strerror(errno));
		return 2;
	}
	return exec_after(argv + 3);
}

/* Needs no kernel support: the scripts ask it on every target. */
static int cmd_secbit(int argc, char **argv)
{
	if (argc != 3 || strcmp(argv[2], "strict"))
		return usage();
	printf("%lu\n", (unsigned long)SECBIT_USERNS_STRICT_CAPS);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "raw"))
		return cmd_raw(argc, argv);
	if (!strcmp(argv[1], "lower"))
		return cmd_lower(argc, argv);
	if (!strcmp(argv[1], "clear"))
		return cmd_clear(argc, argv);
	if (!strcmp(argv[1], "secbit"))
		return cmd_secbit(argc, argv);
	return usage();
}
