// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Loader of the capuns BPF-LSM backend: load, reload, unload, status,
 * monitor.  See capuns-bpf.h for the contract.
 *
 * Pins (CAPUNS_BPF_PIN_DIR):
 *   creds config events   the maps; reused by every reload
 *   links/<program>       one BPF link per hook: a program stays attached
 *                         as long as its link is pinned
 *   tasks                 task iterator, world-readable (capuns_get(pid))
 *
 * Reload without a window: the new programs are attached while the old
 * links are still pinned (both sets enforce the same rules on the same
 * maps for a moment, which is harmless: every hook is idempotent), pinned
 * in links-new/, and then links/ is renamed to links-old/ and links-new/ to
 * links/ (two renames in bpffs); the old links are unpinned last.  Our own
 * file descriptors keep the new links alive throughout.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/magic.h>

#include "capuns-abi.h"
#include "capuns-bpf-abi.h"
#include "capuns-bpf.h"
#include "capuns.skel.h"

#ifndef CAPUNS_VERSION
#define CAPUNS_VERSION "unknown"
#endif

#define PIN_ROOT "/sys/fs/bpf"
#define PIN_DIR CAPUNS_BPF_PIN_DIR
#define LINKS_DIR PIN_DIR "/" CAPUNS_BPF_PIN_LINKS
#define LINKS_NEW LINKS_DIR "-new" /* bpffs refuses names with dots */
#define LINKS_OLD LINKS_DIR "-old"
#define TASKS_PIN PIN_DIR "/" CAPUNS_BPF_PIN_TASKS
#define TASKS_NEW TASKS_PIN "-new"
#define DEFAULT_MAX_CREDS 65536

static void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("capuns-bpf: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static bool verbose_libbpf;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* Warnings (a verifier log, a map that cannot be reused) always. */
	if (level != LIBBPF_WARN && !verbose_libbpf)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int pin_path(char *buf, size_t len, const char *dir, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Every capability of the running kernel, as libcap counts them. */
static uint64_t kernel_full_set(void)
{
	unsigned bits = cap_max_bits();

	return bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
}

static int check_bpffs(void)
{
	struct statfs st;

	if (statfs(PIN_ROOT, &st) < 0) {
		msg("%s: %s", PIN_ROOT, strerror(errno));
		return -errno;
	}
	if (st.f_type != BPF_FS_MAGIC) {
		msg("no bpf filesystem at %s (mount -t bpf bpf %s)", PIN_ROOT, PIN_ROOT);
		return -ENODEV;
	}
	return 0;
}

/* Exclusive lock over the pin directory (created 0755 if missing). */
static int lock_pin_dir(bool create)
{
	int fd;

	if (create && mkdir(PIN_DIR, 0755) < 0 && errno != EEXIST) {
		msg("mkdir %s: %s", PIN_DIR, strerror(errno));
		return -errno;
	}
	fd = open(PIN_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT)
			msg("%s: %s", PIN_DIR, strerror(errno));
		return -errno;
	}
	if (flock(fd, LOCK_EX) < 0) {
		int err = -errno;

		msg("lock %s: %s", PIN_DIR, strerror(errno));
		close(fd);
		return err;
	}
	return fd;
}

/* Remove every entry of a pin directory and the directory itself. */
static int remove_pin_tree(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *de;
	int err = 0;
	DIR *d;

	d = opendir(dir);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		msg("%s: %s", dir, strerror(errno));
		return -errno;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (pin_path(path, sizeof(path), dir, de->d_name) || unlink(path) < 0) {
			err = -errno;
			msg("unlink %s/%s: %s", dir, de->d_name, strerror(errno));
		}
	}
	closedir(d);
	if (rmdir(dir) < 0 && errno != ENOENT) {
		err = -errno;
		msg("rmdir %s: %s", dir, strerror(errno));
	}
	return err;
}

static int unlink_pin(const char *path)
{
	if (unlink(path) < 0 && errno != ENOENT) {
		msg("unlink %s: %s", path, strerror(errno));
		return -errno;
	}
	return 0;
}

/* ---- pinned state ------------------------------------------------------ */

