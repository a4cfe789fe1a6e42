#!/usr/bin/bash
# The attack suite's guest driver.  /capuns/tests/attack-NAME (a link to
# this script) runs attack NAME: the program /capuns/attacks/... tries one
# way around pU as an unprivileged user and prints one line, "held: ...",
# "ESCAPE: ..." or "CANNOT RUN: ..."; only "held" passes.  On the stock
# kernels the BPF backend enforces: loaded fresh for every attack on its
# own state (maps, ring buffer, links), which unloads it after; the other
# attacks leave it loaded for the next one (a load and an unload cost
# some 8 s under TCG), which reuses it only when status finds it whole.
# On the patched kernel the series enforces.
. /capuns/tests/tap.sh
A=/capuns/attacks
UNS=/capuns/bin/bpf-uns
name=${0##*/attack-}

# The id of the loaded backend's capable program: a new load, a new id.
loaded_id() { bpftool -j prog show 2>/dev/null | jq -r '[.[] | select(.name == "capuns_capable") | .id] | join(",")'; }

case $CAPUNS_TARGET in
stock)
	case "$(cat /sys/kernel/security/lsm 2>/dev/null)" in
	*bpf*) ;;
	*) not_ok "bpf is not in the active LSMs"; done_testing ;;
	esac
	# The backend an attack left for the next one: whole (status exits 0
	# only when it is loaded with every hook attached) and the same load.
	reusable=/tmp/capuns-attack-backend
	case $name in
	map-quota | quota-container | ringbuf-flood | setns-skipped | setns-race) own_state=1 ;;
	*) own_state=0 ;;
	esac
	if [ $own_state = 0 ] && [ -f $reusable ] && capuns-bpf status >/dev/null 2>&1 &&
		[ "$(loaded_id)" = "$(cat $reusable)" ]; then
		diag "the backend the previous attack left, whole"
	else
		rm -f $reusable
		capuns-bpf unload >/dev/null 2>&1
		if ! out=$(capuns-bpf load 2>&1); then
			not_ok "load the BPF backend"; printf '%s\n' "$out" | sed 's/^/#   /'; done_testing
		fi
	fi
	backend=bpf ;;
patched) backend=kernel ;;
*) not_ok "attacks need the stock or patched kernel (got '$CAPUNS_TARGET')"; done_testing ;;
esac
expect_eq "libcapuns enforces through the $backend backend" "$($UNS backend)" "$backend"

# bpf_only: the attack is on state of the BPF backend (the patched kernel
# has no such map, iterator or ring buffer).
bpf_only() {
	[ "$backend" = bpf ] && return 0
	not_ok "attack-$name is an attack on the BPF backend (target '$CAPUNS_TARGET')"
	done_testing
}

# attack DESC CMD...: run one attack program; its verdict line becomes the
# TAP line, anything else it printed a diagnostic.
attack() {
	local desc=$1 out rc verdict
	shift
	out=$("$@" 2>&1)
	rc=$?
	verdict=$(printf '%s\n' "$out" | grep -E '^(held|ESCAPE|CANNOT RUN): ' | tail -n 1)
	printf '%s\n' "$out" | grep -vxF -- "$verdict" | grep . | sed 's/^/#   /'
	if [ $rc = 0 ] && [ "${verdict%%:*}" = held ]; then
		ok "$desc: $verdict"
	else
		not_ok "$desc: ${verdict:-no verdict} (exit $rc)"
	fi
}

# Yama's relational ptrace scope (the patched kernel's config has Yama)
# would refuse the non-descendant attaches of the strace test for its own
# reasons: the attacks must be decided by pU.
yama=/proc/sys/kernel/yama/ptrace_scope
[ -w $yama ] && echo 0 >$yama

case $name in
owner-ifflags | owner-xtables | owner-lowport)
	attack "owner of a child namespace, fd passing (${name#owner-})" as_user "$A/$name" ;;
setuid-newgrp | setuid-sg | setuid-su | setuid-sudo)
	helper=${name#setuid-}
	# A login policy: root lowers pU and sets the strict bit (locked), as
	# pam_capuns does, then becomes alice.
	attack "$helper in a strict session" $UNS lower cap_net_admin strict-lock -- \
		/usr/bin/setpriv --reuid=$UNPRIV_UID --regid=$UNPRIV_GID --init-groups --reset-env -- \
		"$A/setuid-helper" "$helper" strict
	attack "$helper after a voluntary drop" as_user "$A/setuid-helper" "$helper" voluntary ;;
strict-owner)
	# A strict login (rule 3a) that lacks the cap only in its bounding
	# set, pU full: what pam_cap's drop plus pam_capuns' strict bit give.
	attack "strict owner of a child namespace, fd passing" $UNS strict-lock -- \
		/usr/bin/setpriv --bounding-set -net_admin --reuid=$UNPRIV_UID --regid=$UNPRIV_GID \
		--init-groups --reset-env -- "$A/$name" ;;
