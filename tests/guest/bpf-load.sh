#!/usr/bin/bash
# BPF backend lifecycle on the stock kernel: load, status, idempotent second
# load, reload keeping the state, enforcement after the loader exited,
# unload back to stock behaviour.
. /capuns/tests/tap.sh
. /capuns/bin/bpf-test-lib.sh
require_stock
fresh_unload

check_fails "status says not loaded before any load" capuns-bpf status
expect_eq "libcapuns finds no backend before the load" "$($UNS backend)" "none"

# Control: stock behaviour, nothing restricts a new namespace.
check "stock: ip link add works in alice's new netns" \
	as_user /usr/bin/unshare -U -r -n /bin/ip link add d0 type dummy

out=$(capuns-bpf load 2>&1); rc=$?
expect_eq "load succeeds" "$rc" 0
[ $rc = 0 ] || diag "$out"
status=$(capuns-bpf status); rc=$?
expect_eq "status exits 0 when loaded" "$rc" 0
expect_match "status shows the ABI" "$status" "^capuns BPF backend: loaded, ABI 2"
expect_match "status shows every hook attached" "$status" "^hooks: 17 of 17 attached"
for h in lsm/capable lsm/userns_create fexit/userns_install lsm/cred_prepare lsm/cred_free lsm/task_prctl; do
	expect_match "status lists $h" "$status" "^  $h +prog [0-9]+"
done
expect_match "status shows the full mask" "$status" "^mask: 0x1ffffffffff \(all\)"
expect_match "status shows the map use and the quota" "$status" \
	"^credentials: [0-9]+ of 65536 entries used, 16384 per uid"
expect_match "status shows the event counters" "$status" "^events: lost [0-9]+ \(ring buffer full\), rate-limited [0-9]+"
expect_match "status shows the setns program's recursion misses" "$status" \
	"^fexit/userns_install: [0-9]+ recursion misses, [0-9]+ entries applied late"
json=$(capuns-bpf status --json)
expect_match "status --json" "$json" '^\{"loaded":true,"abi":2,.*"creds_max":65536'
expect_eq "libcapuns picks the bpf backend" "$($UNS backend)" "bpf"

# The loader has exited: enforcement must hold by the pins alone.
out=$(as_user $UNS lower cap_net_admin -- /usr/bin/unshare -U -r -n /bin/ip link add d0 type dummy 2>&1)
expect_match "loader gone: ip link add denied after lowering cap_net_admin" "$out" "Operation not permitted"

ids1=$(capuns-bpf status --json | grep -o '"prog_id":[0-9]*' | tr '\n' ' ')
out=$(capuns-bpf load 2>&1); rc=$?
expect_eq "second load exits 0" "$rc" 0
expect_match "second load is a no-op" "$out" "already loaded"
ids2=$(capuns-bpf status --json | grep -o '"prog_id":[0-9]*' | tr '\n' ' ')
expect_eq "second load keeps the same programs" "$ids2" "$ids1"

# A restricted task lives across a reload: its state is in the pinned map.
spawn_as_user $UNS lower cap_sys_admin -- /usr/bin/sleep 60
holder=$SPAWNED
wait_comm $holder sleep
before=$($UNS get $holder)
expect_match "the holder's pU is readable by pid" "$before" "^0x[0-9a-f]+$"
# Hammer a denied operation during the reload: it must never succeed.
as_user $UNS lower cap_net_admin -- /usr/bin/bash -c '
	n=0; while [ ! -e /tmp/reload.done ]; do
		/usr/bin/unshare -U -r -n /bin/ip link add d0 type dummy 2>/dev/null && n=$((n + 1))
	done; echo $n >/tmp/reload.leaks' &
hammer=$!
sleep 1
out=$(capuns-bpf load --reload 2>&1); rc=$?
sleep 1
touch /tmp/reload.done
wait $hammer
expect_eq "reload succeeds" "$rc" 0
ids3=$(capuns-bpf status --json | grep -o '"prog_id":[0-9]*' | tr '\n' ' ')
if [ "$ids3" != "$ids1" ]; then ok "reload replaced the programs"; else not_ok "reload kept the old program ids"; fi
expect_eq "no denied operation slipped through during the reload" "$(cat /tmp/reload.leaks)" 0
expect_eq "a task's pU survives the reload" "$($UNS get $holder)" "$before"
case $before in
0x*) has_cap "$before" $CAP_SYS_ADMIN && not_ok "holder pU still has cap_sys_admin" ||
	ok "holder pU lacks cap_sys_admin" ;;
*) not_ok "holder pU unreadable: '$before'" ;;
esac
kill $holder 2>/dev/null; wait $holder 2>/dev/null

# Links stay attached when the process that loaded them is killed.
capuns-bpf monitor >/dev/null 2>&1 &
mon=$!
sleep 1
kill -9 $mon; wait $mon 2>/dev/null
out=$(as_user $UNS lower cap_net_admin -- /usr/bin/unshare -U -r -n /bin/ip link add d0 type dummy 2>&1)
expect_match "after a killed reader: still denied" "$out" "Operation not permitted"

check "unload succeeds" capuns-bpf unload
check_fails "status says not loaded after unload" capuns-bpf status
if [ -e $PIN ]; then not_ok "pin directory left behind: $(ls -R $PIN)"; else ok "pin directory removed"; fi
check "unload restores stock behaviour: ip link add works again" \
	as_user /usr/bin/unshare -U -r -n /bin/ip link add d0 type dummy
expect_eq "libcapuns finds no backend after the unload" "$($UNS backend)" "none"
check_fails "a second unload fails (not loaded)" capuns-bpf unload
done_testing