static int open_pinned_map(const char *name)
{
	char path[PATH_MAX];

	int fd;

	if (pin_path(path, sizeof(path), PIN_DIR, name))
		return -ENAMETOOLONG;
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

static int read_config(int fd, struct capuns_bpf_config *cfg)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(fd, &zero, cfg) < 0 ? -errno : 0;
}

static int pinned_max_entries(const char *name, __u32 *max)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);
	int fd, err = 0;

	fd = open_pinned_map(name);
	if (fd < 0)
		return fd;
	if (bpf_obj_get_info_by_fd(fd, &info, &len) < 0)
		err = -errno;
	else
		*max = info.max_entries;
	close(fd);
	return err;
}

static bool is_iterator(const struct bpf_program *prog)
{
	return bpf_program__type(prog) == BPF_PROG_TYPE_TRACING &&
	       bpf_program__expected_attach_type(prog) == BPF_TRACE_ITER;
}

/* Number of hook links pinned under dir that the object expects. */
static int count_links(const struct bpf_object *obj, const char *dir, int *expected)
{
	struct bpf_program *prog;
	char path[PATH_MAX];
	int present = 0;

	*expected = 0;
	bpf_object__for_each_program(prog, obj) {
		if (is_iterator(prog))
			continue;
		(*expected)++;
		if (!pin_path(path, sizeof(path), dir, bpf_program__name(prog)) &&
		    access(path, F_OK) == 0)
			present++;
	}
	return present;
}

/* ---- load --------------------------------------------------------------- */

/*
 * Point the maps at their pins: libbpf reuses a pinned map whose
 * definition matches and pins the ones it creates.  A pinned credential
 * map keeps its size; asking for another one needs an unload.
 */
static int setup_maps(struct capuns_bpf *skel, const struct capuns_bpf_load_opts *opts, bool *fresh)
{
	struct bpf_map *maps[] = { skel->maps.creds, skel->maps.config, skel->maps.events };
	__u32 pinned;
	int err;

	*fresh = true;
	err = pinned_max_entries(CAPUNS_BPF_PIN_CREDS, &pinned);
	if (!err) {
		*fresh = false;
		if (opts->max_creds && opts->max_creds != pinned) {
			msg("the pinned credential map has %u entries; resizing it needs "
			    "an unload first", pinned);
			return -EEXIST;
		}
		bpf_map__set_max_entries(skel->maps.creds, pinned);
		if (!pinned_max_entries(CAPUNS_BPF_PIN_EVENTS, &pinned))
			bpf_map__set_max_entries(skel->maps.events, pinned);
	} else {
		if (opts->max_creds)
			bpf_map__set_max_entries(skel->maps.creds, opts->max_creds);
		else
			bpf_map__set_max_entries(skel->maps.creds, DEFAULT_MAX_CREDS);
		if (opts->ringbuf_bytes)
			bpf_map__set_max_entries(skel->maps.events, opts->ringbuf_bytes);
	}
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		char path[PATH_MAX];

		err = pin_path(path, sizeof(path), PIN_DIR, bpf_map__name(maps[i]));
		if (!err)
			err = bpf_map__set_pin_path(maps[i], path);
		if (err) {
			msg("pin path of map %s: %s", bpf_map__name(maps[i]), strerror(-err));
			return err;
		}
	}
	return 0;
}

