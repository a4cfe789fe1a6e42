#!/bin/sh
# The system mask and the owner of a namespace (rules 6 and 11), on both
# backends: narrowing the mask takes a capability from the owner of a
# namespace that exists already, at once, while the tasks inside keep
# the sets they hold. The owner is root without CAP_KILL in its own sets,
# so only the owner rule lets it signal another user's task in its
# namespace. It narrows the mask by CAP_KILL: on the patched kernel for
# the rest of the boot (a bit no test before it takes); on stock it
# unloads the backend after.
. /capuns/tests/tap.sh
CAP_KILL=5
case $CAPUNS_TARGET in
patched) ;;
stock)
	. /capuns/bin/bpf-test-lib.sh
	require_stock
	fresh_unload
	capuns-bpf load >/dev/null 2>&1 || { not_ok "load the backend"; done_testing; } ;;
*) not_ok "needs the patched or stock kernel (got '$CAPUNS_TARGET')"; done_testing ;;
esac
# until_ok SECONDS CMD...: wait (up to SECONDS) for CMD to succeed
until_ok() {
	t=$(($1 * 10)); shift
	while ! "$@" 2>/dev/null; do
		t=$((t - 1)); [ $t -gt 0 ] || return 1
		sleep 0.1
	done
}
in_other_userns() { [ "$(readlink /proc/$1/ns/user)" != "$(readlink /proc/self/ns/user)" ]; }
runs_as() { [ "$(awk '$1 == "Uid:" { print $2 }' /proc/$1/status)" = "$2" ]; }
# kill -0 by root whose sets lack CAP_KILL (capsh drops it from the
# bounding set; root's exec then leaves it out of pP and pE)
signal_without_kill() { /usr/sbin/capsh --drop=cap_kill -- -c "kill -0 $1" 2>&1; }

mask=$(capuns mask 2>&1) || { not_ok "CANNOT RUN: capuns mask: $mask"; done_testing; }
case "$mask" in
*-cap_kill*) not_ok "CANNOT RUN: the mask lacks CAP_KILL already ($mask)"; done_testing ;;
esac
rm -f /tmp/owner.map /tmp/owner.go /tmp/owner.res
mkfifo /tmp/owner.map /tmp/owner.go
# A namespace owned by root (its creator's euid), ids 0-65535 mapped as
# themselves. Its first task execs once the map is written (an exec
# before would leave it uid 65534, without capabilities), waits for a pid
# on a fifo and then signals it, with the sets it got when it entered.
/usr/bin/unshare -U /bin/sh -c 'read x </tmp/owner.map; exec /bin/sh -c '\''read pid </tmp/owner.go; kill -0 "$pid"; echo $? >/tmp/owner.res; exec sleep 600'\' &
holder=$!
check "the namespace exists" until_ok 10 in_other_userns $holder
check "root maps uids 0-65535 into it" sh -c "echo '0 0 65536' > /proc/$holder/uid_map"
check "root maps gids 0-65535 into it" sh -c "echo '0 0 65536' > /proc/$holder/gid_map"
echo mapped >/tmp/owner.map
# a task of the unprivileged uid in it, and one outside it
/usr/bin/nsenter -t $holder -U /usr/bin/setpriv --reuid=$UNPRIV_UID --regid=$UNPRIV_GID --clear-groups /bin/sleep 600 &
inside=$!
check "a task of uid $UNPRIV_UID runs in it" until_ok 10 runs_as $inside $UNPRIV_UID
/usr/bin/setpriv --reuid=$UNPRIV_UID --regid=$UNPRIV_GID --clear-groups /bin/sleep 600 &
outside=$!
check "a task of uid $UNPRIV_UID runs outside it" until_ok 10 runs_as $outside $UNPRIV_UID

expect_match "control: without CAP_KILL, root cannot signal uid $UNPRIV_UID outside" \
	"$(signal_without_kill $outside)" 'Operation not permitted'
expect_eq "the owner signals uid $UNPRIV_UID in its namespace (owner rule)" \
	"$(signal_without_kill $inside)" ""
check "the mask loses CAP_KILL (capuns mask --drop)" capuns mask --drop=cap_kill
expect_match "...and the owner loses it over the namespace at once" \
	"$(signal_without_kill $inside)" 'Operation not permitted'
check "root holding CAP_KILL itself still signals it" kill -0 $inside
echo $inside >/tmp/owner.go
check "the namespace's root has signalled" until_ok 10 test -s /tmp/owner.res
expect_eq "the namespace's root, inside before, keeps CAP_KILL (kill -0 answers 0)" \
	"$(cat /tmp/owner.res)" 0
expect_match "a task entering the namespace now lacks CAP_KILL" \
	"$(/usr/bin/nsenter -t $holder -U /bin/sh -c "kill -0 $inside" 2>&1)" 'Operation not permitted'
kill $inside $outside $holder
wait 2>/dev/null
rm -f /tmp/owner.map /tmp/owner.go /tmp/owner.res
[ "$CAPUNS_TARGET" = stock ] && fresh_unload
done_testing
