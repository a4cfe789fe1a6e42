#!/bin/sh
# The `make demo` walk-through, run in the guest as alice, an unprivileged
# user. Readable output for people, plus TAP lines so it checks itself.
. /capuns/tests/tap.sh

say() { printf '\n### %s\n' "$*"; }
alice() { as_user "$@"; }
# show CMD...: print alice's prompt and command, then its output, indented.
show() { printf 'alice$ %s\n' "$*"; alice "$@" 2>&1 | sed 's/^/    /'; }

say "Kernel $(uname -r) ($CAPUNS_TARGET build)."
if ! grep -q '^CapUNs:' /proc/self/status; then
	say "This kernel has no user-namespace capability set: the capuns series"
	say "is not applied, so here is the behaviour capuns changes."
	show /usr/bin/unshare -rn /bin/sh -c 'grep Cap /proc/self/status; ip link add d0 type dummy && echo "created dummy link d0: CAP_NET_ADMIN works in the namespace"'
	out=$(alice /usr/bin/unshare -rn /usr/sbin/ip link add d0 type dummy 2>&1)
	check "unpatched: root in a new namespace holds CAP_NET_ADMIN" [ -z "$out" ]
	done_testing
fi

say "1. alice's capability sets, as capuns prints them (userns set = pU)"
show capuns --print

say "2. Drop CAP_NET_ADMIN from pU, then create a user namespace with unshare -r"
show capuns --drop=cap_net_admin -- /usr/bin/unshare -r /bin/grep Cap /proc/self/status

say "3. Root in that namespace cannot create a network device"
show capuns --drop=cap_net_admin -- /usr/bin/unshare -rn /usr/sbin/ip link add d0 type dummy
out=$(alice capuns --drop=cap_net_admin -- /usr/bin/unshare -rn /usr/sbin/ip link add d0 type dummy 2>&1)
expect_match "ip link add is refused after the drop" "$out" "Operation not permitted"

say "   ... while without capuns it can"
show /usr/bin/unshare -rn /usr/sbin/ip link add d0 type dummy
out=$(alice /usr/bin/unshare -rn /usr/sbin/ip link add d0 type dummy 2>&1)
expect_eq "without the drop, ip link add works" "$out" ""

say "4. Nest another namespace inside: the capability stays gone"
show capuns --drop=cap_net_admin -- /usr/bin/unshare -r /usr/bin/unshare -rn /bin/sh -c 'grep -E "CapEff|CapUNs" /proc/self/status; ip link add d0 type dummy'
out=$(alice capuns --drop=cap_net_admin -- /usr/bin/unshare -r /usr/bin/unshare -rn /usr/sbin/ip link add d0 type dummy 2>&1)
expect_match "ip link add is refused two namespaces down" "$out" "Operation not permitted"

say "5. Not even root in the namespace can put it back into pU"
show capuns --drop=cap_net_admin -- /usr/bin/unshare -r capuns --raise=cap_net_admin
if alice capuns --drop=cap_net_admin -- /usr/bin/unshare -r capuns --raise=cap_net_admin >/dev/null 2>&1; then
	not_ok "raising a dropped capability inside the namespace is refused"
else
	ok "raising a dropped capability inside the namespace is refused"
fi
done_testing
