/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Capability names and the text form of capability sets.
 *
 * Names go through libcap (cap_from_name, cap_to_name, cap_max_bits).
 * A restriction tool must read capabilities at least as strictly as
 * setpriv, and libcap alone is more lenient, so on top of it:
 *  - CAP_SYS_CONTROL (41) exists only on the patched kernel, so libcap 2.66
 *    neither parses "cap_sys_control" nor prints it (it prints "41"); the
 *    name must round-trip, so this one name is mapped here.
 *  - Numbers are read here, in plain decimal: cap_from_name() takes "012"
 *    as octal 10 and "12x" as 12.  A leading zero is refused rather than
 *    guessed at.
 *  - A name must be consumed whole: cap_from_name() takes "cap_chown;id"
 *    and "cap_net_admin=eip" for their first word.  A name is letters,
 *    digits and '_' only, and libcap must give the same name back.
 * The list grammar (+, -, !, all, none) is capuns' own: libcap's text
 * forms (cap_from_text, cap_iab_from_text) describe other sets.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/capability.h>

#include "capuns.h"
#include "internal.h"

#define SYS_CONTROL_NAME "cap_sys_control"

int capuns_cap_last(void)
{
	/* libcap reads /proc/sys/kernel/cap_last_cap (and caches it). */
	unsigned bits = cap_max_bits();

	if (bits == 0 || bits > CAPUNS_CAP_BITS)
		return CAPUNS_EPROTO;
	return (int)bits - 1;
}

capuns_set_t capuns_set_all(void)
{
	int last = capuns_cap_last();

	if (last < 0)
		last = CAP_SYS_CONTROL; /* cannot happen on Linux; be complete */
	if (last >= CAPUNS_CAP_BITS - 1)
		return capuns_set_of(UINT64_MAX);
	return capuns_set_of((UINT64_C(1) << (last + 1)) - 1);
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* A capability by number: decimal digits, no sign, no leading zero. */
static int cap_from_number(const char *s)
{
	int v = 0;

	if (!all_digits(s) || (s[0] == '0' && s[1]) || strlen(s) > 2)
		return CAPUNS_EBADCAP;
	for (; *s; s++)
		v = v * 10 + (*s - '0');
	/* A number names a capability only if some kernel could know it. */
	if (v > CAP_SYS_CONTROL && v > capuns_cap_last())
		return CAPUNS_EBADCAP;
	return v;
}

/* A capability by name, the whole of it. */
static int cap_from_word(const char *s)
{
	cap_value_t v;
	char *back;
	bool same;

	if (strcasecmp(s, SYS_CONTROL_NAME) == 0)
		return CAP_SYS_CONTROL;
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return CAPUNS_EBADCAP;
	if (cap_from_name(s, &v) != 0 || v < 0 || v >= CAPUNS_CAP_BITS)
		return CAPUNS_EBADCAP;
	back = cap_to_name(v);
	if (!back)
		return -ENOMEM;
	same = strcasecmp(back, s) == 0;
	cap_free(back);
	return same ? v : CAPUNS_EBADCAP;
}

int capuns_cap_from_name(const char *name)
{
	if (!name || !*name)
		return CAPUNS_EBADCAP;
	if (isdigit((unsigned char)name[0]))
		return cap_from_number(name);
	return cap_from_word(name);
}

int capuns_cap_to_name(int cap, char *buf, size_t len)
{
	char *name;
	int n;

	if (cap < 0 || cap >= CAPUNS_CAP_BITS)
		return CAPUNS_EBADCAP;
	if (cap == CAP_SYS_CONTROL) {
		n = snprintf(buf, len, "%s", SYS_CONTROL_NAME);
	} else {
		name = cap_to_name(cap);
		if (!name)
			return -ENOMEM;
		n = snprintf(buf, len, "%s", name);
		cap_free(name);
	}
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= len)
		return -ERANGE;
	return n;
}

/* Trim spaces of [*b, *e) in place. */
static void trim(const char **b, const char **e)
{
	while (*b < *e && isspace((unsigned char)**b))
		(*b)++;
	while (*e > *b && isspace((unsigned char)(*e)[-1]))
		(*e)--;
}