/* First load: the mask starts full.  A reload keeps what is there. */
static int init_config(struct capuns_bpf *skel)
{
	int fd = bpf_map__fd(skel->maps.config);
	struct capuns_bpf_config cfg;
	__u32 zero = 0;
	int err;

	err = read_config(fd, &cfg);
	if (err) {
		msg("read config: %s", strerror(-err));
		return err;
	}
	if (cfg.initialized) {
		if (cfg.abi != CAPUNS_BPF_ABI_VERSION) {
			msg("the loaded backend has ABI %u, this loader %u: unload first",
			    cfg.abi, CAPUNS_BPF_ABI_VERSION);
			return -EEXIST;
		}
		return 0;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.mask = kernel_full_set();
	cfg.abi = CAPUNS_BPF_ABI_VERSION;
	cfg.initialized = 1;
	snprintf(cfg.version, sizeof(cfg.version), "%s", CAPUNS_VERSION);
	if (bpf_map_update_elem(fd, &zero, &cfg, BPF_ANY) < 0) {
		msg("write config: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

/* Attach every hook program and pin its link under LINKS_NEW. */
static int attach_hooks(struct capuns_bpf *skel)
{
	struct bpf_program *prog;
	char path[PATH_MAX];
	int err;

	err = remove_pin_tree(LINKS_NEW); /* left over by a crashed load */
	if (err)
		return err;
	if (mkdir(LINKS_NEW, 0700) < 0) {
		msg("mkdir %s: %s", LINKS_NEW, strerror(errno));
		return -errno;
	}
	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_link *link;

		if (is_iterator(prog))
			continue;
		link = bpf_program__attach(prog);
		if (!link) {
			err = -errno;
			msg("attach %s (%s): %s", bpf_program__name(prog),
			    bpf_program__section_name(prog), strerror(-err));
			return err;
		}
		err = pin_path(path, sizeof(path), LINKS_NEW, bpf_program__name(prog));
		if (!err)
			err = bpf_link__pin(link, path);
		/*
		 * The link object is dropped; its fd stays open until the
		 * skeleton is destroyed, so the program stays attached until
		 * the pins have taken over.
		 */
		if (err) {
			msg("pin %s: %s", path, strerror(-err));
			return err;
		}
	}
	return 0;
}

/* The task iterator, pinned world-readable next to the links. */
static int pin_tasks(struct capuns_bpf *skel)
{
	struct bpf_link *link;
	int err;

	link = bpf_program__attach_iter(skel->progs.capuns_tasks, NULL);
	if (!link) {
		msg("attach task iterator: %s", strerror(errno));
		return -errno;
	}
	unlink(TASKS_NEW);
	err = bpf_link__pin(link, TASKS_NEW);
	if (err) {
		msg("pin %s: %s", TASKS_NEW, strerror(-err));
		return err;
	}
	if (chmod(TASKS_NEW, 0444) < 0 || rename(TASKS_NEW, TASKS_PIN) < 0) {
		msg("publish %s: %s", TASKS_PIN, strerror(errno));
		return -errno;
	}
	return 0;
}

/* links-new -> links; the old links are unpinned (detached) last. */
static int swap_links(void)
{
	int err;

	err = remove_pin_tree(LINKS_OLD);
	if (err)
		return err;
	if (rename(LINKS_DIR, LINKS_OLD) < 0 && errno != ENOENT) {
		msg("rename %s: %s", LINKS_DIR, strerror(errno));
		return -errno;
	}
	if (rename(LINKS_NEW, LINKS_DIR) < 0) {
		err = -errno;
		msg("rename %s: %s", LINKS_NEW, strerror(errno));
		/* Put the old links back: they still enforce. */
		rename(LINKS_OLD, LINKS_DIR);
		return err;
	}
	return remove_pin_tree(LINKS_OLD);
}

/* 1 when the same ABI is loaded with every hook pinned. */
static int already_loaded(const struct capuns_bpf *skel)
{
	struct capuns_bpf_config cfg;
	int fd, expected, present;

	fd = open_pinned_map(CAPUNS_BPF_PIN_CONFIG);
	if (fd < 0)
		return 0;
	if (read_config(fd, &cfg) || !cfg.initialized || cfg.abi != CAPUNS_BPF_ABI_VERSION) {
		close(fd);
		return 0;
	}
	close(fd);
	present = count_links(skel->obj, LINKS_DIR, &expected);
	return present == expected && access(TASKS_PIN, R_OK) == 0;
}

static void unpin_fresh_maps(bool fresh)
{
	if (!fresh)
		return;
	unlink_pin(PIN_DIR "/" CAPUNS_BPF_PIN_CREDS);
	unlink_pin(PIN_DIR "/" CAPUNS_BPF_PIN_CONFIG);
	unlink_pin(PIN_DIR "/" CAPUNS_BPF_PIN_EVENTS);
}

static struct capuns_bpf *open_skel(const char *btf_path)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = btf_path);
	struct capuns_bpf *skel;

	libbpf_set_print(libbpf_print);
	skel = capuns_bpf__open_opts(&oo);
	if (!skel)
		msg("open BPF object: %s", strerror(errno));
	return skel;
}

int capuns_bpf_load(const struct capuns_bpf_load_opts *opts)
{
	struct capuns_bpf_load_opts none = { 0 };
	struct capuns_bpf *skel;
	bool fresh = false;
	int lock, err;

	if (!opts)
		opts = &none;
	verbose_libbpf = opts->verbose;
	err = check_bpffs();
	if (err)
		return err;
	lock = lock_pin_dir(true);
	if (lock < 0)
		return lock;
	skel = open_skel(opts->btf_path);
	if (!skel) {
		err = -ENOMEM;
		goto out_unlock;
	}
	if (!opts->reload && already_loaded(skel)) {
		err = 1;
		goto out;
	}
	skel->rodata->cap_last_cap = cap_max_bits() - 1;
	err = setup_maps(skel, opts, &fresh);
	if (err)
		goto out;
	/* The programs' filter counts entries from an empty map only. */
	skel->rodata->filter_valid = fresh;
	err = capuns_bpf__load(skel);
	if (err) {
		msg("load BPF programs: %s%s", strerror(-err),
		    opts->verbose ? "" : " (--verbose shows the verifier log)");
		/* libbpf unpins nothing on failure: forget maps we created. */
		goto out_fresh;
	}
	err = init_config(skel);
	if (!err)
		err = attach_hooks(skel);
	if (!err)
		err = pin_tasks(skel);
	if (!err)
		err = swap_links();
	if (err) {
		remove_pin_tree(LINKS_NEW);
		goto out_fresh;
	}
	goto out;
out_fresh:
	if (fresh && access(LINKS_DIR, F_OK) != 0) {
		unpin_fresh_maps(true);
		unlink_pin(TASKS_PIN);
		rmdir(PIN_DIR);
	}
out:
	capuns_bpf__destroy(skel);
out_unlock:
	close(lock);
	return err;
}

/* ---- unload ------------------------------------------------------------- */

int capuns_bpf_unload(void)
{
	int lock, err = 0, e;

	e = check_bpffs();
	if (e)
		return e;
	lock = lock_pin_dir(false);
	if (lock == -ENOENT) {
		msg("not loaded");
		return -ENOENT;
	}
	if (lock < 0)
		return lock;
	/* Links first: enforcement ends, then the state goes. */
	const char *trees[] = { LINKS_NEW, LINKS_DIR, LINKS_OLD };
	for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++)
		if ((e = remove_pin_tree(trees[i])))
			err = e;
	const char *pins[] = { TASKS_NEW, TASKS_PIN, PIN_DIR "/" CAPUNS_BPF_PIN_CREDS,
			       PIN_DIR "/" CAPUNS_BPF_PIN_CONFIG, PIN_DIR "/" CAPUNS_BPF_PIN_EVENTS };
	for (size_t i = 0; i < sizeof(pins) / sizeof(pins[0]); i++)
		if ((e = unlink_pin(pins[i])))
			err = e;
	if (rmdir(PIN_DIR) < 0) {
		err = -errno;
		msg("rmdir %s: %s", PIN_DIR, strerror(errno));
	}
	close(lock);
	return err;
}

