#!/usr/bin/bash
# Real operations denied by the BPF backend exactly where the series denies
# them: ip link add in a nested netns (cap_net_admin), sethostname in a
# nested utsns and mount -t tmpfs in a nested mntns (cap_sys_admin: the
# namespace is already refused), at depths 1..8, with the namespace entered
# by unshare(2), clone(2) and setns(2).  Each restricted run has an unrestricted control at depths 1
# and 8, so a denial is the backend's and not the environment's.
. /capuns/tests/tap.sh
. /capuns/bin/bpf-test-lib.sh
require_stock
fresh_unload
capuns-bpf load >/dev/null 2>&1 || { not_ok "load the backend"; done_testing; }

# op KIND: the command that exercises KIND in the current namespaces.
op_cmd() {
	case $1 in
	net) echo "/bin/ip link add d0 type dummy" ;;
	uts) echo "$UNS sethostname capuns" ;;
	mnt) echo "$UNS mount-tmpfs /tmp" ;;
	esac
}
op_cap() { case $1 in net) echo cap_net_admin ;; *) echo cap_sys_admin ;; esac; }
op_flag() { case $1 in net) echo n ;; uts) echo u ;; mnt) echo m ;; esac; }
# Operations fail with EPERM for many reasons: the restricted runs must
# fail where the series refuses, nowhere before it.  Without cap_sys_admin
# in pU that is the uts or mount namespace itself: creating it (unshare or
# clone with CLONE_NEWUSER) needs CAP_SYS_ADMIN over the new user namespace,
# which its owner holds only from its pU (rule 11), and so does
# joining a user namespace with setns.
op_denied() {
	case $via-$1 in
	*-net) echo "RTNETLINK answers: Operation not permitted" ;;
	unshare-*) echo "bpf-uns: unshare: Operation not permitted" ;;
	clone-*) echo "bpf-uns: clone: Operation not permitted" ;;
	setns-*) echo "nsenter: reassociate to namespace 'ns/user' failed: Operation not permitted" ;;
	esac
}

# run VIA KIND DEPTH RESTRICT: KIND's operation in a namespace DEPTH deep,
# reached by VIA, as alice, with KIND's capability lowered from pU first
# when RESTRICT is 1.  Prints the output; returns the operation's status.
run() {
	local via=$1 kind=$2 depth=$3 restrict=$4 pre=() holder rc
	[ "$restrict" = 1 ] && pre=($UNS lower "$(op_cap $kind)" --)
	case $via in
	unshare)
		as_user "${pre[@]}" /usr/bin/bash -c "$(declare -f nest); UNS=$UNS; nest $((depth - 1)) \
			$UNS unshare user,$kind -- $(op_cmd $kind)" 2>&1 ;;
	clone)
		as_user "${pre[@]}" /usr/bin/bash -c "$(declare -f nest); nest $((depth - 1)) \
			$UNS clone user,$kind -- $(op_cmd $kind)" 2>&1 ;;
	setns)
		# The namespaces belong to an unrestricted task of alice; a
		# restricted one joins them (nsenter: setns user first).
		spawn_as_user /usr/bin/bash -c "$(declare -f nest); nest $((depth - 1)) \
			$UNS unshare user,$kind -- /usr/bin/sleep 120"
		holder=$SPAWNED
		wait_comm $holder sleep || { echo "holder did not start"; return 99; }
		as_user "${pre[@]}" /usr/bin/nsenter --preserve-credentials -t $holder -U -$(op_flag $kind) $(op_cmd $kind) 2>&1
		rc=$?
		kill $holder 2>/dev/null
		wait $holder 2>/dev/null
		return $rc ;;
	esac
}

for via in unshare clone setns; do
	for kind in net uts mnt; do
		for depth in 1 2 3 4 5 6 7 8; do
			out=$(run $via $kind $depth 1); rc=$?
			if [ $rc != 0 ] && [ "$(printf '%s\n' "$out" | grep -v '^EPERM$')" = "$(op_denied $kind)" ]; then
				ok "$via depth $depth: $kind operation denied without $(op_cap $kind) in pU"
			else
				not_ok "$via depth $depth: $kind operation not denied (exit $rc)"
				printf '%s\n' "$out" | sed 's/^/#   /'
			fi
			case $depth in 1 | 8) ;; *) continue ;; esac
			out=$(run $via $kind $depth 0); rc=$?
			if [ $rc = 0 ]; then
				ok "$via depth $depth: $kind operation allowed with a full pU (control)"
			else
				not_ok "$via depth $depth: control failed (exit $rc)"
				printf '%s\n' "$out" | sed 's/^/#   /'
			fi
		done
	done
done

# Lowered deep inside: a task at depth 3 drops cap_net_admin; its own
# namespace keeps it, every namespace it creates below lacks it.
out=$(as_user /usr/bin/bash -c "$(declare -f nest); UNS=$UNS; nest 3 /usr/bin/unshare -n -- \
	$UNS lower cap_net_admin -- /bin/ip link add d0 type dummy" 2>&1)
expect_eq "lowering at depth 3 leaves the current namespace alone" "$out" ""
out=$(as_user /usr/bin/bash -c "$(declare -f nest); UNS=$UNS; nest 3 $UNS lower cap_net_admin -- \
	/usr/bin/unshare -U -r -n -- /usr/bin/unshare -U -r -n /bin/ip link add d0 type dummy" 2>&1)
expect_match "lowered at depth 3: denied at depth 5" "$out" "^RTNETLINK answers: Operation not permitted$"

capuns-bpf unload >/dev/null 2>&1
done_testing
