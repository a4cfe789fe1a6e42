// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * capuns-bpf: load, unload and inspect the capuns BPF-LSM backend, and
 * print its denial events live.  A thin front end of libcapuns-bpf.a: the
 * library hands over status and events as data, this program prints them
 * and owns the signal handling.  The capuns CLI runs this program for the
 * same commands (capuns bpf ..., capuns monitor).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "c.h"
#include "capuns-bpf.h"
#include "capuns.h"
#include "json_writer.h"
#include "settext.h"
#include "strutils.h"

static void usage(FILE *out)
{
	fputs("usage: capuns-bpf load [--reload] [--max-creds=N] [--max-creds-per-uid=N]\n"
	      "                       [--ringbuf=BYTES] [--verbose] [--btf=FILE]\n"
	      "       capuns-bpf unload\n"
	      "       capuns-bpf status [--json]\n"
	      "       capuns-bpf monitor [--json|--journal] [--backlog] [--count=N] [--timeout=SECONDS]\n"
	      "       capuns-bpf -h|--help\n"
	      "       capuns-bpf -V|--version\n"
	      "See capuns-bpf(8).\n",
	      out);
}

/* ---- status ------------------------------------------------------------- */

/* What an interrupted load left, as a JSON field (only when there is some). */
static void json_interrupted(struct json_writer *w, const struct capuns_bpf_status *st)
{
	if (!st->interrupted_load)
		return;
	jsonw_name(w, "interrupted_load");
	jsonw_start_object(w);
	jsonw_string_field(w, "path", CAPUNS_BPF_STAGE_DIR);
	jsonw_uint_field(w, "hooks", st->nhooks);
	jsonw_uint_field(w, "attached", st->interrupted_attached);
	jsonw_bool_field(w, "enforcing", st->interrupted_attached == st->nhooks);
	jsonw_end_object(w);
}

/* The same as text: every hook attached enforces; fewer cannot restrict anyone. */
static void text_interrupted(FILE *out, const struct capuns_bpf_status *st)
{
	if (!st->interrupted_load)
		return;
	fprintf(out, "an interrupted load left %d of %d hooks attached (%s): %s\n",
		st->interrupted_attached, st->nhooks, CAPUNS_BPF_STAGE_DIR,
		st->interrupted_attached == st->nhooks
			? "they enforce; capuns-bpf load publishes them, unload removes them"
			: "nothing can be restricted through them; capuns-bpf load or unload "
			  "removes them");
}

/* 0, or -ENOMEM (the output is then cut short). */
static int print_status_json(FILE *out, const struct capuns_bpf_status *st)
{
	struct json_writer w;
	char hex[32];

	jsonw_init(&w, out, false);
	jsonw_start_object(&w);
	jsonw_bool_field(&w, "loaded", true);
	jsonw_uint_field(&w, "abi", st->abi);
	jsonw_string_field(&w, "version", st->version);
	jsonw_name(&w, "hooks");
	jsonw_start_array(&w);
	for (int i = 0; i < st->nhooks; i++) {
		jsonw_start_object(&w);
		jsonw_string_field(&w, "hook", st->hooks[i].section);
		jsonw_bool_field(&w, "attached", st->hooks[i].prog_id);
		jsonw_uint_field(&w, "prog_id", st->hooks[i].prog_id);
		jsonw_end_object(&w);
	}
	jsonw_end_array(&w);
	jsonw_uint_field(&w, "creds_used", st->creds_used);
	jsonw_uint_field(&w, "creds_max", st->creds_max);
	snprintf(hex, sizeof(hex), "0x%" PRIx64, st->mask);
	jsonw_string_field(&w, "mask", hex);
	jsonw_name(&w, "mask_caps");
	if (settext_json_names(&w, capuns_set_of(st->mask)))
		return -ENOMEM;
	jsonw_uint_field(&w, "creds_per_uid", st->creds_per_uid);
	jsonw_uint_field(&w, "denials", st->denials);
	jsonw_uint_field(&w, "refusals", st->refusals);
	jsonw_uint_field(&w, "quota_refusals", st->quota_refusals);
	jsonw_uint_field(&w, "lost_events", st->lost_events);
	jsonw_uint_field(&w, "limited_events", st->limited_events);
	jsonw_uint_field(&w, "late_entries", st->late_entries);
	jsonw_uint_field(&w, "recursion_misses", st->recursion_misses);
	jsonw_bool_field(&w, "tasks_iterator", st->tasks_iterator);
	jsonw_bool_field(&w, "complain", st->complain);
	json_interrupted(&w, st);
	jsonw_end_object(&w);
	jsonw_end_document(&w);
	return 0;
}

