/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Host unit tests of libcapuns' text handling: capability names, list
 * parsing and formatting, /proc status and mask parsing, error strings,
 * and the "none" backend.  Nothing here depends on the host kernel's
 * capuns support; "all" is computed from the running kernel's
 * cap_last_cap, like the library does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capuns.h"
#include "internal.h"
#include "tap.h"

static uint64_t bit(int c)
{
	return UINT64_C(1) << c;
}

static void test_names(void)
{
	char buf[64];

	TAP_EQ(capuns_cap_from_name("cap_chown"), 0, "name cap_chown is 0");
	TAP_EQ(capuns_cap_from_name("CAP_NET_ADMIN"), 12, "names are case-insensitive");
	TAP_EQ(capuns_cap_from_name("cap_sys_control"), 41, "cap_sys_control is 41");
	TAP_EQ(capuns_cap_from_name("CAP_SYS_CONTROL"), 41, "CAP_SYS_CONTROL is 41");
	TAP_EQ(capuns_cap_from_name("41"), 41, "number 41 parses");
	TAP_EQ(capuns_cap_from_name("12"), 12, "number 12 parses");
	TAP_EQ(capuns_cap_from_name("12x"), CAPUNS_EBADCAP, "12x is rejected (libcap alone takes it)");
	TAP_EQ(capuns_cap_from_name("64"), CAPUNS_EBADCAP, "64 is out of range");
	TAP_EQ(capuns_cap_from_name("60"), CAPUNS_EBADCAP, "60 names no capability");
	TAP_EQ(capuns_cap_from_name("-1"), CAPUNS_EBADCAP, "-1 is rejected");
	TAP_EQ(capuns_cap_from_name("cap_frobnicate"), CAPUNS_EBADCAP, "unknown name rejected");
	TAP_EQ(capuns_cap_from_name(""), CAPUNS_EBADCAP, "empty name rejected");
	TAP_EQ(capuns_cap_from_name("net_admin"), CAPUNS_EBADCAP, "name without cap_ prefix rejected");
	/* Strict, as setpriv: decimal only, names consumed whole. */
	TAP_EQ(capuns_cap_from_name("012"), CAPUNS_EBADCAP, "012 is refused, never octal 10");
	TAP_EQ(capuns_cap_from_name("00"), CAPUNS_EBADCAP, "00 is refused (leading zero)");
	TAP_EQ(capuns_cap_from_name("0"), 0, "0 is capability 0");
	TAP_EQ(capuns_cap_from_name("0x0c"), CAPUNS_EBADCAP, "0x0c is refused (no hex)");
	TAP_EQ(capuns_cap_from_name("+12"), CAPUNS_EBADCAP, "+12 is refused (no sign)");
	TAP_EQ(capuns_cap_from_name("cap_chown;id"), CAPUNS_EBADCAP, "cap_chown;id is refused");
	TAP_EQ(capuns_cap_from_name("cap_net_admin=eip"), CAPUNS_EBADCAP,
	       "cap_net_admin=eip is refused");
	TAP_EQ(capuns_cap_from_name("cap_chown "), CAPUNS_EBADCAP, "a trailing space is refused");
	TAP_EQ(capuns_cap_from_name("cap_chown\n"), CAPUNS_EBADCAP, "a trailing newline is refused");
	TAP_EQ(capuns_cap_from_name("cap_sys_control;x"), CAPUNS_EBADCAP,
	       "cap_sys_control;x is refused");

	TAP_EQ(capuns_cap_to_name(41, buf, sizeof(buf)), 15, "41 formats");
	TAP_EQ_STR(buf, "cap_sys_control", "41 round-trips as cap_sys_control");
	capuns_cap_to_name(12, buf, sizeof(buf));
	TAP_EQ_STR(buf, "cap_net_admin", "12 is cap_net_admin");
	capuns_cap_to_name(40, buf, sizeof(buf));
	TAP_EQ_STR(buf, "cap_checkpoint_restore", "40 is cap_checkpoint_restore");
	TAP_EQ(capuns_cap_to_name(12, buf, 5), -ERANGE, "short buffer gives ERANGE");
	TAP_EQ(capuns_cap_to_name(64, buf, sizeof(buf)), CAPUNS_EBADCAP, "64 has no name");
	TAP_EQ(capuns_cap_to_name(-1, buf, sizeof(buf)), CAPUNS_EBADCAP, "-1 has no name");
	for (int c = 0; c <= 41; c++) {
		capuns_cap_to_name(c, buf, sizeof(buf));
		if (capuns_cap_from_name(buf) != c) {
			TAP_OK(0, "cap %d round-trips through its name %s", c, buf);
			return;
		}
	}
	TAP_OK(1, "every cap 0..41 round-trips through its name");
}

