#!/usr/bin/bash
# Runs in the guest (stock kernel): where the BPF backend's cost goes on
# the hot paths.  Prints
#   BENCH <config> <name> <ns/op> <iterations>   capuns-bench per config
#   PROF <name> <program> <runs/op> <ns/op>      bpf_stats per program
# Configs: detached, attached (every hook), only-<prog> (one hook's link
# kept), and attached while another process holds restricted credentials.
. /capuns/tests/tap.sh
PIN=/sys/fs/bpf/capuns
benches=setuid,sethostname_userns,prctl_is_set,fork_exit

bench() {
	local config=$1
	capuns-bench "$benches" | sed "s/^BENCH /BENCH $config /"
}

# name run_time_ns run_cnt, per loaded program
prog_stats() {
	bpftool prog show | awk '/^[0-9]+:/ {
		n = t = c = ""
		for (i = 1; i < NF; i++) {
			if ($i == "name") n = $(i + 1)
			if ($i == "run_time_ns") t = $(i + 1)
			if ($i == "run_cnt") c = $(i + 1)
		}
		if (n ~ /^capuns_/) print n, t + 0, c + 0
	}'
}

capuns-bpf unload >/dev/null 2>&1
bench detached
capuns-bpf load >/dev/null || { not_ok "capuns-bpf load"; done_testing; }
bench attached

# bpf_stats: run count and time of each program body (the trampoline's
# own work is outside run_time_ns).  With -icount, ns are instructions.
echo 1 >/proc/sys/kernel/bpf_stats_enabled
for b in $(echo "$benches" | tr , ' '); do
	before=$(prog_stats)
	out=$(capuns-bench "$b")
	after=$(prog_stats)
	n=$(echo "$out" | awk '{ print $4 }')
	echo "$out" | sed "s/^BENCH /BENCH attached-stats /"
	# capuns-bench runs a tenth of the iterations untimed first
	printf '%s\n%s\n' "$before" "$after" | awk -v b="$b" -v ops="$((n + n / 10))" '
		{ if ($1 in t0) { dt = $2 - t0[$1]; dc = $3 - c0[$1]
		    if (dc > 0) printf "PROF %s %s %.3f %.1f\n", b, $1, dc / ops, dt / ops }
		  else { t0[$1] = $2; c0[$1] = $3 } }'
done
echo 0 >/proc/sys/kernel/bpf_stats_enabled

# One hook at a time: the others' links are unpinned (detached).
for h in capuns_capable capuns_cred_prepare capuns_cred_free capuns_task_prctl; do
	capuns-bpf unload >/dev/null 2>&1
	capuns-bpf load >/dev/null || { not_ok "capuns-bpf load"; done_testing; }
	for l in "$PIN"/links/*; do
		[ "${l##*/}" = "$h" ] || rm -f "$l"
	done
	bench "only-${h#capuns_}"
done

# Unrestricted bench, while another process holds N restricted credentials.
for n in 1000 10000; do
	capuns-bpf unload >/dev/null 2>&1
	capuns-bpf load >/dev/null || { not_ok "capuns-bpf load"; done_testing; }
	capuns-bench --hold-creds=$n >/tmp/held &
	holder=$!
	for _ in $(seq 300); do grep -q HELD /tmp/held && break; sleep 0.2; done
	diag "$(capuns-bpf status | grep credentials)"
	bench "attached-others-$n"
	kill $holder
	wait $holder 2>/dev/null
done
capuns-bpf unload >/dev/null 2>&1
ok "profile ran"
done_testing
