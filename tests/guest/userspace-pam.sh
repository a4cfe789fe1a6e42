#!/bin/sh
# pam_capuns in the guest: pamtester and a minimal login
# (/capuns/bin/capuns-pam-session) open sessions for alice and bob with a
# configuration that drops capabilities; the shell of the session shows
# the drop in pU and cannot regain it.  A session that a rule matches has
# the strict securebit set and locked, so that the real set-user-ID-root
# helpers (newgrp, sg, su, sudo) keep the rule (rule 10, R10); a
# session that no rule matches is not touched.  Malformed configurations
# fail the session unless onerr=succeed.  Runs on the kernel backend
# (patched), the BPF backend (stock kernels) and without a backend
# (unpatched).
. /capuns/tests/tap.sh
cd /tmp || exit 1

login=/capuns/bin/capuns-pam-session
capuns=/usr/local/bin/capuns
helper=/capuns/attacks/setuid-helper
conf=/etc/security/capuns.conf
svc=/etc/pam.d/capuns-test
NET_ADMIN=12 SYS_RAWIO=17 SYS_ADMIN=21

run() { out=$("$@" 2>&1); rc=$?; }
bit_set() { [ $(( (0x$1 >> $2) & 1 )) = 1 ]; }
service() { # module arguments
	printf 'auth required pam_permit.so\naccount required pam_permit.so\nsession required pam_capuns.so %s\nsession required pam_permit.so\n' "$*" >$svc
}
config() { printf '%s\n' "$@" >$conf; chmod 0644 $conf; }
# session USER: pU (hex) and securebits of a shell started in USER's session,
# as capuns --print reports them through the backend in use
session() {
	out=$($login capuns-test "$1" -- $capuns --print 2>&1)
	rc=$?
	userns=$(printf '%s\n' "$out" | awk '$1 == "userns" { print $3 }')
	secbits=$(printf '%s\n' "$out" | awk '$1 == "securebits" { print $2, $3 }')
}
# A session's shell shown on failure.
show() { printf '%s\n' "$out" | sed 's/^/#   /'; }

if [ "$CAPUNS_TARGET" = unpatched ]; then
	service
	config '!cap_net_admin  alice'
	run /usr/bin/pamtester capuns-test alice open_session
	check_fails "unpatched: a matching rule without backend fails the session" [ "$rc" = 0 ]
	service onerr=succeed
	run /usr/bin/pamtester capuns-test alice open_session
	expect_eq "unpatched: onerr=succeed lets it open" "$rc" 0
	for args in '' strict=lock lock strict; do
		service $args
		run /usr/bin/pamtester capuns-test bob open_session
		expect_eq "unpatched: no matching rule (${args:-default arguments}): session opens" "$rc" 0
	done
	service strict=off
	run /usr/bin/pamtester capuns-test alice open_session
	check_fails "unpatched: strict=off, a matching rule still fails without backend" [ "$rc" = 0 ]
	service mode=audit
	run /usr/bin/pamtester capuns-test alice open_session
	expect_eq "unpatched: mode=audit needs no backend: the session opens" "$rc" 0
	rm -f $svc $conf
	done_testing
fi

case "$CAPUNS_TARGET" in
stock)
	capuns-bpf unload >/dev/null 2>&1
	check "load the BPF backend" capuns-bpf load
	backend=bpf ;;
*) backend=kernel ;;
esac
expect_match "capuns reports the $backend backend" "$($capuns --print 2>&1)" "^backend: +$backend\$"
full=$($capuns --print | awk '$1 == "userns" { print $3 }')

service debug
config '# test policy' \
	'!cap_net_admin,!cap_sys_rawio   @developers' \
	'!cap_sys_admin   alice bob'
run /usr/bin/pamtester capuns-test alice open_session close_session
expect_eq "pamtester: alice's session opens" "$rc" 0
expect_match "pamtester: says so" "$out" "successfully opened a session"

session alice
expect_eq "login: alice's session runs" "$rc" 0
if [ -n "$userns" ] && ! bit_set "$userns" $NET_ADMIN && ! bit_set "$userns" $SYS_RAWIO &&
	bit_set "$userns" $SYS_ADMIN; then
	ok "alice (@developers, first match): pU $userns lacks net_admin and sys_rawio only"
