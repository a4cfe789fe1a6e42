#!/bin/sh
# Harness proof: an unprivileged user creates a user namespace with the real
# util-linux unshare and gets the full capability sets there, as on any
# kernel; outside it has none. Holds on every target (pU is full by default).
. /capuns/tests/tap.sh

last=$(cat /proc/sys/kernel/cap_last_cap)
full=$(printf '%016x' $(((1 << (last + 1)) - 1)))
diag "cap_last_cap=$last full set=$full target=$CAPUNS_TARGET"

outside=$(as_user /bin/cat /proc/self/status)
expect_match "alice has an empty effective set" "$outside" "^CapEff:[[:space:]]+0{16}$"
expect_match "alice has an empty permitted set" "$outside" "^CapPrm:[[:space:]]+0{16}$"
expect_match "alice runs as uid 1000" "$outside" "^Uid:[[:space:]]+1000[[:space:]]"

inside=$(as_user /usr/bin/unshare -r /bin/cat /proc/self/status)
expect_match "unshare -r maps alice to root" "$inside" "^Uid:[[:space:]]+0[[:space:]]"
for set in CapEff CapPrm CapBnd; do
	expect_match "$set is full in alice's new namespace" "$inside" "^$set:[[:space:]]+$full$"
done
expect_match "CapInh stays empty in the new namespace" "$inside" "^CapInh:[[:space:]]+0{16}$"

nested=$(as_user /usr/bin/unshare -r /usr/bin/unshare -r /bin/cat /proc/self/status)
expect_match "a nested namespace has the full set too" "$nested" "^CapEff:[[:space:]]+$full$"
done_testing
