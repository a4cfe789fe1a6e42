/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A capability set as the programs print it: the text of
 * capuns_set_format() ("all", "none", "all,-cap_x" or a list), and the
 * list of names as a JSON array.
 */
#ifndef CAPUNS_COMMON_SETTEXT_H
#define CAPUNS_COMMON_SETTEXT_H

#include <stdio.h>

#include "capuns.h"
#include "json_writer.h"

/*
 * The name of capability cap in buf ("cap_net_admin"), or its number when
 * it has none (a capability newer than the running libcap).
 */
void settext_cap_name(int cap, char *buf, size_t len);

/* The text of set to out.  0, or -ENOMEM (nothing printed). */
int settext_print(FILE *out, capuns_set_t set);

/* The names of set's capabilities as a JSON array ([] when empty).  0 or -ENOMEM. */
int settext_json_names(struct json_writer *w, capuns_set_t set);

#endif /* CAPUNS_COMMON_SETTEXT_H */