/* ---- status ------------------------------------------------------------- */

/* Name of a capability through libcap ("cap_net_admin", or its number). */
static void cap_name(int cap, char *buf, size_t len)
{
	char *name = cap_to_name(cap);

	snprintf(buf, len, "%s", name ? name : "?");
	cap_free(name);
}

static void print_set_names(FILE *out, uint64_t set, uint64_t full, bool json)
{
	bool first = true;
	char name[64];

	if (!json && set == full) {
		fputs("all", out);
		return;
	}
	if (!json && !set) {
		fputs("none", out);
		return;
	}
	/* "all,-cap_x" when short, as capsh --print would. */
	bool minus = !json && __builtin_popcountll(full & ~set) < __builtin_popcountll(set);
	if (minus)
		fputs("all", out);
	for (int cap = 0; cap < 64; cap++) {
		bool in = set & (UINT64_C(1) << cap);

		if (minus ? in || !(full & (UINT64_C(1) << cap)) : !in)
			continue;
		cap_name(cap, name, sizeof(name));
		fprintf(out, json ? "%s\"%s\"" : "%s%s%s", first && !minus ? "" : ",",
			json ? name : minus ? "-" : "", json ? "" : name);
		first = false;
	}
}

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

struct hook_state {
	const char *section;
	const char *name;
	__u32 prog_id; /* 0: not attached */
};

