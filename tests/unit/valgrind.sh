#!/usr/bin/env bash
# The installed programs (built without sanitizers) run clean under
# valgrind: no invalid access and no leak, on the success and the error
# paths the host can reach (no capuns backend here, forced to be sure).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/guest/tap.sh"
command -v valgrind >/dev/null || { not_ok "valgrind is not installed (make deps)"; done_testing; }

vg() { # NAME EXPECTED-EXIT CMD...
	local name=$1 want=$2 rc
	shift 2
	CAPUNS_BACKEND=none valgrind -q --leak-check=full --show-leak-kinds=definite,indirect \
		--errors-for-leak-kinds=definite,indirect --error-exitcode=99 \
		"$@" >/dev/null 2>"$tmp"
	rc=$?
	if [ $rc = "$want" ]; then ok "$name"; else
		not_ok "$name (exit $rc, want $want)"; sed 's/^/#   /' "$tmp" | head -20; fi
}
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.conf" "$tmp.log"' EXIT
# The build tree's programs with the build tree's shared libcapuns.
export LD_LIBRARY_PATH=$root/build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
cli=$root/build/capuns
vg "capuns --print" 0 "$cli" --print
vg "capuns --print --json" 0 "$cli" --print --json
vg "capuns --pid=1 --print" 0 "$cli" --pid=1 --print
vg "capuns --drop=cap_bogus (usage error)" 2 "$cli" --drop=cap_bogus -- /bin/true
vg "capuns --drop on no backend (fails closed)" 1 "$cli" --drop=cap_net_admin -- /bin/true
vg "capuns --keep=all,-cap_sys_admin on no backend" 1 "$cli" --keep=all,-cap_sys_admin
vg "capuns mask" 1 "$cli" mask
vg "capuns mask --drop=12x (usage error)" 2 "$cli" mask --drop=12x
vg "capuns check (usage error)" 2 "$cli" check
printf '%s\n' '!cap_sys_module *' >"$tmp.conf"
vg "capuns check-conf --protect=root (a rule matches root)" 1 "$cli" check-conf --protect=root "$tmp.conf"
printf '%s\n' "complain: cap_net_admin pid 1 (ip) uid 0 (root) unit -, namespace depth 1, target depth 1: allowed (complain mode)" \
	"complain: cap_bogus pid 1 (ip) uid 0 (root) unit -, namespace depth 1, target depth 1: allowed (complain mode)" \
	"2024-01-05T12:34:56+0100 web2 capuns[9]: cap-denied: cap_sys_admin pid 2 (sh) uid 1 (daemon) unit -, namespace depth 1, target depth 1: Operation not permitted" >"$tmp.log"
vg "capuns learn --journal (two hosts, an unknown capability)" 0 "$cli" learn --journal "$tmp.log" - <"$tmp.log"
vg "capuns learn --for=@ops --journal" 0 "$cli" learn --for=@ops --journal "$tmp.log"
vg "capuns learn --journal of a missing file" 1 "$cli" learn --journal "$tmp.log" "$tmp.missing"
vg "capuns-bpf status --reload (usage error)" 2 "$root/build/capuns-bpf" status --reload
done_testing
