#!/usr/bin/env bash
# capuns learn --journal: the rules learnt from the journals of several
# hosts, as journalctl -t capuns prints them (-o cat: the host is the
# file's name; -o short, short-iso: the host is on each line).  One rule
# per user, the union of all hosts, users sorted; --for: one rule of
# everything; only complain and cap-denied events of capuns count; a
# forged COMM does not change the user; an unknown capability or a user
# capuns.conf cannot name is skipped with a warning; a file that cannot
# be read is an error with nothing on stdout; no event is no error.
# Uses the sanitizer build of the CLI; needs no backend.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/guest/tap.sh"
cli=$root/build/san/capuns
if [ ! -x "$cli" ]; then
	not_ok "capuns binary $cli exists (run make)"
	done_testing
fi
export CAPUNS_BACKEND=none
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

# learn ARGS...: run capuns learn, stdout in $out, stderr in $err, exit status in $rc.
learn() { "$cli" learn "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; out=$(cat "$tmp/out"); err=$(cat "$tmp/err"); }
tail=', namespace depth 1, target depth 1'
allowed="$tail: allowed (complain mode)"
denied="$tail: Operation not permitted"

# web1: journalctl -t capuns -o cat.
cat >web1.log <<EOF
complain: cap_net_admin pid 812 (ip) uid 1000 (alice) unit session-3.scope$allowed
cap-denied: cap_net_admin pid 813 (ip) uid 1000 (alice) unit session-3.scope$denied
userns-refused: - pid 90 (unshare) uid 1000 (alice) unit session-3.scope$denied
events not logged in the last 10 s: 3 over a uid's rate limit, 0 with the ring buffer full (totals 3 and 0; denials 5)
complain: cap_bogus pid 93 (ip) uid 1000 (alice) unit session-3.scope$allowed
complain: cap_sys_ptrace pid 94 (x) uid 0 (root) uid 1001 (bob) unit session-4.scope$allowed
complain: cap_chown pid 95 (podman) uid 100000 (?) unit user@1000.service$allowed
cap-denied: cap_sys_admin pid 96 (sh) uid 1003 (@wheel) unit session-5.scope$denied
EOF
# web2: journalctl -t capuns -o short-iso, another program's line in between.
cat >web2.log <<EOF
-- Journal begins at Mon 2024-01-01 00:00:00 UTC, ends at Fri 2024-01-05 12:35:00 UTC. --
2024-01-05T12:34:56+0100 web2 capuns[812]: cap-denied: cap_sys_admin pid 90 (unshare) uid 1000 (alice) unit user@1000.service$denied
2024-01-05T12:34:57+0100 web2 sudo[1]: complain: cap_sys_module pid 91 (x) uid 1001 (bob) unit session-9.scope$allowed
2024-01-05T12:34:58+0100 web2 capuns[812]: complain: cap_net_raw pid 97 (ping) uid 1002 (carol) unit session-9.scope$allowed
2024-01-05T12:34:59+0100 web2 capuns[812]: events not logged in the last 10 s: 1 over a uid's rate limit
EOF

learn --journal web1.log web2.log
expect_eq "two hosts: exit 0" "$rc" 0
expect_eq "one rule per user, the union of both hosts, users sorted" "$out" \
	"$(printf 'cap_net_admin,cap_sys_admin\talice\ncap_sys_ptrace\tbob\ncap_net_raw\tcarol')"
expect_match "the summary: events, hosts (web1 by its file, web2 by its lines), users, files" \
	"$err" "^capuns: learn: 5 events from 2 hosts, 3 users \(web1.log web2.log\)$"
expect_match "an unknown capability is named with its file and line" "$err" \
	"^capuns: learn: web1.log:5: unknown capability 'cap_bogus': line skipped$"
expect_match "a user capuns.conf cannot name (@wheel) is skipped, not made a group rule" "$err" \
	"web1.log:8: user '@wheel' cannot be named in capuns.conf: line skipped"
expect_match "events of a uid without a name are left out, and said so" "$err" \
	"1 event of uids with no name on their host .* left out"
if printf '%s\n' "$out" | grep -q 'root\|cap_sys_module\|@wheel'; then
	not_ok "no rule for root (forged COMM), sudo's line or @wheel"
else
	ok "no rule for root (forged COMM), sudo's line or @wheel"
fi

learn --for=@ops --journal web1.log web2.log
expect_eq "--for: exit 0" "$rc" 0
expect_eq "--for: one rule of every event, the nameless uid's included" "$out" \
	"$(printf 'cap_chown,cap_net_admin,cap_net_raw,cap_sys_ptrace,cap_sys_admin\t@ops')"
expect_match "--for: the summary counts that event too" "$err" "6 events from 2 hosts, 3 users"

learn --journal - <web1.log
expect_eq "- is standard input: exit 0" "$rc" 0
expect_eq "- is standard input: its rules" "$out" \
	"$(printf 'cap_net_admin\talice\ncap_sys_ptrace\tbob')"
expect_match "- is standard input: one host" "$err" "3 events from 1 host, 2 users \(-\)$"

# journalctl -o short, the identifier with and without a pid, from standard input.
cat >db.txt <<EOF
Jan 05 12:34:56 db1 capuns[812]: complain: cap_sys_chroot pid 1 (bwrap) uid 1002 (carol) unit session-2.scope$allowed
Jan 05 12:34:57 db1 capuns: cap-denied: cap_setuid pid 2 (newuidmap) uid 1002 (carol) unit session-2.scope$denied
Jan 05 12:34:58 db2 capuns[812]: complain: cap_setgid pid 3 (newgidmap) uid 1002 (carol) unit session-2.scope$allowed
EOF
learn --journal -- - <db.txt
expect_eq "-o short: the hosts of the lines" "$err" "capuns: learn: 3 events from 2 hosts, 1 user (-)"
expect_eq "-o short: the rule" "$out" "$(printf 'cap_setgid,cap_setuid,cap_sys_chroot\tcarol')"

# Nothing to learn is no error.
: >empty.log
printf '%s\n' "-- No entries --" "userns-refused: - pid 90 (unshare) uid 1000 (alice) unit x$denied" >quiet.log
for f in empty.log quiet.log; do
	learn --journal "$f"
	expect_eq "$f: no event: exit 0" "$rc" 0
	expect_eq "$f: no event: nothing on stdout" "$out" ""
	expect_eq "$f: no event: the note on stderr" "$err" \
		"capuns: learn: no capability was refused or complained about ($f)"
done
learn --journal - </dev/null
expect_eq "empty standard input: exit 0" "$rc" 0
expect_eq "empty standard input: nothing on stdout" "$out" ""

# A file that cannot be read: exit 1, no rule at all.
learn --journal web1.log missing.log
expect_eq "a missing file: exit 1" "$rc" 1
expect_eq "a missing file: nothing on stdout, not even the good file's rules" "$out" ""
expect_match "a missing file: named" "$err" "cannot open missing.log: No such file or directory"
mkdir dir.log
learn --journal web1.log dir.log
expect_eq "a directory: exit 1" "$rc" 1
expect_eq "a directory: nothing on stdout" "$out" ""
expect_match "a directory: cannot be read" "$err" "cannot read dir.log"

# Usage errors.
learn --journal
expect_eq "--journal without a FILE: usage error (2)" "$rc" 2
learn --journal web1.log --for=alice
expect_eq "an option after a FILE: usage error (2)" "$rc" 2
expect_match "... saying that options go first" "$err" "'--for=alice' after a FILE"
learn --journal=web1.log
expect_eq "--journal takes no argument: usage error (2)" "$rc" 2
cp web1.log ./-odd.log
learn --journal -- web2.log -odd.log
expect_eq "after --, a FILE may start with -" "$rc" 0
expect_match "... and is read" "$err" "5 events from 2 hosts"
done_testing
