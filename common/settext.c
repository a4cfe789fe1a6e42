// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "settext.h"

void settext_cap_name(int cap, char *buf, size_t len)
{
	if (capuns_cap_to_name(cap, buf, len) < 0)
		snprintf(buf, len, "%d", cap);
}

int settext_print(FILE *out, capuns_set_t set)
{
	char *t = capuns_set_format(set, 0);

	if (!t)
		return -ENOMEM;
	fputs(t, out);
	free(t);
	return 0;
}

int settext_json_names(struct json_writer *w, capuns_set_t set)
{
	char *list = capuns_set_format(set, CAPUNS_FMT_LIST), *p = list, *tok;

	if (!list)
		return -ENOMEM;
	jsonw_start_array(w);
	/* The empty set formats as "none", which is no capability's name. */
	while (set.bits && (tok = strsep(&p, ",")))
		jsonw_string(w, tok);
	jsonw_end_array(w);
	free(list);
	return 0;
}
