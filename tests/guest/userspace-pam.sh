#!/bin/sh
# pam_capuns in the guest: pamtester and a minimal login
# (/capuns/bin/capuns-pam-session) open sessions for alice and bob with a
# configuration that drops capabilities; the shell of the session shows
# the drop in CapUNs and cannot regain it.  Malformed configurations fail
# the session unless onerr=succeed.
. /capuns/tests/tap.sh
cd /tmp || exit 1

login=/capuns/bin/capuns-pam-session
conf=/etc/security/capuns.conf
svc=/etc/pam.d/capuns-test

run() { out=$("$@" 2>&1); rc=$?; }
bit_set() { [ $(( (0x$1 >> $2) & 1 )) = 1 ]; }
service() { # module arguments
	printf 'auth required pam_permit.so\naccount required pam_permit.so\nsession required pam_capuns.so %s\nsession required pam_permit.so\n' "$*" >$svc
}
config() { printf '%s\n' "$@" >$conf; chmod 0644 $conf; }
# session_cap USER: CapUNs of a shell started in USER's session
session_capuns() {
	out=$($login capuns-test "$1" -- /bin/sh -c 'grep ^CapUNs: /proc/self/status' 2>&1)
	rc=$?
	capuns=$(printf '%s\n' "$out" | awk '$1 == "CapUNs:" { print $2 }')
}

if [ "$CAPUNS_TARGET" = unpatched ]; then
	service
	config '!cap_net_admin  alice'
	run /usr/bin/pamtester capuns-test alice open_session
	check_fails "unpatched: a matching rule without backend fails the session" [ "$rc" = 0 ]
	service onerr=succeed
	run /usr/bin/pamtester capuns-test alice open_session
	expect_eq "unpatched: onerr=succeed lets it open" "$rc" 0
	service
	run /usr/bin/pamtester capuns-test bob open_session
	expect_eq "unpatched: no matching rule: session opens" "$rc" 0
	rm -f $svc $conf
	done_testing
fi

service debug
config '# test policy' \
	'!cap_net_admin,!cap_sys_rawio   @developers' \
	'!cap_sys_admin   alice bob'
run /usr/bin/pamtester capuns-test alice open_session close_session
expect_eq "pamtester: alice's session opens" "$rc" 0
expect_match "pamtester: says so" "$out" "successfully opened a session"

session_capuns alice
expect_eq "login: alice's session runs" "$rc" 0
if [ -n "$capuns" ] && ! bit_set "$capuns" 12 && ! bit_set "$capuns" 17 && bit_set "$capuns" 21; then
	ok "alice (@developers, first match): CapUNs $capuns lacks net_admin and sys_rawio only"
else
	not_ok "alice: CapUNs '$capuns' lacks net_admin and sys_rawio only"; printf '%s\n' "$out" | sed 's/^/#   /'
fi
session_capuns bob
if [ -n "$capuns" ] && ! bit_set "$capuns" 21 && bit_set "$capuns" 12 && bit_set "$capuns" 17; then
	ok "bob (second line): CapUNs $capuns lacks sys_admin only"
else
	not_ok "bob: CapUNs '$capuns' lacks sys_admin only"; printf '%s\n' "$out" | sed 's/^/#   /'
fi
session_capuns root
expect_eq "root (no match): pU untouched" "$capuns" 000003ffffffffff

run $login capuns-test alice -- /usr/bin/unshare -rn /usr/sbin/ip link add d0 type dummy
check_fails "alice's session: unshare -rn ip link add fails" [ "$rc" = 0 ]
expect_match "alice's session: with EPERM from netlink" "$out" "RTNETLINK answers: Operation not permitted"
run $login capuns-test alice -- /usr/local/bin/capuns --raise=cap_net_admin -- /bin/true
expect_eq "alice's session: capuns --raise cannot regain it" "$rc" 1
run $login capuns-test alice -- /usr/bin/unshare -r /usr/local/bin/capuns --raise=cap_net_admin -- /bin/true
expect_eq "alice's session: nor can root of a namespace" "$rc" 1

# strict and lock
service lock
config '!cap_net_admin  nobody-here'
run $login capuns-test alice -- /usr/local/bin/capuns
expect_match "lock: the session's shell has the strict bit locked" "$out" 'strict=yes locked=yes'
service strict
run $login capuns-test alice -- /usr/local/bin/capuns
expect_match "strict: set, not locked" "$out" 'strict=yes locked=no'

# malformed configurations
service
for bad in '!cap_net_admni  alice' '!cap_net_admin' '!cap_net_admin  @no-such-group' \
	'all  bob|!cap_net_admin,,cap_kill *'; do
	printf '%s\n' "$bad" | tr '|' '\n' >$conf
	rm -f ran
	run $login capuns-test bob -- /bin/touch ran
	if [ "$rc" = 1 ] && [ ! -e ran ]; then ok "malformed '$bad': session refused"
	else not_ok "malformed '$bad': session refused (exit $rc)"; printf '%s\n' "$out" | sed 's/^/#   /'; fi
	run /usr/bin/pamtester capuns-test bob open_session
	check_fails "malformed '$bad': pamtester fails too" [ "$rc" = 0 ]
done
config '!cap_net_admin  alice'
chmod 0666 $conf
run /usr/bin/pamtester capuns-test alice open_session
check_fails "world-writable config: session refused" [ "$rc" = 0 ]
printf '!cap_bogus  alice\n' >$conf; chmod 0644 $conf
service onerr=succeed
session_capuns alice
expect_eq "onerr=succeed: malformed config lets the session open" "$rc" 0
expect_eq "onerr=succeed: ...unrestricted" "$capuns" 000003ffffffffff
rm -f $conf
service
run /usr/bin/pamtester capuns-test alice open_session
check_fails "missing config: session refused" [ "$rc" = 0 ]
rm -f $svc
done_testing
