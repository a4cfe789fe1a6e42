#!/usr/bin/bash
# The rules of pU through libcapuns, one suite for both backends: on the
# stock kernel through the BPF backend, on the patched kernel through the
# series (add this test to patched.list to compare).  The answers are the
# same; the one visible difference is listed where it is tested:
#   - /proc/PID/status CapEff in a restricted namespace shows the kernel's
#     full set on stock (the backend cuts it down in lsm/capable); the
#     effective view of libcapuns ("eff") is the same on both.
. /capuns/tests/tap.sh
. /capuns/bin/bpf-test-lib.sh

case $CAPUNS_TARGET in
stock)
	require_stock
	fresh_unload
	capuns-bpf load >/dev/null 2>&1 || { not_ok "load the backend"; done_testing; }
	backend=bpf ;;
patched) backend=kernel ;;
*) not_ok "needs the stock or patched kernel (got '$CAPUNS_TARGET')"; done_testing ;;
esac
expect_eq "libcapuns uses the $backend backend" "$($UNS backend)" "$backend"

last=$(cat /proc/sys/kernel/cap_last_cap)
full=$(printf '0x%x' $(((1 << (last + 1)) - 1)))
no() { printf '0x%x' $(( $1 & ~(1 << $2) )); }

# Rule 1: everyone starts with every capability; children and execve keep pU.
expect_eq "init's descendants start with a full pU" "$($UNS get)" "$full"
expect_eq "alice starts with a full pU" "$(as_user $UNS get)" "$full"
expect_eq "execve keeps pU" "$($UNS lower cap_net_admin -- $UNS get)" "$(no $full 12)"
expect_eq "pU of another task, by pid" \
	"$($UNS lower cap_net_admin -- /usr/bin/bash -c "$UNS get \$\$")" "$(no $full 12)"

# Rule 2: IS_SET, LOWER, RAISE, CLEAR_ALL.
expect_eq "is-set answers 1" "$($UNS is-set cap_net_admin)" 1
expect_eq "lower, then is-set answers 0" "$($UNS lower cap_net_admin is-set cap_net_admin)" 0
expect_eq "alice may always lower" "$(as_user $UNS lower cap_sys_admin is-set cap_sys_admin)" 0
expect_eq "root (CAP_SETPCAP) raises back" \
	"$($UNS lower cap_net_admin raise cap_net_admin is-set cap_net_admin)" 1
expect_eq "alice (no pP, no CAP_SETPCAP) cannot raise back: EPERM" \
	"$(as_user $UNS lower cap_net_admin raise cap_net_admin 2>/dev/null)" EPERM
expect_eq "raising a capability already in pU succeeds" "$(as_user $UNS raise cap_net_admin; echo rc=$?)" "rc=0"
expect_eq "clear empties pU" "$($UNS clear get)" 0x0
expect_eq "cap not in X: even CAP_SETPCAP cannot raise it: EPERM" \
	"$(/usr/sbin/capsh --drop=cap_net_admin --shell=$UNS -- lower cap_net_admin raise cap_net_admin 2>/dev/null)" EPERM

# Rule 3: entry into a new namespace: X = pP = pE = pU.
inside=$($UNS lower cap_sys_admin -- $UNS unshare user -- $UNS get eff)
expect_eq "new namespace: pU stays without cap_sys_admin" "$(echo "$inside" | sed -n 1p)" "$(no $full 21)"
expect_eq "new namespace: effective set without cap_sys_admin" "$(echo "$inside" | sed -n 2p)" "$(no $full 21)"
capeff=$($UNS lower cap_sys_admin -- $UNS unshare user -- /usr/bin/cat /proc/self/status | awk '/^CapEff/ {print $2}')
case $CAPUNS_TARGET in
stock) expect_eq "difference: stock /proc CapEff shows the kernel's full set" "$(printf '0x%x' $((16#$capeff)))" "$full" ;;
patched) expect_eq "patched /proc CapEff lacks cap_sys_admin" "$(printf '0x%x' $((16#$capeff)))" "$(no $full 21)" ;;
esac
expect_eq "in the namespace, root cannot raise what X lacks: EPERM" \
	"$($UNS lower cap_sys_admin -- $UNS unshare user -- $UNS raise cap_sys_admin 2>/dev/null)" EPERM
expect_eq "alice's nested namespaces (depth 3) keep the restriction" \
	"$(as_user $UNS lower cap_sys_admin -- $UNS unshare user -- $UNS unshare user -- $UNS unshare user -- $UNS get eff | tr '\n' ' ')" \
	"$(no $full 21) $(no $full 21) "
expect_eq "a capability lowered inside stays out below" \
	"$(as_user /usr/bin/unshare -U -r $UNS lower cap_net_raw -- /usr/bin/unshare -U -r $UNS get)" "$(no $full 13)"

# Rule 3a / 5: strict bit, pU trimmed to X at entry.
expect_eq "strict bits start clear" "$($UNS strict-get)" 0x0
expect_eq "strict-set sets the strict flag" "$($UNS strict-set strict-get)" 0x1
expect_eq "strict-lock sets it and its lock" "$($UNS strict-lock strict-get)" 0x3
expect_eq "alice cannot set the strict bit: EPERM" "$(as_user $UNS strict-set 2>/dev/null)" EPERM
expect_eq "strict: a capability dropped from X is not in the new namespace" \
	"$($UNS strict-set -- /usr/sbin/capsh --drop=cap_net_raw --shell=/usr/bin/unshare -- -U -r $UNS get)" "$(no $full 13)"
expect_eq "without strict: pU keeps what X dropped" \
	"$(/usr/sbin/capsh --drop=cap_net_raw --shell=/usr/bin/unshare -- -U -r $UNS get)" "$full"
