/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capuns: show and change the user-namespace capability set (pU), in the
 * manner of capsh.  See capuns(1).
 *
 *   capuns [--print] [--pid=PID] [--json]
 *   capuns [--drop=CAPS] [--only=CAPS] [--raise=CAPS] [--clear]
 *          [--strict[=lock]] [-- COMMAND [ARG...]]
 *   capuns mask [--drop=CAPS] [--json]
 *   capuns check CAP [--depth=N]
 *
 * Every argument is checked before anything is changed: a usage error
 * exits 2 with no change.  Changes then apply in command-line order to this
 * process only, which execs COMMAND; if one fails, capuns exits 1 without
 * running COMMAND, so the partial change dies with it.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "c.h"
#include "capuns.h"
#include "conf.h"
#include "json_writer.h"
#include "loader-path.h"
#include "settext.h"
#include "strutils.h"

#define EXIT_USAGE 2
#define EXIT_CHECK_MISSING 3
/* check-conf: a good file whose rules nothing would enforce (a lockout). */
#define EXIT_CONF_UNENFORCED 4
#define EXIT_EXEC_FAILED 126
#define EXIT_EXEC_NOTFOUND 127

#define CHECK_DEPTH_DEFAULT 3
#define CHECK_DEPTH_MAX 32 /* the kernel's nesting limit for user namespaces */

static const char *prog = "capuns";

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [--print] [--pid=PID] [--json]\n"
		"       %s [--drop=CAPS] [--only=CAPS] [--raise=CAPS] [--clear]\n"
		"              [--strict[=lock]] [-- COMMAND [ARG...]]\n"
		"       %s mask [--drop=CAPS] [--json]\n"
		"       %s check CAP [--depth=N]\n"
		"       %s check-conf [--user NAME]... [--protect NAME]... [FILE]\n"
		"       %s bpf load|unload|status [OPTION...]\n"
		"       %s monitor [--json|--journal] [--backlog] [--count=N] [--timeout=SECONDS]\n"
		"       %s complain [on|off]\n"
		"       %s learn [--for=NAME|@GROUP] [--] COMMAND [ARG...]\n"
		"       %s learn --journal [--for=NAME|@GROUP] [--] FILE...\n"
		"       %s --list-caps\n"
		"       %s --help | -V | --version\n"
		"\n"
		"CAPS is a comma list of capabilities (names, decimal numbers, all,\n"
		"none), each optionally prefixed by + (add) or - or ! (remove).\n"
		"--keep=CAPS is the old name of --only=CAPS.\n"
		"check-conf checks FILE (default " CAPUNS_CONF_DEFAULT ").\n"
		"learn --journal reads journalctl -t capuns output (- is standard input).\n"
		"See capuns(1).\n",
		prog, prog, prog, prog, prog, prog, prog, prog, prog, prog, prog, prog);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		fprintf(stderr, "%s: ", prog);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	fprintf(stderr, "Try '%s --help' for more information.\n", prog);
	return EXIT_USAGE;
}

/* The end of every option loop: -h, --help prints the usage; another option is an error. */
static int help_or_usage_error(int c)
{
	if (c == 'h') {
		usage(stdout);
		return EXIT_SUCCESS;
	}
	return usage_error(NULL);
}

static int fail(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, capuns_strerror(err));
	return EXIT_FAILURE;
}

/*
 * Parse CAPS for option opt; print the usage error itself.  The list must
 * also name only capabilities of the running kernel (a stock kernel has
 * no 41): the kernel would refuse them, and that is the caller's mistake,
 * not a failure.
 */
static bool parse_caps(const char *opt, const char *text, capuns_set_t *set)
{
	const char *pos = NULL;
	int err = capuns_set_parse(text, set, &pos);
	capuns_set_t unknown;
	char name[64];

	if (err) {
		if (pos && *pos)
			fprintf(stderr, "%s: %s: '%.*s': %s\n", prog, opt, (int)strcspn(pos, ","),
				pos, capuns_strerror(err));
		else
			fprintf(stderr, "%s: %s: '%s': %s\n", prog, opt, text, capuns_strerror(err));
		return false;
	}
	unknown = capuns_set_minus(*set, capuns_set_all());
	for (int cap = 0; cap < CAPUNS_CAP_BITS; cap++) {
		if (!capuns_set_has(unknown, cap))
			continue;
		settext_cap_name(cap, name, sizeof(name));
		fprintf(stderr, "%s: %s: '%s': capability %d (%s) does not exist on this kernel "
			"(its last is %d)\n", prog, opt, text, cap, name, capuns_cap_last());
		return false;
	}
	return true;
}

/* ---- Printing ----------------------------------------------------------- */

static int print_set_text(const char *label, const char *field, capuns_set_t s)
{
	char *t = capuns_set_format(s, 0);

	if (!t)
		return -ENOMEM;
	printf("%-12s %-8s %016" PRIx64 "  %s\n", label, field, s.bits, t);
	free(t);
	return 0;
}

/* "name": { "hex": "0x...", "text": "...", "caps": [ names ] } */
static int print_set_json(struct json_writer *w, const char *name, capuns_set_t s)
{
	char *t = capuns_set_format(s, 0);
	char hex[32];
	int err;

	if (!t)
		return -ENOMEM;
	snprintf(hex, sizeof(hex), "0x%016" PRIx64, s.bits);
	jsonw_name(w, name);
	jsonw_start_object(w);
	jsonw_string_field(w, "hex", hex);
	jsonw_string_field(w, "text", t);
	free(t);
	jsonw_name(w, "caps");
	err = settext_json_names(w, s);
	if (err)
		return err;
	jsonw_end_object(w);
	return 0;
}

struct state {
	pid_t pid;
	struct capuns_task_caps caps;
	int userns_err;
	bool has_strict;
	unsigned strict;
	int strict_err;
	bool has_mask;
	capuns_set_t mask;
	int mask_err;
};

static int collect(pid_t pid, struct state *st)
{
	int err;

	memset(st, 0, sizeof(*st));
	st->pid = pid;
	err = capuns_task_caps(pid, &st->caps);
	if (err)
		return err;
	if (!st->caps.has_userns)
		st->userns_err = capuns_get(pid, &st->caps.userns);
	/* Securebits of another task are not exported by the kernel. */
	if (pid == 0 || pid == getpid()) {
		st->strict_err = capuns_strict_get(&st->strict);
		st->has_strict = st->strict_err == 0;
	}
	st->mask_err = capuns_mask_get(&st->mask);
	st->has_mask = st->mask_err == 0;
	return 0;
}

