#!/usr/bin/env bash
# Each program's usage text and its man page list the same commands and
# options; capuns-bpf takes -h/--help and -V/--version as libbpf-tools do;
# every program prints the one version; the man pages of man/ render
# without warnings and have their sections.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/guest/tap.sh"
export LD_LIBRARY_PATH=$root/build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
version=$(cat "$root/VERSION")
b=$root/build

# Long options a text names (--x, --x-y), sorted, one per line.
long_opts() { grep -oE -- '--[a-z][a-z-]*' | sort -u; }
# Options of a man page: \-\-name in the source of its SYNOPSIS and
# OPTIONS sections (elsewhere it may quote other programs).
man_opts() {
	awk '/^\.SH / { keep = ($2 == "SYNOPSIS" || $2 == "OPTIONS") } keep' "$1" |
		grep -oE '\\-\\-[a-z]+(\\-[a-z]+)*' | sed 's/\\//g' | sort -u
}

compare() { # NAME USAGE-LIST MAN-LIST
	local only_usage only_man
	only_usage=$(comm -23 <(printf '%s\n' "$2") <(printf '%s\n' "$3") | tr '\n' ' ')
	only_man=$(comm -13 <(printf '%s\n' "$2") <(printf '%s\n' "$3") | tr '\n' ' ')
	if [ -z "$only_usage$only_man" ]; then ok "$1: usage and man page agree ($(printf '%s\n' "$2" | grep -c .))"; else
		not_ok "$1: only in the usage: '$only_usage'; only in the man page: '$only_man'"; fi
}

# capuns: options, and the commands (capuns WORD in the usage, .SY "capuns WORD").
usage=$("$b/capuns" --help)
compare "capuns options" "$(printf '%s\n' "$usage" | long_opts)" "$(man_opts "$root/man/capuns.1")"
compare "capuns commands" \
	"$(printf '%s\n' "$usage" | sed -nE 's/^(Usage:)? *capuns ([a-z][a-z-]*).*/\2/p' | sort -u)" \
	"$(sed -nE 's/^\.SY "capuns ([a-z\\-]*)"/\1/p' "$root/man/capuns.1" | sed 's/\\//g' | sort -u)"

# capuns-bpf: options, and the commands (.B capuns\-bpf WORD in SYNOPSIS).
usage=$("$b/capuns-bpf" --help)
compare "capuns-bpf options" "$(printf '%s\n' "$usage" | long_opts)" "$(man_opts "$root/man/capuns-bpf.8")"
compare "capuns-bpf commands" \
	"$(printf '%s\n' "$usage" | sed -nE 's/^(usage:)? *capuns-bpf ([a-z]+).*/\2/p' | sort -u)" \
	"$(sed -nE 's/^\.B capuns\\-bpf ([a-z]+)$/\1/p' "$root/man/capuns-bpf.8" | sort -u)"
for a in -h --help help; do
	out=$("$b/capuns-bpf" $a 2>&1); rc=$?
	if [ $rc = 0 ] && printf '%s\n' "$out" | grep -q 'capuns-bpf load'; then ok "capuns-bpf $a prints the usage"; else
		not_ok "capuns-bpf $a prints the usage (exit $rc)"; fi
done
for a in -V --version "status --version" "load -V"; do
	# shellcheck disable=SC2086
	expect_eq "capuns-bpf $a" "$("$b/capuns-bpf" $a 2>&1)" "capuns-bpf $version"
done
expect_eq "capuns --version" "$("$b/capuns" --version 2>&1)" "capuns $version"

# The man pages of man/ (libcapuns(3), capuns.conf(5), capuns-bpf(8)).
for page in "$root"/man/*.[0-9]; do
	name=${page##*/}
	w=$(groff -man -ww -z "$page" 2>&1)
	expect_eq "$name: groff -man -ww is silent" "$w" ""
	out=$(MANWIDTH=80 LC_ALL=C.UTF-8 man -l "$page" 2>&1 >/dev/null)
	expect_eq "$name: man -l renders without messages" "$out" ""
	text=$(MANWIDTH=80 man -l "$page" 2>/dev/null)
	for section in NAME SYNOPSIS DESCRIPTION "SEE ALSO"; do
		if printf '%s\n' "$text" | grep -qx "$section"; then ok "$name: has $section"; else
			not_ok "$name: has $section"; fi
	done
done
text=$(MANWIDTH=80 man -l "$root/man/capuns.1" 2>/dev/null)
for section in ENVIRONMENT FILES; do
	if printf '%s\n' "$text" | grep -qx "$section"; then ok "capuns.1: has $section"; else
		not_ok "capuns.1: has $section"; fi
done
done_testing
