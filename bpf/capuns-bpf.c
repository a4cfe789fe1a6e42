// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * capuns-bpf: load, unload and inspect the capuns BPF-LSM backend, and
 * print its denial events live.  A thin front end of libcapuns-bpf.a; the
 * capuns CLI offers the same commands (capuns bpf ..., capuns monitor).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capuns-bpf.h"

static void usage(FILE *out)
{
	fputs("usage: capuns-bpf load [--reload] [--max-creds=N] [--ringbuf=BYTES] [--verbose]\n"
	      "       capuns-bpf unload\n"
	      "       capuns-bpf status [--json]\n"
	      "       capuns-bpf monitor [--json] [--backlog] [--count=N] [--timeout=SECONDS]\n",
	      out);
}

/* A positive decimal number that fits in an int; -1 when malformed. */
static long parse_count(const char *s, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > max)
		return -1;
	return v;
}

static void say_ready(void *arg)
{
	(void)arg;
	fputs("capuns-bpf: monitoring\n", stderr);
}

enum { OPT_RELOAD = 1, OPT_MAX_CREDS, OPT_RINGBUF, OPT_VERBOSE, OPT_JSON, OPT_BACKLOG,
       OPT_COUNT, OPT_TIMEOUT, OPT_BTF, OPT_HELP };

static const struct option options[] = {
	{ "reload", no_argument, NULL, OPT_RELOAD },
	{ "max-creds", required_argument, NULL, OPT_MAX_CREDS },
	{ "ringbuf", required_argument, NULL, OPT_RINGBUF },
	{ "verbose", no_argument, NULL, OPT_VERBOSE },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "backlog", no_argument, NULL, OPT_BACKLOG },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "btf", required_argument, NULL, OPT_BTF },
	{ "help", no_argument, NULL, OPT_HELP },
	{ 0 },
};

#define OPT_BIT(o) (1u << (o))

/* Which options each command takes; anything else is a usage error. */
static const struct command {
	const char *name;
	unsigned int options;
} commands[] = {
	{ "load", OPT_BIT(OPT_RELOAD) | OPT_BIT(OPT_MAX_CREDS) | OPT_BIT(OPT_RINGBUF) |
		  OPT_BIT(OPT_VERBOSE) | OPT_BIT(OPT_BTF) },
	{ "unload", 0 },
	{ "status", OPT_BIT(OPT_JSON) },
	{ "monitor", OPT_BIT(OPT_JSON) | OPT_BIT(OPT_BACKLOG) | OPT_BIT(OPT_COUNT) |
		     OPT_BIT(OPT_TIMEOUT) },
};

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static const char *option_name(int opt)
{
	for (const struct option *o = options; o->name; o++)
		if (o->val == opt)
			return o->name;
	return "?";
}

int main(int argc, char **argv)
{
	const struct command *command;
	struct capuns_bpf_monitor_opts mon = { .ready = say_ready };
	struct capuns_bpf_load_opts load = { 0 };
	const char *cmd;
	bool json = false;
	long v;
	int opt, err;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help")) {
		usage(stdout);
		return 0;
	}
	command = find_command(cmd);
	if (!command) {
		fprintf(stderr, "capuns-bpf: unknown command '%s'\n", cmd);
		usage(stderr);
		return 2;
	}
	optind = 2;
	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		if (opt >= OPT_RELOAD && opt < OPT_HELP && !(command->options & OPT_BIT(opt))) {
			fprintf(stderr, "capuns-bpf: --%s does not apply to %s\n",
				option_name(opt), cmd);
			usage(stderr);
			return 2;
		}
		switch (opt) {
		case OPT_RELOAD: load.reload = true; break;
		case OPT_VERBOSE: load.verbose = true; break;
		case OPT_BTF: load.btf_path = optarg; break;
		case OPT_JSON: json = mon.json = true; break;
		case OPT_BACKLOG: mon.backlog = true; break;
		case OPT_MAX_CREDS:
		case OPT_RINGBUF:
		case OPT_COUNT:
		case OPT_TIMEOUT:
			v = parse_count(optarg, opt == OPT_TIMEOUT ? INT_MAX / 1000 : INT_MAX);
			if (v < 0 || (opt == OPT_MAX_CREDS && v == 0)) {
				fprintf(stderr, "capuns-bpf: bad number '%s'\n", optarg);
				return 2;
			}
			if (opt == OPT_MAX_CREDS)
				load.max_creds = v;
			else if (opt == OPT_RINGBUF)
				load.ringbuf_bytes = v;
			else if (opt == OPT_COUNT)
				mon.max_events = v;
			else
				mon.timeout_ms = v * 1000;
			break;
		case OPT_HELP: usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(cmd, "load")) {
		err = capuns_bpf_load(&load);
		if (err == 1)
			fputs("capuns-bpf: already loaded\n", stderr);
		else if (err == 0)
			fputs("capuns-bpf: loaded\n", stderr);
		else
			fprintf(stderr, "capuns-bpf: load failed: %s\n", strerror(-err));
		return err < 0 ? 1 : 0;
	}
	if (!strcmp(cmd, "unload"))
		return capuns_bpf_unload() ? 1 : 0;
	if (!strcmp(cmd, "status"))
		return capuns_bpf_status(stdout, json) ? 1 : 0;
	/* monitor */
	return capuns_bpf_monitor(stdout, &mon) < 0 ? 1 : 0;
}
