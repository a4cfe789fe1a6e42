/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef CAPUNS_CLI_LOADER_PATH_H
#define CAPUNS_CLI_LOADER_PATH_H

#include <stddef.h>

/*
 * The path of capuns-bpf, the BPF backend's loader, that this capuns runs
 * (cli/loader-path.c), into buf: 0, or a negative errno.
 */
int loader_path(char *buf, size_t size);

#endif
