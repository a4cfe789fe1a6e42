#!/usr/bin/env bash
# Host unit test: the userspace man pages render without warnings (TAP).
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
echo "1..$n"
[ "$failed" = 0 ]
