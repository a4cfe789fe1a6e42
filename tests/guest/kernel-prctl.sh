#!/bin/sh
# PR_CAP_USERNS error codes and the raise rule from real processes, as
# root and as alice (rule 2). The kselftest test_userns_caps covers the
# same rules from C; this checks them through a separate binary and
# setpriv, the way tools will use them.
. /capuns/tests/tap.sh
U=/capuns/kernel/unsctl
[ -x $U ] || { not_ok "helper $U missing"; done_testing; }

for who in root alice; do
	run() { if [ $who = root ]; then "$@"; else as_user "$@"; fi; }
	expect_eq "$who: IS_SET of cap 42 (> CAP_LAST_CAP) is EINVAL" "$(run $U raw 1 42)" errno=EINVAL
	expect_eq "$who: RAISE of cap 64 is EINVAL" "$(run $U raw 2 64)" errno=EINVAL
	expect_eq "$who: LOWER with arg4=1 is EINVAL" "$(run $U raw 3 cap_chown 1)" errno=EINVAL
	expect_eq "$who: LOWER with arg5=1 is EINVAL" "$(run $U raw 3 cap_chown 0 1)" errno=EINVAL
	expect_eq "$who: unknown op 5 is EINVAL" "$(run $U raw 5 cap_chown)" errno=EINVAL
	expect_eq "$who: unknown op 0 is EINVAL" "$(run $U raw 0 cap_chown)" errno=EINVAL
	expect_eq "$who: CLEAR_ALL with arg3=1 is EINVAL" "$(run $U raw 4 1)" errno=EINVAL
	expect_eq "$who: CLEAR_ALL with arg4=1 is EINVAL" "$(run $U raw 4 0 1)" errno=EINVAL
	expect_eq "$who: CLEAR_ALL with zeros succeeds" "$(run $U raw 4 0 0 0)" ret=0
	expect_eq "$who: LOWER succeeds" "$(run $U raw 3 cap_net_admin)" ret=0
	expect_eq "$who: RAISE of a set bit succeeds" "$(run $U raw 2 cap_net_admin)" ret=0
	expect_eq "$who: IS_SET of cap 41 is 1" "$(run $U raw 1 41)" ret=1
	expect_eq "$who: lowered bit reads 0 after exec" \
		"$(run $U lower cap_net_admin -- $U raw 1 cap_net_admin)" ret=0
	expect_eq "$who: cleared set reads 0 after exec" \
		"$(run $U clear -- grep CapUNs /proc/self/status)" "CapUNs:	0000000000000000"
done
# The raise rule: pU' = (CAP_SETPCAP in pE) ? X : X & pP.
expect_eq "root (CAP_SETPCAP): RAISE after LOWER succeeds" \
	"$($U lower cap_net_admin -- $U raw 2 cap_net_admin)" ret=0
expect_eq "alice (no caps): RAISE after LOWER is EPERM" \
	"$(as_user $U lower cap_net_admin -- $U raw 2 cap_net_admin)" errno=EPERM
expect_eq "root without CAP_SETPCAP in pE, cap in pP: RAISE succeeds" \
	"$(/usr/sbin/capsh --drop=cap_setpcap -- -c "$U lower cap_net_admin -- $U raw 2 cap_net_admin" 2>&1)" ret=0
expect_eq "root after dropping the cap from the bounding set: RAISE is EPERM" \
	"$(/usr/sbin/capsh --drop=cap_net_admin -- -c "$U lower cap_net_admin -- $U raw 2 cap_net_admin" 2>&1)" errno=EPERM
# capsh --user keeps nothing: alice with an ambient cap has it in pP.
expect_eq "alice with cap_net_admin in pP (ambient): RAISE succeeds" \
	"$(/usr/sbin/capsh --caps='cap_net_admin,cap_setuid,cap_setgid,cap_setpcap+eip' --keep=1 --user=alice \
		--addamb=cap_net_admin -- -c "$U lower cap_net_admin -- $U raw 2 cap_net_admin" 2>&1)" ret=0
expect_eq "alice with cap_net_admin in pP: RAISE of another lowered cap is EPERM" \
	"$(/usr/sbin/capsh --caps='cap_net_admin,cap_setuid,cap_setgid,cap_setpcap+eip' --keep=1 --user=alice \
		--addamb=cap_net_admin -- -c "$U lower cap_sys_admin -- $U raw 2 cap_sys_admin" 2>&1)" errno=EPERM
done_testing
