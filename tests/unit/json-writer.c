// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The JSON writer of the capuns programs: exact output for the escapes
 * (controls, quotes, non-ASCII, bytes that are not UTF-8), commas and
 * nesting, and every document accepted by jq -e with the strings reading
 * back as the writer meant them.
 */
#include <stdlib.h>
#include <string.h>

#include "json_writer.h"
#include "tap.h"

/* One string value written compact into buf. */
static const char *escaped(const char *s, size_t max, char *buf, size_t len)
{
	FILE *f = fmemopen(buf, len, "w");
	struct json_writer w;

	jsonw_init(&w, f, false);
	jsonw_string_n(&w, s, max);
	fclose(f);
	return buf;
}

/* jq -e EXPR on doc: 1 when jq accepts it and EXPR is true. */
static int jq_true(const char *doc, const char *expr)
{
	char cmd[512];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "jq -e '%s' >/dev/null 2>&1", expr);
	p = popen(cmd, "w");
	if (!p)
		return 0;
	fputs(doc, p);
	return pclose(p) == 0;
}

static void test_escapes(void)
{
	char buf[256], all[256];
	size_t n = 0;

	TAP_EQ_STR(escaped("plain", SIZE_MAX, buf, sizeof(buf)), "\"plain\"", "plain ASCII as is");
	TAP_EQ_STR(escaped("a\"b\\c", SIZE_MAX, buf, sizeof(buf)), "\"a\\\"b\\\\c\"",
		   "quote and backslash escaped");
	TAP_EQ_STR(escaped("l1\nl2\tx\r\x01\x1f\x7f", SIZE_MAX, buf, sizeof(buf)),
		   "\"l1\\nl2\\tx\\u000d\\u0001\\u001f\\u007f\"", "control characters escaped");
	TAP_EQ_STR(escaped("caf\xc3\xa9", SIZE_MAX, buf, sizeof(buf)), "\"caf\\u00e9\"",
		   "two-byte UTF-8 as \\u00e9");
	TAP_EQ_STR(escaped("\xe2\x82\xac", SIZE_MAX, buf, sizeof(buf)), "\"\\u20ac\"",
		   "three-byte UTF-8 as \\u20ac");
	TAP_EQ_STR(escaped("\xf0\x9f\x98\x80", SIZE_MAX, buf, sizeof(buf)), "\"\\ud83d\\ude00\"",
		   "four-byte UTF-8 as a surrogate pair");
	TAP_EQ_STR(escaped("x\xffy\xc3", SIZE_MAX, buf, sizeof(buf)), "\"x\\ufffdy\\ufffd\"",
		   "invalid and truncated UTF-8 become U+FFFD");
	TAP_EQ_STR(escaped("\xc0\xaf\xed\xa0\x80", SIZE_MAX, buf, sizeof(buf)),
		   "\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\"",
		   "overlong forms and surrogates are not UTF-8");
	TAP_EQ_STR(escaped("abcdef", 3, buf, sizeof(buf)), "\"abc\"",
		   "string_n stops at max (fixed-size fields without a NUL)");

	/* Every byte 1..255 in one string: valid JSON, and the ASCII part reads back. */
	for (int c = 1; c < 256; c++)
		all[n++] = (char)c;
	all[n] = '\0';
	{
		char doc[4096];
		FILE *f = fmemopen(doc, sizeof(doc), "w");
		struct json_writer w;

		jsonw_init(&w, f, false);
		jsonw_start_object(&w);
		jsonw_string_field(&w, "s", all);
		jsonw_end_object(&w);
		jsonw_end_document(&w);
		fclose(f);
		TAP_OK(jq_true(doc, ".s | length == 255"),
		       "every byte 1..255: jq reads a string of 255 characters");
		TAP_OK(jq_true(doc, ".s | explode | .[0:127] == [range(1;128)]"),
		       "every byte 1..255: bytes 1..127 read back as themselves");
		TAP_OK(jq_true(doc, ".s | explode | .[127:] | all(. == 65533)"),
		       "every byte 1..255: lone bytes 128..255 read back as U+FFFD");
		TAP_OK(strspn(doc, "\n\t !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~") == strlen(doc),
		       "the output is printable ASCII");
	}
}

static void test_structure(void)
{
	char doc[1024];
	FILE *f = fmemopen(doc, sizeof(doc), "w");
	struct json_writer w;

	jsonw_init(&w, f, false);
	jsonw_start_object(&w);
	jsonw_uint_field(&w, "n", 18446744073709551615ULL);
	jsonw_int_field(&w, "neg", -12);
	jsonw_bool_field(&w, "t", true);
	jsonw_null_field(&w, "z");
	jsonw_name(&w, "empty");
	jsonw_start_array(&w);
	jsonw_end_array(&w);
	jsonw_name(&w, "a");
	jsonw_start_array(&w);
	jsonw_string(&w, "x");
	jsonw_start_object(&w);
	jsonw_end_object(&w);
	jsonw_uint(&w, 1);
	jsonw_end_array(&w);
	jsonw_end_object(&w);
	jsonw_end_document(&w);
	jsonw_start_object(&w);
	jsonw_bool_field(&w, "second", false);
	jsonw_end_object(&w);
	jsonw_end_document(&w);
	fclose(f);
	TAP_EQ_STR(doc,
		   "{\"n\":18446744073709551615,\"neg\":-12,\"t\":true,\"z\":null,\"empty\":[],"
		   "\"a\":[\"x\",{},1]}\n{\"second\":false}\n",
		   "compact: commas, nesting, one document per line");
	TAP_OK(jq_true(doc, "true"), "compact documents are valid JSON lines");

	f = fmemopen(doc, sizeof(doc), "w");
	jsonw_init(&w, f, true);
	jsonw_start_object(&w);
	jsonw_string_field(&w, "name", "cap\nnet");
	jsonw_name(&w, "set");
	jsonw_start_object(&w);
	jsonw_name(&w, "caps");
	jsonw_start_array(&w);
	jsonw_string(&w, "cap_chown");
	jsonw_string(&w, "cap_kill");
	jsonw_end_array(&w);
	jsonw_end_object(&w);
	jsonw_end_object(&w);
	jsonw_end_document(&w);
	fclose(f);
	TAP_EQ_STR(doc,
		   "{\n  \"name\": \"cap\\nnet\",\n  \"set\": {\n    \"caps\": [\n"
		   "      \"cap_chown\",\n      \"cap_kill\"\n    ]\n  }\n}\n",
		   "pretty: one member per line, indented by 2");
	TAP_OK(jq_true(doc, ".set.caps == [\"cap_chown\", \"cap_kill\"] and .name == \"cap\\nnet\""),
	       "pretty output reads back with jq");
}

int main(void)
{
	test_escapes();
	test_structure();
	return tap_done();
}