strict-ptrace)
	/usr/bin/setpriv --reuid=$UNPRIV_UID --regid=$UNPRIV_GID --init-groups --reset-env -- /usr/bin/sleep 60 &
	target=$!
	sleep 0.5
	attack "strict tracer, unrestricted tracee" $UNS strict-lock -- \
		/usr/bin/setpriv --bounding-set -net_admin --reuid=$UNPRIV_UID --regid=$UNPRIV_GID \
		--init-groups --reset-env -- "$A/$name" $target
	kill $target; wait $target 2>/dev/null ;;
setgroups-sibling)
	attack "setgroups of another namespace from a sibling" as_user "$A/$name" ;;
setpcap-bypass)
	attack "capset and securebits without CAP_SETPCAP in the entry set" as_user "$A/$name" ;;
setfcap-rootmap)
	attack "file capabilities through a nested root map without CAP_SETFCAP" as_user "$A/$name" ;;
ptrace-attach | ptrace-mem | ptrace-traceme)
	attack "${name#ptrace-}: restricted tracer, unrestricted tracee" as_user "$A/$name" ;;
ptrace-strace)
	# Real strace -p against an unrestricted process of alice's.
	/usr/bin/setpriv --reuid=$UNPRIV_UID --regid=$UNPRIV_GID --init-groups --reset-env -- /usr/bin/sleep 60 &
	target=$!
	sleep 0.5
	out=$(as_user /usr/bin/timeout 3 /usr/bin/strace -e trace=none -p $target 2>&1)
	expect_match "control: alice's unrestricted strace -p attaches" "$out" "Process $target attached"
	out=$(as_user $UNS lower cap_net_admin -- /usr/bin/timeout 3 /usr/bin/strace -e trace=none -p $target 2>&1)
	if printf '%s\n' "$out" | grep -q "attached"; then
		not_ok "strace -p without cap_net_admin in pU: ESCAPE: attached to an unrestricted process"
	elif printf '%s\n' "$out" | grep -q 'Operation not permitted'; then
		ok "strace -p without cap_net_admin in pU: held: $(printf '%s' "$out" | head -n 1)"
	else
		not_ok "strace -p without cap_net_admin in pU: CANNOT RUN"
	fi
	printf '%s\n' "$out" | sed 's/^/#   /'
	kill $target; wait $target 2>/dev/null ;;
psi-trigger)
	attack "PSI trigger in a namespace without cap_sys_resource" as_user "$A/$name" ;;
map-quota)
	bpf_only
	attack "credential map filled by four users" "$A/$name" ;;
quota-container)
	bpf_only
	attack "quota used up by a container root's many uids" "$A/$name" ;;
tasks-iter)
	bpf_only
	attack "other users' rows in the task iterator" "$A/$name" ;;
ringbuf-flood)
	bpf_only
	attack "event ring buffer flooded by one user" "$A/$name" ;;
setns-race | setns-skipped)
	bpf_only
	if [ $name = setns-skipped ]; then
		# What a skipped program leaves behind, every time: the fexit
		# link unpinned (the program detached), then a restricted join.
		rm -f /sys/fs/bpf/capuns/links/capuns_userns_install
		if bpftool -j link show 2>/dev/null | grep -q capuns_userns_install; then
			not_ok "detach fexit/userns_install"
		else
			attack "setns with fexit/userns_install skipped" as_user "$A/setns-race" 2 1
			expect_match "status counts the entries applied late" "$(capuns-bpf status)" \
				"^fexit/userns_install: [0-9]+ recursion misses, [1-9][0-9]* entries applied late"
		fi
	else
		# preempt=full: the setting of the boot parameter, at run time.
		mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
		pre=/sys/kernel/debug/sched/preempt
		old=$(sed -n 's/.*(\([a-z]*\)).*/\1/p' $pre 2>/dev/null)
		if [ -z "$old" ] || ! echo full >$pre; then
			not_ok "switch to preempt=full through $pre"
		else
			diag "preemption: $(cat $pre)"
			attack "setns racing fexit/userns_install under preempt=full" as_user "$A/setns-race" 20 6
			diag "$(capuns-bpf status | grep '^fexit/userns_install')"
			echo "$old" >$pre
		fi
	fi ;;
*) not_ok "no attack named '$name'" ;;
esac

if [ "$backend" = bpf ]; then
	if [ $own_state = 0 ] && capuns-bpf status >/dev/null 2>&1; then
		loaded_id >$reusable
	else
		rm -f $reusable
		capuns-bpf unload >/dev/null 2>&1
	fi
fi
done_testing
