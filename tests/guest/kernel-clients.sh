#!/bin/sh
# Real clients on the patched kernel: the series' own examples (capsh with
# the strict securebit, unshare -r after a prctl drop) and the nesting
# invariant at depths 1..8 through unshare and setns (nsenter), checked
# with the sets the kernel reports and with operations that need the
# dropped capability (ip link add needs CAP_NET_ADMIN; a UTS namespace
# needs CAP_SYS_ADMIN).
. /capuns/tests/tap.sh
. /capuns/bin/guest-lib.sh
U=/capuns/kernel/unsctl
UNSHARE=/usr/bin/unshare
IP=/usr/sbin/ip
[ -x $U ] || { not_ok "helper $U missing"; done_testing; }
STRICT=$($U secbit strict) || { not_ok "$U secbit strict failed"; done_testing; }

mask=$(cat /proc/sys/kernel/cap_userns_mask) || { not_ok "cannot read the mask"; done_testing; }
full=$(( (1 << ($(cat /proc/sys/kernel/cap_last_cap) + 1)) - 1 ))
hex() { printf '%016x' $(( $1 & mask )); }
without() { # without CAP... -> full set minus those caps, masked
	v=$full
	for c in "$@"; do v=$(( v & ~(1 << c) )); done
	hex $v
}
field() { printf '%s\n' "$2" | awk -v f="$1:" '$1 == f { print $2 }'; }
RAWIO=17 NET_ADMIN=12 SYS_ADMIN=21

# --- the securebit example of the series (rule 5)
out=$(/usr/sbin/capsh --secbits=$STRICT --drop=cap_sys_rawio -- -c 'unshare -r grep Cap /proc/self/status' 2>&1)
for f in CapPrm CapEff CapBnd CapUNs; do
	expect_eq "capsh --secbits=$STRICT --drop=cap_sys_rawio: $f in the namespace" "$(field $f "$out")" "$(without $RAWIO)"
done
expect_eq "capsh strict example: CapInh empty" "$(field CapInh "$out")" 0000000000000000
expect_eq "capsh strict example: CapAmb empty" "$(field CapAmb "$out")" 0000000000000000
out=$(/usr/sbin/capsh --drop=cap_sys_rawio -- -c 'unshare -r grep Cap /proc/self/status' 2>&1)
expect_eq "without the strict bit, the bounding-set drop does not reach the namespace" \
	"$(field CapEff "$out")" "$(hex $full)"
check_fails "alice cannot set the strict securebit ($STRICT, needs CAP_SETPCAP)" \
	as_user /usr/sbin/capsh --secbits=$STRICT -- -c true

# --- unshare -r after a prctl drop (rule 3), root and alice
for who in root alice; do
	run() { if [ $who = root ]; then "$@"; else as_user "$@"; fi; }
	out=$(run $U lower cap_net_admin -- $UNSHARE -r grep Cap /proc/self/status 2>&1)
	for f in CapPrm CapEff CapBnd CapUNs; do
		expect_eq "$who: unshare -r after dropping cap_net_admin: $f" "$(field $f "$out")" "$(without $NET_ADMIN)"
	done
	out=$(run $U lower cap_net_admin -- $UNSHARE -r -n $IP link add d0 type dummy 2>&1)
	expect_match "$who: ip link add in a new netns fails with EPERM after the drop" "$out" 'Operation not permitted'
	check "$who: ip link add in a new netns works without the drop" \
		run $UNSHARE -r -n $IP link add d0 type dummy
	out=$(run $U lower cap_sys_admin -- $UNSHARE -r -u hostname capuns-x 2>&1)
	expect_match "$who: a UTS namespace (CAP_SYS_ADMIN) is refused with EPERM after the drop" \
		"$out" 'Operation not permitted'
	expect_eq "$who: sethostname in a new utsns works without the drop" \
		"$(run $UNSHARE -r -u sh -c 'hostname capuns-x && hostname')" capuns-x
done

# --- without CAP_SYS_ADMIN in pU (rule 11): the self-mapping needs no
# privilege, so "unshare -r" works; mounting inside does not.  bubblewrap
# creates a mount namespace with its user namespace, which needs
# CAP_SYS_ADMIN over it: it is refused, and works with another drop.
alice_cmd="/usr/bin/setpriv --reuid=$UNPRIV_UID --regid=$UNPRIV_GID --init-groups --reset-env --"
for who in root alice; do
	run() { if [ $who = root ]; then "$@"; else as_user "$@"; fi; }
	expect_eq "$who: unshare -r works without cap_sys_admin in pU (uid 0 inside)" \
		"$(run $U lower cap_sys_admin -- $UNSHARE -r id -u 2>&1)" 0
	out=$(run $U lower cap_sys_admin -- $UNSHARE -r /bin/sh -c \
		'grep ^CapEff: /proc/self/status; /usr/bin/unshare -m /bin/mount -t tmpfs none /tmp && echo MOUNTED' 2>&1)
	expect_match "$who: ...its sets lack cap_sys_admin" "$out" "CapEff:	$(without $SYS_ADMIN)"
	expect_match "$who: ...and a mount namespace inside it is refused (EPERM)" \
		"$out" 'unshare failed: Operation not permitted'
done
bwrap_id='/usr/bin/bwrap --unshare-user --uid 0 --gid 0 --bind / / /bin/sh -c'
out=$(in_bindroot $alice_cmd $U lower cap_net_admin -- $bwrap_id \
	'id -u; /usr/bin/unshare -rn /usr/sbin/ip link add d0 type dummy || echo REFUSED' 2>&1)
