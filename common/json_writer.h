/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A small JSON writer for the capuns programs (capuns --json, capuns-bpf
 * status/monitor --json), in the manner of bpftool's json_writer: the
 * caller says what comes (object, array, name, value) and the writer puts
 * the commas, the indentation and the quotes.  One escaper serves every
 * string: quotes, backslashes and control characters are escaped, and so
 * is everything outside ASCII (valid UTF-8 as \uXXXX, surrogate pairs
 * beyond the BMP; a byte that is not valid UTF-8 as \ufffd).  The output
 * is pure ASCII and always valid JSON, whatever bytes a process name or a
 * message holds.
 *
 * Written by hand rather than taken from a library: the two programs need
 * these few calls only, and neither links a JSON library.
 */
#ifndef CAPUNS_JSON_WRITER_H
#define CAPUNS_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct json_writer {
	FILE *out;
	bool pretty;	   /* one member per line, indented by 2 */
	unsigned depth;	   /* open objects and arrays */
	bool need_comma;   /* a value was written at this depth */
	bool after_name;   /* a member name was written: its value follows */
};

/* A writer on out; pretty: indented lines, else one line per document. */
void jsonw_init(struct json_writer *w, FILE *out, bool pretty);

/* Ends the document with a newline; the writer may start the next one. */
void jsonw_end_document(struct json_writer *w);

void jsonw_start_object(struct json_writer *w);
void jsonw_end_object(struct json_writer *w);
void jsonw_start_array(struct json_writer *w);
void jsonw_end_array(struct json_writer *w);

/* The name of the next member of the current object. */
void jsonw_name(struct json_writer *w, const char *name);

void jsonw_string(struct json_writer *w, const char *s);
/* At most max bytes of s, up to its first NUL (fixed-size fields). */
void jsonw_string_n(struct json_writer *w, const char *s, size_t max);
void jsonw_uint(struct json_writer *w, uint64_t v);
void jsonw_int(struct json_writer *w, int64_t v);
void jsonw_bool(struct json_writer *w, bool v);
void jsonw_null(struct json_writer *w);

/* name: value, for the common cases. */
void jsonw_string_field(struct json_writer *w, const char *name, const char *s);
void jsonw_uint_field(struct json_writer *w, const char *name, uint64_t v);
void jsonw_int_field(struct json_writer *w, const char *name, int64_t v);
void jsonw_bool_field(struct json_writer *w, const char *name, bool v);
void jsonw_null_field(struct json_writer *w, const char *name);

#endif /* CAPUNS_JSON_WRITER_H */
