/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Numbers from the command line and the environment, parsed one way for
 * every program.
 */
#ifndef CAPUNS_COMMON_STRUTILS_H
#define CAPUNS_COMMON_STRUTILS_H

/*
 * s as a plain decimal number in min..max.  Digits only: no sign, no
 * space, no empty string, so "-1", "+5", " 5" and "5x" are refused
 * rather than read as strtoul() would.  Returns 0 and sets *out, -EINVAL
 * when s is not a number, or -ERANGE when it is outside min..max.
 */
int parse_decimal(const char *s, unsigned long min, unsigned long max, unsigned long *out);

#endif /* CAPUNS_COMMON_STRUTILS_H */