/* The five classic sets: the enforced one and the kernel's view of each. */
static const struct set_view {
	const char *name, *field; /* field: its /proc/PID/status line */
	size_t enforced, kernel;
} set_views[] = {
	{ "inheritable", "CapInh", offsetof(struct capuns_task_caps, inheritable),
	  offsetof(struct capuns_task_caps, kernel_inheritable) },
	{ "permitted", "CapPrm", offsetof(struct capuns_task_caps, permitted),
	  offsetof(struct capuns_task_caps, kernel_permitted) },
	{ "effective", "CapEff", offsetof(struct capuns_task_caps, effective),
	  offsetof(struct capuns_task_caps, kernel_effective) },
	{ "bounding", "CapBnd", offsetof(struct capuns_task_caps, bounding),
	  offsetof(struct capuns_task_caps, kernel_bounding) },
	{ "ambient", "CapAmb", offsetof(struct capuns_task_caps, ambient),
	  offsetof(struct capuns_task_caps, kernel_ambient) },
};

static capuns_set_t view_set(const struct capuns_task_caps *c, size_t off)
{
	return *(const capuns_set_t *)((const char *)c + off);
}

static bool view_differs(const struct capuns_task_caps *c, const struct set_view *v)
{
	return !capuns_set_equal(view_set(c, v->enforced), view_set(c, v->kernel));
}

/*
 * Where the kernel's sets differ from what the backend enforces (the BPF
 * backend inside a namespace it restricts), one line: the kernel's view.
 */
static int print_kernel_view_text(const struct capuns_task_caps *c)
{
	bool any = false;

	for (size_t i = 0; i < ARRAY_SIZE(set_views); i++) {
		const struct set_view *v = &set_views[i];
		char *t;

		if (!view_differs(c, v))
			continue;
		t = capuns_set_format(view_set(c, v->kernel), 0);
		if (!t)
			return -ENOMEM;
		printf("%s%s=%s", any ? " " : "kernel view: /proc shows ", v->name, t);
		free(t);
		any = true;
	}
	if (any)
		printf("; the %s backend enforces the sets above\n", capuns_backend_name());
	return 0;
}

/* Why a line is unavailable.  "No backend" is explained once, on the backend line. */
static const char *unavailable(int err)
{
	return err == CAPUNS_ENOBACKEND ? "no backend" : capuns_strerror(err);
}

static int print_text(const struct state *st)
{
	const struct capuns_task_caps *c = &st->caps;
	int err = 0;

	printf("backend:     %s", capuns_backend_name());
	if (capuns_backend_status())
		printf(" (%s)", capuns_strerror(capuns_backend_status()));
	printf("\n");
	for (size_t i = 0; i < ARRAY_SIZE(set_views) && !err; i++)
		err = print_set_text(set_views[i].name, set_views[i].field,
				     view_set(c, set_views[i].enforced));
	err = err ?: print_kernel_view_text(c);
	if (c->has_userns)
		err = err ?: print_set_text("userns", "CapUNs", c->userns);
	else
		printf("%-12s %-8s unavailable: %s\n", "userns", "CapUNs",
		       unavailable(st->userns_err));
	if (st->has_strict)
		printf("%-12s strict=%s locked=%s\n", "securebits",
		       st->strict & CAPUNS_SECBIT_STRICT ? "yes" : "no",
		       st->strict & CAPUNS_SECBIT_STRICT_LOCKED ? "yes" : "no");
	else if (st->pid == 0)
		printf("%-12s unavailable: %s\n", "securebits", unavailable(st->strict_err));
	if (st->has_mask)
		err = err ?: print_set_text("mask", "sysctl", st->mask);
	else
		printf("%-12s %-8s unavailable: %s\n", "mask", "sysctl", unavailable(st->mask_err));
	return err;
}

/* The kernel's view of the sets that differ from the enforced ones, or null. */
static int print_kernel_view_json(struct json_writer *w, const struct capuns_task_caps *c)
{
	bool any = false;
	int err = 0;

	jsonw_name(w, "kernel_sets");
	for (size_t i = 0; i < ARRAY_SIZE(set_views) && !err; i++) {
		if (!view_differs(c, &set_views[i]))
			continue;
		if (!any)
			jsonw_start_object(w);
		any = true;
		err = print_set_json(w, set_views[i].name, view_set(c, set_views[i].kernel));
	}
	if (any)
		jsonw_end_object(w);
	else
		jsonw_null(w);
	return err;
}

static int print_json(const struct state *st)
{
	const struct capuns_task_caps *c = &st->caps;
	struct json_writer w;
	int err = 0;

	jsonw_init(&w, stdout, true);
	jsonw_start_object(&w);
	jsonw_int_field(&w, "pid", st->pid ? st->pid : getpid());
	jsonw_string_field(&w, "backend", capuns_backend_name());
	if (capuns_backend_status())
		jsonw_string_field(&w, "backend_error", capuns_strerror(capuns_backend_status()));
	else
		jsonw_null_field(&w, "backend_error");
	jsonw_name(&w, "sets");
	jsonw_start_object(&w);
	for (size_t i = 0; i < ARRAY_SIZE(set_views) && !err; i++)
		err = print_set_json(&w, set_views[i].name, view_set(c, set_views[i].enforced));
	if (c->has_userns)
		err = err ?: print_set_json(&w, "userns", c->userns);
	jsonw_end_object(&w);
	err = err ?: print_kernel_view_json(&w, c);
	jsonw_name(&w, "securebits");
	if (st->has_strict) {
		jsonw_start_object(&w);
		jsonw_bool_field(&w, "strict", st->strict & CAPUNS_SECBIT_STRICT);
		jsonw_bool_field(&w, "locked", st->strict & CAPUNS_SECBIT_STRICT_LOCKED);
		jsonw_end_object(&w);
	} else {
		jsonw_null(&w);
	}
	jsonw_name(&w, "mask");
	if (st->has_mask) {
		jsonw_start_object(&w);
		err = err ?: print_set_json(&w, "mask", st->mask);
		jsonw_end_object(&w);
	} else {
		jsonw_null(&w);
	}
	jsonw_end_object(&w);
	jsonw_end_document(&w);
	return err;
}

