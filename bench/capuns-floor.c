// SPDX-License-Identifier: GPL-2.0-only
/*
 * capuns-floor: attach programs of bench/floor.bpf.c that decide nothing,
 * so that make bench measures what an attachment costs by itself.
 *
 *   capuns-floor list                the programs, one per line (capable,
 *                                      capable_task, ...: floor_NAME in the object)
 *   capuns-floor attach PROGRAM...
 *   capuns-floor detach
 *
 * The links are pinned under /sys/fs/bpf/capuns-floor, so the programs
 * stay attached after the tool exits, until detach removes the pins.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "floor.skel.h"

#define PIN_DIR "/sys/fs/bpf/capuns-floor"
#define PREFIX "floor_"

/* The name the tool knows a program by: its own less PREFIX (NULL: none). */
static const char *short_name(const struct bpf_program *prog)
{
	const char *full = bpf_program__name(prog);

	return strncmp(full, PREFIX, strlen(PREFIX)) == 0 ? full + strlen(PREFIX) : NULL;
}

static struct bpf_program *find_program(struct floor_bpf *skel, const char *name)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, skel->obj) {
		const char *n = short_name(prog);

		if (n && strcmp(n, name) == 0)
			return prog;
	}
	return NULL;
}

/* The object's programs come from its skeleton: no list to keep in step. */
static struct floor_bpf *open_object(void)
{
	struct floor_bpf *skel = floor_bpf__open();

	if (!skel)
		fprintf(stderr, "capuns-floor: cannot open the BPF object: %s\n", strerror(errno));
	return skel;
}

static int list(void)
{
	struct floor_bpf *skel = open_object();
	struct bpf_program *prog;

	if (!skel)
		return 1;
	bpf_object__for_each_program(prog, skel->obj)
		if (short_name(prog))
			printf("%s\n", short_name(prog));
	floor_bpf__destroy(skel);
	return 0;
}

static int attach(int argc, char **argv)
{
	struct bpf_program *prog;
	struct floor_bpf *skel;
	char pin[256];
	int i, pinned, err;

	skel = open_object();
	if (!skel)
		return 1;
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, false);
	for (i = 0; i < argc; i++) {
		prog = find_program(skel, argv[i]);
		if (!prog) {
			fprintf(stderr, "capuns-floor: no program '%s'\n", argv[i]);
			goto fail;
		}
		bpf_program__set_autoload(prog, true);
	}
	err = floor_bpf__load(skel);
	if (err) {
		fprintf(stderr, "capuns-floor: load failed: %s\n", strerror(-err));
		goto fail;
	}
	if (mkdir(PIN_DIR, 0700) && errno != EEXIST) {
		fprintf(stderr, "capuns-floor: mkdir %s: %s\n", PIN_DIR, strerror(errno));
		goto fail;
	}
	for (pinned = 0; pinned < argc; pinned++) {
		struct bpf_link *link;

		prog = find_program(skel, argv[pinned]);
		link = bpf_program__attach(prog);
		if (!link) {
			fprintf(stderr, "capuns-floor: attach %s: %s\n", argv[pinned], strerror(errno));
			goto unpin;
		}
		snprintf(pin, sizeof(pin), PIN_DIR "/%s", argv[pinned]);
		err = bpf_link__pin(link, pin);
		bpf_link__destroy(link); /* the pin keeps it attached */
		if (err) {
			fprintf(stderr, "capuns-floor: pin %s: %s\n", pin, strerror(-err));
			goto unpin;
		}
	}
	floor_bpf__destroy(skel);
	return 0;
unpin:
	/* all or nothing: a half-attached set would measure something else */
	for (i = 0; i < pinned; i++) {
		snprintf(pin, sizeof(pin), PIN_DIR "/%s", argv[i]);
		unlink(pin);
	}
fail:
	floor_bpf__destroy(skel);
	return 1;
}

static int detach(void)
{
	struct floor_bpf *skel = open_object();
	struct bpf_program *prog;
	char pin[256];
	int rc = 0;

	if (!skel)
		return 1;
	bpf_object__for_each_program(prog, skel->obj) {
		if (!short_name(prog))
			continue;
		snprintf(pin, sizeof(pin), PIN_DIR "/%s", short_name(prog));
		if (unlink(pin) && errno != ENOENT) {
			fprintf(stderr, "capuns-floor: unlink %s: %s\n", pin, strerror(errno));
			rc = 1;
		}
	}
	floor_bpf__destroy(skel);
	if (rmdir(PIN_DIR) && errno != ENOENT) {
		fprintf(stderr, "capuns-floor: rmdir %s: %s\n", PIN_DIR, strerror(errno));
		rc = 1;
	}
	return rc;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "attach") == 0)
		return attach(argc - 2, argv + 2);
	if (argc == 2 && strcmp(argv[1], "detach") == 0)
		return detach();
	if (argc == 2 && strcmp(argv[1], "list") == 0)
		return list();
	fprintf(stderr, "usage: capuns-floor list | attach PROGRAM... | detach\n");
	return 2;
}
