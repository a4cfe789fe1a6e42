#!/bin/sh
# Runs in the guest for bench/run. capuns.bench=CONFIG[,CONFIG...] on the
# kernel command line names the configurations to alternate in this boot,
# capuns.rounds=N how many rounds. Prints "BENCH <config> <round> <name>
# <ns/op> <iterations>" lines, plus TAP so the harness checks each round ran.
. /capuns/tests/tap.sh
configs= rounds=1
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	capuns.bench=*) configs=$(echo "${arg#*=}" | tr , ' ') ;;
	capuns.rounds=*) rounds=${arg#*=} ;;
	esac
done
[ -n "$configs" ] || { not_ok "no capuns.bench= configuration given"; done_testing; }

# An unrestricted run while another process keeps N restricted credentials
# alive: the BPF backend's cost for the tasks it leaves alone on a host
# where it restricts others.
bench_with_others() {
	capuns-bench --hold-creds="$1" >/tmp/held &
	holder=$!
	i=0
	until grep -q HELD /tmp/held; do
		i=$((i + 1))
		[ $i -le 600 ] && kill -0 $holder 2>/dev/null || { echo "holder failed" >&2; return 1; }
		sleep 0.1
	done
	capuns-bench
	rc=$?
	kill $holder
	wait $holder 2>/dev/null
	return $rc
}

# Each configuration is a way to run capuns-bench in this boot.
run_config() {
	case "$1" in
	unpatched | unpatched-aa | patched-full) capuns-bench ;;
	patched-restricted) capuns-bench --restrict ;;
	# the 6.12 series against the same 6.12 build without it
	unpatched-6.12 | unpatched-6.12-aa | patched-6.12-full) capuns-bench ;;
	patched-6.12-restricted) capuns-bench --restrict ;;
	# the BPF backend, detached and attached in the same boot
	stock-detached) capuns-bpf unload >/dev/null 2>&1; capuns-bench ;;
	stock-attached) capuns-bpf load >/dev/null && capuns-bench ;;
	stock-attached-others) capuns-bpf load >/dev/null && bench_with_others 1000 ;;
	stock-attached-restricted) capuns-bpf load >/dev/null && capuns-bench --restrict ;;
	*) echo "unknown configuration $1" >&2; return 2 ;;
	esac
}

r=1
while [ $r -le "$rounds" ]; do
	for c in $configs; do
		if out=$(run_config "$c"); then
			printf '%s\n' "$out" | sed "s/^BENCH /BENCH $c $r /"
			ok "$c round $r"
		else
			not_ok "$c round $r"
		fi
	done
	r=$((r + 1))
done
done_testing
