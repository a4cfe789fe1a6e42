#!/usr/bin/env bash
# capuns check-conf: every bad line of a capuns.conf with its number, a
# file pam_capuns would refuse, exit status 1; a good file says OK; the
# configuration the packages install passes; rules that no backend would
# enforce (every login they match would fail) exit 4; a rule for root is
# named; --user shows the line a user matches and the set it gives;
# --protect fails (1, before 4) a good file with a rule that matches the
# user, audit rules included, and leaves standard output as it was.
# The host has no backend (CAPUNS_BACKEND=none makes that certain); the
# guest suites check the enforced case.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/guest/tap.sh"
export LD_LIBRARY_PATH=$root/build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
cli=$root/build/capuns
export CAPUNS_BACKEND=none
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
group=$(id -gn)

run() { out=$("$cli" check-conf "$@" 2>&1); rc=$?; }

printf '# rules\n!cap_net_admin,!cap_sys_admin  @%s\ncap_chown %s\n\n!cap_sys_module *\n' "$group" "$(id -un)" >"$tmp/good.conf"
run "$tmp/good.conf"
expect_eq "a good file, no backend: exit 4 (its rules would fail every login they match)" "$rc" 4
expect_match "a good file: OK with its rule count" "$out" "good.conf: OK, 3 rules"
expect_match "no backend: says that matched logins would fail" "$out" \
	"3 rules but no backend enforces them.*every login a rule matches would FAIL"

# Named users, whoever runs the test (root is not in nobody's group).
printf 'cap_chown nobody\n!cap_sys_module *\n' >"$tmp/users.conf"
run --user nobody --user root "$tmp/users.conf"
expect_match "the '*' rule on line 2 is named as one that matches root" "$out" \
	"users.conf: warning: line 2 matches root"
expect_match "--user nobody: line 1, cap_chown" "$out" \
	"^nobody: line 1 matches: logins keep cap_chown$"
expect_match "--user root: line 2, all but cap_sys_module" "$out" \
	"^root: line 2 matches: logins keep all,-cap_sys_module$"
run "$tmp/users.conf" --user no-such-user-here
expect_eq "--user of an unknown user: exit 1" "$rc" 1
expect_match "and says so" "$out" "--user no-such-user-here: no such user"
run --user
expect_eq "--user without a name: usage error (2)" "$rc" 2

# --protect NAME: exit 1 when a rule matches NAME, standard output as
# without it, the reason on standard error.
# run2 ARGS...: as run, with standard output and error apart.
run2() { "$cli" check-conf "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; out=$(cat "$tmp/out"); err=$(cat "$tmp/err"); }
run2 "$tmp/users.conf"
plain=$out
run2 --protect=root "$tmp/users.conf"
expect_eq "--protect=root, a '*' rule: exit 1, not 4" "$rc" 1
expect_eq "--protect=root: standard output as without it" "$out" "$plain"
expect_match "--protect=root: names the line and the user" "$err" \
	"users.conf: line 2 matches root, whom --protect keeps unrestricted: a policy must not touch root"
if printf '%s\n' "$err" | grep -q "warning: line 2 matches root"; then
	not_ok "--protect=root replaces the warning about root"
else
	ok "--protect=root replaces the warning about root"
fi
run2 "$tmp/users.conf" --protect root
expect_eq "--protect root (two words, after FILE): exit 1" "$rc" 1
expect_match "and says so" "$err" "line 2 matches root, whom --protect"
nogroup=$(id -gn nobody)
printf 'cap_chown @%s\n' "$nogroup" >"$tmp/group.conf"
run2 --protect=nobody "$tmp/group.conf"
expect_eq "--protect=nobody, a rule for @$nogroup (nobody's group): exit 1" "$rc" 1
expect_match "and names line 1" "$err" "group.conf: line 1 matches nobody, whom --protect"
printf '# try it first\naudit !cap_sys_admin nobody\n' >"$tmp/audit.conf"
run2 --protect=nobody "$tmp/audit.conf"
expect_eq "--protect=nobody, an audit rule for nobody: exit 1" "$rc" 1
expect_match "and says the audit rule counts" "$err" \
	"audit.conf: line 2 matches nobody, whom --protect.*an audit rule counts too"
run2 --protect=root --protect=daemon "$tmp/group.conf"
expect_eq "--protect of users no rule matches: the exit status without it (4, no backend)" "$rc" 4
if printf '%s\n' "$err" | grep -q -- "--protect"; then
	not_ok "--protect of users no rule matches: no --protect message"
else
	ok "--protect of users no rule matches: no --protect message"
fi
run2 --protect=root --protect=nobody "$root/build/system/capuns.conf"
expect_eq "--protect, the installed capuns.conf (no rule): exit 0" "$rc" 0
expect_eq "... and nothing on standard error" "$err" ""
run2 --protect=daemon --protect=nobody "$tmp/audit.conf"
expect_eq "--protect of two users, the second matched: exit 1" "$rc" 1
run2 --protect=no-such-user-here "$root/build/system/capuns.conf"
expect_eq "--protect of an unknown user: exit 1" "$rc" 1
expect_match "and says so" "$err" "--protect no-such-user-here: no such user"
run2 --protect=root "$tmp/bad.conf.missing"
expect_eq "--protect, a missing file: exit 1" "$rc" 1
run --protect
expect_eq "--protect without a name: usage error (2)" "$rc" 2

printf 'cap_chown nobody\n' >"$tmp/noroot.conf"
run --user root "$tmp/noroot.conf"
expect_match "--user root, no rule for root: not restricted" "$out" \
	"^root: no rule matches: logins are not restricted$"
if printf '%s\n' "$out" | grep -q "matches root"; then
	not_ok "no root warning when no rule matches root"
else
	ok "no root warning when no rule matches root"
fi

cat >"$tmp/bad.conf" <<CONF
!cap_net_admin   @$group
cap_bogus        $(id -un)
!cap_sys_admin
cap_chown,,cap_kill *   # an empty item
cap_chown        @no-such-group-here
!cap_sys_rawio   *
CONF
run "$tmp/bad.conf"
expect_eq "bad lines: exit 1" "$rc" 1
for n in 2 3 4 5; do expect_match "bad line $n is reported with its number" "$out" "bad.conf: line $n: "; done
for n in 1 6; do
	if printf '%s\n' "$out" | grep -q "line $n:"; then not_ok "good line $n is not reported"; else ok "good line $n is not reported"; fi
done
expect_match "the count of problems" "$out" "4 problems"

chmod 0666 "$tmp/good.conf"
run "$tmp/good.conf"
expect_eq "a group-writable file: exit 1" "$rc" 1
expect_match "and says why" "$out" "must be owned by root and not writable"
ln -s good.conf "$tmp/link.conf"
run "$tmp/link.conf"
expect_eq "a symbolic link is refused, as pam_capuns refuses it" "$rc" 1
run "$tmp/missing.conf"
expect_eq "a missing file: exit 1" "$rc" 1
expect_match "and says so" "$out" "cannot open"
run --bogus
expect_eq "an unknown option: usage error (2)" "$rc" 2
run a b
expect_eq "two files: usage error (2)" "$rc" 2

# The file the packages and make install put in /etc/security.
run "$root/build/system/capuns.conf"
expect_eq "the installed default capuns.conf passes" "$rc" 0
expect_match "with no rule" "$out" "OK, 0 rules"
done_testing
