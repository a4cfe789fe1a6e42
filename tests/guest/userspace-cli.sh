#!/bin/sh
# capuns(1) in the guest, as root and as alice, chained with real tools.
# patched: drops must hold through unshare and bwrap nesting; unpatched:
# every change must fail (no backend) without running the command.
. /capuns/tests/tap.sh
. /capuns/bin/guest-lib.sh
cd /tmp || exit 1

run() { out=$("$@" 2>&1); rc=$?; }
# expect_rc NAME WANT CMD...
expect_rc() {
	name=$1 want=$2; shift 2
	run "$@"
	if [ "$rc" = "$want" ]; then ok "$name"; else
		not_ok "$name (exit $rc, want $want)"; printf '%s\n' "$out" | sed 's/^/#   /'; fi
}
bit_set() { [ $(( (0x$1 >> $2) & 1 )) = 1 ]; }
# in_bindroot CMD...: run CMD in a mount namespace whose root is a bind
# mount of /, moved onto / as switch_root does.  bwrap calls pivot_root(2),
# which refuses the initramfs as root, and a chroot(2) cannot create user
# namespaces, so neither the plain root nor a chroot will do.
# The unprivileged user, as a command line (it must pass through chroot).
alice="/usr/bin/setpriv --reuid=1000 --regid=1000 --init-groups --reset-env --"
bwrap_nest='/usr/bin/bwrap --unshare-user --uid 0 --gid 0 --bind / / /bin/sh -c'

dummy_add='/usr/sbin/ip link add d0 type dummy'
inner='/usr/bin/unshare -r /bin/sh -c "grep ^CapEff: /proc/self/status; /usr/bin/unshare -rm /bin/mount -t tmpfs none /tmp && echo MOUNTED"'

if [ "$CAPUNS_TARGET" = unpatched ]; then
	run capuns
	expect_match "unpatched: print says backend none" "$out" '^backend: +none \(no capuns backend'
	rm -f ran
	expect_rc "unpatched: --drop fails with exit 1" 1 capuns --drop=cap_net_admin -- /bin/touch ran
	expect_match "unpatched: says why" "$out" "no capuns backend"
	check_fails "unpatched: command did not run" test -e ran
	expect_rc "unpatched: usage errors still exit 2" 2 capuns --drop=cap_nope -- /bin/true
	expect_rc "unpatched: --drop=41 is a usage error (no capability 41 here)" 2 \
		capuns --drop=41 -- /bin/true
	expect_match "unpatched: --drop=41 says capability 41 does not exist" "$out" \
		"capability 41 \(cap_sys_control\) does not exist on this kernel \(its last is 40\)"
	expect_rc "unpatched: as alice, --drop fails too" 1 as_user capuns --drop=cap_net_admin -- /bin/true
	expect_rc "unpatched: mask read fails" 1 capuns mask
	printf '!cap_net_admin *\n' >/tmp/rules.conf
	expect_rc "unpatched: check-conf of a rule nothing enforces exits 4" 4 \
		capuns check-conf /tmp/rules.conf
	expect_match "unpatched: and says logins would fail" "$out" "every login a rule matches would FAIL"
	# The tools the patched run relies on work in this guest.
	expect_rc "unpatched: unshare -rn ip link add works" 0 /usr/bin/unshare -rn $dummy_add
	run in_bindroot $bwrap_nest "$inner"
	expect_match "unpatched: bwrap + unshare can mount three levels down" "$out" MOUNTED
	done_testing
fi

# --- printing -------------------------------------------------------------
run capuns
expect_match "print: backend kernel" "$out" '^backend: +kernel$'
expect_match "print: userns line with hex and names" "$out" '^userns +CapUNs +000003ffffffffff +all$'
expect_match "print: mask line" "$out" '^mask +sysctl +[0-9a-f]{16} '
expect_match "print: securebits line" "$out" '^securebits +strict=no locked=no$'
run capuns --json
if printf '%s\n' "$out" | jq -e '.sets.userns.hex == "0x000003ffffffffff"' >/dev/null; then
	ok "json: userns hex (jq -e)"; else not_ok "json: userns hex (jq -e)"; fi
if printf '%s\n' "$out" | jq -e '.sets.userns.caps | index("cap_sys_control")' >/dev/null; then
	ok "json: cap_sys_control named (jq -e)"; else not_ok "json: cap_sys_control named (jq -e)"; fi
run capuns --pid=1
expect_match "--pid=1 prints pid 1's pU" "$out" '^userns +CapUNs +000003ffffffffff'
run capuns --drop=cap_net_admin
expect_match "--drop without command prints the result" "$out" '^userns +CapUNs +000003ffffffefff +all,-cap_net_admin$'