static int cmd_print(pid_t pid, bool json)
{
	struct state st;
	int err = collect(pid, &st);

	if (err) {
		char what[64];

		snprintf(what, sizeof(what), "cannot read the sets of pid %d",
			 pid ? pid : getpid());
		return fail(what, err);
	}
	err = json ? print_json(&st) : print_text(&st);
	if (err)
		return fail("cannot print", err);
	if (fflush(stdout) == EOF)
		return fail("cannot write", -errno);
	return EXIT_SUCCESS;
}

/* ---- Changing pU and running a command ---------------------------------- */

enum action_kind { ACT_DROP, ACT_ONLY, ACT_RAISE, ACT_CLEAR, ACT_STRICT };

struct action {
	enum action_kind kind;
	const char *option; /* as given: --drop, --only, --keep... */
	capuns_set_t set;
	bool lock;
};

static int apply(const struct action *a)
{
	switch (a->kind) {
	case ACT_DROP:
		return capuns_lower_set(a->set);
	case ACT_ONLY:
		return capuns_set_exactly(a->set);
	case ACT_RAISE:
		return capuns_raise_set(a->set);
	case ACT_CLEAR:
		return capuns_clear();
	case ACT_STRICT:
		return capuns_strict_set(a->lock);
	}
	return -EINVAL;
}

static int run_command(char **argv)
{
	execvp(argv[0], argv);
	fprintf(stderr, "%s: cannot execute %s: %s\n", prog, argv[0], strerror(errno));
	return errno == ENOENT ? EXIT_EXEC_NOTFOUND : EXIT_EXEC_FAILED;
}

/*
 * --keep is the old name of --only.  capsh's --keep=1 (and =0) means
 * "keep capabilities across setuid" instead: taken from a capsh command
 * line it would set pU to capability 1 alone.  Refuse those two values
 * under this name rather than guess.
 */
static bool capsh_keep_value(const char *option, const char *value)
{
	return strcmp(option, "--keep") == 0 && (strcmp(value, "0") == 0 || strcmp(value, "1") == 0);
}

enum { OPT_PRINT = 256, OPT_PID, OPT_JSON, OPT_DROP, OPT_ONLY, OPT_KEEP, OPT_RAISE,
       OPT_CLEAR, OPT_STRICT, OPT_VERSION, OPT_LIST_CAPS };

static const struct option main_opts[] = {
	{ "print", no_argument, NULL, OPT_PRINT },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "drop", required_argument, NULL, OPT_DROP },
	{ "only", required_argument, NULL, OPT_ONLY },
	{ "keep", required_argument, NULL, OPT_KEEP },
	{ "raise", required_argument, NULL, OPT_RAISE },
	{ "clear", no_argument, NULL, OPT_CLEAR },
	{ "strict", optional_argument, NULL, OPT_STRICT },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "list-caps", no_argument, NULL, OPT_LIST_CAPS },
	{ NULL, 0, NULL, 0 },
};

/*
 * --list-caps: "NUMBER NAME" for every capability of the running kernel,
 * the names CAPS accepts (bash completion reads them from here).
 */
static int list_caps(void)
{
	char name[64];

	for (int cap = 0; cap <= capuns_cap_last(); cap++) {
		settext_cap_name(cap, name, sizeof(name));
		printf("%d %s\n", cap, name);
	}
	return fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* cmd_main() with its action list: every path returns here. */
static int main_actions(int argc, char **argv, struct action *acts)
{
	size_t nacts = 0;
	bool print = false, json = false, command;
	unsigned long pid = 0;
	int c, rc;

	/* '+': stop at "--" or the first operand, like capsh. */
	while ((c = getopt_long(argc, argv, "+hV", main_opts, NULL)) != -1) {
		struct action *a = &acts[nacts];

		switch (c) {
		case OPT_PRINT:
			print = true;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_PID:
			if (parse_decimal(optarg, 1, INT_MAX, &pid))
				return usage_error("--pid: '%s' is not a process ID", optarg);
			break;
		case OPT_DROP:
		case OPT_ONLY:
		case OPT_KEEP:
		case OPT_RAISE:
			a->kind = c == OPT_DROP ? ACT_DROP : c == OPT_RAISE ? ACT_RAISE : ACT_ONLY;
			a->option = c == OPT_DROP ? "--drop" : c == OPT_RAISE ? "--raise"
				    : c == OPT_ONLY ? "--only" : "--keep";
			if (capsh_keep_value(a->option, optarg))
				return usage_error("--keep=%s: capsh's --keep=%s (keep capabilities "
						   "across setuid) is not this option; capuns --keep "
						   "is --only, which sets pU to exactly CAPS: say "
						   "--only=%s for capability %s alone",
						   optarg, optarg, optarg, optarg);
			if (!parse_caps(a->option, optarg, &a->set))
				return usage_error(NULL);
			nacts++;
			break;
		case OPT_CLEAR:
			a->kind = ACT_CLEAR;
			a->option = "--clear";
			nacts++;
			break;
		case OPT_STRICT:
			if (optarg && strcmp(optarg, "lock") != 0)
				return usage_error("--strict: '%s': expected --strict or --strict=lock",
						   optarg);
			a->kind = ACT_STRICT;
			a->option = "--strict";
			a->lock = optarg != NULL;
			nacts++;
			break;
		case OPT_VERSION:
		case 'V':
			printf("capuns %s\n", CAPUNS_VERSION);
			return EXIT_SUCCESS;
		case OPT_LIST_CAPS:
			return list_caps();
		default:
			return help_or_usage_error(c);
		}
	}
	/* Operands only after "--", so that a typo is never run as a command. */
	if (optind < argc && strcmp(argv[optind - 1], "--") != 0)
		return usage_error("unexpected argument '%s' (a command goes after --)",
				   argv[optind]);
	command = optind < argc;
	if (pid && (nacts || command))
		return usage_error("--pid only goes with --print: the sets of another "
				   "process cannot be changed");
	if ((print || json || pid) && command)
		return usage_error("--print, --json and --pid do not go with a command");
	if (!command && optind == argc && strcmp(argv[optind - 1], "--") == 0)
		return usage_error("-- must be followed by a command");

	for (size_t i = 0; i < nacts; i++) {
		rc = apply(&acts[i]);
		if (rc) {
			char what[64];

			snprintf(what, sizeof(what), "%s failed", acts[i].option);
			return fail(what, rc);
		}
	}
	if (command)
		return run_command(argv + optind);
	return cmd_print((pid_t)pid, json);
}

static int cmd_main(int argc, char **argv)
{
	/* At most one action per argument. */
	struct action *acts = calloc((size_t)argc, sizeof(*acts));
	int rc;

	if (!acts)
		return fail("cannot start", -ENOMEM);
	rc = main_actions(argc, argv, acts);
	free(acts);
	return rc;
}

/* ---- capuns mask -------------------------------------------------------- */

static int cmd_mask(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "drop", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	capuns_set_t drop = capuns_set_empty(), mask;
	bool json = false, dropping = false;
	char name[64];
	char *t;
	int c, err;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (!parse_caps("--drop", optarg, &drop))
				return usage_error(NULL);
			dropping = true;
			break;
		case 'j':
			json = true;
			break;
		default:
			return help_or_usage_error(c);
		}
	}
	if (optind < argc)
		return usage_error("mask: unexpected argument '%s'", argv[optind]);
	if (dropping) {
		err = capuns_mask_drop(drop);
		if (err) {
			fprintf(stderr, "%s: cannot lower kernel.cap_userns_mask: %s", prog,
				capuns_strerror(err));
			/* The capability the backend in use checks, as capabilities(7) spells it. */
			if (err == -EPERM && capuns_mask_cap() >= 0 &&
			    capuns_cap_to_name(capuns_mask_cap(), name, sizeof(name)) > 0) {
				for (char *p = name; *p; p++)
					*p = (char)toupper((unsigned char)*p);
				fprintf(stderr, " (it needs root with %s in the initial user "
					"namespace)", name);
			}
			fputc('\n', stderr);
			return EXIT_FAILURE;
		}
	}
	err = capuns_mask_get(&mask);
	if (err)
		return fail("cannot read kernel.cap_userns_mask", err);
	if (json) {
		struct json_writer w;

		jsonw_init(&w, stdout, true);
		jsonw_start_object(&w);
		err = print_set_json(&w, "mask", mask);
		jsonw_end_object(&w);
		jsonw_end_document(&w);
	} else {
		t = capuns_set_format(mask, 0);
		if (!t)
			return fail("cannot print", -ENOMEM);
		printf("kernel.cap_userns_mask: 0x%016" PRIx64 " %s\n", mask.bits, t);
		free(t);
	}
	return err ? fail("cannot print", err) : EXIT_SUCCESS;
}

