#!/bin/sh
# kernel.cap_userns_mask and the owner of a namespace (rules 6 and 11):
# narrowing the mask takes a capability from the owner of a namespace
# that exists already, at once, while the tasks inside keep the sets they
# hold. The owner is root without CAP_KILL in its own sets, so only the
# owner rule can let it signal another user's task in its namespace. It
# narrows the mask by CAP_KILL for the rest of the boot: it runs after
# userspace-zmask, which expects the mask to lack CAP_SYS_RAWIO only.
. /capuns/tests/tap.sh
M=/proc/sys/kernel/cap_userns_mask
CAP_KILL=5
has_kill() { [ $(( (0x$1 >> CAP_KILL) & 1 )) = 1 ]; }
# until SECONDS CMD...: wait (up to SECONDS) for CMD to succeed
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

before=$(cat $M)
if ! has_kill "${before#0x}"; then
	not_ok "CANNOT RUN: the mask lacks CAP_KILL already ($before)"
	done_testing
fi
# A namespace owned by root (its creator's euid), ids 0-65535 mapped as
# themselves, and in it a task of the unprivileged uid.
/usr/bin/unshare -U /bin/sleep 600 &
holder=$!
check "the namespace exists" until_ok 10 in_other_userns $holder
check "root maps uids 0-65535 into it" sh -c "echo '0 0 65536' > /proc/$holder/uid_map"
check "root maps gids 0-65535 into it" sh -c "echo '0 0 65536' > /proc/$holder/gid_map"
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
check "the mask loses CAP_KILL" sh -c "echo $((before & ~(1 << CAP_KILL))) > $M"
expect_match "...and the owner loses it over the namespace at once" \
	"$(signal_without_kill $inside)" 'Operation not permitted'
check "root holding CAP_KILL itself still signals it" kill -0 $inside
check "the namespace's root keeps CAP_KILL in its effective set" has_kill "$(proc_cap CapEff $holder)"
entered=$(/usr/bin/nsenter -t $holder -U awk '$1 == "CapEff:" { print $2 }' /proc/self/status)
expect_match "a task entering the namespace now gets an effective set" "$entered" '^[0-9a-f]{16}$'
check_fails "...without CAP_KILL" has_kill "$entered"
kill $inside $outside $holder
wait 2>/dev/null
done_testing
