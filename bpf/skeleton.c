// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The BPF object of the backend through its generated skeleton: maps
 * pointed at their pins, load, attach, and the links pinned.  The links
 * live in skel->links and the skeleton frees them; the pins keep the
 * programs attached after that.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "c.h"
#include "capuns-bpf.h"
#include "capuns.h"
#include "capuns.skel.h"
#include "loader.h"

#ifndef CAPUNS_VERSION
#define CAPUNS_VERSION "unknown"
#endif

#define DEFAULT_MAX_CREDS 65536

static bool verbose_libbpf;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* Warnings (a verifier log, a map that cannot be reused) always. */
	if (level != LIBBPF_WARN && !verbose_libbpf)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

struct capuns_bpf *skel_open(const char *btf_path)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = btf_path);
	struct capuns_bpf *skel;

	libbpf_set_print(libbpf_print);
	skel = capuns_bpf__open_opts(&oo);
	if (!skel)
		loader_msg("open BPF object: %s", strerror(errno));
	return skel;
}

bool skel_is_iterator(const struct bpf_program *prog)
{
	return bpf_program__type(prog) == BPF_PROG_TYPE_TRACING &&
	       bpf_program__expected_attach_type(prog) == BPF_TRACE_ITER;
}

/*
 * Point the maps at their pins in dir: libbpf reuses a pinned map whose
 * definition matches and pins the ones it creates.  A pinned credential
 * map keeps its size; asking for another one needs an unload.
 */
static int setup_maps(struct capuns_bpf *skel, const struct capuns_bpf_load_opts *opts,
		      const char *dir, bool *fresh)
{
	struct bpf_map *maps[] = { skel->maps.creds, skel->maps.config, skel->maps.events,
				   skel->maps.quota, skel->maps.learn };
	__u32 pinned, creds;
	int err;

	*fresh = true;
	err = pins_map_max_entries(dir, CAPUNS_BPF_PIN_CREDS, &pinned);
	if (!err) {
		*fresh = false;
		if (opts->max_creds && opts->max_creds != pinned) {
			loader_msg("the pinned credential map has %u entries; resizing it needs "
				   "an unload first", pinned);
			return -EEXIST;
		}
		bpf_map__set_max_entries(skel->maps.creds, pinned);
		if (!pins_map_max_entries(dir, CAPUNS_BPF_PIN_EVENTS, &pinned))
			bpf_map__set_max_entries(skel->maps.events, pinned);
	} else {
		if (opts->max_creds)
			bpf_map__set_max_entries(skel->maps.creds, opts->max_creds);
		else
			bpf_map__set_max_entries(skel->maps.creds, DEFAULT_MAX_CREDS);
		if (opts->ringbuf_bytes)
			bpf_map__set_max_entries(skel->maps.events, opts->ringbuf_bytes);
	}
	/* The quota counts one uid's entries: a quarter of the map by default. */
	creds = bpf_map__max_entries(skel->maps.creds);
	if (!pins_map_max_entries(dir, CAPUNS_BPF_PIN_QUOTA, &pinned))
		bpf_map__set_max_entries(skel->maps.quota, pinned);
	else
		bpf_map__set_max_entries(skel->maps.quota, creds / 4 ? creds / 4 : 1);
	for (size_t i = 0; i < ARRAY_SIZE(maps); i++) {
		char path[PATH_MAX];

		err = pins_path(path, sizeof(path), dir, bpf_map__name(maps[i]));
		if (!err)
			err = bpf_map__set_pin_path(maps[i], path);
		if (err) {
			loader_msg("pin path of map %s: %s", bpf_map__name(maps[i]), strerror(-err));
			return err;
		}
	}
	return 0;
}

/*
 * Addresses of static kernel objects the programs compare pointers with
 * (the id-map and setgroups waivers of rule 11, PSI files), read from
 * /proc/kallsyms, which shows them to root.  A name that is missing,
 * hidden (address 0) or not unique stays 0: the programs then refuse
 * more, never less.  The kernel's own copies are what the programs
 * compare, so nothing here can race.
 */
