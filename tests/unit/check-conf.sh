#!/usr/bin/env bash
# capuns check-conf: every bad line of a capuns.conf with its number, a
# file pam_capuns would refuse, exit status 1; a good file says OK; the
# configuration the packages install passes.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/guest/tap.sh"
export LD_LIBRARY_PATH=$root/build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
cli=$root/build/capuns
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
group=$(id -gn)

run() { out=$("$cli" check-conf "$@" 2>&1); rc=$?; }

printf '# rules\n!cap_net_admin,!cap_sys_admin  @%s\ncap_chown %s\n\n!cap_sys_module *\n' "$group" "$(id -un)" >"$tmp/good.conf"
run "$tmp/good.conf"
expect_eq "a good file: exit 0" "$rc" 0
expect_match "a good file: OK with its rule count" "$out" "good.conf: OK, 3 rules"

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
