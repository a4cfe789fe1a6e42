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

# capuns.bench=scale (bench/scale): owner_check with 1 to all CPUs' worth
# of threads, rounds times, and nothing else in this boot.
if [ "$configs" = scale ]; then
	cpus=$(grep -c '^processor' /proc/cpuinfo)
	diag "scale: $cpus CPUs"
	capuns-bench --scale="$cpus" >/dev/null 2>&1 # warm-up
	r=1
	while [ $r -le "$rounds" ]; do
		if out=$(capuns-bench --scale="$cpus"); then
			printf '%s\n' "$out" | sed "s/^BENCH /BENCH scale $r /"
			ok "scale round $r ($cpus CPUs)"
		else
			not_ok "scale round $r"
		fi
		r=$((r + 1))
	done
	done_testing
fi

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

# The restricted run while capuns-bpf monitor --journal (what
# capuns-log.service runs) reads the events, its output to a file. Then
# no count may be lost: every denial of the run is a journal line, or
# counted as rate-limited or lost, and said so by the writer's report.
status_count() { capuns-bpf status --json | tr ',{' '\n\n' | sed -n "s/^\"$1\":\([0-9]*\)\$/\1/p"; }
bench_with_journal() {
	local d0 l0 o0 rc lines d l o
	d0=$(status_count denials) l0=$(status_count limited_events) o0=$(status_count lost_events)
	capuns-bpf monitor --journal >/tmp/journal.out 2>/tmp/journal.err &
	writer=$!
	sleep 1
	capuns-bench --restrict
	rc=$?
	sleep 11 # the writer's next count report
	kill $writer
	wait $writer 2>/dev/null
	d=$(( $(status_count denials) - d0 )) l=$(( $(status_count limited_events) - l0 ))
	o=$(( $(status_count lost_events) - o0 ))
	lines=$(grep -c '^<4>cap-denied:' /tmp/journal.out)
	# denials by noaudit probes send no event: at most as many lines as denials
	if [ $((lines + l + o)) -le "$d" ] && [ $((lines + l + o)) -gt 0 ] &&
		grep -q "events not logged" /tmp/journal.out; then
		echo "# journal: $d denials, $lines lines, $l rate-limited, $o lost (reported)" >&2
	else
		echo "journal writer lost counts: $d denials, $lines lines, $l limited, $o lost" >&2
		return 1
	fi
	return $rc
}

# After an unload the kernel frees the programs later (on 6.12, two were
# still loaded 2 s after it, none after 20 s): a detached run must not
# start before, or it measures the release.
wait_released() {
	i=0
	while bpftool prog show 2>/dev/null | grep -Eq ' name (capuns|floor)_'; do
		i=$((i + 1))
		[ $i -le 600 ] || { echo "capuns or floor programs still loaded 60 s after unload" >&2; return 1; }
		sleep 0.1
	done
}

# run_floor NAME: capuns-bench with only the empty programs of one way to
# attach: capable (lsm/capable), capable-task (lsm/capable looking up a
# task storage), capable-taskptr (the same, skipped when the task has no
# local storage at all), fmod (fmod_ret/security_capable), cred
# (lsm/capable with cred_prepare and cred_free: the credential map's
# hooks), task (capable-taskptr with lsm/task_alloc: a per-task state's
# hooks).
run_floor() {
	local progs rc
	case "$1" in
	capable) progs=capable ;;
	capable-task) progs=capable_task ;;
	capable-taskptr) progs=capable_taskptr ;;
	fmod) progs=fmod_capable ;;
	cred) progs="capable cred_prepare cred_free" ;;
	task) progs="capable_taskptr task_alloc" ;;
	*) echo "unknown floor $1" >&2; return 2 ;;
	esac
	capuns-bpf unload >/dev/null 2>&1
	wait_released || return 1
	capuns-floor attach $progs || return 1
	capuns-bench
	rc=$?
	capuns-floor detach || return 1
	wait_released || return 1
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
	# the BPF backend, detached and attached in the same boot (stock 6.1;
	# stock-6.12-*: the same on Debian's stock 6.12)
	stock-detached | stock-6.12-detached | stock-detached-aa | stock-6.12-detached-aa)
		capuns-bpf unload >/dev/null 2>&1
		wait_released || return 1
		capuns-bench ;;
	stock-attached | stock-6.12-attached) capuns-bpf load >/dev/null && capuns-bench ;;
	stock-attached-others | stock-6.12-attached-others)
		capuns-bpf load >/dev/null && bench_with_others 1000 ;;
	stock-attached-restricted | stock-6.12-attached-restricted)
		capuns-bpf load >/dev/null && capuns-bench --restrict ;;
	# restricted again, with complain mode on (every refusal becomes a
	# report), or with the journal writer reading every event
	stock-attached-complain | stock-6.12-attached-complain)
		capuns-bpf load >/dev/null && capuns complain on >/dev/null || return 1
		capuns-bench --restrict
		rc=$?
		capuns complain off >/dev/null
		return $rc ;;
	stock-attached-journal | stock-6.12-attached-journal)
		capuns-bpf load >/dev/null && bench_with_journal ;;
	# trampoline floors: programs that decide nothing (bench/floor.bpf.c),
	# the backend unloaded
	stock-floor-* | stock-6.12-floor-*) run_floor "${1#*-floor-}" ;;
	*) echo "unknown configuration $1" >&2; return 2 ;;
	esac
}

