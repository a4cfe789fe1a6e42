/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Loader of the capuns BPF-LSM backend (library libcapuns-bpf.a).
 *
 * The programs and maps are pinned under CAPUNS_BPF_PIN_DIR
 * (/sys/fs/bpf/capuns): enforcement stays when the loading process exits,
 * and only capuns_bpf_unload() (or a reboot) ends it.  Every function
 * prints its diagnostics on stderr, prefixed "capuns-bpf: ", and returns
 * 0 (or the documented non-negative value) or a negative errno.
 * See bpf/CLI-INTEGRATION.md for how the capuns CLI uses it.
 */
#ifndef CAPUNS_BPF_LOADER_H
#define CAPUNS_BPF_LOADER_H

#include <stdbool.h>
#include <stdio.h>

struct capuns_bpf_load_opts {
	/* Entries of the per-credential map; 0: the pinned map's, or 65536. */
	unsigned max_creds;
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
 * (reload: the state of every credential survives).  A reload attaches the
 * new programs before it detaches the old ones, so there is no moment
 * without enforcement.  Returns 0 when it attached programs, 1 when the
 * same ABI was already fully loaded and nothing was done (idempotent).
 * Resizing the credential map needs an unload first (-EEXIST).
 */
int capuns_bpf_load(const struct capuns_bpf_load_opts *opts);

/* Detach and unpin everything: stock behaviour again.  -ENOENT: not loaded. */
int capuns_bpf_unload(void);

/*
 * Print the state: ABI and version, hooks attached, credential map use,
 * system mask, counters; one JSON object when json.  Returns 0 when the
 * backend is loaded with every hook attached, -ENOENT when it is not
 * loaded, -ENOLINK when hooks are missing.
 */
int capuns_bpf_status(FILE *out, bool json);

struct capuns_bpf_monitor_opts {
	bool json; /* one JSON object per line */
	bool backlog; /* also print events queued before the start */
	int max_events; /* stop after that many events; 0: no limit */
	int timeout_ms; /* stop after that long; 0: no limit */
	/* Called once the ring buffer is open (e.g. to say "ready"); may be NULL. */
	void (*ready)(void *arg);
	void *ready_arg;
};

/*
 * Print denial and refusal events as they happen, until SIGINT/SIGTERM,
 * max_events or timeout_ms.  Returns the number of events printed.  The
 * ring buffer has one reader position: run one monitor at a time.
 */
int capuns_bpf_monitor(FILE *out, const struct capuns_bpf_monitor_opts *opts);

#endif /* CAPUNS_BPF_LOADER_H */