/* ---- capuns check ------------------------------------------------------- */

static const char *yes(bool b)
{
	return b ? "yes" : "no";
}

/* Write text to /proc/PID/FILE. */
static int write_proc(pid_t pid, const char *file, const char *text)
{
	char path[64];
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	if (n < 0)
		err = -errno;
	else if ((size_t)n != strlen(text))
		err = -EIO;
	close(fd);
	return err;
}

/*
 * Map root of the child's new namespace to our own ids.  The parent
 * writes the maps, as the namespace's owner: the child itself could not
 * when CAP_SYS_ADMIN is missing from its pU, and without a mapping it
 * could not create the next namespace.
 */
static int map_child(pid_t child)
{
	char map[64];
	int err;

	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)geteuid());
	err = write_proc(child, "uid_map", map);
	if (err)
		return err;
	err = write_proc(child, "setgroups", "deny\n");
	if (err && err != -ENOENT)
		return err;
	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)getegid());
	return write_proc(child, "gid_map", map);
}

/*
 * Report on CAP at this depth, then create a user namespace in a child
 * and recurse.  Returns the exit status of the whole chain from here.
 */
static int check_level(int cap, const char *name, int depth, int max)
{
	struct capuns_task_caps c;
	int err, status, rc = EXIT_SUCCESS, up[2], down[2];
	char byte = 0;
	pid_t child;

	err = capuns_task_caps(0, &c);
	if (err)
		return fail("cannot read capability sets", err);
	printf("depth %d: %s effective=%s bounding=%s userns=%s\n", depth, name,
	       yes(capuns_set_has(c.effective, cap)), yes(capuns_set_has(c.bounding, cap)),
	       c.has_userns ? yes(capuns_set_has(c.userns, cap)) : "unknown");
	if (depth > 0 && !capuns_set_has(c.effective, cap))
		rc = EXIT_CHECK_MISSING;
	if (depth == max)
		return rc;
	if (fflush(stdout) == EOF)
		return fail("cannot write", -errno);
	if (pipe2(up, O_CLOEXEC) < 0)
		return fail("cannot create a pipe", -errno);
	if (pipe2(down, O_CLOEXEC) < 0) {
		close(up[0]);
		close(up[1]);
		return fail("cannot create a pipe", -errno);
	}

	child = fork();
	if (child < 0) {
		err = -errno;
		close(up[0]);
		close(up[1]);
		close(down[0]);
		close(down[1]);
		return fail("cannot fork", err);
	}
	if (child == 0) {
		close(up[0]);
		close(down[1]);
		if (unshare(CLONE_NEWUSER) < 0) {
			fprintf(stderr, "%s: depth %d: cannot create a user namespace: %s\n",
				prog, depth + 1, strerror(errno));
			_exit(EXIT_FAILURE);
		}
		/* Tell the parent, then wait until it has written our maps. */
		if (write(up[1], &byte, 1) != 1 || read(down[0], &byte, 1) != 1 || byte)
			_exit(EXIT_FAILURE);
		close(up[1]);
		close(down[0]);
		int r = check_level(cap, name, depth + 1, max);

		fflush(stdout);
		_exit(r);
	}
	close(up[1]);
	close(down[0]);
	if (read(up[0], &byte, 1) == 1) {
		err = map_child(child);
		if (err)
			fprintf(stderr, "%s: depth %d: cannot map user and group IDs: %s\n",
				prog, depth + 1, capuns_strerror(err));
		byte = err ? 1 : 0;
		if (write(down[1], &byte, 1) != 1)
			err = err ?: -EPIPE;
	}
	close(up[0]);
	close(down[1]);
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR)
			return fail("cannot wait", -errno);
	if (!WIFEXITED(status))
		return EXIT_FAILURE;
	/* An error below wins over "missing"; "missing" over success. */
	if (WEXITSTATUS(status) == EXIT_FAILURE || rc == EXIT_SUCCESS)
		rc = WEXITSTATUS(status);
	return rc;
}

