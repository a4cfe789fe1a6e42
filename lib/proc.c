/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading /proc: task status lines and the mask sysctl.  A leaf: it parses
 * what the kernel shows and calls nothing else of the library.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capuns.h"
#include "internal.h"

#define READ_MAX (1 << 20)

int capuns_read_file(const char *path, char **text)
{
	size_t len = 0, size = 4096;
	char *buf, *nb;
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(size);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		if (len + 1 >= size) {
			if (size >= READ_MAX) {
				err = -EFBIG;
				goto fail;
			}
			nb = realloc(buf, size * 2);
			if (!nb) {
				err = -ENOMEM;
				goto fail;
			}
			buf = nb;
			size *= 2;
		}
		n = read(fd, buf + len, size - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*text = buf;
	return 0;
fail:
	close(fd);
	free(buf);
	return err;
}

int capuns_read_status(pid_t pid, char **text)
{
	char path[64];
	int err;

	if (pid < 0)
		return -EINVAL;
	if (pid == 0)
		snprintf(path, sizeof(path), "/proc/thread-self/status");
	else
		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	err = capuns_read_file(path, text);
	/* No such directory means no such task. */
	if (err == -ENOENT && pid != 0)
		return -ESRCH;
	return err;
}

/* Parse exactly one hex number (optional 0x) filling [b, e). */
static int parse_hex(const char *b, const char *e, uint64_t *val)
{
	uint64_t v = 0;
	int digits = 0;

	if (e - b > 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'X'))
		b += 2;
	for (; b < e; b++, digits++) {
		int d;

		if (!isxdigit((unsigned char)*b))
			return CAPUNS_EPROTO;
		if (v >> 60)
			return CAPUNS_EPROTO; /* more than 64 bits */
		d = isdigit((unsigned char)*b) ? *b - '0'
					       : tolower((unsigned char)*b) - 'a' + 10;
		v = v << 4 | (uint64_t)d;
	}
	if (!digits)
		return CAPUNS_EPROTO;
	*val = v;
	return 0;
}

int capuns_status_field(const char *status, const char *field, uint64_t *val)
{
	size_t flen = strlen(field);
	const char *line = status, *b, *e;

	while (line && *line) {
		if (strncmp(line, field, flen) == 0) {
			b = line + flen;
			while (*b == ' ' || *b == '\t')
				b++;
			e = b;
			while (*e && *e != '\n' && *e != ' ' && *e != '\t')
				e++;
			return parse_hex(b, e, val);
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return -ENOENT;
}

/* Split text into at most 3 whitespace-separated fields. */
static int split_fields(const char *text, const char *b[3], const char *e[3])
{
	const char *p = text;
	int n = 0;

	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			return n;
		if (n == 3)
			return -1;
		b[n] = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
		e[n++] = p;
	}
}


/* Any of a-f in [b, e)? */
static bool has_hex_letter(const char *b, const char *e)
{
	for (; b < e; b++)
		if (isxdigit((unsigned char)*b) && !isdigit((unsigned char)*b))
			return true;
	return false;
}

static int parse_dec64(const char *b, const char *e, uint64_t *val)
{
	uint64_t v = 0;

	if (b == e)
		return CAPUNS_EPROTO;
	for (; b < e; b++) {
		if (!isdigit((unsigned char)*b))
			return CAPUNS_EPROTO;
		if (v > (UINT64_MAX - 9) / 10)
			return CAPUNS_EPROTO;
		v = v * 10 + (uint64_t)(*b - '0');
	}
	*val = v;
	return 0;
}

/* A decimal 32-bit word, as the two-word sysctl form prints each half. */
static int parse_dec32(const char *b, const char *e, uint64_t *val)
{
	uint64_t v;
	int err = parse_dec64(b, e, &v);

	if (err)
		return err;
	if (v > UINT32_MAX)
		return CAPUNS_EPROTO;
	*val = v;
	return 0;
}

int capuns_parse_mask_text(const char *text, uint64_t *mask)
{
	const char *b[3], *e[3];
	uint64_t lo, hi;
	int n = split_fields(text, b, e), err;

	if (n == 1) {
		/*
		 * Hex when it says so: a 0x prefix, a digit a-f, or the
		 * zero-padded 16 digits of /proc status.  Otherwise the decimal
		 * unsigned long of proc_doulongvec_minmax (64-bit kernels).
		 */
		if ((e[0] - b[0] > 2 && b[0][0] == '0' && (b[0][1] == 'x' || b[0][1] == 'X')) ||
		    has_hex_letter(b[0], e[0]) || e[0] - b[0] == 16)
			return parse_hex(b[0], e[0], mask);
		return parse_dec64(b[0], e[0], mask);
	}
	if (n == 2) {
		/* Two unsigned longs, least significant first (32-bit kernels). */
		err = parse_dec32(b[0], e[0], &lo);
		if (!err)
			err = parse_dec32(b[1], e[1], &hi);
		if (err)
			return err;
		*mask = lo | hi << 32;
		return 0;
	}
	return CAPUNS_EPROTO;
}

int capuns_proc_sets(pid_t pid, struct capuns_sets *sets)
{
	static const struct {
		const char *field;
		size_t off;
	} fields[] = {
		{ "CapInh:", offsetof(struct capuns_sets, inheritable) },
		{ "CapPrm:", offsetof(struct capuns_sets, permitted) },
		{ "CapEff:", offsetof(struct capuns_sets, effective) },
		{ "CapBnd:", offsetof(struct capuns_sets, bounding) },
		{ "CapAmb:", offsetof(struct capuns_sets, ambient) },
	};
	struct capuns_sets s;
	char *status;
	int err;

	err = capuns_read_status(pid, &status);
	if (err)
		return err;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		err = capuns_status_field(status, fields[i].field,
					  (uint64_t *)((char *)&s + fields[i].off));
		if (err) {
			free(status);
			return err == -ENOENT ? CAPUNS_EPROTO : err;
		}
	}
	free(status);
	*sets = s;
	return 0;
}

int capuns_proc_sets_enforced(pid_t pid, struct capuns_sets *enforced, struct capuns_sets *kernel)
{
	int err = capuns_proc_sets(pid, kernel);

	if (!err)
		*enforced = *kernel;
	return err;
}