static void set_kernel_symbols(struct capuns_bpf *skel)
{
	struct {
		const char *name;
		volatile __u64 *addr;
		int seen;
	} syms[] = {
		{ "userns_state_mutex", &skel->rodata->ksym_userns_state_mutex, 0 },
		{ "proc_setgroups_operations", &skel->rodata->ksym_proc_setgroups_operations, 0 },
		{ "psi_fop_poll", &skel->rodata->ksym_psi_fop_poll, 0 },
		{ "cgroup_pressure_poll", &skel->rodata->ksym_cgroup_pressure_poll, 0 },
	};
	char line[512], name[256], type;
	unsigned long long addr;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f) {
		loader_msg("/proc/kallsyms: %s (id-map waivers and PSI checks off)", strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		/* "ADDRESS TYPE NAME", "\t[module]" after module symbols */
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || strchr(line, '['))
			continue;
		for (size_t i = 0; i < ARRAY_SIZE(syms); i++)
			if (!strcmp(name, syms[i].name))
				*syms[i].addr = syms[i].seen++ ? 0 : addr;
	}
	fclose(f);
	for (size_t i = 0; i < ARRAY_SIZE(syms); i++)
		if (!*syms[i].addr)
			loader_msg("kernel symbol %s %s: its check refuses", syms[i].name,
				   syms[i].seen > 1 ? "is not unique" : "not found");
}

/*
 * First load: the mask starts full, the quota is set.  A reload keeps
 * what is there (the programs update the config concurrently: it is
 * written once, before any of them is attached).
 */