static void hook_state(const char *name, struct hook_state *h)
{
	struct bpf_link_info info = { 0 };
	__u32 len = sizeof(info);
	char path[PATH_MAX];
	int fd;

	h->prog_id = 0;
	if (pin_path(path, sizeof(path), LINKS_DIR, name))
		return;
	fd = bpf_obj_get(path);
	if (fd < 0)
		return;
	if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0)
		h->prog_id = info.prog_id;
	close(fd);
}

int capuns_bpf_status(FILE *out, bool json)
{
	struct capuns_bpf_config cfg;
	struct bpf_program *prog;
	struct hook_state hooks[32];
	struct capuns_bpf *skel;
	int n = 0, attached = 0, cfd, cred_fd, err;
	__u32 used = 0, max = 0;
	uint64_t full = kernel_full_set();

	cfd = open_pinned_map(CAPUNS_BPF_PIN_CONFIG);
	if (cfd < 0 || read_config(cfd, &cfg)) {
		if (cfd >= 0)
			close(cfd);
		if (json)
			fprintf(out, "{\"loaded\":false}\n");
		else
			fprintf(out, "capuns BPF backend: not loaded\n");
		return -ENOENT;
	}
	close(cfd);
	cred_fd = open_pinned_map(CAPUNS_BPF_PIN_CREDS);
	if (cred_fd >= 0) {
		count_entries(cred_fd, &used);
		close(cred_fd);
		pinned_max_entries(CAPUNS_BPF_PIN_CREDS, &max);
	}
	/* The expected hooks are those of the object this loader carries. */
	skel = open_skel(NULL);
	if (!skel)
		return -ENOMEM;
	bpf_object__for_each_program(prog, skel->obj) {
		if (is_iterator(prog) || n >= (int)(sizeof(hooks) / sizeof(hooks[0])))
			continue;
		hooks[n].section = bpf_program__section_name(prog);
		hooks[n].name = bpf_program__name(prog);
		hook_state(hooks[n].name, &hooks[n]);
		attached += hooks[n].prog_id != 0;
		n++;
	}
	cfg.version[sizeof(cfg.version) - 1] = '\0';
	if (json) {
		fprintf(out, "{\"loaded\":true,\"abi\":%u,\"version\":\"%s\",\"hooks\":[",
			cfg.abi, cfg.version);
		for (int i = 0; i < n; i++)
			fprintf(out, "%s{\"hook\":\"%s\",\"attached\":%s,\"prog_id\":%u}",
				i ? "," : "", hooks[i].section, hooks[i].prog_id ? "true" : "false",
				hooks[i].prog_id);
		fprintf(out, "],\"creds_used\":%u,\"creds_max\":%u,\"mask\":\"0x%" PRIx64
			"\",\"mask_caps\":[", used, max, (uint64_t)cfg.mask);
		print_set_names(out, cfg.mask, full, true);
		fprintf(out, "],\"denials\":%llu,\"refusals\":%llu,\"lost_events\":%llu,"
			"\"tasks_iterator\":%s}\n", (unsigned long long)cfg.denials,
			(unsigned long long)cfg.refusals, (unsigned long long)cfg.lost_events,
			access(TASKS_PIN, R_OK) == 0 ? "true" : "false");
	} else {
		fprintf(out, "capuns BPF backend: loaded, ABI %u, version %s\n", cfg.abi, cfg.version);
		fprintf(out, "hooks: %d of %d attached\n", attached, n);
		for (int i = 0; i < n; i++) {
			if (hooks[i].prog_id)
				fprintf(out, "  %-28s prog %u\n", hooks[i].section, hooks[i].prog_id);
			else
				fprintf(out, "  %-28s NOT ATTACHED\n", hooks[i].section);
		}
		fprintf(out, "credentials: %u of %u entries used\n", used, max);
		fprintf(out, "mask: 0x%" PRIx64 " (", (uint64_t)cfg.mask);
		print_set_names(out, cfg.mask, full, false);
		fprintf(out, ")\n");
		fprintf(out, "denials: %llu, refusals: %llu, lost events: %llu\n",
			(unsigned long long)cfg.denials, (unsigned long long)cfg.refusals,
			(unsigned long long)cfg.lost_events);
	}
	err = attached == n ? 0 : -ENOLINK;
	capuns_bpf__destroy(skel);
	return err;
}

