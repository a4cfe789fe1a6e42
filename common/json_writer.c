// SPDX-License-Identifier: LGPL-2.1-or-later
/* JSON writer of the capuns programs: see json_writer.h. */
#include <inttypes.h>

#include "json_writer.h"

void jsonw_init(struct json_writer *w, FILE *out, bool pretty)
{
	*w = (struct json_writer){ .out = out, .pretty = pretty };
}

static void newline_indent(struct json_writer *w)
{
	if (!w->pretty)
		return;
	putc('\n', w->out);
	for (unsigned i = 0; i < w->depth; i++)
		fputs("  ", w->out);
}

/* Before a value or a member name: the comma and, pretty, a new line. */
static void separate(struct json_writer *w)
{
	if (w->after_name) {
		w->after_name = false;
		return;
	}
	if (w->need_comma)
		putc(',', w->out);
	if (w->depth > 0)
		newline_indent(w);
}

static void value_done(struct json_writer *w)
{
	w->need_comma = true;
}

void jsonw_end_document(struct json_writer *w)
{
	putc('\n', w->out);
	w->need_comma = w->after_name = false;
	w->depth = 0;
}

static void open_container(struct json_writer *w, int c)
{
	separate(w);
	putc(c, w->out);
	w->depth++;
	w->need_comma = false;
}

static void close_container(struct json_writer *w, int c)
{
	bool empty = !w->need_comma;

	if (w->depth > 0)
		w->depth--;
	if (!empty)
		newline_indent(w);
	putc(c, w->out);
	value_done(w);
}

void jsonw_start_object(struct json_writer *w)
{
	open_container(w, '{');
}

void jsonw_end_object(struct json_writer *w)
{
	close_container(w, '}');
}

void jsonw_start_array(struct json_writer *w)
{
	open_container(w, '[');
}

void jsonw_end_array(struct json_writer *w)
{
	close_container(w, ']');
}

/*
 * The code point of the UTF-8 sequence at s (n bytes available), and its
 * length in *len; -1 when it is not valid UTF-8 (a stray continuation
 * byte, a truncated or overlong sequence, a surrogate, beyond U+10FFFF).
 */
static long utf8_decode(const unsigned char *s, size_t n, size_t *len)
{
	static const long min[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t need;
	long cp;

	if (s[0] >= 0xc0 && s[0] < 0xe0) {
		need = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] < 0xf0) {
		need = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] < 0xf8) {
		need = 4;
		cp = s[0] & 0x07;
	} else {
		return -1;
	}
	if (n < need)
		return -1;
	for (size_t i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min[need] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	*len = need;
	return cp;
}

/* The one escaper: quotes, backslashes, controls and all non-ASCII. */
static void put_string(struct json_writer *w, const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = 0;

	while (n < max && s[n])
		n++;
	putc('"', w->out);
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t len = 1;
		long cp;

		if (c == '"' || c == '\\') {
			fprintf(w->out, "\\%c", c);
		} else if (c == '\n') {
			fputs("\\n", w->out);
		} else if (c == '\t') {
			fputs("\\t", w->out);
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(w->out, "\\u%04x", c);
		} else if (c < 0x80) {
			putc(c, w->out);
		} else {
			cp = utf8_decode(s + i, n - i, &len);
			if (cp < 0) {
				cp = 0xfffd; /* not UTF-8: the replacement character */
				len = 1;
			}
			if (cp > 0xffff)
				fprintf(w->out, "\\u%04lx\\u%04lx", 0xd800 + ((cp - 0x10000) >> 10),
					0xdc00 + ((cp - 0x10000) & 0x3ff));
			else
				fprintf(w->out, "\\u%04lx", cp);
		}
		i += len;
	}
	putc('"', w->out);
}

void jsonw_name(struct json_writer *w, const char *name)
{
	separate(w);
	put_string(w, name, SIZE_MAX);
	fputs(w->pretty ? ": " : ":", w->out);
	w->after_name = true;
}

void jsonw_string_n(struct json_writer *w, const char *s, size_t max)
{
	separate(w);
	put_string(w, s, max);
	value_done(w);
}

void jsonw_string(struct json_writer *w, const char *s)
{
	jsonw_string_n(w, s, SIZE_MAX);
}

void jsonw_uint(struct json_writer *w, uint64_t v)
{
	separate(w);
	fprintf(w->out, "%" PRIu64, v);
	value_done(w);
}

void jsonw_int(struct json_writer *w, int64_t v)
{
	separate(w);
	fprintf(w->out, "%" PRId64, v);
	value_done(w);
}

void jsonw_bool(struct json_writer *w, bool v)
{
	separate(w);
	fputs(v ? "true" : "false", w->out);
	value_done(w);
}

void jsonw_null(struct json_writer *w)
{
	separate(w);
	fputs("null", w->out);
	value_done(w);
}

void jsonw_string_field(struct json_writer *w, const char *name, const char *s)
{
	jsonw_name(w, name);
	jsonw_string(w, s);
}

void jsonw_uint_field(struct json_writer *w, const char *name, uint64_t v)
{
	jsonw_name(w, name);
	jsonw_uint(w, v);
}

void jsonw_int_field(struct json_writer *w, const char *name, int64_t v)
{
	jsonw_name(w, name);
	jsonw_int(w, v);
}

void jsonw_bool_field(struct json_writer *w, const char *name, bool v)
{
	jsonw_name(w, name);
	jsonw_bool(w, v);
}

void jsonw_null_field(struct json_writer *w, const char *name)
{
	jsonw_name(w, name);
	jsonw_null(w);
}