static int init_config(struct capuns_bpf *skel, const struct capuns_bpf_load_opts *opts)
{
	int fd = bpf_map__fd(skel->maps.config);
	__u32 zero = 0, creds = bpf_map__max_entries(skel->maps.creds);
	struct capuns_bpf_config cfg;
	int err;

	err = pins_read_config(fd, &cfg);
	if (err) {
		loader_msg("read config: %s", strerror(-err));
		return err;
	}
	if (cfg.initialized) {
		if (cfg.abi != CAPUNS_BPF_ABI_VERSION) {
			loader_msg("the loaded backend has ABI %u, this loader %u: unload first",
				   cfg.abi, CAPUNS_BPF_ABI_VERSION);
			return -EEXIST;
		}
		if (opts->max_creds_per_uid && opts->max_creds_per_uid != cfg.creds_per_uid) {
			loader_msg("the loaded backend allows %u credentials per uid; changing it "
				   "needs an unload first", cfg.creds_per_uid);
			return -EEXIST;
		}
		return 0;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.mask = capuns_set_all().bits;
	cfg.abi = CAPUNS_BPF_ABI_VERSION;
	cfg.initialized = 1;
	/* One user may fill a quarter of the map, no more. */
	cfg.creds_per_uid = opts->max_creds_per_uid ? opts->max_creds_per_uid
						    : (creds / 4 ? creds / 4 : 1);
	snprintf(cfg.version, sizeof(cfg.version), "%s", CAPUNS_VERSION);
	if (bpf_map_update_elem(fd, &zero, &cfg, BPF_ANY) < 0)
		return loader_errno("write config");
	return 0;
}

/* Every hook (every program but the iterator) has its place in the pin order. */
_Static_assert(sizeof(((struct capuns_bpf *)0)->progs) / sizeof(struct bpf_program *) ==
		       PINS_LINK_RANKS + 1,
	       "a hook was added or removed: update the pin order (pins_link_rank())");

/*
 * The hooks in the order of pins_link_rank(): order[rank] is the index of
 * the hook in the skeleton; -EINVAL when a hook has no place in it.
 */
static int hook_order(const struct capuns_bpf *skel, int order[PINS_LINK_RANKS])
{
	const struct bpf_object_skeleton *s = skel->skeleton;
	int n = 0;

	for (int rank = 0; rank < PINS_LINK_RANKS; rank++)
		order[rank] = -1;
	for (int i = 0; i < s->prog_cnt; i++) {
		const char *name = bpf_program__name(*s->progs[i].prog);
		int rank;

		if (skel_is_iterator(*s->progs[i].prog))
			continue;
		rank = pins_link_rank(name);
		if (rank < 0 || order[rank] >= 0) {
			loader_msg("hook %s has no place of its own in the pin order", name);
			return -EINVAL;
		}
		order[rank] = i;
		n++;
	}
	if (n != PINS_LINK_RANKS) {
		loader_msg("the object has %d of the %d hooks of the pin order", n, PINS_LINK_RANKS);
		return -EINVAL;
	}
	return 0;
}

/* Attach program i of the skeleton; its link goes to skel->links. */
static int attach_one(const struct bpf_object_skeleton *s, int i)
{
	struct bpf_link *link = bpf_program__attach(*s->progs[i].prog);

	if (!link)
		return loader_errno("attach %s", bpf_program__name(*s->progs[i].prog));
	*s->progs[i].link = link; /* freed with the skeleton */
	return 0;
}

/*
 * Attach every program, the hooks in pins_link_rank() order: during a
 * reload the old programs then never run beside a new writer without
 * every new reader (loader.h), not even for the moment attaching takes.
 */
static int attach_hooks(struct capuns_bpf *skel)
{
	const struct bpf_object_skeleton *s = skel->skeleton;
	int order[PINS_LINK_RANKS], err;

	err = hook_order(skel, order);
	for (int rank = 0; !err && rank < PINS_LINK_RANKS; rank++)
		err = attach_one(s, order[rank]);
	/* The task iterator, which attaches to no hook. */
	for (int i = 0; !err && i < s->prog_cnt; i++)
		if (skel_is_iterator(*s->progs[i].prog))
			err = attach_one(s, i);
	return err;
}

/*
 * Pin the link of every hook (held in skel->links) in the new directory
 * links, in pins_link_rank() order: the pins of a loader killed midway
 * are then a consistent set (loader.h).
 */
static int pin_links(struct capuns_bpf *skel, const char *links)
{
	const struct bpf_object_skeleton *s = skel->skeleton;
	int order[PINS_LINK_RANKS], err;
	char path[PATH_MAX];

	err = hook_order(skel, order);
	if (err)
		return err;
	if (mkdir(links, 0700) < 0)
		return loader_errno("mkdir %s", links);
	for (int rank = 0; rank < PINS_LINK_RANKS; rank++) {
		const char *name = bpf_program__name(*s->progs[order[rank]].prog);

		err = pins_path(path, sizeof(path), links, name);
		if (!err)
			err = bpf_link__pin(*s->progs[order[rank]].link, path);
		if (err) {
			loader_msg("pin %s: %s", path, strerror(-err));
			return err;
		}
		loader_step("pinned %s", path);
	}
	return 0;
}

/* The task iterator, pinned world-readable as dir/tasks. */
static int pin_tasks(struct capuns_bpf *skel, const char *dir)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	int err;

	err = pins_path(path, sizeof(path), dir, CAPUNS_BPF_PIN_TASKS);
	if (!err)
		err = pins_path(tmp, sizeof(tmp), dir, CAPUNS_BPF_PIN_TASKS "-new");
	if (err) {
		loader_msg("%s: %s", dir, strerror(-err));
		return err;
	}
	err = pins_unlink(tmp);
	if (err)
		return err;
	err = bpf_link__pin(skel->links.capuns_tasks, tmp);
	if (err) {
		loader_msg("pin %s: %s", tmp, strerror(-err));
		return err;
	}
	/* Readable by everyone only once it is in place, then atomically. */
	if (chmod(tmp, 0444) < 0 || rename(tmp, path) < 0)
		return loader_errno("publish %s", path);
	loader_step("pinned %s", path);
	return 0;
}