static int cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "depth", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long depth = CHECK_DEPTH_DEFAULT;
	char name[64];
	int c, cap, rc;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (parse_decimal(optarg, 1, CHECK_DEPTH_MAX, &depth))
				return usage_error("check: --depth: '%s' is not in 1..%d",
						   optarg, CHECK_DEPTH_MAX);
			break;
		default:
			return help_or_usage_error(c);
		}
	}
	if (argc - optind != 1)
		return usage_error("check: expected exactly one capability");
	cap = capuns_cap_from_name(argv[optind]);
	if (cap < 0 || cap > capuns_cap_last())
		return usage_error("check: '%s': %s", argv[optind],
				   capuns_strerror(cap < 0 ? cap : CAPUNS_EBADCAP));
	if (capuns_cap_to_name(cap, name, sizeof(name)) < 0)
		return fail("cannot name capability", CAPUNS_EBADCAP);

	printf("backend: %s\n", capuns_backend_name());
	rc = check_level(cap, name, 0, (int)depth);
	if (rc == EXIT_SUCCESS)
		printf("%s is available in user namespaces down to depth %lu\n", name, depth);
	else if (rc == EXIT_CHECK_MISSING)
		printf("%s is NOT available at some depth (see above)\n", name);
	return rc;
}

/* ---- capuns check-conf -------------------------------------------------- */

/*
 * Where `systemctl enable capuns-bpf.service` puts its link (the unit is
 * WantedBy=sysinit.target): read directly, as the package's own helper
 * deb-systemd-helper does, so that check-conf works without a running
 * systemd (a chroot, an image being built) and without spawning anything.
 */
#define CAPUNS_UNIT_WANTS_LINK CAPUNS_SYSCONFDIR "/systemd/system/sysinit.target.wants/capuns-bpf.service"

static void report_conf_problem(void *arg, const char *message)
{
	fprintf(stderr, "%s: %s\n", (const char *)arg, message);
}

/*
 * The rule of path that the logins of user (named by option opt) match.
 * 0, or 1 after a message: no such user, or the file cannot be loaded.
 */
static int user_match(const char *path, const char *opt, const char *user,
		      struct capuns_conf_match *m)
{
	char err[512] = "";
	int r;

	if (!getpwnam(user)) {
		fprintf(stderr, "%s: %s %s: no such user\n", prog, opt, user);
		return 1;
	}
	r = capuns_conf_load(path, user, m, err, sizeof(err));
	if (r) {
		fprintf(stderr, "%s: %s\n", path, err[0] ? err : capuns_strerror(r));
		return 1;
	}
	return 0;
}

/* --user NAME: the line NAME's logins match and the pU they get.  0 or 1 (problem). */
static int report_user(const char *path, const char *user)
{
	struct capuns_conf_match m = { 0 };
	char *text;

	if (user_match(path, "--user", user, &m))
		return 1;
	if (!m.matched) {
		printf("%s: no rule matches: logins are not restricted\n", user);
		return 0;
	}
	text = capuns_set_format(m.keep, 0);
	if (!text) {
		fail("check-conf", -ENOMEM);
		return 1;
	}
	printf("%s: line %d matches: logins keep %s%s\n", user, m.line, text,
	       m.audit ? " (audit: logged, not applied)" : "");
	free(text);
	return 0;
}

/* A rule for root is legal, but easy to write by accident with '*'. */
static void warn_root_rule(const char *path)
{
	struct capuns_conf_match m = { 0 };

	if (capuns_conf_load(path, "root", &m, NULL, 0) == 0 && m.matched)
		fprintf(stderr, "%s: warning: line %d matches root: root's logins are "
			"restricted too (see capuns.conf(5) for the way back in)\n", path, m.line);
}

/*
 * --protect NAME: 1 when a rule matches NAME (or NAME does not exist),
 * else 0.  For a deployment's validation step (visudo -cf): a policy
 * rolled out to many hosts must never restrict root, or the account that
 * deploys it and would have to roll a bad policy back.  An audit rule
 * counts too: deleting the word audit is all it takes to enforce it.
 */
static int check_protected(const char *path, const char *user)
{
	struct capuns_conf_match m = { 0 };

	if (user_match(path, "--protect", user, &m))
		return 1;
	if (!m.matched)
		return 0;
	fprintf(stderr, "%s: line %d matches %s, whom --protect keeps unrestricted: a policy "
		"must not touch root or the administrator who deploys it", path, m.line, user);
	if (m.audit)
		fprintf(stderr, " (an audit rule counts too: without the word audit it would "
			"restrict %s)", user);
	fputc('\n', stderr);
	return 1;
}

/*
 * Rules only work while a backend enforces them: pam_capuns fails (closed)
 * every login a rule matches when there is none.  On a stock kernel the
 * BPF backend must also come back at boot, through the enabled unit.
 * 0 when the rules will be enforced, else a message and EXIT_CONF_UNENFORCED.
 */
static int check_enforced(const char *path, int rules)
{
	const char *backend = capuns_backend_name();
	struct stat st;

	if (rules == 0 || strcmp(backend, "kernel") == 0)
		return EXIT_SUCCESS;
	if (strcmp(backend, "bpf") != 0) {
		fprintf(stderr, "%s: %d rule%s but no backend enforces them: every login a rule "
			"matches would FAIL (%s)\n", path, rules, rules == 1 ? "" : "s",
			capuns_strerror(capuns_backend_status()));
		return EXIT_CONF_UNENFORCED;
	}
	if (lstat(CAPUNS_UNIT_WANTS_LINK, &st) < 0) {
		fprintf(stderr, "%s: the BPF backend is loaded but capuns-bpf.service is not "
			"enabled: after the next boot every login a rule matches would FAIL "
			"(systemctl enable capuns-bpf.service)\n", path);
		return EXIT_CONF_UNENFORCED;
	}
	return EXIT_SUCCESS;
}

/* check-conf's arguments: each --user and --protect, in order. */
struct conf_names {
	const char **v;
	int n;
};

static bool conf_names_has(const struct conf_names *names, const char *name)
{
	for (int i = 0; i < names->n; i++)
		if (strcmp(names->v[i], name) == 0)
			return true;
	return false;
}

/*
 * cmd_check_conf() with its name lists: every path returns here.  A
 * --protect that fails is an error (1) that wins over the unenforced
 * rules (4): the file itself must not be installed.
 */
