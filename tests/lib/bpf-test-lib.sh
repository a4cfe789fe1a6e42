# Helpers of the BPF backend's guest tests (tests/guest/bpf-*.sh).  Source
# it after tap.sh; installed in the guest as /capuns/bin/bpf-test-lib.sh.
# It brings guest-lib.sh (in_bindroot) with it.

. /capuns/bin/guest-lib.sh

UNS=/capuns/bin/bpf-uns
PIN=/sys/fs/bpf/capuns

# These tests need the stock kernel with the BPF LSM: anywhere else they
# fail loudly rather than pass without testing anything.
require_stock() {
	if [ "$CAPUNS_TARGET" != stock ]; then
		not_ok "needs CAPUNS_TARGET=stock (got '$CAPUNS_TARGET')"
		done_testing
	fi
	case "$(cat /sys/kernel/security/lsm 2>/dev/null)" in
	*bpf*) ;;
	*) not_ok "bpf is not in the active LSMs: $(cat /sys/kernel/security/lsm 2>&1)"
	   done_testing ;;
	esac
}

# A clean start: no backend loaded (a previous test may have left one).
fresh_unload() { capuns-bpf unload >/dev/null 2>&1 || true; }

# nest N CMD...: exec CMD in a user namespace N levels deep, root mapped to
# the caller each time (bpf-uns unshare, which execs in turn: CMD keeps the
# caller's pid).  Not unshare -r: a namespace entered without cap_sys_admin
# cannot write its own id map, the parent does.  Meant for the end of a
# bash -c script: bash -c "$(declare -f nest); nest 3 CMD".
nest() {
	local n=$1
	shift
	if [ "$n" -le 0 ]; then exec "$@"; fi
	nest $((n - 1)) /capuns/bin/bpf-uns unshare user -- "$@"
}

# spawn_as_user CMD...: CMD in the background as alice; SPAWNED is its pid
# (setpriv execs CMD, so it is CMD's pid; as_user in the background would
# give the pid of a subshell).
spawn_as_user() {
	/usr/bin/setpriv --reuid=$UNPRIV_UID --regid=$UNPRIV_GID --init-groups --reset-env -- "$@" &
	SPAWNED=$!
}

# wait_comm PID COMM: until PID runs COMM (at most 5 s).
wait_comm() {
	for _ in $(seq 50); do
		[ "$(cat /proc/$1/comm 2>/dev/null)" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# Bit of a capability, for hex masks.
cap_bit() { printf '%d' $((1 << $1)); }

# has_cap HEX CAP: 0 when CAP is in the hex set.
has_cap() { [ $(( $1 & (1 << $2) )) -ne 0 ]; }

CAP_NET_ADMIN=12
CAP_SYS_ADMIN=21
CAP_SYS_RAWIO=17

