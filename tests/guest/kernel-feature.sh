#!/bin/sh
# The kernel series' interfaces, seen from userspace, on both 6.1 builds:
# present on the patched kernel (prctl 48, CapUNs, the sysctls, CAP 41,
# the strict securebit), absent on the unpatched one. The unpatched half
# proves that the other kernel tests can fail.
. /capuns/tests/tap.sh
UNSCTL=/capuns/kernel/unsctl
CAPSH=/usr/sbin/capsh
[ -x $UNSCTL ] || { not_ok "helper $UNSCTL missing"; done_testing; }
STRICT=$($UNSCTL secbit strict) || { not_ok "$UNSCTL secbit strict failed"; done_testing; }

case "$CAPUNS_TARGET" in
patched)
	expect_eq "root: PR_CAP_USERNS IS_SET works" "$($UNSCTL raw 1 cap_net_admin)" "ret=1"
	expect_eq "alice: PR_CAP_USERNS IS_SET works" "$(as_user $UNSCTL raw 1 cap_net_admin)" "ret=1"
	expect_match "CapUNs line after CapAmb in /proc/self/status" \
		"$(grep -A1 '^CapAmb:' /proc/self/status)" 'CapUNs:	[0-9a-f]{16}$'
	expect_eq "root's pU is full (equals its bounding set)" "$(proc_cap CapUNs)" "$(proc_cap CapBnd)"
	expect_eq "alice's pU is full" "$(as_user grep CapUNs /proc/self/status)" "CapUNs:	000003ffffffffff"
	expect_eq "init's pU is full" "$(proc_cap CapUNs 1)" "000003ffffffffff"
	expect_eq "CAP_SYS_CONTROL is the last capability" "$(cat /proc/sys/kernel/cap_last_cap)" 41
	expect_match "kernel.cap_userns_mask exists, mode 0644" \
		"$(ls -l /proc/sys/kernel/cap_userns_mask)" '^-rw-r--r-- '
	expect_match "kernel.usermodehelper.userns exists, mode 0600" \
		"$(ls -l /proc/sys/kernel/usermodehelper/userns)" '^-rw------- '
	expect_eq "the strict securebit is accepted (capsh --secbits=$STRICT)" \
		"$($CAPSH --secbits=$STRICT -- -c 'grep ^CapUNs /proc/self/status >/dev/null && echo set')" set
	;;
unpatched)
	expect_eq "root: prctl(48) fails with EINVAL" "$($UNSCTL raw 1 cap_net_admin)" "errno=EINVAL"
	expect_eq "alice: prctl(48) fails with EINVAL" "$(as_user $UNSCTL raw 1 cap_net_admin)" "errno=EINVAL"
	expect_eq "prctl(48) LOWER fails with EINVAL" "$($UNSCTL raw 3 cap_net_admin)" "errno=EINVAL"
	check_fails "no CapUNs line in /proc/self/status" grep -q '^CapUNs:' /proc/self/status
	check_fails "no kernel.cap_userns_mask" test -e /proc/sys/kernel/cap_userns_mask
	check_fails "no kernel.usermodehelper.userns" test -e /proc/sys/kernel/usermodehelper/userns
	expect_eq "CAP_CHECKPOINT_RESTORE is the last capability" "$(cat /proc/sys/kernel/cap_last_cap)" 40
	check_fails "the strict securebit is refused (capsh --secbits=$STRICT)" \
		$CAPSH --secbits=$STRICT -- -c true
	;;
*)
	not_ok "CAPUNS_TARGET must be patched or unpatched, is '$CAPUNS_TARGET'"
	;;
esac
done_testing
