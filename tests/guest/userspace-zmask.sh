#!/bin/sh
# capuns mask --drop on the patched kernel: the system mask shrinks for
# good (until reboot), so this test lowers only cap_sys_boot, a bit no
# test before it in patched.list takes (test_userns_caps and
# kernel-mask.sh have lowered others): a bit already clear would let
# "root lowers it" pass with nothing lowered.
. /capuns/tests/tap.sh
cd /tmp || exit 1
CAP_SYS_BOOT=22
bit_set() { [ $(( (0x$1 >> $2) & 1 )) = 1 ]; }

if [ "$CAPUNS_TARGET" != patched ]; then
	not_ok "userspace-zmask runs on the patched kernel only (target $CAPUNS_TARGET)"
	done_testing
fi
before=$(cat /proc/sys/kernel/cap_userns_mask)
if ! bit_set "${before#0x}" $CAP_SYS_BOOT; then
	not_ok "CANNOT RUN: the mask lacks cap_sys_boot already ($before)"
	done_testing
fi
out=$(capuns mask 2>&1)
expect_match "capuns mask shows the sysctl's value" "$out" "^kernel.cap_userns_mask: $before "
out=$(as_user capuns mask --drop=cap_sys_boot 2>&1)
check_fails "alice cannot lower the mask" [ "$?" = 0 ]
expect_eq "alice left it as it was" "$(cat /proc/sys/kernel/cap_userns_mask)" "$before"
out=$(capuns mask --drop=cap_sys_boot 2>&1)
expect_eq "root lowers it" "$?" 0
after=$(cat /proc/sys/kernel/cap_userns_mask)
if ! bit_set "${after#0x}" $CAP_SYS_BOOT && [ $(( before & ~(1 << CAP_SYS_BOOT) )) = $(( after )) ]; then
	ok "the mask lost cap_sys_boot only ($before -> $after)"
else
	not_ok "the mask lost cap_sys_boot only ($before -> $after)"
fi
expect_match "capuns mask prints the new mask" "$out" "^kernel.cap_userns_mask: $after all,.*-cap_sys_boot"'($|,)'
expect_eq "pU of this process is untouched" "$(proc_cap CapUNs)" 000003ffffffffff
echo 0xffffffffffffffff >/proc/sys/kernel/cap_userns_mask 2>/dev/null
expect_eq "raising a cap back into the mask is refused or ignored" \
	"$(cat /proc/sys/kernel/cap_userns_mask)" "$after"
out=$(capuns check cap_sys_boot --depth=2 2>&1)
expect_eq "capuns check: masked cap missing below (exit 3)" "$?" 3
expect_match "capuns check: depth 1 has no cap_sys_boot" "$out" '^depth 1: cap_sys_boot effective=no bounding=no userns=no$'
expect_match "capuns check: depth 0 still has it" "$out" '^depth 0: cap_sys_boot effective=yes bounding=yes userns=yes$'
out=$(capuns check cap_sys_admin --depth=2 2>&1)
expect_eq "capuns check: other caps still reach depth 2" "$?" 0
done_testing