static int check_conf(int argc, char **argv, struct conf_names *users,
		      struct conf_names *protect)
{
	static const struct option opts[] = {
		{ "user", required_argument, NULL, 'u' },
		{ "protect", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = CAPUNS_CONF_DEFAULT;
	int rules, r, c, bad = 0;

	while ((c = getopt_long(argc, argv, "hu:", opts, NULL)) != -1) {
		if (c == 'u')
			users->v[users->n++] = optarg;
		else if (c == 'p')
			protect->v[protect->n++] = optarg;
		else
			return help_or_usage_error(c);
	}
	if (argc - optind > 1)
		return usage_error("check-conf takes at most one FILE");
	if (optind < argc)
		path = argv[optind];
	r = capuns_conf_check(path, report_conf_problem, (void *)path, &rules);
	if (r < 0)
		return fail("check-conf", r);
	if (r > 0) {
		fprintf(stderr, "%s: %d problem%s: every login through pam_capuns would fail\n",
			path, r, r == 1 ? "" : "s");
		return EXIT_FAILURE;
	}
	printf("%s: OK, %d rule%s\n", path, rules, rules == 1 ? "" : "s");
	/* --protect root says more about the same line than the warning. */
	if (!conf_names_has(protect, "root"))
		warn_root_rule(path);
	for (int i = 0; i < users->n; i++)
		bad += report_user(path, users->v[i]);
	for (int i = 0; i < protect->n; i++)
		bad += check_protected(path, protect->v[i]);
	if (bad)
		return EXIT_FAILURE;
	return check_enforced(path, rules);
}

/*
 * capuns check-conf [--user NAME]... [--protect NAME]... [FILE]: what
 * pam_capuns would say about FILE, every bad line at once, before an
 * administrator logs out (as sshd -t, visudo -c), whether anything
 * enforces its rules, and whether it leaves the protected users alone.
 */
static int cmd_check_conf(int argc, char **argv)
{
	/* At most one name per argument. */
	struct conf_names users = { calloc((size_t)argc, sizeof(*users.v)), 0 };
	struct conf_names protect = { calloc((size_t)argc, sizeof(*protect.v)), 0 };
	int rc;

	if (!users.v || !protect.v)
		rc = fail("check-conf", -ENOMEM);
	else
		rc = check_conf(argc, argv, &users, &protect);
	free(users.v);
	free(protect.v);
	return rc;
}

/*
 * capuns bpf ... and capuns monitor ...: the BPF backend's loader lives in
 * its own program, capuns-bpf, so that libbpf, libelf and zlib stay out of
 * the CLI and of everything that links libcapuns (PAM modules included).
 * It is run by a fixed path, never found on PATH (cli/loader-path.c).
 */
static int cmd_bpf(char **args)
{
	char path[PATH_MAX];
	int r;

	r = loader_path(path, sizeof(path));
	if (r < 0) {
		fprintf(stderr, "%s: cannot find capuns-bpf, the BPF backend's loader: %s\n",
			prog, strerror(-r));
		return EXIT_EXEC_FAILED;
	}
	args[0] = "capuns-bpf";
	execv(path, args);
	r = errno;
	fprintf(stderr, "%s: cannot run %s, the BPF backend's loader: %s\n", prog, path,
		strerror(r));
	return r == ENOENT ? EXIT_EXEC_NOTFOUND : EXIT_EXEC_FAILED;
}

/* ---- capuns complain, capuns learn ------------------------------------- */

/* What -EOPNOTSUPP means for these two: the kernel backend only enforces. */
static int fail_audit(const char *what, int err)
{
	if (err == -EOPNOTSUPP) {
		fprintf(stderr, "%s: %s: the kernel backend has no audit hook (the series only "
				"enforces); this needs the BPF backend on a stock kernel\n",
			prog, what);
		return EXIT_FAILURE;
	}
	return fail(what, err);
}

/* capuns complain [on|off]: show or set the BPF backend's complain mode. */
static int cmd_complain(int argc, char **argv)
{
	int r;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return EXIT_SUCCESS;
	}
	if (argc > 2)
		return usage_error("complain takes at most one argument, on or off");
	if (argc == 2) {
		if (strcmp(argv[1], "on") && strcmp(argv[1], "off"))
			return usage_error("complain: '%s' is neither on nor off", argv[1]);
		r = capuns_complain_set(!strcmp(argv[1], "on"));
		if (r < 0)
			return fail_audit("complain", r);
	}
	r = capuns_complain_get();
	if (r < 0)
		return fail_audit("complain", r);
	printf("complain mode: %s\n", r ? "on (uses outside the sets are reported and allowed)"
				       : "off (the sets are enforced)");
	return EXIT_SUCCESS;
}

/* ---- capuns learn --journal ------------------------------------------- */

/*
 * Learning from the journals of many hosts: the lines the BPF backend's
 * journal writer (capuns-bpf monitor --journal, capuns-log.service) logs,
 * as journalctl -t capuns prints them, gathered from each host:
 *
 *   -o cat:        REASON: CAP pid PID (COMM) uid UID (USER) unit UNIT, ...
 *   -o short[-*]:  DATE HOST capuns[PID]: REASON: CAP pid PID (COMM) ...
 *
 * Text, parsed here: it is what a deployment fetches from its hosts, and
 * libsystemd reads journal files, which no host sends.  Only complain and
 * cap-denied events name a capability used in a namespace; every other
 * line is skipped.
 */

/* TASK_COMM_LEN less its NUL: the longest COMM the writer prints. */
#define JOURNAL_COMM_MAX 15

struct learned {
	char *name;
	capuns_set_t used;
};

/* Entries sorted by name (strcmp), so that the rules come out in order. */
struct learn_table {
	struct learned *v;
	size_t n, size;
};

/* The entry for name, added if it is new.  NULL when out of memory. */
static struct learned *learn_table_get(struct learn_table *t, const char *name)
{
	size_t lo = 0, hi = t->n;
	char *copy;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, t->v[mid].name);

