#!/usr/bin/bash
# Memory of the BPF backend: what bpftool charges each map, and how many
# credential entries 10,000 live restricted credentials and 1,000 live user
# namespaces below a restricted task (plus one chain at the deepest level)
# take.  The credential map is preallocated: its memory is fixed at load,
# whatever is in use; the numbers are printed as diagnostics
# ("# memory: ...") for bench/results and bpf/README.md.
. /capuns/tests/tap.sh
. /capuns/bin/bpf-test-lib.sh
require_stock
fresh_unload
capuns-bpf load >/dev/null 2>&1 || { not_ok "capuns-bpf load"; done_testing; }

used() { capuns-bpf status | sed -n 's/^credentials: \([0-9]*\) of .*/\1/p'; }

# memlock of one map, in bytes, from bpftool (pinned map or map id)
memlock() { bpftool map show "$@" | sed -n 's/.*memlock \([0-9]*\)B.*/\1/p'; }

# The object's own .bss (the credential filter) is not pinned: find it by name.
bss_id=$(bpftool map show | sed -n 's/^\([0-9]*\): array  name capuns_b\.bss .*/\1/p' | head -1)
total=0
for m in creds config events; do
	b=$(memlock pinned $PIN/$m)
	diag "memory: map $m memlock $b bytes ($(bpftool map show pinned $PIN/$m | grep -o 'max_entries [0-9]*'))"
	total=$((total + ${b:-0}))
done
if [ -n "$bss_id" ]; then
	b=$(memlock id "$bss_id")
	diag "memory: map .bss (credential filter) memlock $b bytes"
	total=$((total + ${b:-0}))
fi
diag "memory: all maps memlock $total bytes"
memlock0=$(memlock pinned $PIN/creds)
base=$(used)
diag "memory: entries in use at rest: $base"

# wait_held FILE: until the holder wrote HELD (at most 300 s: a loaded host)
wait_held() {
	for _ in $(seq 3000); do
		grep -q HELD "$1" && return 0
		kill -0 $holder 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# until_used N: until at most N entries are in use (frees go through RCU)
until_used() {
	for _ in $(seq 100); do
		[ "$(used)" -le "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

capuns-bench --hold-creds=10000 >/tmp/held 2>&1 &
holder=$!
if wait_held /tmp/held; then
	n=$(used)
	diag "memory: 10000 restricted credentials held: $n entries in use, creds memlock $(memlock pinned $PIN/creds) bytes"
	if [ $((n - base)) -ge 10000 ]; then ok "every held credential has an entry"; else
		not_ok "10000 held credentials, only $((n - base)) new entries"; fi
	expect_eq "the preallocated map's memlock does not grow" "$(memlock pinned $PIN/creds)" "$memlock0"
else
	not_ok "holding 10000 restricted credentials: $(cat /tmp/held)"
fi
kill $holder; wait $holder 2>/dev/null
if until_used $((base + 2)); then ok "their entries are freed with them"; else
	not_ok "entries left after the holder exited: $(used) (at rest: $base)"; fi

t0=$(date +%s)
capuns-bench --hold-userns=1000 >/tmp/held 2>&1 &
holder=$!
if wait_held /tmp/held; then
	diag "memory: 1001 holders ready in $(($(date +%s) - t0)) s"
	n=$(used)
	diag "memory: 1000 user namespaces below a restricted task, one chain 33 deep: $n entries in use"
	if [ $((n - base)) -ge 1001 ]; then ok "every namespace's credential has an entry"; else
		not_ok "1001 namespaces held, only $((n - base)) new entries"; fi
	expect_eq "the map's memlock does not grow" "$(memlock pinned $PIN/creds)" "$memlock0"
else
	not_ok "holding 1000 user namespaces and a 33-deep chain: $(cat /tmp/held)"
fi
kill $holder; wait $holder 2>/dev/null
until_used $((base + 2)) || not_ok "entries left after the namespaces ended: $(used) (at rest: $base)"
capuns-bpf unload >/dev/null 2>&1
done_testing
