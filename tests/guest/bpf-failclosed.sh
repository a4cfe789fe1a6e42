#!/usr/bin/bash
# Fail closed with a shrunken credential map, the per-uid quota, the
# system mask, and the denial events of capuns-bpf monitor.
. /capuns/tests/tap.sh
. /capuns/bin/bpf-test-lib.sh
require_stock
fresh_unload
# The quota larger than the map: here the map itself fills.
capuns-bpf load --max-creds=32 --max-creds-per-uid=64 >/dev/null 2>&1 ||
	{ not_ok "load with --max-creds=32"; done_testing; }
expect_match "status shows the shrunken map" "$(capuns-bpf status)" "^credentials: [0-9]+ of 32 entries used"
expect_match "resizing a loaded map is refused" "$(capuns-bpf load --reload --max-creds=64 2>&1)" "unload first"

# System mask: CAP_SYS_ADMIN in the initial namespace (no CAP_SYS_CONTROL on stock).
expect_eq "alice cannot drop from the mask: EPERM" "$(as_user $UNS mask-drop cap_sys_rawio 2>/dev/null)" EPERM
expect_eq "root of a user namespace cannot either: EPERM" \
	"$(/usr/bin/unshare -U -r $UNS mask-drop cap_sys_rawio 2>/dev/null)" EPERM
check "root drops cap_sys_rawio from the mask" $UNS mask-drop cap_sys_rawio
masked=$(printf '0x%x' $(( (1 << ($(cat /proc/sys/kernel/cap_last_cap) + 1)) - 1 - (1 << 17) )))
expect_eq "the mask lacks cap_sys_rawio" "$($UNS mask-get)" "$masked"
expect_match "status shows the mask" "$(capuns-bpf status)" "^mask: $masked \(all,-cap_sys_rawio\)"
expect_eq "a new namespace gets pU & mask" "$(as_user /usr/bin/unshare -U -r $UNS get)" "$masked"
expect_eq "the mask only shrinks: pU outside keeps the bit" "$($UNS get)" "$(printf '0x%x' $(( (1 << ($(cat /proc/sys/kernel/cap_last_cap) + 1)) - 1 )))"

# With the mask in force every new namespace needs an entry: fill the map.
holders=()
for i in $(seq 48); do
	spawn_as_user /usr/bin/unshare -U -r /usr/bin/sleep 120 2>/dev/null
	holders+=($SPAWNED)
done
sleep 2
alive=0 unrestricted=0 norow=0
for h in "${holders[@]}"; do
	[ "$(cat /proc/$h/comm 2>/dev/null)" = sleep ] || continue
	alive=$((alive + 1))
	line=$(grep "^$h " $PIN/tasks)
	# A holder the iterator does not show has no recorded bound: that
	# is no evidence of a restriction, so it counts against the test.
	if [ -z "$line" ]; then
		norow=$((norow + 1)); diag "holder $h has no row in $PIN/tasks"; continue
	fi
	bound=0x$(echo "$line" | cut -d' ' -f3)
	has_cap "$bound" 17 && unrestricted=$((unrestricted + 1))
done
diag "$alive of 48 namespaces were created with the map full at 32"
if [ $alive -gt 0 ] && [ $alive -lt 48 ]; then ok "some namespaces were refused (map full)"; else
	not_ok "expected some but not all of 48 namespaces (got $alive)"; fi
expect_eq "no namespace was created unrestricted (each holder's row read)" \
	"$unrestricted unrestricted, $norow without a row" "0 unrestricted, 0 without a row"

start_monitor capuns-bpf monitor --json --count=1 --timeout=30
out=$(as_user /usr/bin/unshare -U -r /usr/bin/true 2>&1)
expect_match "map full: unshare(CLONE_NEWUSER) fails with ENOMEM" "$out" "unshare failed: Cannot allocate memory"
wait $mon
expect_match "monitor reports the refusal" "$(cat /tmp/mon.out)" \
	'"comm":"unshare",.*"reason":"userns-refused","errno":12\}$'
expect_match "status counts refusals" "$(capuns-bpf status)" "refusals: [1-9]"

kill "${holders[@]}" 2>/dev/null
wait "${holders[@]}" 2>/dev/null
sleep 1
check "entries are freed with their credentials: unshare works again" \
	as_user /usr/bin/unshare -U -r /usr/bin/true

# A capability denial event, live.
start_monitor capuns-bpf monitor --json --count=1 --timeout=30
as_user $UNS lower cap_net_admin -- /usr/bin/unshare -U -r -n /bin/ip link add d0 type dummy 2>/dev/null
wait $mon
expect_match "monitor --json reports the denial" "$(cat /tmp/mon.out)" \
	'"comm":"ip","cap":"cap_net_admin","cap_nr":12,"depth":1,"target_depth":1,"reason":"cap-denied","errno":1\}$'
start_monitor capuns-bpf monitor --count=1 --timeout=30
as_user $UNS lower cap_net_admin -- /usr/bin/unshare -U -r -n /bin/ip link add d0 type dummy 2>/dev/null
wait $mon
expect_match "monitor prints text lines" "$(cat /tmp/mon.out)" \
	"pid [0-9]+ \(ip\) uid 1000: cap-denied cap_net_admin depth 1 target 1: Operation not permitted"

# The per-uid quota: alice's namespaces stop at 8 entries with EDQUOT (a
# clear error where the kernel passes it on), bob's still work.
check "unload" capuns-bpf unload
capuns-bpf load --max-creds=64 --max-creds-per-uid=8 >/dev/null 2>&1
expect_match "status shows the quota" "$(capuns-bpf status)" "^credentials: [0-9]+ of 64 entries used, 8 per uid"
expect_match "changing the quota of a loaded backend is refused" \
	"$(capuns-bpf load --reload --max-creds-per-uid=9 2>&1)" "unload first"
$UNS mask-drop cap_sys_rawio
holders=()
for i in $(seq 12); do
	spawn_as_user /usr/bin/unshare -U -r /usr/bin/sleep 120 2>/dev/null
	holders+=($SPAWNED)
	# settled: holding its namespace, or refused and gone
	for _ in $(seq 100); do
		case $(cat /proc/$SPAWNED/comm 2>/dev/null) in
		setpriv | unshare) sleep 0.1 ;;
		*) break ;;
		esac
	done
done
expect_match "alice at her quota: unshare fails with EDQUOT" \
	"$(as_user /usr/bin/unshare -U -r /usr/bin/true 2>&1)" "unshare failed: Disk quota exceeded"
check "bob is not: his unshare works" /usr/bin/setpriv --reuid=1001 --regid=1001 --clear-groups \
	--reset-env -- /usr/bin/unshare -U -r /usr/bin/true
expect_match "status counts the quota refusals" "$(capuns-bpf status)" "at a uid's quota: [1-9]"
kill "${holders[@]}" 2>/dev/null
wait "${holders[@]}" 2>/dev/null

check "unload" capuns-bpf unload
capuns-bpf load >/dev/null 2>&1
expect_match "a fresh load starts with the full mask" "$(capuns-bpf status)" "^mask: 0x1ffffffffff \(all\)"
capuns-bpf unload >/dev/null 2>&1
done_testing
