#!/bin/sh
# capuns mask --drop on the patched kernel: the system mask shrinks for
# good (until reboot), so this test lowers only cap_sys_rawio and must be
# the last one of its boot (it is listed last in patched.list).
. /capuns/tests/tap.sh
cd /tmp || exit 1
bit_set() { [ $(( (0x$1 >> $2) & 1 )) = 1 ]; }

if [ "$CAPUNS_TARGET" != patched ]; then
	not_ok "userspace-zmask runs on the patched kernel only (target $CAPUNS_TARGET)"
	done_testing
fi
before=$(cat /proc/sys/kernel/cap_userns_mask)
out=$(capuns mask 2>&1)
expect_match "capuns mask shows the sysctl's value" "$out" "^kernel.cap_userns_mask: $before "
out=$(as_user capuns mask --drop=cap_sys_rawio 2>&1)
check_fails "alice cannot lower the mask" [ "$?" = 0 ]
expect_eq "alice left it as it was" "$(cat /proc/sys/kernel/cap_userns_mask)" "$before"
out=$(capuns mask --drop=cap_sys_rawio 2>&1)
expect_eq "root lowers it" "$?" 0
after=$(cat /proc/sys/kernel/cap_userns_mask)
if ! bit_set "${after#0x}" 17 && [ $(( before & ~(1 << 17) )) = $(( after )) ]; then
	ok "the mask lost cap_sys_rawio only ($before -> $after)"
else
	not_ok "the mask lost cap_sys_rawio only ($before -> $after)"
fi
expect_match "capuns mask prints the new mask" "$out" 'all,-cap_sys_rawio'
expect_eq "pU of this process is untouched" "$(proc_cap CapUNs)" 000003ffffffffff
check "raising a cap back into the mask is refused or ignored" \
	sh -c 'echo 0xffffffffffffffff >/proc/sys/kernel/cap_userns_mask 2>/dev/null; ! grep -q "^0x000003ffffffffff" /proc/sys/kernel/cap_userns_mask'
out=$(capuns check cap_sys_rawio --depth=2 2>&1)
expect_eq "capuns check: masked cap missing below (exit 3)" "$?" 3
expect_match "capuns check: depth 1 has no cap_sys_rawio" "$out" '^depth 1: cap_sys_rawio effective=no bounding=no userns=no$'
expect_match "capuns check: depth 0 still has it" "$out" '^depth 0: cap_sys_rawio effective=yes bounding=yes userns=yes$'
out=$(capuns check cap_sys_admin --depth=2 2>&1)
expect_eq "capuns check: other caps still reach depth 2" "$?" 0
done_testing
