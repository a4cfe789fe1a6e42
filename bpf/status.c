// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What the loaded backend reports, as data: its status, and the events of
 * its ring buffer handed to the caller one by one.  Printing and signal
 * handling belong to the program that uses the library (capuns-bpf.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "capuns-bpf.h"
#include "capuns.skel.h"
#include "loader.h"

static int count_entries(int fd, __u32 *n)
{
	__u64 key, next;
	void *prev = NULL;

	*n = 0;
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		(*n)++;
	}
	return errno == ENOENT ? 0 : -errno;
}

/*
 * The hooks expected are those of the object this loader carries: which
 * are attached by the links of PIN_DIR (when loaded), and how many by
 * those an interrupted load left in STAGE_DIR.
 */
static int hooks_status(struct capuns_bpf_status *st, bool loaded)
{
	struct bpf_program *prog;
	struct capuns_bpf *skel;

	skel = skel_open(NULL);
	if (!skel)
		return -ENOMEM;
	bpf_object__for_each_program(prog, skel->obj) {
		struct capuns_bpf_hook_status *h = &st->hooks[st->nhooks];

		if (skel_is_iterator(prog) || st->nhooks >= CAPUNS_BPF_MAX_HOOKS)
			continue;
		snprintf(h->section, sizeof(h->section), "%s", bpf_program__section_name(prog));
		snprintf(h->name, sizeof(h->name), "%s", bpf_program__name(prog));
		h->prog_id = loaded ? pins_link_prog_id(LINKS_DIR, h->name) : 0;
		st->attached += h->prog_id != 0;
		if (st->interrupted_load)
			st->interrupted_attached += pins_link_prog_id(STAGE_LINKS, h->name) != 0;
		st->nhooks++;
	}
	capuns_bpf__destroy(skel);
	return 0;
}

/*
 * How often the recursion guard of the tracing program name (the one
 * tracing program among the hooks) skipped it: the LSM programs have no
 * such guard.  Its rule is applied at the credential's first use then
 * (late_entries); the count says that it happened.
 */
static __u64 recursion_misses(const char *name)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info), id = pins_link_prog_id(LINKS_DIR, name);
	int fd = id ? bpf_prog_get_fd_by_id(id) : -1;

	if (fd < 0)
		return 0;
	if (bpf_obj_get_info_by_fd(fd, &info, &len) < 0)
		info.recursion_misses = 0;
	close(fd);
	return info.recursion_misses;
}

int capuns_bpf_status(struct capuns_bpf_status *st)
{
	struct capuns_bpf_config cfg;
	bool loaded = false;
	int fd, err;

	memset(st, 0, sizeof(*st));
	err = pins_present(STAGE_DIR);
	if (err < 0)
		return err;
	st->interrupted_load = err;
	fd = pins_open_map(PIN_DIR, CAPUNS_BPF_PIN_CONFIG);
	if (fd >= 0) {
		loaded = pins_read_config(fd, &cfg) == 0;
		close(fd);
	}
	if (loaded || st->interrupted_load) {
		err = hooks_status(st, loaded);
		if (err)
			return err;
	}
	if (!loaded)
		return -ENOENT;
	st->abi = cfg.abi;
	memcpy(st->version, cfg.version, sizeof(st->version));
	st->version[sizeof(st->version) - 1] = '\0';
	st->mask = cfg.mask;
	st->denials = cfg.denials;
	st->refusals = cfg.refusals;
	st->lost_events = cfg.lost_events;
	st->quota_refusals = cfg.quota_refusals;
	st->limited_events = cfg.limited_events;
	st->late_entries = cfg.late_entries;
	st->complain = cfg.complain;
	st->creds_per_uid = cfg.creds_per_uid;
	st->recursion_misses = recursion_misses("capuns_userns_install");
	fd = pins_open_map(PIN_DIR, CAPUNS_BPF_PIN_CREDS);
	if (fd >= 0) {
		count_entries(fd, &st->creds_used);
		close(fd);
		pins_map_max_entries(PIN_DIR, CAPUNS_BPF_PIN_CREDS, &st->creds_max);
	}
	st->tasks_iterator = access(TASKS_PIN, R_OK) == 0;
	return st->attached == st->nhooks ? 0 : -ENOLINK;
}

/* ---- events ------------------------------------------------------------- */

struct monitor {
	const struct capuns_bpf_monitor_opts *opts;
	__u64 start_ns;
	int delivered;
	bool done;
};

static int on_ringbuf(void *ctx, void *data, size_t size)
{
	struct monitor *m = ctx;
	const struct capuns_bpf_event *ev = data;

	if (size < sizeof(*ev) || m->done)
		return 0; /* done: exactly max_events are delivered */
	if (!m->opts->backlog && ev->ts_ns < m->start_ns)
		return 0;
	m->opts->on_event(ev, m->opts->arg);
	m->delivered++;
	if (m->opts->max_events && m->delivered >= m->opts->max_events)
		m->done = true;
	return 0;
}

static __u64 monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int capuns_bpf_monitor(const struct capuns_bpf_monitor_opts *opts)
{
	struct monitor m = { .opts = opts };
	struct ring_buffer *rb;
	__u64 deadline;
	int fd, err = 0;

	if (!opts->on_event)
		return -EINVAL;
	fd = pins_open_map(PIN_DIR, CAPUNS_BPF_PIN_EVENTS);
	if (fd < 0) {
		loader_msg("%s/%s: %s (is the backend loaded?)", PIN_DIR, CAPUNS_BPF_PIN_EVENTS,
			   strerror(-fd));
		return fd;
	}
	rb = ring_buffer__new(fd, on_ringbuf, &m, NULL);
	if (!rb) {
		err = loader_errno("ring buffer");
		close(fd);
		return err;
	}
	m.start_ns = monotonic_ns();
	deadline = opts->timeout_ms ? m.start_ns + (__u64)opts->timeout_ms * 1000000ULL : 0;
	if (opts->ready)
		opts->ready(opts->arg);
	while (!m.done && !(opts->stop && *opts->stop)) {
		err = ring_buffer__poll(rb, 100);
		if (err < 0 && err != -EINTR) {
			loader_msg("poll: %s", strerror(-err));
			break;
		}
		err = 0;
		if (opts->idle)
			opts->idle(opts->arg);
		if (deadline && monotonic_ns() >= deadline)
			break;
	}
	ring_buffer__free(rb);
	close(fd);
	return err < 0 ? err : m.delivered;
}