/*
 * 1 when dir holds a backend of this ABI with every hook of this object
 * attached and the task iterator pinned, else 0.
 */
static int complete(const struct capuns_bpf *skel, const char *dir)
{
	char links[PATH_MAX], tasks[PATH_MAX];
	struct capuns_bpf_config cfg;
	struct bpf_program *prog;
	int fd, err;

	if (pins_path(links, sizeof(links), dir, CAPUNS_BPF_PIN_LINKS) ||
	    pins_path(tasks, sizeof(tasks), dir, CAPUNS_BPF_PIN_TASKS))
		return 0;
	fd = pins_open_map(dir, CAPUNS_BPF_PIN_CONFIG);
	if (fd < 0)
		return 0;
	err = pins_read_config(fd, &cfg);
	close(fd);
	if (err || !cfg.initialized || cfg.abi != CAPUNS_BPF_ABI_VERSION)
		return 0;
	bpf_object__for_each_program(prog, skel->obj)
		if (!skel_is_iterator(prog) && !pins_link_prog_id(links, bpf_program__name(prog)))
			return 0;
	return access(tasks, R_OK) == 0;
}

/*
 * Load the programs with their maps pinned in dir (reused when pinned
 * there already), write the config, attach every program.  The links
 * stay in skel->links, held by this process only: it is the pins made
 * afterwards that keep them.
 */
static int load_attach(struct capuns_bpf *skel, const struct capuns_bpf_load_opts *opts,
		       const char *dir)
{
	bool fresh;
	int err;

	err = setup_maps(skel, opts, dir, &fresh);
	if (err)
		return err;
	/* The programs' filter counts entries from an empty map only. */
	skel->rodata->filter_valid = fresh;
	/* The pinned mask may be lowered: the programs look it up every time. */
	skel->bss->mask_lowered = !fresh;
	err = capuns_bpf__load(skel);
	if (err) {
		loader_msg("load BPF programs: %s%s", strerror(-err),
			   opts->verbose ? "" : " (--verbose shows the verifier log)");
		return err;
	}
	loader_step("programs loaded, maps pinned in %s", dir);
	err = init_config(skel, opts);
	if (err)
		return err;
	loader_step("config written");
	err = attach_hooks(skel);
	if (err)
		return err;
	loader_step("programs attached");
	return 0;
}

/*
 * A fresh load, all or nothing: the maps, the task iterator and every
 * link are pinned in STAGE_DIR, and one rename() makes it PIN_DIR.  On
 * failure the stage goes, and with it everything this load attached.
 */
static int load_fresh(struct capuns_bpf *skel, const struct capuns_bpf_load_opts *opts)
{
	int err;

	if (mkdir(STAGE_DIR, 0755) < 0)
		return loader_errno("mkdir %s", STAGE_DIR);
	loader_step("%s created", STAGE_DIR);
	err = load_attach(skel, opts, STAGE_DIR);
	if (!err)
		err = pin_tasks(skel, STAGE_DIR);
	if (!err)
		err = pin_links(skel, STAGE_LINKS);
	/* NOREPLACE: never over a PIN_DIR that appeared meanwhile (the lock excludes it). */
	if (!err && renameat2(AT_FDCWD, STAGE_DIR, AT_FDCWD, PIN_DIR, RENAME_NOREPLACE) < 0)
		err = loader_errno("rename %s to %s", STAGE_DIR, PIN_DIR);
	if (err) {
		(void)pins_remove_backend(STAGE_DIR); /* reports its own failures */
		return err;
	}
	loader_step("published as %s", PIN_DIR);
	return 0;
}

/*
 * New programs for the loaded backend in PIN_DIR, without a window: they
 * use its maps and are attached while its links are pinned; their links
 * are pinned in LINKS_NEW and swapped in (pins_swap_links()).
 */