static int print_status_text(FILE *out, const struct capuns_bpf_status *st)
{
	fprintf(out, "capuns BPF backend: loaded, ABI %u, version %s\n", st->abi, st->version);
	fprintf(out, "hooks: %d of %d attached\n", st->attached, st->nhooks);
	for (int i = 0; i < st->nhooks; i++) {
		if (st->hooks[i].prog_id)
			fprintf(out, "  %-28s prog %u\n", st->hooks[i].section, st->hooks[i].prog_id);
		else
			fprintf(out, "  %-28s NOT ATTACHED\n", st->hooks[i].section);
	}
	fprintf(out, "credentials: %u of %u entries used, %u per uid\n", st->creds_used,
		st->creds_max, st->creds_per_uid);
	fprintf(out, "mask: 0x%" PRIx64 " (", st->mask);
	if (settext_print(out, capuns_set_of(st->mask)))
		return -ENOMEM;
	fprintf(out, ")\n");
	fprintf(out, "mode: %s\n", st->complain ? "complain (uses outside the sets are reported "
						     "and allowed)" : "enforce");
	fprintf(out, "denials: %llu, refusals: %llu (at a uid's quota: %llu)\n",
		(unsigned long long)st->denials, (unsigned long long)st->refusals,
		(unsigned long long)st->quota_refusals);
	fprintf(out, "events: lost %llu (ring buffer full), rate-limited %llu\n",
		(unsigned long long)st->lost_events, (unsigned long long)st->limited_events);
	fprintf(out, "fexit/userns_install: %llu recursion misses, %llu entries applied late\n",
		(unsigned long long)st->recursion_misses, (unsigned long long)st->late_entries);
	text_interrupted(out, st);
	return 0;
}

/* 0 when loaded with every hook attached and nothing left by an interrupted load, 1 otherwise. */
static int cmd_status(bool json)
{
	struct capuns_bpf_status st;
	int err = capuns_bpf_status(&st);

	if (err == -ENOENT) {
		if (json) {
			struct json_writer w;

			jsonw_init(&w, stdout, false);
			jsonw_start_object(&w);
			jsonw_bool_field(&w, "loaded", false);
			json_interrupted(&w, &st);
			jsonw_end_object(&w);
			jsonw_end_document(&w);
		} else {
			fputs("capuns BPF backend: not loaded\n", stdout);
			text_interrupted(stdout, &st);
		}
		return 1;
	}
	if (err && err != -ENOLINK)
		return 1;
	if ((json ? print_status_json : print_status_text)(stdout, &st)) {
		fprintf(stderr, "capuns-bpf: status: %s\n", strerror(ENOMEM));
		return 1;
	}
	return err || st.interrupted_load ? 1 : 0;
}

/* ---- monitor ------------------------------------------------------------ */

static volatile sig_atomic_t monitor_stop;

static void on_signal(int sig)
{
	(void)sig;
	monitor_stop = 1;
}

static const char *reason_name(__u32 reason)
{
	switch (reason) {
	case CAPUNS_BPF_DENY_CAP: return "cap-denied";
	case CAPUNS_BPF_REFUSE_USERNS: return "userns-refused";
	case CAPUNS_BPF_REFUSE_CRED: return "cred-refused";
	case CAPUNS_BPF_REFUSE_EXEC: return "exec-refused";
	case CAPUNS_BPF_KILL_SETNS: return "setns-killed";
	case CAPUNS_BPF_KILL_TRANSFER: return "transfer-killed";
	case CAPUNS_BPF_DENY_PTRACE: return "ptrace-denied";
	}
	return "unknown";
}