/*
 * One item "[+-!]cap" of a list: *add tells whether it adds, *items the
 * set it names.
 */
static int parse_item(const char *b, const char *e, bool *add,
		      capuns_set_t *items)
{
	char name[64];
	size_t n;
	int cap;

	*add = true;
	if (b < e && (*b == '+' || *b == '-' || *b == '!')) {
		*add = *b == '+';
		b++;
	}
	if (b == e || isspace((unsigned char)*b))
		return CAPUNS_ESYNTAX;
	n = (size_t)(e - b);
	if (n >= sizeof(name))
		return CAPUNS_EBADCAP;
	memcpy(name, b, n);
	name[n] = '\0';
	if (strpbrk(name, "+-!, \t"))
		return CAPUNS_ESYNTAX;

	if (strcasecmp(name, "all") == 0) {
		*items = capuns_set_all();
		return 0;
	}
	if (strcasecmp(name, "none") == 0) {
		*items = capuns_set_empty();
		return 0;
	}
	cap = capuns_cap_from_name(name);
	if (cap < 0)
		return cap;
	*items = capuns_set_add(capuns_set_empty(), cap);
	return 0;
}

int capuns_set_parse(const char *text, capuns_set_t *out, const char **errpos)
{
	capuns_set_t set = capuns_set_empty(), items;
	const char *p = text, *b, *e;
	bool first = true, add, last;
	int err;

	if (!text || !out)
		return -EINVAL;
	for (;;) {
		b = p;
		e = strchr(p, ',');
		if (!e)
			e = p + strlen(p);
		last = !*e;
		p = e + !last;
		trim(&b, &e);
		err = parse_item(b, e, &add, &items);
		if (err) {
			if (errpos)
				*errpos = b;
			return err;
		}
		if (first && !add)
			set = capuns_set_all();
		first = false;
		set = add ? capuns_set_or(set, items)
			  : capuns_set_minus(set, items);
		if (last)
			break;
	}
	*out = set;
	return 0;
}

/* Append ",<sign><name of cap>" to the string being built. */
static int append_cap(char **buf, size_t *len, size_t *cap_, const char *sign,
		      int cap)
{
	char name[64];
	size_t need;
	int n;
	char *nb;

	n = capuns_cap_to_name(cap, name, sizeof(name));
	if (n < 0)
		return n;
	need = *len + 1 + strlen(sign) + (size_t)n + 1;
	if (need > *cap_) {
		size_t sz = need * 2;

		nb = realloc(*buf, sz);
		if (!nb)
			return -ENOMEM;
		*buf = nb;
		*cap_ = sz;
	}
	*len += (size_t)sprintf(*buf + *len, "%s%s%s", *len ? "," : "", sign,
				name);
	return 0;
}

static char *format_list(const char *head, capuns_set_t list,
			 const char *sign)
{
	size_t len = 0, size = 64;
	char *buf = malloc(size);
	int err;

	if (!buf)
		return NULL;
	buf[0] = '\0';
	if (head)
		len = (size_t)sprintf(buf, "%s", head);
	for (int c = 0; c < CAPUNS_CAP_BITS; c++) {
		if (!capuns_set_has(list, c))
			continue;
		err = append_cap(&buf, &len, &size, sign, c);
		if (err) {
			free(buf);
			errno = -err;
			return NULL;
		}
	}
	return buf;
}

static int popcount64(uint64_t v)
{
	return __builtin_popcountll(v);
}

char *capuns_set_format(capuns_set_t set, unsigned flags)
{
	capuns_set_t all = capuns_set_all();
	capuns_set_t missing = capuns_set_minus(all, set);
	capuns_set_t extra = capuns_set_minus(set, all);

	if (set.bits == 0)
		return strdup("none");
	if (!(flags & CAPUNS_FMT_LIST) && extra.bits == 0 &&
	    popcount64(missing.bits) < popcount64(set.bits)) {
		if (missing.bits == 0)
			return strdup("all");
		return format_list("all", missing, "-");
	}
	return format_list(NULL, set, "");
}