expect_eq "securebits reset at entry: strict is clear inside" \
	"$($UNS strict-set -- /usr/bin/unshare -U -r $UNS strict-get)" 0x0

# Rule 11 (R11): the owner of a namespace, acting from its parent, holds a
# capability over it only if its own new namespaces would hold the cap.  alice at
# depth 1 without cap_sys_admin in pU cannot join the depth-2 namespace she
# created (setns needs CAP_SYS_ADMIN there); with it she can.
owner_joins() { # [lower CAP]: can alice at depth 1 join her depth-2 namespace?
	as_user $UNS "$@" -- $UNS unshare user -- /usr/bin/bash -c '
		/capuns/bin/bpf-uns unshare user -- /usr/bin/sleep 30 & h=$!
		for i in $(seq 50); do [ "$(cat /proc/$h/comm)" = sleep ] && break; sleep 0.1; done
		/usr/bin/nsenter --preserve-credentials -t $h -U /usr/bin/true 2>&1; rc=$?
		kill $h; echo rc=$rc' 2>&1
}
expect_match "owner rule: an owner without cap_sys_admin in pU cannot join its child" \
	"$(owner_joins lower cap_sys_admin)" "Operation not permitted"
expect_eq "owner rule: with cap_sys_admin in pU it can" "$(owner_joins lower cap_net_admin)" "rc=0"
# The one mapping that needs no privilege anyway (the writer's own id, one
# extent) is written without CAP_SYS_ADMIN over the namespace, from inside
# (unshare -r: setgroups, uid_map, gid_map of itself) and from the owner in
# the parent (bpf-uns unshare: a helper child writes them, as newuidmap).
expect_eq "unshare -r works without cap_sys_admin in pU" \
	"$(as_user $UNS lower cap_sys_admin -- /usr/bin/unshare -r /usr/bin/id -u 2>&1)" 0
expect_eq "the owner maps its child from the parent without cap_sys_admin in pU" \
	"$(as_user $UNS lower cap_sys_admin -- $UNS unshare user -- /usr/bin/id -u 2>&1)" 0
expect_match "mount inside still fails" \
	"$(as_user $UNS lower cap_sys_admin -- /usr/bin/unshare -r $UNS mount-tmpfs /tmp 2>&1)" \
	"mount-tmpfs: Operation not permitted"
check_fails "a mount namespace with the user namespace still fails (unshare -rm)" \
	as_user $UNS lower cap_sys_admin -- /usr/bin/unshare -rm /usr/bin/true
bwrap_id() { # [bpf-uns OP...]: alice's bwrap --unshare-user --uid 0 runs id -u
	in_bindroot /usr/bin/setpriv --reuid=$UNPRIV_UID --regid=$UNPRIV_GID --init-groups --reset-env -- \
		$UNS "$@" -- /usr/bin/bwrap --unshare-user --uid 0 --bind / / /usr/bin/id -u 2>&1
}
expect_eq "unprivileged bwrap --unshare-user --uid 0 works" "$(bwrap_id)" 0
expect_eq "... with cap_net_admin lowered from pU" "$(bwrap_id lower cap_net_admin)" 0
expect_match "... but not without cap_sys_admin (its mount namespace)" "$(bwrap_id lower cap_sys_admin)" \
	"No permissions to create new namespace"
# Any other map still needs CAP_SYS_ADMIN over the namespace: root without
# it in pE (bounding set) and pU maps its child's root to uid 1 (EPERM),
# then to itself (the self-mapping: allowed).
out=$(/usr/bin/setpriv --bounding-set=-sys_admin -- $UNS lower cap_sys_admin -- /usr/bin/bash -c '
	/usr/bin/unshare -U /usr/bin/sleep 30 & h=$!
	for i in $(seq 50); do [ "$(cat /proc/$h/comm)" = sleep ] && break; sleep 0.1; done
	echo "0 1 1" >/proc/$h/uid_map 2>/dev/null; a=$?
	echo "0 0 1" >/proc/$h/uid_map 2>/dev/null; b=$?
	kill $h; echo $a $b' 2>&1)
expect_eq "without cap_sys_admin: another map refused, the self-mapping written" "$out" "1 0"

# Rule 10: execve of a setuid-root program that gains privilege:
# p'U = pU | X.
cp $UNS /tmp/suid-uns && chown root:root /tmp/suid-uns && chmod 4755 /tmp/suid-uns
expect_eq "setuid-root execve gives alice's pU back X" \
	"$(as_user $UNS lower cap_net_admin -- /tmp/suid-uns get)" "$full"
expect_eq "a plain execve does not" "$(as_user $UNS lower cap_net_admin -- $UNS get)" "$(no $full 12)"
# It only adds: with cap_sys_rawio out of X, a pU alice never lowered
# stays full, and one she lowered gets back only what X holds.
as_user_nobset() {
	/usr/bin/setpriv --bounding-set=-sys_rawio --reuid=$UNPRIV_UID --regid=$UNPRIV_GID \
		--init-groups --reset-env -- "$@"
}
expect_eq "X without cap_sys_rawio: a full pU stays full" \
	"$(as_user_nobset /tmp/suid-uns get)" "$full"
expect_eq "X without cap_sys_rawio: a lowered pU gets back X only" \
	"$(as_user_nobset $UNS lower cap_net_admin lower cap_sys_rawio -- /tmp/suid-uns get)" \
	"$(no $full 17)"
rm -f /tmp/suid-uns

[ "$CAPUNS_TARGET" = stock ] && capuns-bpf unload >/dev/null 2>&1
done_testing