static void print_event(const struct capuns_bpf_event *ev, void *arg)
{
	bool json = *(const bool *)arg;
	char cap[64] = "-", comm[sizeof(ev->comm) + 1];
	FILE *out = stdout;

	if (ev->cap >= 0)
		settext_cap_name(ev->cap, cap, sizeof(cap));
	memcpy(comm, ev->comm, sizeof(ev->comm));
	comm[sizeof(ev->comm)] = '\0';
	if (json) {
		struct json_writer w;

		jsonw_init(&w, out, false);
		jsonw_start_object(&w);
		jsonw_uint_field(&w, "ts_ns", ev->ts_ns);
		jsonw_uint_field(&w, "pid", ev->pid);
		jsonw_uint_field(&w, "tgid", ev->tgid);
		jsonw_uint_field(&w, "uid", ev->uid);
		jsonw_bool_field(&w, "complain", ev->err == 0);
		jsonw_name(&w, "comm");
		jsonw_string_n(&w, ev->comm, sizeof(ev->comm));
		if (ev->cap >= 0)
			jsonw_string_field(&w, "cap", cap);
		else
			jsonw_null_field(&w, "cap");
		jsonw_int_field(&w, "cap_nr", ev->cap);
		jsonw_uint_field(&w, "depth", ev->depth);
		jsonw_uint_field(&w, "target_depth", ev->target_depth);
		jsonw_string_field(&w, "reason", reason_name(ev->reason));
		jsonw_int_field(&w, "errno", -ev->err);
		jsonw_end_object(&w);
		jsonw_end_document(&w);
	} else {
		fprintf(out, "%llu.%06llu pid %u (%s) uid %u: %s %s depth %u target %u: %s\n",
			(unsigned long long)(ev->ts_ns / 1000000000ULL),
			(unsigned long long)(ev->ts_ns % 1000000000ULL / 1000), ev->pid, comm,
			ev->uid, ev->err ? reason_name(ev->reason) : "complain", cap, ev->depth,
			ev->target_depth, ev->err ? strerror(-ev->err) : "allowed (complain mode)");
	}
	fflush(out);
}

static void say_ready(void *arg)
{
	(void)arg;
	fputs("capuns-bpf: monitoring\n", stderr);
}

/*
 * monitor --journal, what capuns-log.service runs: one line per event on
 * stdout, which systemd connects to the journal.  The "<N>" prefix sets
 * the priority (sd-daemon(3)): a refusal for want of room is an error, a
 * denial by the rules a warning, a use complain mode let pass a notice.
 * The unit's identifier is "capuns" (journalctl -t capuns).
 */
static int event_priority(const struct capuns_bpf_event *ev)
{
	if (ev->err == 0)
		return LOG_NOTICE;
	return ev->reason == CAPUNS_BPF_DENY_CAP || ev->reason == CAPUNS_BPF_DENY_PTRACE
		       ? LOG_WARNING : LOG_ERR;
}

/* The systemd unit of pid, from its cgroup path (its last component), or "-". */
static void unit_of(__u32 pid, char *buf, size_t len)
{
	char path[64], line[512], *slash;
	FILE *f;

	snprintf(buf, len, "-");
	snprintf(path, sizeof(path), "/proc/%u/cgroup", pid);
	f = fopen(path, "re");
	if (!f)
		return; /* gone already: the event still says who */
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::/", 4))
			continue;
		line[strcspn(line, "\n")] = '\0';
		slash = strrchr(line, '/');
		if (slash && slash[1])
			snprintf(buf, len, "%s", slash + 1);
		break;
	}
	fclose(f);
}

