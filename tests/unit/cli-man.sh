#!/usr/bin/env bash
# Host unit test: the userspace man pages render without warnings, and
# every page gives the securebit numbers of the kernel ABI (TAP).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
for page in man/capuns.1 man/pam_capuns.8; do
	f=$root/$page
	if [ ! -f "$f" ]; then not_ok "$page exists"; continue; fi
	w=$(groff -man -ww -z "$f" 2>&1)
	if [ -z "$w" ]; then ok "$page: groff -man -ww is silent"; else
		not_ok "$page: groff -man -ww warns"; printf '%s\n' "$w" | sed 's/^/#   /'; fi
	out=$(MANWIDTH=80 LC_ALL=C.UTF-8 man -l "$f" 2>&1 >/dev/null)
	if [ -z "$out" ]; then ok "$page: man -l renders without messages"; else
		not_ok "$page: man -l complains"; printf '%s\n' "$out" | sed 's/^/#   /'; fi
	text=$(MANWIDTH=80 man -l "$f" 2>/dev/null)
	for section in NAME SYNOPSIS DESCRIPTION "EXIT STATUS\|RETURN VALUES" "SEE ALSO"; do
		if printf '%s\n' "$text" | grep -q "^\($section\)\$"; then ok "$page: has $section"; else
			not_ok "$page: has $section"; fi
	done
done

# Every page's title line names the version of the file VERSION, as the
# installed pages do (the build writes it in; tests/unit/install.sh), so
# that man -l on the source shows the same.
version=$(cat "$root/VERSION")
for f in "$root"/man/*.[0-9]; do
	th=$(sed -n 's/^\.TH [^"]*"\(capuns [^"]*\)".*/\1/p' "$f")
	if [ "$th" = "capuns $version" ]; then ok "man/${f##*/}: capuns $version"; else
		not_ok "man/${f##*/}: says '$th', VERSION is $version"; fi
done

# The securebit numbers every page gives are the kernel ABI's
# (include/capuns-abi.h): each "SECURE_USERNS_STRICT_CAPS (N)", its
# _LOCKED twin and "bits N and M" of the strict bit, in the text as man
# shows it (one line per paragraph, no hyphenation).  capuns(1) must give
# them, so that the check cannot pass on a page that lost them.
abi=$root/include/capuns-abi.h
strict=$(sed -n 's/^#define SECURE_USERNS_STRICT_CAPS \([0-9]*\)$/\1/p' "$abi")
locked=$(sed -n 's/^#define SECURE_USERNS_STRICT_CAPS_LOCKED \([0-9]*\)$/\1/p' "$abi")
if [ -n "$strict" ] && [ -n "$locked" ]; then ok "capuns-abi.h: strict bit $strict, its lock $locked"; else
	not_ok "capuns-abi.h defines SECURE_USERNS_STRICT_CAPS and its lock"; fi
for f in "$root"/man/*.[0-9]; do
	page=man/${f##*/}
	text=$(groff -man -Tascii -P-cbou -rLL=100000n -rHY=0 "$f" 2>/dev/null | tr -s ' \n' '  ')
	given=$(printf '%s\n' "$text" | grep -oE 'SECURE_USERNS_STRICT_CAPS(_LOCKED)? \([0-9]+\)|strict securebit[^.]* bits [0-9]+ and [0-9]+')
	if [ -z "$given" ]; then
		[ "$page" != man/capuns.1 ] || not_ok "$page gives the strict securebit's number"
		continue
	fi
	wrong=$(printf '%s\n' "$given" | grep -vxE "SECURE_USERNS_STRICT_CAPS \($strict\)|SECURE_USERNS_STRICT_CAPS_LOCKED \($locked\)|strict securebit.* bits $strict and $locked")
	if [ -z "$wrong" ]; then ok "$page: the securebit numbers are the ABI's ($(printf '%s\n' "$given" | grep -c .) places)"; else
		not_ok "$page: securebit numbers other than $strict/$locked"; printf '%s\n' "$wrong" | sed 's/^/#   /'; fi
done
echo "1..$n"
[ "$failed" = 0 ]
