#!/usr/bin/bash
# Complain mode and capuns learn (issue: try a rule before enforcing it).
#   stock:   complain mode lets a use outside the set pass and reports it
#            (err 0), only root may switch it, enforce mode refuses again;
#            capuns learn prints the rule a command needs (unshare -rn ip,
#            bwrap), the command works under that rule and what it did
#            not use stays refused; learning gives an unprivileged user
#            nothing: under a lowered pU the use is still refused (and
#            learn says so).
#   patched: the kernel backend has no audit hook: both say so and fail.
. /capuns/tests/tap.sh
. /capuns/bin/bpf-test-lib.sh

NET_PROBE='unshare -rn ip link set lo up'
# bwrap as a build sandbox would run it: user, mount, pid and net namespaces.
BWRAP='bwrap --unshare-user --unshare-pid --unshare-net --ro-bind / / --proc /proc --dev /dev true'
# alice in a bind-mounted root: bwrap's pivot_root(2) refuses the initramfs.
alice_bindroot() {
	in_bindroot /usr/bin/setpriv --reuid=$UNPRIV_UID --regid=$UNPRIV_GID --init-groups \
		--reset-env -- "$@"
}

if [ "$CAPUNS_TARGET" = patched ]; then
	out=$(capuns learn -- true 2>&1); rc=$?
	expect_eq "kernel backend: capuns learn fails" "$rc" 1
	expect_match "... and says the series has no audit hook" "$out" "no audit hook"
	out=$(capuns complain on 2>&1); rc=$?
	expect_eq "kernel backend: capuns complain on fails" "$rc" 1
	expect_match "... and says why" "$out" "no audit hook"
	done_testing
fi
require_stock
fresh_unload
capuns-bpf load >/dev/null 2>&1 || { not_ok "load the backend"; done_testing; }

# ---- complain mode --------------------------------------------------------
expect_match "capuns complain: off after a load" "$(capuns complain)" '^complain mode: off'
out=$(as_user capuns complain on 2>&1); rc=$?
expect_eq "alice may not switch complain mode on (exit 1)" "$rc" 1
expect_match "... EPERM" "$out" "not permitted"
expect_match "... and it stays off" "$(capuns complain)" '^complain mode: off'
check_fails "capuns complain maybe: usage error" capuns complain maybe
expect_eq "... exit 2" "$(capuns complain maybe >/dev/null 2>&1; echo $?)" 2
check_fails "enforce: alice without cap_net_admin in pU cannot use it in a namespace" \
	as_user capuns --drop=cap_net_admin -- $NET_PROBE
check "capuns complain on (root)" capuns complain on
expect_match "capuns-bpf status says complain" "$(capuns-bpf status)" '^mode: complain'
start_monitor capuns-bpf monitor --count=1 --timeout=20
check "complain: the same use now passes" as_user capuns --drop=cap_net_admin -- $NET_PROBE
wait "$mon"
expect_match "... and is reported as a complain event for cap_net_admin" "$(cat /tmp/mon.out)" \
	'complain cap_net_admin depth 1 target 1: allowed \(complain mode\)'
check "capuns complain off" capuns complain off
check_fails "enforce again: refused" as_user capuns --drop=cap_net_admin -- $NET_PROBE

# ---- capuns learn ----------------------------------------------------------
out=$(as_user capuns learn -- $NET_PROBE 2>/tmp/learn.err); rc=$?
expect_eq "alice: capuns learn -- $NET_PROBE exits with the command's status 0" "$rc" 0
# cap_sys_admin: the new network namespace asks for it in the new user
# namespace (its id map does not: rule 11 waives that one whatever pU).
expect_eq "... and prints the rule it needs" "$out" "$(printf 'cap_net_admin,cap_sys_admin\talice')"
rule=${out%%$'\t'*}
check "under that rule (--only=$rule) the command works" \
	as_user capuns --only="$rule" -- $NET_PROBE
check_fails "... and chroot (cap_sys_chroot, not learned) is refused" \
	as_user capuns --only="$rule" -- unshare -r /usr/sbin/chroot / true
check "control: chroot works in alice's namespace without the rule" \
	as_user unshare -r /usr/sbin/chroot / true

out=$(alice_bindroot capuns learn --for=@builders -- $BWRAP 2>/tmp/learn.err); rc=$?
expect_eq "alice: capuns learn --for=@builders -- bwrap ... exits 0" "$rc" 0
[ "$rc" = 0 ] || sed 's/^/#   /' /tmp/learn.err
expect_match "... and prints a rule for @builders with cap_sys_admin" "$out" \
	"(^|,)cap_sys_admin(,|.*$(printf '\t'))@builders\$"
rule=${out%%$'\t'*}
diag "learned for bwrap: $rule"
check "bwrap works under the learned rule (--only=$rule)" \
	alice_bindroot capuns --only="$rule" -- $BWRAP
check_fails "... not without cap_sys_admin" \
	alice_bindroot capuns --only="$rule" --drop=cap_sys_admin -- $BWRAP

out=$(as_user capuns --drop=cap_net_admin -- capuns learn -- $NET_PROBE 2>/tmp/learn.err); rc=$?
expect_eq "learning under a lowered pU gains nothing: the command still fails" \
	"$([ $rc != 0 ] && echo failed)" failed
expect_match "... and learn says what was refused" "$(cat /tmp/learn.err)" \
	'refused under the current sets.*cap_net_admin'
expect_match "a command that uses nothing: rule 'none'" "$(as_user capuns learn -- true 2>/dev/null)" \
	"^none$(printf '\t')alice\$"
check_fails "capuns learn without a command: usage error" capuns learn
capuns-bpf unload >/dev/null 2>&1
done_testing