static void journal_event(const struct capuns_bpf_event *ev, void *arg)
{
	char cap[64] = "-", comm[sizeof(ev->comm) + 1], user[64], unit[256];
	const struct passwd *pw = getpwuid(ev->uid);

	(void)arg;
	if (ev->cap >= 0)
		settext_cap_name(ev->cap, cap, sizeof(cap));
	memcpy(comm, ev->comm, sizeof(ev->comm));
	comm[sizeof(ev->comm)] = '\0';
	snprintf(user, sizeof(user), "%s", pw ? pw->pw_name : "?");
	unit_of(ev->tgid, unit, sizeof(unit));
	printf("<%d>%s: %s pid %u (%s) uid %u (%s) unit %s, namespace depth %u, target depth %u: %s\n",
	       event_priority(ev), ev->err ? reason_name(ev->reason) : "complain",
	       ev->cap >= 0 ? cap : "-", ev->tgid, comm, ev->uid, user, unit, ev->depth,
	       ev->target_depth, ev->err ? strerror(-ev->err) : "allowed (complain mode)");
	fflush(stdout);
}

/*
 * The backend rate-limits events per uid and counts what it did not send;
 * every 10 s the counts that grew are logged, so that a flood costs lines,
 * never the knowledge that it happened.
 */
struct journal_counts {
	time_t next;
	uint64_t limited, lost;
	bool known;
};

static void journal_counts(void *arg)
{
	struct journal_counts *c = arg;
	struct capuns_bpf_status st;
	time_t now = time(NULL);

	if (now < c->next)
		return;
	c->next = now + 10;
	if (capuns_bpf_status(&st) && !st.abi)
		return;
	if (c->known && (st.limited_events > c->limited || st.lost_events > c->lost)) {
		printf("<%d>events not logged in the last 10 s: %llu over a uid's rate limit, "
		       "%llu with the ring buffer full (totals %llu and %llu; denials %llu)\n",
		       LOG_WARNING, (unsigned long long)(st.limited_events - c->limited),
		       (unsigned long long)(st.lost_events - c->lost),
		       (unsigned long long)st.limited_events, (unsigned long long)st.lost_events,
		       (unsigned long long)st.denials);
		fflush(stdout);
	}
	c->limited = st.limited_events;
	c->lost = st.lost_events;
	c->known = true;
}

/*
 * The ring buffer has one reader: whoever consumes an event takes it from
 * the others.  The journal writer holds this lock while it runs, and a
 * live monitor then follows the journal instead of competing with it.
 */
#define JOURNAL_LOCK "/run/capuns-log.lock"

static int journal_lock(void)
{
	int fd = open(JOURNAL_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
		fprintf(stderr, "capuns-bpf: %s: %s (another journal writer runs?)\n",
			JOURNAL_LOCK, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static bool journal_writer_runs(void)
{
	int fd = open(JOURNAL_LOCK, O_RDONLY | O_CLOEXEC);
	bool held;

	if (fd < 0)
		return false;
	held = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	return held;
}

static int follow_journal(bool json)
{
	char *argv[] = { "journalctl", "--follow", "--lines=0", "--identifier=capuns",
			 json ? "--output=json" : "--output=short-precise", NULL };

	fputs("capuns-bpf: capuns-log.service writes the events to the journal; "
	      "following it (journalctl -t capuns)\n", stderr);
	execvp(argv[0], argv);
	fprintf(stderr, "capuns-bpf: cannot run journalctl: %s\n", strerror(errno));
	return 1;
}

static int cmd_monitor(struct capuns_bpf_monitor_opts *mon, bool json, bool journal)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct journal_counts counts = { 0 };
	int lock = -1, r;

	if (journal) {
		lock = journal_lock();
		if (lock < 0)
			return 1;
		mon->on_event = journal_event;
		mon->idle = journal_counts;
		mon->arg = &counts;
	} else {
		if (!mon->max_events && !mon->timeout_ms && journal_writer_runs())
			return follow_journal(json);
		mon->on_event = print_event;
		mon->ready = say_ready;
		mon->arg = &json;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	mon->stop = &monitor_stop;
	r = capuns_bpf_monitor(mon) < 0 ? 1 : 0;
	if (lock >= 0)
		close(lock);
	return r;
}

/* ---- command line ------------------------------------------------------- */

enum { OPT_RELOAD = 1, OPT_MAX_CREDS, OPT_PER_UID, OPT_RINGBUF, OPT_VERBOSE, OPT_JSON,
       OPT_BACKLOG, OPT_COUNT, OPT_TIMEOUT, OPT_BTF, OPT_JOURNAL, OPT_HELP = 'h',
       OPT_VERSION = 'V' };

static const struct option options[] = {
	{ "reload", no_argument, NULL, OPT_RELOAD },
	{ "max-creds", required_argument, NULL, OPT_MAX_CREDS },
	{ "max-creds-per-uid", required_argument, NULL, OPT_PER_UID },
	{ "ringbuf", required_argument, NULL, OPT_RINGBUF },
	{ "verbose", no_argument, NULL, OPT_VERBOSE },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "backlog", no_argument, NULL, OPT_BACKLOG },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "btf", required_argument, NULL, OPT_BTF },
	{ "journal", no_argument, NULL, OPT_JOURNAL },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ 0 },
};

