#!/bin/sh
# kernel.usermodehelper.userns (rule 7): usermode helpers get
# pU &= that set. The helper here is the modprobe helper, started by the
# kernel when `ip link add` asks for an unknown link type.
. /capuns/tests/tap.sh
S=/proc/sys/kernel/usermodehelper
H=/tmp/kernel-umh-helper
OUT=/tmp/kernel-umh.out

expect_match "usermodehelper/userns reads as two decimal words, low first" "$(cat $S/userns)" '^[0-9]+	[0-9]+$'
expect_eq "usermodehelper/userns starts full" "$(cat $S/userns)" "$(printf '4294967295\t1023')"
check_fails "alice cannot open usermodehelper/userns for writing" as_user sh -c "echo 0 0 > $S/userns"

printf '#!/bin/sh\ngrep Cap /proc/self/status >%s.tmp && mv %s.tmp %s\n' $OUT $OUT $OUT >$H
chmod 0755 $H
old_modprobe=$(cat /proc/sys/kernel/modprobe)
echo $H >/proc/sys/kernel/modprobe
run_helper() { # start the helper once and print its capability lines
	rm -f $OUT
	/usr/sbin/ip link add capuns0 type capunsnolink >/dev/null 2>&1
	i=0
	while [ ! -s $OUT ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	cat $OUT 2>/dev/null
}
field() { printf '%s\n' "$2" | awk -v f="$1:" '$1 == f { print $2 }'; }

out=$(run_helper)
expect_eq "a helper starts with a full pU" "$(field CapUNs "$out")" 000003ffffffffff
# Narrow: drop CAP_NET_ADMIN (bit 12) from the helpers' pU.
check "root narrows usermodehelper/userns" sh -c "printf '4294963199\t1023\n' > $S/userns"
expect_eq "usermodehelper/userns reads back narrowed" "$(cat $S/userns)" "$(printf '4294963199\t1023')"
out=$(run_helper)
expect_eq "the helper's pU lacks CAP_NET_ADMIN" "$(field CapUNs "$out")" 000003ffffffefff
expect_eq "the helper's bounding set is untouched" "$(field CapBnd "$out")" 000003ffffffffff
# Intersect only: writing the full set back adds nothing.
check "writing the full set is accepted" sh -c "printf '4294967295\t1023\n' > $S/userns"
expect_eq "...but does not raise anything" "$(cat $S/userns)" "$(printf '4294963199\t1023')"
expect_eq "the bset sysctl still works after the handler rework" "$(cat $S/bset)" "$(printf '4294967295\t1023')"
echo "$old_modprobe" >/proc/sys/kernel/modprobe
done_testing