else
	not_ok "alice: pU '$userns' lacks net_admin and sys_rawio only"; show
fi
session bob
if [ -n "$userns" ] && ! bit_set "$userns" $SYS_ADMIN && bit_set "$userns" $NET_ADMIN &&
	bit_set "$userns" $SYS_RAWIO; then
	ok "bob (second line): pU $userns lacks sys_admin only"
else
	not_ok "bob: pU '$userns' lacks sys_admin only"; show
fi
session root
expect_eq "root (no match): pU untouched" "$userns" "$full"

run $login capuns-test alice -- /usr/bin/unshare -rn /usr/sbin/ip link add d0 type dummy
check_fails "alice's session: unshare -rn ip link add fails" [ "$rc" = 0 ]
expect_match "alice's session: with EPERM from netlink" "$out" "RTNETLINK answers: Operation not permitted"
run $login capuns-test alice -- $capuns --raise=cap_net_admin -- /bin/true
expect_eq "alice's session: capuns --raise cannot regain it" "$rc" 1
run $login capuns-test alice -- /usr/bin/unshare -r $capuns --raise=cap_net_admin -- /bin/true
expect_eq "alice's session: nor can root of a namespace" "$rc" 1

# Audit mode: the rule is only logged; the session keeps its full pU,
# no strict bit, and can still do what the rule would refuse.
config '!cap_net_admin  alice'
service mode=audit
session alice
expect_eq "mode=audit: alice's session keeps pU and securebits" "$secbits $userns" \
	"strict=no locked=no $full"
run $login capuns-test alice -- /usr/bin/unshare -rn /usr/sbin/ip link add d0 type dummy
expect_eq "mode=audit: unshare -rn ip link add still works" "$rc" 0
config 'audit !cap_net_admin  alice' '!cap_net_admin  bob'
service
session alice
expect_eq "an audit rule: alice's session is not touched" "$secbits $userns" \
	"strict=no locked=no $full"
session bob
if [ -n "$userns" ] && ! bit_set "$userns" $NET_ADMIN; then
	ok "the enforcing rule beside it: bob's pU $userns lacks net_admin"
else
	not_ok "the enforcing rule beside it: bob's pU '$userns' lacks net_admin"; show
fi

# The strict securebit: set and locked in a session a rule matches (the
# default), never in one that no rule matches.
config '!cap_net_admin  @developers'
service
session alice
expect_eq "a restricted session (default arguments): strict bit set and locked" "$secbits" \
	"strict=yes locked=yes"
session bob
expect_eq "bob (no rule): strict bit clear" "$secbits" "strict=no locked=no"
expect_eq "bob (no rule): pU untouched" "$userns" "$full"
session root
expect_eq "root (no rule): strict bit clear" "$secbits" "strict=no locked=no"
for args in strict=lock lock strict=on strict; do
	service "$args"
	session bob
	expect_eq "$args, bob (no rule): not touched" "$secbits $userns" "strict=no locked=no $full"
done
for args in 'strict=lock yes' 'lock yes' 'strict=on no' 'strict no'; do
	service "${args% *}"
	session alice
	expect_eq "${args% *}: alice's session has strict=yes locked=${args#* }" "$secbits" \
		"strict=yes locked=${args#* }"
done
service strict=off
session alice
if [ "$secbits" = "strict=no locked=no" ] && [ -n "$userns" ] && ! bit_set "$userns" $NET_ADMIN; then
	ok "strict=off: pU lowered, strict bit left clear"
else
	not_ok "strict=off: pU lowered ('$userns'), strict bit left clear ('$secbits')"; show
fi

# The set-user-ID-root helpers Debian ships, in a session restricted by
# pam_capuns: each runs the attack program's probe (CAP_NET_ADMIN in a new
# user namespace), which must stay refused.  Their own PAM stacks here do
# not include pam_capuns: the strict bit alone carries the rule.
service
for h in newgrp sg su sudo; do
	run $login capuns-test alice -- $helper $h strict
	expect_match "$h in alice's restricted session does not give CAP_NET_ADMIN back" "$out" \
		"^held: "