# --- the acceptance chain: unshare -rn ip link add ------------------------
expect_rc "root: unshare -rn ip link add works without capuns" 0 /usr/bin/unshare -rn $dummy_add
expect_rc "root: with capuns --drop=cap_net_admin it fails" 2 \
	capuns --drop=cap_net_admin -- /usr/bin/unshare -rn $dummy_add
expect_match "root: ...with EPERM from netlink" "$out" "RTNETLINK answers: Operation not permitted"
expect_rc "alice: unshare -rn ip link add works without capuns" 0 as_user /usr/bin/unshare -rn $dummy_add
expect_rc "alice: with capuns --drop=cap_net_admin it fails" 2 \
	as_user capuns --drop=cap_net_admin -- /usr/bin/unshare -rn $dummy_add
expect_match "alice: ...with EPERM from netlink" "$out" "RTNETLINK answers: Operation not permitted"

# --- nesting through bwrap -----------------------------------------------
# cap_net_admin: bwrap's namespace, then unshare -rn below it.
# bwrap runs as root here: run by an unprivileged user, bwrap empties the
# bounding set of its sandbox, where then no nested "unshare -r" works even
# without capuns.  alice gets the same chain with unshare alone.
net_inner='grep ^CapEff: /proc/self/status; /usr/bin/unshare -rn /usr/sbin/ip link add d0 type dummy && echo ADDED'
unshare_nest='/usr/bin/unshare -r /bin/sh -c'
for who in root alice; do
	if [ $who = alice ]; then pre=$alice nest=$unshare_nest via=unshare
	else pre= nest=$bwrap_nest via=bwrap; fi
	run in_bindroot $pre $nest "$net_inner"
	expect_match "$who: $via, then unshare -rn ip link add works without capuns" "$out" ADDED
	run in_bindroot $pre /usr/local/bin/capuns --drop=cap_net_admin -- $nest "$net_inner"
	eff=$(printf '%s\n' "$out" | awk '$1 == "CapEff:" { print $2 }')
	if [ -n "$eff" ] && ! bit_set "$eff" 12 && bit_set "$eff" 21; then
		ok "$who: in $via's namespace, CapEff $eff lacks cap_net_admin only"
	else
		not_ok "$who: in $via's namespace, CapEff '$eff' lacks cap_net_admin only"
		printf '%s\n' "$out" | sed 's/^/#   /'
	fi
	case $out in
	*ADDED*) not_ok "$who: two namespaces down, ip link add still refused" ;;
	*"Operation not permitted"*) ok "$who: two namespaces down, ip link add still refused (EPERM)" ;;
	*) not_ok "$who: two namespaces down, ip link add refused with EPERM"; printf '%s\n' "$out" | sed 's/^/#   /' ;;
	esac
	# cap_sys_admin, as in the issue: without it in pU, the namespace
	# bwrap creates has no CAP_SYS_ADMIN, so bwrap cannot even write its
	# own uid map (that takes CAP_SYS_ADMIN inside); nothing below it
	# gets the capability either way.
	run in_bindroot $pre $nest "$inner"
	expect_match "$who: $via + unshare -r + unshare -rm mount works without capuns" "$out" MOUNTED
	run in_bindroot $pre /usr/local/bin/capuns --drop=cap_sys_admin -- $nest "$inner"
	eff=$(printf '%s\n' "$out" | awk '$1 == "CapEff:" { print $2 }')
	case $out in
	*MOUNTED*) not_ok "$who: --drop=cap_sys_admin: no mount anywhere below $via"
		printf '%s\n' "$out" | sed 's/^/#   /' ;;
	*) if [ "$rc" != 0 ] || { [ -n "$eff" ] && ! bit_set "$eff" 21; }; then
		ok "$who: --drop=cap_sys_admin: no mount anywhere below $via (exit $rc, CapEff '${eff:-none}')"
	   else
		not_ok "$who: --drop=cap_sys_admin holds below $via (exit $rc, CapEff '$eff')"
	   fi
	   printf '%s\n' "$out" | sed 's/^/#   /' ;;
	esac
done
# The nesting invariant itself, five namespaces deep (capuns check maps
# ids from the parent, so it works without CAP_SYS_ADMIN inside).
for who in root alice; do
	if [ $who = alice ]; then pre=as_user; else pre=; fi
	expect_rc "$who: --drop=cap_sys_admin, check to depth 5 says missing" 3 \
		$pre capuns --drop=cap_sys_admin -- capuns check cap_sys_admin --depth=5
	n=$(printf '%s\n' "$out" | grep -c '^depth [1-5]: cap_sys_admin effective=no bounding=no userns=no$')
	expect_eq "$who: cap_sys_admin absent at each depth 1..5" "$n" 5
done