struct parse_case {
	const char *text;
	int err;
	uint64_t bits; /* when err == 0; ALL marks "all" relative */
	int rel;       /* 1: bits are removed from all */
	const char *desc;
};

static void test_parse(void)
{
	uint64_t all = capuns_set_all().bits;
	const struct parse_case cases[] = {
		{ "cap_net_admin", 0, bit(12), 0, "single name" },
		{ "cap_net_admin,cap_sys_admin", 0, bit(12) | bit(21), 0, "two names" },
		{ " cap_net_admin , +cap_sys_admin ", 0, bit(12) | bit(21), 0, "spaces and +" },
		{ "!cap_net_admin", 0, bit(12), 1, "leading ! starts from all" },
		{ "-cap_net_admin", 0, bit(12), 1, "leading - starts from all" },
		{ "!cap_net_admin,!cap_sys_admin", 0, bit(12) | bit(21), 1, "two exclusions" },
		{ "!cap_net_admin,cap_sys_admin", 0, bit(12), 1, "exclusion then redundant inclusion" },
		{ "all", 0, 0, 1, "all" },
		{ "all,-cap_chown", 0, bit(0), 1, "all minus one" },
		{ "none", 0, 0, 0, "none" },
		{ "cap_chown,none", 0, bit(0), 0, "adding none is a no-op" },
		{ "cap_chown,-cap_chown", 0, 0, 0, "add then remove" },
		{ "41,12", 0, bit(41) | bit(12), 0, "numbers" },
		{ "cap_sys_control", 0, bit(41), 0, "cap_sys_control" },
		{ "", CAPUNS_ESYNTAX, 0, 0, "empty list" },
		{ ",", CAPUNS_ESYNTAX, 0, 0, "lone comma" },
		{ "cap_chown,", CAPUNS_ESYNTAX, 0, 0, "trailing comma" },
		{ "cap_chown,,cap_kill", CAPUNS_ESYNTAX, 0, 0, "empty item" },
		{ "+", CAPUNS_ESYNTAX, 0, 0, "sign without name" },
		{ "+-cap_chown", CAPUNS_ESYNTAX, 0, 0, "two signs" },
		{ "cap_chown cap_kill", CAPUNS_ESYNTAX, 0, 0, "space-separated names" },
		{ "cap_frob", CAPUNS_EBADCAP, 0, 0, "unknown name" },
		{ "cap_chown,99", CAPUNS_EBADCAP, 0, 0, "number out of range" },
		{ "=ep", CAPUNS_EBADCAP, 0, 0, "cap_from_text syntax is not ours" },
		{ "012", CAPUNS_EBADCAP, 0, 0, "a leading zero, never octal" },
		{ "cap_kill,-012", CAPUNS_EBADCAP, 0, 0, "a leading zero after a sign" },
		{ "cap_chown;id", CAPUNS_EBADCAP, 0, 0, "a name is consumed whole" },
		{ "cap_net_admin=eip", CAPUNS_EBADCAP, 0, 0, "no cap_from_text flags" },
		{ "-cap_net_admin=eip", CAPUNS_EBADCAP, 0, 0, "no flags after a sign either" },
		{ "10,12", 0, bit(10) | bit(12), 0, "decimal numbers" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct parse_case *t = &cases[i];
		capuns_set_t s = capuns_set_of(0xdead);
		int err = capuns_set_parse(t->text, &s, NULL);
		uint64_t want = t->rel ? all & ~t->bits : t->bits;

		if (t->err)
			TAP_OK(err == t->err && s.bits == 0xdead,
			       "parse '%s' fails (%s), output untouched", t->text, t->desc);
		else
			TAP_OK(err == 0 && s.bits == want, "parse '%s' (%s)", t->text, t->desc);
	}

	const char *text = "cap_chown,cap_bogus,cap_kill", *pos = NULL;
	capuns_set_t s;

	TAP_EQ(capuns_set_parse(text, &s, &pos), CAPUNS_EBADCAP, "bad item reported");
	TAP_OK(pos == text + 10, "errpos points at the bad item");
	TAP_EQ(capuns_set_parse(NULL, &s, NULL), -EINVAL, "NULL text is EINVAL");
}

static void check_format(capuns_set_t set, unsigned flags, const char *want)
{
	char *t = capuns_set_format(set, flags);
	capuns_set_t back = capuns_set_empty();

	TAP_EQ_STR(t, want, "format %#llx", (unsigned long long)set.bits);
	TAP_OK(t && capuns_set_parse(t, &back, NULL) == 0 && back.bits == set.bits,
	       "'%s' parses back to %#llx", t ? t : "(null)",
	       (unsigned long long)set.bits);
	free(t);
}

static void test_format(void)
{
	capuns_set_t all = capuns_set_all();

	check_format(capuns_set_empty(), 0, "none");
	check_format(all, 0, "all");
	check_format(capuns_set_del(all, 12), 0, "all,-cap_net_admin");
	check_format(capuns_set_del(capuns_set_del(all, 21), 12), 0,
		     "all,-cap_net_admin,-cap_sys_admin");
	check_format(capuns_set_of(bit(12) | bit(21)), 0, "cap_net_admin,cap_sys_admin");
	check_format(capuns_set_of(bit(41)), 0, "cap_sys_control");
	check_format(capuns_set_of(bit(0) | bit(1)), CAPUNS_FMT_LIST, "cap_chown,cap_dac_override");

	char *t = capuns_set_format(capuns_set_del(all, 0), CAPUNS_FMT_LIST);
	TAP_OK(t && strncmp(t, "cap_dac_override,cap_dac_read_search,", 37) == 0,
	       "CAPUNS_FMT_LIST lists every name");
	free(t);
}

static void test_status(void)
{
	const char *status = "Name:\tx\nCapInh:\t0000000000000000\n"
			     "CapBnd:\t000003ffffffffff\nCapUNs:\t000003ffffffefff\n"
			     "CapBad:\tzz\nCapHuge:\t10000000000000000\n";
	uint64_t v = 0;

	TAP_OK(capuns_status_field(status, "CapUNs:", &v) == 0 && v == 0x3ffffffefffULL,
	       "CapUNs line parsed");
	TAP_OK(capuns_status_field(status, "CapBnd:", &v) == 0 && v == 0x3ffffffffffULL,
	       "CapBnd line parsed");
	TAP_EQ(capuns_status_field(status, "CapAmb:", &v), -ENOENT, "missing field is ENOENT");
	TAP_EQ(capuns_status_field(status, "CapBad:", &v), CAPUNS_EPROTO, "non-hex is EPROTO");
	TAP_EQ(capuns_status_field(status, "CapHuge:", &v), CAPUNS_EPROTO, "65 bits is EPROTO");
}

static void test_mask_text(void)
{
	uint64_t v = 0;

	TAP_OK(capuns_parse_mask_text("0x3ffffffffff\n", &v) == 0 && v == 0x3ffffffffffULL,
	       "mask 0x hex");
	TAP_OK(capuns_parse_mask_text("000003ffffffefff\n", &v) == 0 && v == 0x3ffffffefffULL,
	       "mask bare hex");
	TAP_OK(capuns_parse_mask_text("3ffffffffff\n", &v) == 0 && v == 0x3ffffffffffULL,
	       "mask bare %%lx hex");
	TAP_OK(capuns_parse_mask_text("4398046511103\n", &v) == 0 && v == 0x3ffffffffffULL,
	       "mask decimal %%lu (proc_doulongvec_minmax)");
	TAP_OK(capuns_parse_mask_text("4398046380031\n", &v) == 0 && v == 0x3fffffdffffULL,
	       "mask decimal without cap_sys_rawio");
	TAP_EQ(capuns_parse_mask_text("99999999999999999999999", &v), CAPUNS_EPROTO,
		   "decimal overflow");
	TAP_OK(capuns_parse_mask_text("4294967295\t1023\n", &v) == 0 && v == 0x3ffffffffffULL,
	       "mask two-ulong form");
	TAP_EQ(capuns_parse_mask_text("", &v), CAPUNS_EPROTO, "empty mask text");
	TAP_EQ(capuns_parse_mask_text("1 2 3", &v), CAPUNS_EPROTO, "three fields");
	TAP_EQ(capuns_parse_mask_text("4294967296\t0", &v), CAPUNS_EPROTO, "ulong pair over 32 bits");
	TAP_EQ(capuns_parse_mask_text("0xg", &v), CAPUNS_EPROTO, "bad hex");
}

static void test_strerror(void)
{
	TAP_OK(strstr(capuns_strerror(CAPUNS_ENOBACKEND), "no capuns backend") != NULL,
	       "strerror ENOBACKEND");
	TAP_OK(strstr(capuns_strerror(CAPUNS_EBADCAP), "unknown capability") != NULL,
	       "strerror EBADCAP");
	TAP_OK(strstr(capuns_strerror(CAPUNS_ESYNTAX), "malformed") != NULL, "strerror ESYNTAX");
	TAP_OK(strstr(capuns_strerror(CAPUNS_EPROTO), "ABI") != NULL, "strerror EPROTO");
	TAP_EQ_STR(capuns_strerror(-EPERM), "Operation not permitted", "strerror -EPERM");
	TAP_EQ_STR(capuns_strerror(EPERM), "Operation not permitted", "strerror +EPERM");
	TAP_EQ_STR(capuns_strerror(-99999), "unknown error", "strerror of nonsense");
}

/* Every operation on the "none" backend fails with CAPUNS_ENOBACKEND. */
static void test_none_backend(void)
{
	capuns_set_t s;
	unsigned bits;

	setenv("CAPUNS_BACKEND", "none", 1);
	capuns_backend_reset();
	TAP_EQ_STR(capuns_backend_name(), "none", "forced backend none");
	TAP_EQ(capuns_backend_status(), CAPUNS_ENOBACKEND, "none: status");
	TAP_EQ(capuns_get(0, &s), CAPUNS_ENOBACKEND, "none: get");
	TAP_EQ(capuns_get(getpid(), &s), CAPUNS_ENOBACKEND, "none: get pid");
	TAP_EQ(capuns_is_set(0), CAPUNS_ENOBACKEND, "none: is_set");
	TAP_EQ(capuns_raise(0), CAPUNS_ENOBACKEND, "none: raise");
	TAP_EQ(capuns_lower(0), CAPUNS_ENOBACKEND, "none: lower");
	TAP_EQ(capuns_clear(), CAPUNS_ENOBACKEND, "none: clear");
	TAP_EQ(capuns_raise_set(capuns_set_of(1)), CAPUNS_ENOBACKEND, "none: raise_set");
	TAP_EQ(capuns_lower_set(capuns_set_of(1)), CAPUNS_ENOBACKEND, "none: lower_set");
	TAP_EQ(capuns_set_exactly(capuns_set_of(1)), CAPUNS_ENOBACKEND, "none: set_exactly");
	TAP_EQ(capuns_strict_get(&bits), CAPUNS_ENOBACKEND, "none: strict_get");
	TAP_EQ(capuns_strict_set(false), CAPUNS_ENOBACKEND, "none: strict_set");
	TAP_EQ(capuns_mask_get(&s), CAPUNS_ENOBACKEND, "none: mask_get");
	TAP_EQ(capuns_mask_drop(capuns_set_of(1)), CAPUNS_ENOBACKEND, "none: mask_drop");

	/* Argument errors come before the backend. */
	TAP_EQ(capuns_is_set(-1), -EINVAL, "is_set(-1) is EINVAL");
	TAP_EQ(capuns_lower(64), -EINVAL, "lower(64) is EINVAL");
	TAP_EQ(capuns_set_exactly(capuns_set_of(UINT64_C(1) << 63)), -EINVAL,
		   "set_exactly with bit 63 is EINVAL");
	TAP_EQ(capuns_get(-5, &s), -EINVAL, "get(-5) is EINVAL");

	/* An unknown forced name fails closed too. */
	setenv("CAPUNS_BACKEND", "frob", 1);
	capuns_backend_reset();
	TAP_EQ_STR(capuns_backend_name(), "none", "unknown forced backend is none");
	/* Forcing the (placeholder or absent) bpf backend cannot succeed on a host. */
	unsetenv("CAPUNS_BACKEND");
	capuns_backend_reset();
}

int main(void)
{
	test_names();
	test_parse();
	test_format();
	test_status();
	test_mask_text();
	test_strerror();
	test_none_backend();
	return tap_done();
}