		if (c == 0)
			return &t->v[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (t->n == t->size) {
		size_t size = t->size ? 2 * t->size : 16;
		struct learned *v = reallocarray(t->v, size, sizeof(*v));

		if (!v)
			return NULL;
		t->v = v;
		t->size = size;
	}
	copy = strdup(name);
	if (!copy)
		return NULL;
	memmove(&t->v[lo + 1], &t->v[lo], (t->n - lo) * sizeof(*t->v));
	t->v[lo] = (struct learned){ .name = copy, .used = capuns_set_empty() };
	t->n++;
	return &t->v[lo];
}

static void learn_table_free(struct learn_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
}

struct journal_learn {
	struct learn_table users, hosts;
	capuns_set_t unnamed;    /* of uids that have no name on their host */
	unsigned long events, unnamed_events;
	bool for_all;            /* --for: one rule, whoever the users were */
};

/* The digits at s and what follows them, or NULL when there is none. */
static char *skip_digits(char *s)
{
	char *p = s;

	while (isdigit((unsigned char)*p))
		p++;
	return p == s ? NULL : p;
}

/* The journal writer's identifier, with or without "[PID]". */
static bool capuns_ident(const char *s)
{
	const char *p;

	if (strncmp(s, "capuns", 6))
		return false;
	p = s + 6;
	if (!*p)
		return true;
	if (*p++ != '[' || !isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	return strcmp(p, "]") == 0;
}

struct journal_event {
	const char *host, *cap, *user;
};

/*
 * One line of a journal, its newline removed, split in place.  true for
 * a complain or cap-denied event that names a capability (cap not yet
 * checked), false for any other line.
 */
static bool journal_line(char *line, const char *file_host, struct journal_event *ev)
{
	char *colon = strstr(line, ": "), *reason, *msg, *p, *comm, *end = NULL;

	if (!colon)
		return false;
	*colon = '\0';
	msg = colon + 2;
	if (!strchr(line, ' ')) {
		/*
		 * -o cat: the line starts with the reason.  No date of a
		 * short format holds ": ", so the first one ends either.
		 */
		reason = line;
		ev->host = file_host;
	} else {
		p = strrchr(line, ' ');
		*p = '\0';
		if (!capuns_ident(p + 1))
			return false; /* another program's line */
		p = strrchr(line, ' ');
		if (!p || !p[1])
			return false;
		ev->host = p + 1;
		reason = msg;
		colon = strstr(msg, ": ");
		if (!colon)
			return false;
		*colon = '\0';
		msg = colon + 2;
	}
	if (strcmp(reason, "complain") && strcmp(reason, "cap-denied"))
		return false;
	ev->cap = msg;
	p = strchr(msg, ' ');
	if (!p)
		return false;
	*p++ = '\0';
	if (strncmp(p, "pid ", 4) || !(p = skip_digits(p + 4)) || strncmp(p, " (", 2))
		return false;
	/*
	 * COMM is the process's to choose, ") uid 0 (root" included, but it
	 * is at most 15 bytes: the last ") uid " that can end it is the
	 * writer's own.
	 */
	comm = p + 2;
	for (size_t k = 0; k <= JOURNAL_COMM_MAX && comm[k]; k++)
		if (strncmp(comm + k, ") uid ", 6) == 0)
			end = comm + k;
	if (!end || !(p = skip_digits(end + 6)) || strncmp(p, " (", 2))
		return false;
	ev->user = p + 2;
	p = strchr(ev->user, ')');
	if (!p || strncmp(p, ") unit ", 7))
		return false;
	*p = '\0';
	return strcmp(ev->cap, "-") != 0; /* no capability: a refused namespace */
}

/*
 * A user name capuns.conf can hold as a WHO of its own: never "*", an
 * @group or a list, whatever a host's user database says.
 */
static bool conf_user_name(const char *s)
{
	if (!*s || *s == '-' || *s == '.')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._-$", *s))
			return false;
	return true;
}

/* The name of a host whose lines do not say it: FILE without folder and extension. */
static char *file_host(const char *path)
{
	const char *base = strrchr(path, '/');
	const char *dot;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	if (!dot || dot == base)
		return strdup(base);
	return strndup(base, (size_t)(dot - base));
}

/* Take in one FILE.  0, or 1 after a message (unreadable, out of memory). */
static int journal_file(const char *path, struct journal_learn *jl)
{
	bool is_stdin = strcmp(path, "-") == 0;
	const char *name = is_stdin ? "stdin" : path;
	FILE *f = is_stdin ? stdin : fopen(path, "re");
	char *line = NULL, *host = NULL;
	struct journal_event ev;
	unsigned long lineno = 0;
	size_t size = 0;
	ssize_t n;
	int rc = 1, cap;

	if (!f) {
		fprintf(stderr, "%s: learn: cannot open %s: %s\n", prog, path, strerror(errno));
		return 1;
	}
	host = is_stdin ? strdup("-") : file_host(path);
	if (!host)
		goto nomem;
	while ((n = getline(&line, &size, f)) >= 0) {
		struct learned *u = NULL, *h;

		lineno++;
		if (n > 0 && line[n - 1] == '\n')
			line[--n] = '\0';
		if (!journal_line(line, host, &ev))
			continue;
		cap = capuns_cap_from_name(ev.cap);
		if (cap == -ENOMEM)
			goto nomem;
		if (cap < 0) {
			fprintf(stderr, "%s: learn: %s:%lu: unknown capability '%s': line skipped\n",
				prog, name, lineno, ev.cap);
			continue;
		}
		if (strcmp(ev.user, "?") == 0) {
			/* The writer found no name for the uid (a subordinate uid, say). */
			jl->unnamed = capuns_set_add(jl->unnamed, cap);
			jl->unnamed_events++;
			if (!jl->for_all)
				continue;
		} else if (!conf_user_name(ev.user)) {
			fprintf(stderr, "%s: learn: %s:%lu: user '%s' cannot be named in "
				"capuns.conf: line skipped\n", prog, name, lineno, ev.user);
			continue;
		} else if (!(u = learn_table_get(&jl->users, ev.user))) {
			goto nomem;
		}
		h = learn_table_get(&jl->hosts, ev.host);
		if (!h)
			goto nomem;
		if (u)
			u->used = capuns_set_add(u->used, cap);
		jl->events++;
	}
	if (ferror(f)) {
		fprintf(stderr, "%s: learn: cannot read %s: %s\n", prog, name, strerror(errno));
		goto out;
	}
	rc = 0;
	goto out;
nomem:
	fail("learn", -ENOMEM);
out:
	free(line);
	free(host);
	if (!is_stdin)
		fclose(f);
	return rc;
}

/* "FILE FILE..." for the summary on stderr. */
static void print_files(int nfiles, char **files)
{
	for (int i = 0; i < nfiles; i++)
		fprintf(stderr, "%s%s", i ? " " : "", files[i]);
}

static int print_rule(capuns_set_t used, const char *who)
{
	char *text = capuns_set_format(used, CAPUNS_FMT_LIST);

	if (!text)
		return -ENOMEM;
	printf("%s\t%s\n", text, who);
	free(text);
	return 0;
}

/*
 * capuns learn --journal [--for=WHO] FILE...: the rule of each user (of
 * WHO alone with --for) that would have allowed everything the journals
 * show refused or complained about.  Nothing at all is no error: a
 * policy tried in complain mode may well have broken nothing.
 */
static int learn_journal(int nfiles, char **files, const char *who)
{
	struct journal_learn jl = { .for_all = *who != '\0' };
	int rc = EXIT_FAILURE, err = 0;

	for (int i = 0; i < nfiles; i++)
		if (journal_file(files[i], &jl))
			goto out;
	if (jl.unnamed_events && !jl.for_all)
		fprintf(stderr, "%s: learn: %lu event%s of uids with no name on their host "
			"(uid N (?)) left out: no rule can name them (--for=WHO takes them "
			"in)\n", prog, jl.unnamed_events, jl.unnamed_events == 1 ? "" : "s");
	if (jl.events == 0) {
		fprintf(stderr, "%s: learn: no capability was refused or complained about (",
			prog);
		print_files(nfiles, files);
		fputs(")\n", stderr);
		rc = EXIT_SUCCESS;
		goto out;
	}
	if (jl.for_all) {
		capuns_set_t all = jl.unnamed;

		for (size_t i = 0; i < jl.users.n; i++)
			all = capuns_set_or(all, jl.users.v[i].used);
		err = print_rule(all, who);
	}
	for (size_t i = 0; i < jl.users.n && !jl.for_all && !err; i++)
		err = print_rule(jl.users.v[i].used, jl.users.v[i].name);
	if (err) {
		fail("learn", err);
		goto out;
	}
	if (fflush(stdout) == EOF) {
		fail("cannot write", -errno);
		goto out;
	}
	fprintf(stderr, "%s: learn: %lu event%s from %zu host%s, %zu user%s (", prog,
		jl.events, jl.events == 1 ? "" : "s", jl.hosts.n, jl.hosts.n == 1 ? "" : "s",
		jl.users.n, jl.users.n == 1 ? "" : "s");
	print_files(nfiles, files);
	fputs(")\n", stderr);
	rc = EXIT_SUCCESS;
out:
	learn_table_free(&jl.users);
	learn_table_free(&jl.hosts);
	return rc;
}

/*
 * capuns learn [--for=WHO] [--] COMMAND...: run COMMAND with a learn record
 * (its capability checks in user namespaces are noted, none is changed)
 * and print the capuns.conf rule that gives WHO (default: the caller)
 * what it used.  Exits with COMMAND's status, 1 when learning failed.
 * With --journal, the operands are journals to learn from instead.
 */
static int cmd_learn(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "for", required_argument, NULL, 'f' },
		{ "journal", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char who[256] = "", *used_text, *refused_text;
	capuns_set_t used, refused;
	int c, r, status, rc;
	bool journal = false;
	struct passwd *pw;
	pid_t pid;

	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!*optarg || strpbrk(optarg, " \t\n#,"))
				return usage_error("--for: '%s' is not a user or @group", optarg);
			snprintf(who, sizeof(who), "%s", optarg);
			break;
		case 'j':
			journal = true;
			break;
		default:
			return help_or_usage_error(c);
		}
	}
	if (journal) {
		if (optind >= argc)
			return usage_error("learn --journal needs a FILE (- for standard input)");
		/* Options go first: an option after a FILE would be read as one. */
		for (int i = optind; i < argc && strcmp(argv[optind - 1], "--"); i++)
			if (argv[i][0] == '-' && argv[i][1])
				return usage_error("learn --journal: '%s' after a FILE (options go "
						   "first; -- before a FILE named so)", argv[i]);
		return learn_journal(argc - optind, argv + optind, who);
	}
	if (optind >= argc)
		return usage_error("learn needs a COMMAND to run");
	if (!*who) {
		pw = getpwuid(getuid());
		if (!pw)
			return fail("learn: who am I", errno ? -errno : -ENOENT);
		snprintf(who, sizeof(who), "%s", pw->pw_name);
	}
	r = capuns_learn_start();
	if (r < 0)
		return fail_audit("learn", r);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		r = -errno;
		capuns_learn_stop();
		return fail("learn: fork", r);
	}
	if (pid == 0)
		_exit(run_command(argv + optind));
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			r = -errno;
			capuns_learn_stop();
			return fail("learn: waitpid", r);
		}
	r = capuns_learn_get(&used, &refused);
	capuns_learn_stop();
	if (r < 0)
		return fail_audit("learn", r);
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	/* Names only, as capuns.conf takes them ("none" when empty). */
	used_text = capuns_set_format(used, CAPUNS_FMT_LIST);
	refused_text = capuns_set_format(refused, CAPUNS_FMT_LIST);
	if (!used_text || !refused_text) {
		free(used_text);
		free(refused_text);
		return fail("learn", -ENOMEM);
	}
	fprintf(stderr, "%s: learn: %s exited with status %d; capabilities asked for in user "
			"namespaces: %s\n", prog, argv[optind], rc, used_text);
	if (!capuns_set_equal(refused, capuns_set_empty()))
		fprintf(stderr, "%s: learn: refused under the current sets (the command may "
				"have failed for it): %s\n", prog, refused_text);
	printf("%s\t%s\n", used_text, who);
	free(used_text);
	free(refused_text);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc > 0 && argv[0] && *argv[0]) {
		const char *slash = strrchr(argv[0], '/');

		prog = slash ? slash + 1 : argv[0];
	}
	if (argc > 1 && strcmp(argv[1], "mask") == 0)
		return cmd_mask(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "check") == 0)
		return cmd_check(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "check-conf") == 0)
		return cmd_check_conf(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "bpf") == 0)
		return cmd_bpf(argv + 1);
	if (argc > 1 && strcmp(argv[1], "complain") == 0)
		return cmd_complain(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "learn") == 0)
		return cmd_learn(argc - 1, argv + 1);
	/* capuns monitor [OPTION...] == capuns-bpf monitor [OPTION...] */
	if (argc > 1 && strcmp(argv[1], "monitor") == 0)
		return cmd_bpf(argv);
	return cmd_main(argc, argv);
}