# --- only, raise, clear, strict ------------------------------------------
run as_user capuns --only=cap_chown,cap_kill -- /bin/grep CapUNs /proc/self/status
expect_match "alice: --only sets pU exactly" "$out" 'CapUNs:[[:space:]]+0000000000000021$'
run as_user capuns --keep=cap_chown,cap_kill -- /bin/grep CapUNs /proc/self/status
expect_match "alice: --keep, the old name of --only, still works" "$out" 'CapUNs:[[:space:]]+0000000000000021$'
expect_rc "alice: cannot regain a dropped cap" 1 \
	as_user capuns --drop=cap_net_admin -- capuns --raise=cap_net_admin -- /bin/true
expect_match "alice: raise says EPERM" "$out" "--raise failed: Operation not permitted"
expect_rc "alice: --only=all after a drop is refused" 1 \
	as_user capuns --drop=cap_net_admin -- capuns --only=all -- /bin/true
expect_rc "root: may raise back (CAP_SETPCAP)" 0 \
	capuns --drop=cap_net_admin -- capuns --raise=cap_net_admin -- /bin/true
run capuns --clear -- /usr/bin/unshare -U /bin/grep CapEff /proc/self/status
expect_match "--clear: a namespace gets nothing" "$out" 'CapEff:[[:space:]]+0000000000000000$'
expect_rc "alice: --strict needs CAP_SETPCAP" 1 as_user capuns --strict -- /bin/true
run capuns --strict=lock
expect_match "root: --strict=lock shows locked" "$out" 'strict=yes locked=yes'
run /usr/sbin/capsh --drop=cap_net_admin -- -c 'capuns --strict -- /usr/bin/unshare -r /bin/grep CapEff /proc/self/status'
eff=$(printf '%s\n' "$out" | awk '$1 == "CapEff:" { print $2 }')
if [ -n "$eff" ] && ! bit_set "$eff" 12; then ok "--strict: bounding drop reaches the namespace"
else not_ok "--strict: bounding drop reaches the namespace (CapEff '$eff')"; fi

# --- check -------------------------------------------------------------
expect_rc "check: cap_net_admin available at depth 3" 0 capuns check cap_net_admin
expect_match "check: reports depth 3" "$out" '^depth 3: cap_net_admin effective=yes'
expect_rc "check: after a drop, exit 3" 3 capuns --drop=cap_net_admin -- capuns check cap_net_admin --depth=2
expect_match "check: depth 1 lacks it" "$out" '^depth 1: cap_net_admin effective=no bounding=no userns=no'
expect_rc "alice: check works unprivileged" 0 as_user capuns check cap_sys_admin --depth=32

# --- usage errors and exit codes ----------------------------------------
rm -f ran
expect_rc "unknown cap: exit 2" 2 capuns --drop=cap_net_admni -- /bin/touch ran
check_fails "unknown cap: command not run" test -e ran
expect_rc "command not found: 127" 127 capuns --drop=cap_chown -- /nonexistent
expect_rc "command exit status passes through" 7 capuns --drop=cap_chown -- /bin/sh -c 'exit 7'

# --- mask ----------------------------------------------------------------
run capuns mask
expect_match "mask: prints the sysctl" "$out" '^kernel.cap_userns_mask: 0x[0-9a-f]{16} '
expect_rc "alice: mask --drop is refused" 1 as_user capuns mask --drop=cap_sys_rawio
expect_match "alice: says CAP_SYS_CONTROL is needed" "$out" "with CAP_SYS_CONTROL in the initial"

# --- capability lists are read strictly (one parser, as capuns.conf) -----
for bad in 012 'cap_chown;id' cap_net_admin=eip; do
	rm -f ran
	run capuns --drop="$bad" -- /bin/touch ran
	expect_eq "--drop=$bad: usage error, exit 2" "$rc" 2
	check_fails "--drop=$bad: command not run" test -e ran
	expect_match "--drop=$bad: the message names it" "$out" "'$bad': unknown capability"
done
run capuns --drop=41 -- /bin/grep CapUNs /proc/self/status
expect_match "--drop=41 works where capability 41 exists" "$out" 'CapUNs:[[:space:]]+000001ffffffffff$'
run capuns --drop=12 -- /bin/grep CapUNs /proc/self/status
expect_match "--drop=12 is decimal 12 (cap_net_admin)" "$out" 'CapUNs:[[:space:]]+000003ffffffefff$'

# --- check-conf: the kernel enforces, no unit needed -----------------------
printf '!cap_net_admin *\n' >/tmp/rules.conf
expect_rc "check-conf: a rule on the kernel backend exits 0" 0 capuns check-conf --user root /tmp/rules.conf
expect_match "check-conf: names the rule that matches root" "$out" "warning: line 1 matches root"
expect_match "check-conf --user root: all but cap_net_admin" "$out" \
	"^root: line 1 matches: logins keep all,-cap_net_admin$"
run capuns --list-caps
expect_match "--list-caps ends with capability 41 on the patched kernel" "$(printf '%s\n' "$out" | tail -n 1)" \
	'^41 cap_sys_control$'

done_testing