/* ---- monitor ------------------------------------------------------------ */

struct monitor {
	FILE *out;
	const struct capuns_bpf_monitor_opts *opts;
	__u64 start_ns;
	int printed;
};

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
	}
	return "unknown";
}

/* comm as a JSON string body: quotes, backslashes and controls escaped. */
static void json_string(FILE *out, const char *s, size_t max)
{
	for (size_t i = 0; i < max && s[i]; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct monitor *m = ctx;
	const struct capuns_bpf_event *ev = data;
	char cap[64] = "-", comm[sizeof(ev->comm) + 1];

	if (size < sizeof(*ev))
		return 0;
	if (!m->opts->backlog && ev->ts_ns < m->start_ns)
		return 0;
	if (ev->cap >= 0)
		cap_name(ev->cap, cap, sizeof(cap));
	memcpy(comm, ev->comm, sizeof(ev->comm));
	comm[sizeof(ev->comm)] = '\0';
	if (m->opts->json) {
		fprintf(m->out, "{\"ts_ns\":%llu,\"pid\":%u,\"tgid\":%u,\"uid\":%u,\"comm\":\"",
			(unsigned long long)ev->ts_ns, ev->pid, ev->tgid, ev->uid);
		json_string(m->out, comm, sizeof(comm));
		fprintf(m->out, "\",\"cap\":%s%s%s,\"cap_nr\":%d,\"depth\":%u,\"target_depth\":%u,"
			"\"reason\":\"%s\",\"errno\":%d}\n", ev->cap >= 0 ? "\"" : "",
			ev->cap >= 0 ? cap : "null", ev->cap >= 0 ? "\"" : "", ev->cap, ev->depth,
			ev->target_depth, reason_name(ev->reason), -ev->err);
	} else {
		fprintf(m->out, "%llu.%06llu pid %u (%s) uid %u: %s %s depth %u target %u: %s\n",
			(unsigned long long)(ev->ts_ns / 1000000000ULL),
			(unsigned long long)(ev->ts_ns % 1000000000ULL / 1000), ev->pid, comm,
			ev->uid, reason_name(ev->reason), cap, ev->depth, ev->target_depth,
			strerror(-ev->err));
	}
	fflush(m->out);
	m->printed++;
	if (m->opts->max_events && m->printed >= m->opts->max_events)
		monitor_stop = 1;
	return 0;
}

static __u64 monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int capuns_bpf_monitor(FILE *out, const struct capuns_bpf_monitor_opts *opts)
{
	struct monitor m = { .out = out, .opts = opts };
	struct sigaction sa = { .sa_handler = on_signal };
	struct ring_buffer *rb;
	__u64 deadline;
	int fd, err = 0;

	fd = open_pinned_map(CAPUNS_BPF_PIN_EVENTS);
	if (fd < 0) {
		msg("%s/%s: %s (is the backend loaded?)", PIN_DIR, CAPUNS_BPF_PIN_EVENTS,
		    strerror(-fd));
		return fd;
	}
	rb = ring_buffer__new(fd, on_event, &m, NULL);
	if (!rb) {
		err = -errno;
		msg("ring buffer: %s", strerror(errno));
		close(fd);
		return err;
	}
	monitor_stop = 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	m.start_ns = monotonic_ns();
	deadline = opts->timeout_ms ? m.start_ns + (__u64)opts->timeout_ms * 1000000ULL : 0;
	if (opts->ready)
		opts->ready(opts->ready_arg);
	while (!monitor_stop) {
		err = ring_buffer__poll(rb, 100);
		if (err < 0 && err != -EINTR) {
			msg("poll: %s", strerror(-err));
			break;
		}
		err = 0;
		if (deadline && monotonic_ns() >= deadline)
			break;
	}
	ring_buffer__free(rb);
	close(fd);
	return err < 0 ? err : m.printed;
}
