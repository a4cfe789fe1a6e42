/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Loader of the capuns BPF-LSM backend (library libcapuns-bpf.a, used by
 * the capuns-bpf program).
 *
 * The programs and maps are pinned under CAPUNS_BPF_PIN_DIR
 * (/sys/fs/bpf/capuns): enforcement stays when the loading process exits,
 * and only capuns_bpf_unload() (or a reboot) ends it.  Every function
 * prints its diagnostics on stderr, prefixed "capuns-bpf: ", and returns
 * 0 (or the documented non-negative value) or a negative errno.  The
 * library prints no results and installs no signal handlers: status and
 * events are handed to the caller as data.
 */
#ifndef CAPUNS_BPF_LOADER_H
#define CAPUNS_BPF_LOADER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "capuns-bpf-abi.h"

/* Where a first load pins everything before it publishes it as CAPUNS_BPF_PIN_DIR. */
#define CAPUNS_BPF_STAGE_DIR CAPUNS_BPF_PIN_DIR "-new"

struct capuns_bpf_load_opts {
	/* Entries of the per-credential map; 0: the pinned map's, or 65536. */
	unsigned max_creds;
	/* Entries one uid may hold (quota); 0: a quarter of the map. */
	unsigned max_creds_per_uid;
	/* Size of the event ring buffer (power of two, >= 4096); 0: default. */
	unsigned ringbuf_bytes;
	/* Replace the programs even when the same ABI is already loaded. */
	bool reload;
	/* Print libbpf's messages (verifier log on failure). */
	bool verbose;
	/* BTF to relocate against instead of the running kernel's (tests). */
	const char *btf_path;
};

/*
 * Load and attach the programs, pin them, keep the maps already pinned
 * (reload: the state of every credential survives).  A first load is all
 * or nothing: everything is pinned aside and published at once, so that a
 * loader killed midway leaves no partial backend in place (the next load
 * or unload removes what it left).  A reload attaches the new programs
 * before it detaches the old ones, so there is no moment without
 * enforcement.  Returns 0 when it attached programs, 1 when the same ABI
 * was already fully loaded and nothing was done (idempotent).  Resizing
 * the credential map needs an unload first (-EEXIST).
 */
int capuns_bpf_load(const struct capuns_bpf_load_opts *opts);

/*
 * Detach and unpin everything, what an interrupted load left included:
 * stock behaviour again.  -ENOENT: not loaded.
 */
int capuns_bpf_unload(void);

#define CAPUNS_BPF_MAX_HOOKS 32

struct capuns_bpf_hook_status {
	char section[64]; /* e.g. "lsm/capable" */
	char name[64];	  /* program name, the name of its pinned link */
	uint32_t prog_id; /* 0: not attached */
};

struct capuns_bpf_status {
	uint32_t abi;
	char version[32]; /* capuns version of the loader that created the maps */
	int nhooks, attached;
	struct capuns_bpf_hook_status hooks[CAPUNS_BPF_MAX_HOOKS];
	uint32_t creds_used, creds_max; /* credential map */
	uint64_t mask;			/* system mask */
	uint32_t creds_per_uid;		/* per-uid quota */
	uint64_t denials, refusals, lost_events;
	uint64_t quota_refusals; /* refusals at a uid's quota (EDQUOT) */
	uint64_t limited_events; /* events over a uid's rate limit, not sent */
	uint64_t late_entries;	 /* namespace entries seen only at first use */
	/* runs of fexit/userns_install skipped by the recursion guard */
	uint64_t recursion_misses;
	bool tasks_iterator; /* the task iterator is pinned and readable */
	bool complain; /* complain mode: uses outside the sets reported, allowed */
	/*
	 * Pins an interrupted load left (loaded or not): the hooks it left
	 * attached, of nhooks.  All of them: they enforce, and the next load
	 * publishes them; fewer: nobody can be restricted through them (the
	 * hook of prctl is pinned last), and load or unload removes them.
	 */
	bool interrupted_load;
	int interrupted_attached;
};

/*
 * Fill *st with the state of the loaded backend.  Returns 0 when it is
 * loaded with every hook attached, -ENOLINK when hooks are missing (*st
 * says which), -ENOENT when it is not loaded (*st zeroed but for nhooks
 * and interrupted_*).
 */
int capuns_bpf_status(struct capuns_bpf_status *st);

struct capuns_bpf_monitor_opts {
	bool backlog; /* also deliver events queued before the start */
	int max_events; /* stop after that many events; 0: no limit */
	int timeout_ms; /* stop after that long; 0: no limit */
	/* Called for every event, in order. */
	void (*on_event)(const struct capuns_bpf_event *ev, void *arg);
	/* Called once the ring buffer is open (e.g. to say "ready"); may be NULL. */
	void (*ready)(void *arg);
	/* Called after every wait for events (at least every 100 ms); may be NULL. */
	void (*idle)(void *arg);
	void *arg;
	/* Checked at least every 100 ms; the caller's signal handler sets it. May be NULL. */
	volatile sig_atomic_t *stop;
};

/*
 * Deliver denial and refusal events as they happen, until *stop,
 * max_events or timeout_ms.  Returns the number of events delivered.  The
 * ring buffer has one reader position: run one monitor at a time.
 */
int capuns_bpf_monitor(const struct capuns_bpf_monitor_opts *opts);

#endif /* CAPUNS_BPF_LOADER_H */