done
# Control: without the strict bit the exec adds X back to pU, so the bit is what
# keeps the rule (what strict=off documents).
service strict=off
run $login capuns-test alice -- $helper sg strict
expect_match "strict=off: sg adds X back and gives CAP_NET_ADMIN back (documented)" "$out" \
	"^ESCAPE: sg \(setuid root\) gave back"
# The systemd-user service (the user manager's session): systemd rewrites
# securebits, so the module drops the caps from the bounding set instead,
# and the helpers stay restricted all the same.
config '!cap_net_admin  @developers'
service
cp $svc /etc/pam.d/systemd-user
run $login systemd-user alice -- $capuns --print
secbits=$(printf '%s\n' "$out" | awk '$1 == "securebits" { print $2, $3 }')
expect_eq "systemd-user: alice's session has no strict bit (systemd would rewrite it)" "$secbits" \
	"strict=no locked=no"
run $login systemd-user alice -- /bin/sh -c 'grep ^CapBnd: /proc/self/status'
bnd=$(printf '%s\n' "$out" | awk '$1 == "CapBnd:" { print $2 }')
if [ -n "$bnd" ] && ! bit_set "$bnd" $NET_ADMIN && bit_set "$bnd" $SYS_ADMIN; then
	ok "systemd-user: CAP_NET_ADMIN left alice's bounding set ($bnd), nothing else"
else
	not_ok "systemd-user: CAP_NET_ADMIN left alice's bounding set ('$bnd')"; show
fi
for h in newgrp sg su sudo; do
	run $login systemd-user alice -- $helper $h strict
	expect_match "systemd-user: $h in alice's user-manager session does not give CAP_NET_ADMIN back" \
		"$out" "^held: "
done
run $login systemd-user bob -- /bin/sh -c 'grep ^CapBnd: /proc/self/status'
expect_match "systemd-user, bob (no rule): bounding set untouched" "$out" "CapBnd:.*$(
	grep ^CapBnd: /proc/self/status | awk '{ print $2 }')"
rm -f /etc/pam.d/systemd-user

# A user's own lowering in a session no rule matches is still reset by a
# set-user-ID-root exec (the "sendmail" protection of privileged programs).
config '!cap_net_admin  bob'
service
for h in newgrp sg su sudo; do
	run $login capuns-test alice -- $helper $h voluntary
	expect_match "$h resets alice's own capuns drop in an unrestricted session" "$out" "^held: "
done

# malformed configurations
service
for bad in '!cap_net_admni  alice' '!cap_net_admin' '!cap_net_admin  @no-such-group' \
	'all  bob|!cap_net_admin,,cap_kill *'; do
	printf '%s\n' "$bad" | tr '|' '\n' >$conf
	rm -f ran
	run $login capuns-test bob -- /bin/touch ran
	if [ "$rc" = 1 ] && [ ! -e ran ]; then ok "malformed '$bad': session refused"
	else not_ok "malformed '$bad': session refused (exit $rc)"; show; fi
	run /usr/bin/pamtester capuns-test bob open_session
	check_fails "malformed '$bad': pamtester fails too" [ "$rc" = 0 ]
done
config '!cap_net_admin  alice'
chmod 0666 $conf
run /usr/bin/pamtester capuns-test alice open_session
check_fails "world-writable config: session refused" [ "$rc" = 0 ]
printf '!cap_bogus  alice\n' >$conf; chmod 0644 $conf
service onerr=succeed
session alice
expect_eq "onerr=succeed: malformed config lets the session open" "$rc" 0
expect_eq "onerr=succeed: ...unrestricted, strict bit clear" "$userns $secbits" \
	"$full strict=no locked=no"
rm -f $conf
service
run /usr/bin/pamtester capuns-test alice open_session
check_fails "missing config: session refused" [ "$rc" = 0 ]
rm -f $svc
[ "$backend" = bpf ] && capuns-bpf unload >/dev/null 2>&1
done_testing