#define OPT_BIT(o) (1u << (o))

/* Which options each command takes; anything else is a usage error. */
static const struct command {
	const char *name;
	unsigned int options;
} commands[] = {
	{ "load", OPT_BIT(OPT_RELOAD) | OPT_BIT(OPT_MAX_CREDS) | OPT_BIT(OPT_PER_UID) |
		  OPT_BIT(OPT_RINGBUF) |
		  OPT_BIT(OPT_VERBOSE) | OPT_BIT(OPT_BTF) },
	{ "unload", 0 },
	{ "status", OPT_BIT(OPT_JSON) },
	{ "monitor", OPT_BIT(OPT_JSON) | OPT_BIT(OPT_BACKLOG) | OPT_BIT(OPT_COUNT) |
		     OPT_BIT(OPT_TIMEOUT) | OPT_BIT(OPT_JOURNAL) },
};

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
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
	struct capuns_bpf_monitor_opts mon = { 0 };
	struct capuns_bpf_load_opts load = { 0 };
	const char *cmd;
	bool json = false, journal = false;
	unsigned long v;
	int opt, err;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
		printf("capuns-bpf %s\n", CAPUNS_VERSION);
		return 0;
	}
	command = find_command(cmd);
	if (!command) {
		fprintf(stderr, "capuns-bpf: unknown command '%s'\n", cmd);
		usage(stderr);
		return 2;
	}
	optind = 2;
	while ((opt = getopt_long(argc, argv, "hV", options, NULL)) != -1) {
		if (opt >= OPT_RELOAD && opt <= OPT_JOURNAL && !(command->options & OPT_BIT(opt))) {
			fprintf(stderr, "capuns-bpf: --%s does not apply to %s\n",
				option_name(opt), cmd);
			usage(stderr);
			return 2;
		}
		switch (opt) {
		case OPT_RELOAD: load.reload = true; break;
		case OPT_VERBOSE: load.verbose = true; break;
		case OPT_BTF: load.btf_path = optarg; break;
		case OPT_JSON: json = true; break;
		case OPT_JOURNAL: journal = true; break;
		case OPT_BACKLOG: mon.backlog = true; break;
		case OPT_MAX_CREDS:
		case OPT_PER_UID:
		case OPT_RINGBUF:
		case OPT_COUNT:
		case OPT_TIMEOUT:
			/* Credential limits of 0 would refuse every namespace. */
			if (parse_decimal(optarg, opt == OPT_MAX_CREDS || opt == OPT_PER_UID,
					  opt == OPT_TIMEOUT ? INT_MAX / 1000 : INT_MAX, &v)) {
				fprintf(stderr, "capuns-bpf: bad number '%s'\n", optarg);
				return 2;
			}
			if (opt == OPT_MAX_CREDS)
				load.max_creds = v;
			else if (opt == OPT_PER_UID)
				load.max_creds_per_uid = v;
			else if (opt == OPT_RINGBUF)
				load.ringbuf_bytes = v;
			else if (opt == OPT_COUNT)
				mon.max_events = v;
			else
				mon.timeout_ms = v * 1000;
			break;
		case OPT_HELP: usage(stdout); return 0;
		case OPT_VERSION: printf("capuns-bpf %s\n", CAPUNS_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc || (json && journal)) {
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
		return cmd_status(json);
	return cmd_monitor(&mon, json, journal);
}