static int replace(struct capuns_bpf *skel, const struct capuns_bpf_load_opts *opts)
{
	int err;

	err = pins_remove_tree(LINKS_NEW); /* left by an interrupted reload */
	if (!err)
		err = load_attach(skel, opts, PIN_DIR);
	if (!err)
		err = pin_tasks(skel, PIN_DIR);
	if (!err)
		err = pin_links(skel, LINKS_NEW);
	if (!err)
		err = pins_swap_links();
	if (err) {
		(void)pins_remove_tree(LINKS_NEW); /* reports its own failures */
		(void)pins_unlink(TASKS_NEW);
		return err;
	}
	loader_step("links swapped");
	return 0;
}

/*
 * What an interrupted load left in STAGE_DIR.  Complete, it is a loaded
 * backend in all but its name: its links enforce and restrictions may
 * have been set through them since, so it is published, not dropped.
 * Otherwise it goes: its links cannot have restricted anyone (loader.h).
 * *published: it was published.
 */
static int settle_stage(const struct capuns_bpf *skel, bool *published)
{
	int stage, live;

	*published = false;
	stage = pins_present(STAGE_DIR);
	if (stage <= 0)
		return stage;
	live = pins_present(PIN_DIR);
	if (live < 0)
		return live;
	if (!live && complete(skel, STAGE_DIR)) {
		if (renameat2(AT_FDCWD, STAGE_DIR, AT_FDCWD, PIN_DIR, RENAME_NOREPLACE) < 0)
			return loader_errno("rename %s to %s", STAGE_DIR, PIN_DIR);
		loader_msg("published the complete pins of an interrupted load");
		*published = true;
		return 0;
	}
	loader_msg("removing the pins of an interrupted load (%s)", STAGE_DIR);
	return pins_remove_backend(STAGE_DIR);
}

/*
 * 1 when PIN_DIR holds a backend's maps, 0 when there is none.  A PIN_DIR
 * without its config (an unload killed midway, or an older loader's
 * leftovers: maps, no links) is removed.
 */
static int live_backend(void)
{
	int live, fd;

	live = pins_present(PIN_DIR);
	if (live <= 0)
		return live;
	fd = pins_open_map(PIN_DIR, CAPUNS_BPF_PIN_CONFIG);
	if (fd >= 0) {
		close(fd);
		return 1;
	}
	if (fd != -ENOENT) {
		loader_msg("%s/%s: %s", PIN_DIR, CAPUNS_BPF_PIN_CONFIG, strerror(-fd));
		return fd;
	}
	loader_msg("removing %s: it has no config", PIN_DIR);
	fd = pins_remove_backend(PIN_DIR);
	return fd < 0 ? fd : 0;
}

int capuns_bpf_load(const struct capuns_bpf_load_opts *opts)
{
	struct capuns_bpf_load_opts none = { 0 };
	struct capuns_bpf *skel;
	bool published;
	int lock, live, err;

	if (!opts)
		opts = &none;
	verbose_libbpf = opts->verbose;
	lock = pins_check_and_lock();
	if (lock < 0)
		return lock;
	loader_step("lock taken");
	skel = skel_open(opts->btf_path);
	if (!skel) {
		close(lock);
		return -ENOMEM;
	}
	err = settle_stage(skel, &published);
	if (err)
		goto out;
	live = live_backend();
	if (live < 0) {
		err = live;
		goto out;
	}
	if (live && !opts->reload && complete(skel, PIN_DIR)) {
		err = published ? 0 : 1;
		goto out;
	}
	skel->rodata->cap_last_cap = cap_max_bits() - 1;
	set_kernel_symbols(skel);
	err = live ? replace(skel, opts) : load_fresh(skel, opts);
out:
	capuns_bpf__destroy(skel);
	close(lock);
	return err;
}