expect_match "alice: bwrap --unshare-user --uid 0 runs with cap_net_admin dropped" "$out" '^0$'
expect_match "alice: ...and a netns operation inside it is refused" "$out" REFUSED
out=$(in_bindroot $alice_cmd $U lower cap_sys_admin -- $bwrap_id 'echo INSIDE' 2>&1)
expect_match "alice: bwrap with cap_sys_admin dropped is refused (EPERM at clone)" \
	"$out" 'No permissions to create new namespace'
case "$out" in
*INSIDE*) not_ok "alice: ...and never runs its command (it did)" ;;
*) ok "alice: ...and never runs its command" ;;
esac

# --- nesting through unshare: dropped at depth 1, absent at 2..8 (rule 4)
cat >/tmp/kernel-nest.sh <<'NEST'
#!/bin/sh
# kernel-nest.sh DEPTH: runs at DEPTH, checks, goes one level deeper.
d=$1
eff=$(awk '$1 == "CapEff:" { print $2 }' /proc/self/status)
bnd=$(awk '$1 == "CapBnd:" { print $2 }' /proc/self/status)
if [ $(( 0x$eff >> 12 & 1 )) = 0 ] && [ $(( 0x$bnd >> 12 & 1 )) = 0 ]; then
	echo "PASS depth $d: CAP_NET_ADMIN absent from CapEff and CapBnd"
else
	echo "FAIL depth $d: CapEff $eff CapBnd $bnd"
fi
if [ $(( 0x$eff >> 21 & 1 )) = 1 ]; then
	echo "PASS depth $d: CAP_SYS_ADMIN still held"
else
	echo "FAIL depth $d: CAP_SYS_ADMIN lost (CapEff $eff)"
fi
r=$(/capuns/kernel/unsctl raw 2 cap_net_admin)
[ "$r" = errno=EPERM ] && echo "PASS depth $d: raising it back is EPERM" ||
	echo "FAIL depth $d: raise gave $r"
out=$(/usr/bin/unshare -n /usr/sbin/ip link add d0 type dummy 2>&1)
case "$out" in
*"Operation not permitted"*) echo "PASS depth $d: ip link add in a new netns fails with EPERM" ;;
*) echo "FAIL depth $d: ip link add said: $out" ;;
esac
[ "$d" -lt 8 ] && exec /usr/bin/unshare -r /bin/sh /tmp/kernel-nest.sh $((d + 1))
echo "DONE $d"
NEST
chmod 0755 /tmp/kernel-nest.sh
report() { # turn PASS/FAIL lines into TAP, and require DONE 8
	done8=no
	while IFS= read -r line; do
		case "$line" in
		PASS*) ok "$1: ${line#PASS }" ;;
		FAIL*) not_ok "$1: ${line#FAIL }" ;;
		"DONE 8") done8=yes ;;
		*) diag "$line" ;;
		esac
	done
	expect_eq "$1: reached depth 8" $done8 yes
}
for who in root alice; do
	run() { if [ $who = root ]; then "$@"; else as_user "$@"; fi; }
	run $UNSHARE -r /bin/sh -c '/capuns/kernel/unsctl lower cap_net_admin -- /usr/bin/unshare -r /bin/sh /tmp/kernel-nest.sh 2' \
		>/tmp/kernel-nest.out 2>&1
	# Not a pipe: report must run in this shell to keep the TAP count.
	report "$who unshare nesting" </tmp/kernel-nest.out
done

# --- nesting through setns (nsenter): a task that dropped the capability
# joins namespaces of depth 1..8 built by one that did not.
cat >/tmp/kernel-hold.sh <<'HOLD'
#!/bin/sh
# kernel-hold.sh N: N more user namespaces, then a netns, then wait.
[ "$1" -gt 1 ] && exec /usr/bin/unshare -r /bin/sh /tmp/kernel-hold.sh $(($1 - 1))
exec /usr/bin/unshare -n /bin/sleep 600
HOLD
chmod 0755 /tmp/kernel-hold.sh
for who in root alice; do
	run() { if [ $who = root ]; then "$@"; else as_user "$@"; fi; }
	for d in 1 2 3 4 5 6 7 8; do
		# setpriv and unshare exec, so $! ends up as the holder's sleep.
		if [ $who = root ]; then
			$UNSHARE -r /bin/sh /tmp/kernel-hold.sh $d &
		else
			/usr/bin/setpriv --reuid=$UNPRIV_UID --regid=$UNPRIV_GID --init-groups --reset-env -- \
				$UNSHARE -r /bin/sh /tmp/kernel-hold.sh $d &
		fi
		pid=$!
		i=0
		while [ "$(cat /proc/$pid/comm 2>/dev/null)" != sleep ] && [ $i -lt 100 ]; do
			sleep 0.1; i=$((i + 1))
		done
		ns=/usr/bin/nsenter
		out=$(run $U lower cap_net_admin -- $ns -t $pid -U -n --preserve-credentials $IP link add d0 type dummy 2>&1)
		expect_match "$who setns depth $d: after the drop, ip link add in the joined netns is EPERM" \
			"$out" 'Operation not permitted'
		eff=$(run $U lower cap_net_admin -- $ns -t $pid -U --preserve-credentials \
			awk '$1 == "CapEff:" { print $2 }' /proc/self/status 2>&1)
		expect_eq "$who setns depth $d: CapEff after joining lacks CAP_NET_ADMIN" "$eff" "$(without $NET_ADMIN)"
		check "$who setns depth $d: without the drop, ip link add in the joined netns works" \
			run $ns -t $pid -U -n --preserve-credentials $IP link add d$d type dummy
		kill $pid 2>/dev/null
		wait $pid 2>/dev/null
	done
done
done_testing
