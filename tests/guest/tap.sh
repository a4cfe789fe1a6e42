# TAP helpers for guest tests written in shell. Source it.
# Every guest test prints TAP ("ok N - name" / "not ok N - name") to stdout;
# the harness turns each line into one result. A test that prints no result
# line fails ("asserts nothing").

TAP_N=0
TAP_FAILED=0
UNPRIV_UID=1000   # alice, member of @developers
UNPRIV_GID=1000

ok() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N - $*"; }
not_ok() { TAP_N=$((TAP_N + 1)); TAP_FAILED=$((TAP_FAILED + 1)); echo "not ok $TAP_N - $*"; }
skip() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N - $1 # SKIP ${2:-no reason given}"; }
diag() { echo "# $*"; }

# check NAME CMD...: pass when CMD exits 0.
check() {
	local name=$1; shift
	if "$@"; then ok "$name"; else not_ok "$name (exit $?: $*)"; fi
}
# check_fails NAME CMD...: pass when CMD exits nonzero.
check_fails() {
	local name=$1; shift
	if "$@"; then not_ok "$name (unexpected success: $*)"; else ok "$name"; fi
}
# expect_eq NAME GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1 (got '$2', want '$3')"; fi
}
# expect_match NAME TEXT PATTERN (grep -E)
expect_match() {
	if printf '%s\n' "$2" | grep -Eq -- "$3"; then ok "$1"; else
		not_ok "$1 (no match for /$3/)"; printf '%s\n' "$2" | sed 's/^/#   /'; fi
}

# as_user CMD...: run CMD as the unprivileged test user, the way a login
# would (real setpriv from util-linux: busybox has none).
as_user() { /usr/bin/setpriv --reuid=$UNPRIV_UID --regid=$UNPRIV_GID --init-groups --reset-env -- "$@"; }

# proc_cap FIELD [PID]: the hex value of a Cap* line of /proc/PID/status.
proc_cap() { awk -v f="$1:" '$1 == f { print $2 }' "/proc/${2:-self}/status"; }

# start_monitor CMD...: run CMD, an event monitor (capuns monitor,
# capuns-bpf monitor), in the background, its pid in $mon and its output
# in /tmp/mon.out; return once it says it is monitoring, so that the
# event the caller makes next is not missed.
start_monitor() {
	"$@" >/tmp/mon.out 2>/tmp/mon.err &
	mon=$!
	for _ in $(seq 50); do grep -q monitoring /tmp/mon.err && break; sleep 0.1; done
}

done_testing() { echo "1..$TAP_N"; [ "$TAP_FAILED" = 0 ]; exit $?; }
