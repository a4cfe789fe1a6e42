/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Inside the loader library (libcapuns-bpf.a), shared by its files:
 *   pins.c      the pin tree under CAPUNS_BPF_PIN_DIR: lock, pinned maps,
 *               the link swap of a reload, unload
 *   skeleton.c  the BPF object: maps, load, attach (links kept in
 *               skel->links, freed with the skeleton)
 *   status.c    status and the event stream, as data for the caller
 *
 * Pins (CAPUNS_BPF_PIN_DIR):
 *   creds config events quota   the maps; reused by every reload
 *   links/<program>       one BPF link per hook: a program stays attached
 *                         as long as its link is pinned (or held open)
 *   tasks                 task iterator, world-readable (capuns_get(pid))
 *
 * All or nothing: a fresh load builds that tree in STAGE_DIR and one
 * rename() makes it PIN_DIR, so PIN_DIR only ever holds a complete
 * backend.  A loader killed before the rename leaves STAGE_DIR, whose
 * pinned links stay attached (only held ones die with the loader); they
 * are pinned in pins_link_rank() order, so that they are always a
 * consistent set, which cannot restrict anyone before task_prctl, the
 * last, is pinned, and which leaves no new writer without every new
 * reader beside the old programs of a reload.  The next load publishes
 * a complete stage (its links enforce already, and restrictions may have
 * been set through it) and removes any other; unload removes it; status
 * reports it.
 */
#ifndef CAPUNS_BPF_LOADER_INTERNAL_H
#define CAPUNS_BPF_LOADER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "capuns-abi.h"
#include "capuns-bpf-abi.h"
#include "capuns-bpf.h"

#define PIN_ROOT "/sys/fs/bpf"
#define PIN_DIR CAPUNS_BPF_PIN_DIR
#define LINKS_DIR PIN_DIR "/" CAPUNS_BPF_PIN_LINKS
#define LINKS_NEW LINKS_DIR "-new" /* bpffs refuses names with dots */
#define TASKS_PIN PIN_DIR "/" CAPUNS_BPF_PIN_TASKS
#define TASKS_NEW TASKS_PIN "-new"
/* A fresh load's tree until it is complete: the same layout as PIN_DIR. */
#define STAGE_DIR CAPUNS_BPF_STAGE_DIR
#define STAGE_LINKS STAGE_DIR "/" CAPUNS_BPF_PIN_LINKS

struct bpf_object;
struct bpf_program;
struct capuns_bpf;

/* Diagnostics on stderr, "capuns-bpf: " first. */
void loader_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * For a call that failed with errno: the message, ": strerror(errno)"
 * appended, and -errno as it was before the message (stdio may change it).
 */
int loader_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * Test hook: with LOADER_KILL_STEP_ENV=N in its environment the loader
 * kills itself with SIGKILL right after its Nth step (named by fmt in
 * the message it prints first), as the OOM killer or a service manager's
 * SIGKILL could, so that a test can check what each interrupted load
 * leaves behind.  With LOADER_KILL_STEP_ENV=trace it names every step
 * and goes on, so that a test can choose which steps to interrupt.  Only
 * the loader reads it (with secure_getenv()).
 */
#define LOADER_KILL_STEP_ENV "CAPUNS_BPF_TEST_KILL_STEP"
void loader_step(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- pins.c ------------------------------------------------------------ */
int pins_path(char *buf, size_t len, const char *dir, const char *name);
/* 0 when PIN_ROOT is a bpf filesystem. */
int pins_check_fs(void);
/* Exclusive lock over the pin tree (on PIN_ROOT): an fd, or -errno. */
int pins_lock(void);
/* Both, as load and unload begin: the lock's fd, or -errno. */
int pins_check_and_lock(void);
/* 1 when path exists, 0 when it does not, or -errno with a message. */
int pins_present(const char *path);
/* Remove every entry of a pin directory and the directory itself. */
int pins_remove_tree(const char *dir);
int pins_unlink(const char *path);
/* The map pinned as dir/name: an fd, or -errno. */
int pins_open_map(const char *dir, const char *name);
int pins_read_config(int fd, struct capuns_bpf_config *cfg);
int pins_map_max_entries(const char *dir, const char *name, __u32 *max);
/* Program id of the link pinned as links/name; 0 when there is none. */
__u32 pins_link_prog_id(const char *links, const char *name);
/* links-new <-> links, at once; the old links are unpinned (detached) last. */
int pins_swap_links(void);
/*
 * Rank of the hook program name in the order links are pinned (0 first,
 * PINS_LINK_RANKS - 1 last), -1 for a name not in that order; unpinned
 * in the reverse order.
 */
#define PINS_LINK_RANKS 17
int pins_link_rank(const char *name);
/*
 * Unpin a backend's tree (PIN_DIR or STAGE_DIR): links in the reverse of
 * the pin order, then the iterator and the maps, then the directories.
 */
int pins_remove_backend(const char *dir);

/* ---- skeleton.c -------------------------------------------------------- */
/* The embedded object, opened (not loaded); NULL with a message. */
struct capuns_bpf *skel_open(const char *btf_path);
/* The task iterator is pinned on its own; every other program is a hook. */
bool skel_is_iterator(const struct bpf_program *prog);

#endif /* CAPUNS_BPF_LOADER_INTERNAL_H */