# ---- macro workloads: what users feel -----------------------------------
# Each runs a real client N times (capuns-bench --repeat). In a restricted
# configuration the workloads run with pU lowered by the capuns CLI, and
# the login rule restricts alice's session; the caps dropped are ones none
# of them needs (bwrap --unshare-all sets up loopback, which needs
# CAP_NET_ADMIN inside). capuns.macro=LOGINS,SANDBOXES,SHELLRUNS on the
# command line sets the counts (default 200,200,10; a shell run is
# bench-macro-shell.sh with 20 iterations, 100 commands), 0,0,0 skips.
macro_drop=cap_sys_rawio,cap_bpf,cap_sys_module
macro_counts=200,200,10
for arg in $(cat /proc/cmdline); do
	case "$arg" in capuns.macro=*) macro_counts=${arg#*=} ;; esac
done
IFS=, read -r n_login n_sandbox n_shell <<EOF_COUNTS
$macro_counts
EOF_COUNTS
# su -l's PAM service: no authentication from root, pam_capuns in the session.
cat >/etc/pam.d/su-l <<'EOF_PAM'
auth	sufficient	pam_rootok.so
auth	required	pam_deny.so
account	required	pam_permit.so
session	required	pam_capuns.so
session	required	pam_permit.so
EOF_PAM
# bwrap's pivot_root(2) refuses the initramfs as root: run it below a bind
# mount of /, moved onto / (as userspace-cli.sh does).
in_bindroot() {
	/usr/bin/unshare -m /bin/sh -c 'mkdir -p /run/bindroot &&
		/bin/mount -o rbind / /run/bindroot && cd /run/bindroot &&
		/bin/mount -o move . / && exec /usr/sbin/chroot . "$@"' sh "$@"
}
as_alice="/usr/bin/setpriv --reuid=1000 --regid=1000 --init-groups --reset-env --"
run_macro() {
	local pre=
	case "$1" in
	*-floor-*) return 0 ;; # the floors are measured on the system calls only
	*restricted)
		pre="/usr/local/bin/capuns --drop=$macro_drop --"
		printf '!%s  alice\n' "$(echo $macro_drop | sed 's/,/,!/g')" >/etc/security/capuns.conf ;;
	*) printf '!cap_sys_rawio  no-such-user-here\n' >/etc/security/capuns.conf ;;
	esac
	chmod 0644 /etc/security/capuns.conf
	[ "$n_login" -gt 0 ] && { capuns-bench --repeat login "$n_login" -- /usr/bin/su -l alice -c true || return 1; }
	[ "$n_sandbox" -gt 0 ] && { in_bindroot $as_alice $pre /usr/local/bin/capuns-bench --repeat sandbox \
		"$n_sandbox" -- /usr/bin/bwrap --unshare-all --bind / / /bin/true || return 1; }
	[ "$n_shell" -gt 0 ] && { $pre capuns-bench --repeat shell "$n_shell" -- /bin/sh \
		/capuns/tests/bench-macro-shell.sh 20 || return 1; }
	return 0
}

# One untimed pass first: right after boot the guest still does work of
# its own (seen on 6.12 as a first configuration up to 60 % slower), which
# -icount charges to whatever runs.
capuns-bench >/dev/null 2>&1
sleep 5

r=1
while [ $r -le "$rounds" ]; do
	for c in $configs; do
		if out=$(run_config "$c" && run_macro "$c"); then
			printf '%s\n' "$out" | sed "s/^BENCH /BENCH $c $r /"
			ok "$c round $r"
		else
			not_ok "$c round $r"
		fi
	done
	r=$((r + 1))
done
done_testing
