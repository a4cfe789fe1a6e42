#!/bin/sh
# kernel.cap_userns_mask (rule 6) and the series' sysctl example. It
# narrows the mask for the rest of the boot: keep it last in the suite.
# test_userns_caps has taken CAP_SYS_RAWIO, the example's capability,
# out of the mask already, so this test lowers CAP_SYS_PACCT the
# example's way: lowering a bit already clear would prove nothing.
. /capuns/tests/tap.sh
M=/proc/sys/kernel/cap_userns_mask
CAP_SYS_PACCT=20
field() { printf '%s\n' "$2" | awk -v f="$1:" '$1 == f { print $2 }'; }

expect_match "the mask reads as 0x and 16 hex digits" "$(cat $M)" '^0x[0-9a-f]{16}$'
before=$(cat $M)
if [ $(( (before >> CAP_SYS_PACCT) & 1 )) != 1 ]; then
	not_ok "CANNOT RUN: the mask lacks CAP_SYS_PACCT already ($before)"
	done_testing
fi
after=$(printf '0x%016x' $(( before & ~(1 << CAP_SYS_PACCT) )))
out=$(as_user sh -c "echo 0 > $M" 2>&1)
expect_match "alice cannot write the mask (EACCES)" "$out" 'Permission denied'
out=$(/usr/bin/unshare -r sh -c "echo 0 > $M" 2>&1)
expect_match "root inside a user namespace gets EPERM" "$out" 'Operation not permitted'
# Root's exec takes pP from the bounding set: dropping 41 there drops it
# from the shell's pE.
out=$(/usr/sbin/capsh --drop=41 -- -c "grep CapEff /proc/self/status; echo 0 > $M" 2>&1)
expect_eq "capsh --drop=41: the shell lacks CAP_SYS_CONTROL" \
	"$(field CapEff "$out")" "$(printf '%016x' $(( (1 << 41) - 1 )))"
expect_match "root without CAP_SYS_CONTROL in pE gets EPERM" "$out" 'Operation not permitted'
expect_eq "refused writes change nothing" "$(cat $M)" "$before"
out=$(sh -c "echo 0x1fffffdffff 5 > $M" 2>&1)
expect_match "two numbers are refused (EINVAL)" "$out" 'Invalid argument'
expect_eq "...and change nothing" "$(cat $M)" "$before"

# A namespace created before the change keeps what it has.
/usr/bin/unshare -r /bin/sleep 600 &
old_ns=$!
sleep 0.5

# The series' example (bash, for the && and sysctl as on a host), on
# CAP_SYS_PACCT.
out=$(/usr/bin/bash -c "sysctl -qw kernel.cap_userns_mask=$after && unshare -r grep Cap /proc/self/status" 2>&1)
expect_eq "sysctl example: CapInh" "$(field CapInh "$out")" 0000000000000000
for f in CapPrm CapEff CapBnd CapUNs; do
	expect_eq "sysctl example: $f lacks CAP_SYS_PACCT" "$(field $f "$out")" "${after#0x}"
done
expect_eq "sysctl example: CapAmb" "$(field CapAmb "$out")" 0000000000000000
expect_eq "the mask reads back ($before -> $after)" "$(cat $M)" "$after"
expect_eq "alice's new namespaces lack CAP_SYS_PACCT too" \
	"$(as_user /usr/bin/unshare -r grep CapEff /proc/self/status)" "CapEff:	${after#0x}"
expect_eq "the caller's own pU is unchanged" "$(proc_cap CapUNs)" 000003ffffffffff
expect_eq "a namespace created before keeps CAP_SYS_PACCT" "$(proc_cap CapEff $old_ns)" "${before#0x}"
expect_eq "joining it (setns) applies the mask" \
	"$(/usr/bin/nsenter -t $old_ns -U --preserve-credentials grep CapEff /proc/self/status)" "CapEff:	${after#0x}"
kill $old_ns; wait $old_ns 2>/dev/null
check "audit on (as auditctl -e 1 would)" /capuns/kernel/audit-set 1
check "a decimal write is accepted" sh -c "echo 4398046511103 > $M"
expect_eq "intersect only: a full write adds nothing back" "$(cat $M)" "$after"
# Each accepted write is a policy change, and the kernel says so.
expect_match "the write is audited (op=cap_userns_mask, old and new)" \
	"$(dmesg | grep 'op=cap_userns_mask' | tail -n 1)" "old=$after new=$after.* res=1"
check "audit off again" /capuns/kernel/audit-set 0
out=$(/usr/bin/unshare -r -n /usr/sbin/ip link add d0 type dummy 2>&1)
expect_eq "CAP_NET_ADMIN is untouched by the mask (ip link add works)" "$out" ""
done_testing
