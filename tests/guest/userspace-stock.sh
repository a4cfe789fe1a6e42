#!/bin/sh
# The capuns CLI on Debian's stock kernel with the BPF backend: the same
# commands as on the patched kernel, the loader and the event monitor
# reached through `capuns bpf` and `capuns monitor`.
. /capuns/tests/tap.sh

check "capuns bpf load attaches the backend" capuns bpf load
check "capuns bpf status answers" capuns bpf status
check "a second capuns bpf load is idempotent" capuns bpf load
expect_match "capuns --print reports the bpf backend" "$(as_user capuns --print)" \
	'^backend: +bpf$'

out=$(as_user capuns --drop=cap_net_admin -- /usr/bin/unshare -rn /usr/sbin/ip link add d0 type dummy 2>&1)
expect_match "alice: ip link add is refused after capuns --drop=cap_net_admin" "$out" \
	"Operation not permitted"
out=$(as_user /usr/bin/unshare -rn /usr/sbin/ip link add d0 type dummy 2>&1)
expect_eq "alice: without capuns, ip link add works" "$out" ""
out=$(as_user capuns --drop=cap_net_admin -- /usr/bin/unshare -r /usr/bin/unshare -rn \
	/usr/sbin/ip link add d0 type dummy 2>&1)
expect_match "alice: still refused two namespaces down" "$out" "Operation not permitted"
check_fails "alice: root in the namespace cannot raise it again" \
	as_user capuns --drop=cap_net_admin -- /usr/bin/unshare -r capuns --raise=cap_net_admin

# Capability lists on a stock kernel: 41 does not exist; the mask hint
# names what the BPF backend checks.
out=$(capuns --drop=41 -- /bin/true 2>&1)
expect_eq "--drop=41 on a stock kernel is a usage error (exit 2)" "$?" 2
expect_match "--drop=41 says capability 41 does not exist" "$out" \
	"capability 41 \(cap_sys_control\) does not exist on this kernel \(its last is 40\)"
out=$(as_user capuns mask --drop=cap_sys_rawio 2>&1)
expect_eq "alice: mask --drop is refused (exit 1)" "$?" 1
expect_match "alice: the hint names CAP_SYS_ADMIN, what the BPF backend checks" "$out" \
	"with CAP_SYS_ADMIN in the initial user namespace"

start_monitor capuns monitor --json --count=1 --timeout=30
as_user capuns --drop=cap_net_admin -- /usr/bin/unshare -rn /usr/sbin/ip link add d0 type dummy 2>/dev/null
wait $mon
expect_match "capuns monitor --json reports the denial" "$(cat /tmp/mon.out)" \
	'"comm":"ip","cap":"cap_net_admin","cap_nr":12'

# check-conf: the BPF backend enforces now, and again after a boot only
# through the enabled unit.
printf '!cap_net_admin @nogroup\n' >/tmp/rules.conf
wants=/etc/systemd/system/sysinit.target.wants
rm -f $wants/capuns-bpf.service
out=$(capuns check-conf /tmp/rules.conf 2>&1)
expect_eq "check-conf: loaded but the unit not enabled: exit 4" "$?" 4
expect_match "check-conf: says to enable the unit" "$out" "capuns-bpf.service is not enabled"
mkdir -p $wants && ln -s /lib/systemd/system/capuns-bpf.service $wants/capuns-bpf.service
out=$(capuns check-conf /tmp/rules.conf 2>&1)
expect_eq "check-conf: loaded and the unit enabled: exit 0" "$?" 0
rm -f $wants/capuns-bpf.service
expect_match "--list-caps ends with capability 40 on a stock kernel" \
	"$(capuns --list-caps | tail -n 1)" '^40 cap_checkpoint_restore$'

check "capuns bpf unload detaches it" capuns bpf unload
out=$(capuns check-conf /tmp/rules.conf 2>&1)
expect_eq "check-conf: no backend loaded: exit 4" "$?" 4
expect_match "without a backend, capuns --print says none" "$(as_user capuns --print)" \
	'^backend: +none( |$)'
check_fails "without a backend, a drop fails closed (nothing is run)" \
	as_user capuns --drop=cap_net_admin -- /bin/true
done_testing
