#!/usr/bin/bash
# capuns-bpf load is all or nothing.  The loader is killed with SIGKILL
# after each of its steps in turn (its test hook
# CAPUNS_BPF_TEST_KILL_STEP=N); after every kill either nothing enforces
# and status says not loaded, or the whole backend enforces; status
# accounts for every hook left attached; and the next load succeeds,
# enforces, and leaves nothing of the killed one behind.  A reload killed
# at any step leaves every hook enforcing; unload removes what a killed
# load left.
#
# Each step takes some 13 s on a TCG guest. A traced load
# (CAPUNS_BPF_TEST_KILL_STEP=trace) names the steps first. The first and
# the last link pin (one hook pinned; every hook pinned, nothing
# published) and the last step are interrupted on every kernel; of the
# others, the stock 6.1 and 6.12 runs each take every second, so that
# make check, which runs both, interrupts every step once. Any other
# kernel takes all of them.
. /capuns/tests/tap.sh
. /capuns/bin/bpf-test-lib.sh
require_stock
fresh_unload

STAGE=$PIN-new
HOOKS=17

# Hook links of capuns programs attached in the kernel, whoever holds
# them (the task iterator's link is not a hook).
hook_links() {
	local ids
	ids=$(bpftool -j prog show | jq -c '[.[] | select(.name // "" | startswith("capuns_")) | .id]')
	bpftool -j link show | jq --argjson ids "$ids" \
		'[.[] | select(.type != "iter" and (.prog_id as $p | $ids | index($p) != null))] | length'
}

# What alice's lowered CAP_NET_ADMIN does to ip link add in a new netns:
# refused (enforced), allowed, or no-lowering (libcapuns finds no backend).
netadmin() {
	local out rc
	out=$(as_user $UNS lower cap_net_admin -- /usr/bin/unshare -U -r -n /bin/ip link add d0 type dummy 2>&1)
	rc=$?
	case $out in
	*"bpf-uns: lower:"*) echo no-lowering ;;
	*"Operation not permitted"*) echo refused ;;
	*) if [ $rc = 0 ]; then echo allowed; else echo "error: $out"; fi ;;
	esac
}

# The number status reports attached: of the loaded backend, or left by
# an interrupted load; empty when it reports none.
status_attached() {
	sed -nE -e 's/^hooks: ([0-9]+) of [0-9]+ attached.*/\1/p' \
		-e 's/.*interrupted load left ([0-9]+) of [0-9]+ hooks attached.*/\1/p' <<<"$1" | head -1
}

# This run's share of the steps not interrupted on every kernel: the
# SHARE-th of every two (make check runs it on the 6.1 and 6.12 images).
case "${CAPUNS_KERNEL:-}" in
stock) share=0 ;;
stock-6.12) share=1 ;;
*) share=all ;;
esac
# trace_steps ARGS...: a load (capuns-bpf load ARGS) that names its steps;
# sets nsteps, step_what[N], first_link and last_link (the steps that pin
# the first and the last hook's link), planned (the steps this run
# interrupts) and skipped (those left to the other kernels' runs).
trace_steps() {
	local out n what i=0
	nsteps=0 step_what=() planned=() skipped=() first_link= last_link=
	out=$(CAPUNS_BPF_TEST_KILL_STEP=trace capuns-bpf load "$@" 2>&1) ||
		{ not_ok "traced load ($*) failed"; diag "$out"; return 1; }
	while read -r n what; do
		step_what[n]=$what
		nsteps=$n
		if [[ $what == "pinned "*/links*/* ]]; then
			: "${first_link:=$n}"
			last_link=$n
		fi
	done <<<"$(sed -n 's/.*test hook [A-Z_]*: step \([0-9]*\), /\1 /p' <<<"$out")"
	if [ -z "$first_link" ] || [ $((last_link - first_link + 1)) != $HOOKS ]; then
		not_ok "the traced load ($*) pins $HOOKS hook links in a row (steps '$first_link' to '$last_link')"
		return 1
	fi
	for n in $(seq 1 "$nsteps"); do
		if [ $n = "$first_link" ] || [ $n = "$last_link" ] || [ $n = "$nsteps" ] || [ $share = all ]; then
			planned+=($n)
			continue
		fi
		if [ $((i % 2)) = $share ]; then planned+=($n); else skipped+=($n); fi
		i=$((i + 1))
	done
	diag "the load ($*) has $nsteps steps, link pins $first_link to $last_link; this run interrupts ${planned[*]}; left to the other kernels' runs: ${skipped[*]:-none}"
}

# killed_load STEP ARGS...: capuns-bpf load ARGS killed after STEP; sets
# rc, out and what, and checks that it was the traced step.
killed_load() {
	local step=$1
	shift
	out=$(CAPUNS_BPF_TEST_KILL_STEP=$step capuns-bpf load "$@" 2>&1)
	rc=$?
	what=$(sed -n 's/.*killed after step [0-9]*, //p' <<<"$out")
	if [ $rc != 137 ] || [ "$what" != "${step_what[step]}" ]; then
		not_ok "step $step: the loader was killed by its test hook after '${step_what[step]}' (exit $rc, '$what')"
		diag "$out"
		return 1
	fi
}

complete_seen=0 interrupted=0
trace_steps
fresh_unload
load_first_link=$first_link
for step in "${planned[@]}"; do
	if ! killed_load $step; then
		fresh_unload
		continue
	fi
	interrupted=$((interrupted + 1))
	links=$(hook_links)
	status=$(capuns-bpf status 2>&1)
	src=$?
	first=$(head -1 <<<"$status")
	reported=$(status_attached "$status")
	backend=$($UNS backend)
	enforce=$(netadmin)
	diag "step $step ($what): $links hook links attached; status: $first; backend $backend; alice: $enforce"
	# Either the whole backend, loaded and enforcing...
	if [ $src = 0 ] && [ "$reported" = $HOOKS ] && [ "$links" = $HOOKS ] &&
		[ "$backend" = bpf ] && [ "$enforce" = refused ]; then
		ok "killed after step $step ($what): the whole backend is loaded and enforces"
	# ... or every hook of an interrupted load, enforcing, and status says so ...
	elif [ $src != 0 ] && [[ $first == *"not loaded"* ]] && [ "$reported" = $HOOKS ] &&
		[ "$links" = $HOOKS ] && [ "$backend" = bpf ] && [ "$enforce" = refused ]; then
		ok "killed after step $step ($what): every hook enforces, status reports the unpublished load"
		complete_seen=$step
		# A restriction set now must survive the next load (published, not dropped).
		spawn_as_user $UNS lower cap_sys_admin -- /usr/bin/sleep 60
		holder=$SPAWNED
		wait_comm $holder sleep
	# ... or nothing enforces, status says not loaded and counts what is
	# still attached: links live only while pinned or held.
	elif [ $src != 0 ] && [[ $first == *"not loaded"* ]] && [ "${reported:-0}" = "$links" ] &&
		[ "$backend" = none ] && [ "$enforce" = no-lowering ]; then
		ok "killed after step $step ($what): nothing enforces, status says not loaded, $links hook(s) accounted for"
	else
		not_ok "killed after step $step ($what): a state between nothing and everything"
		printf '%s\n' "$status" | sed 's/^/#   /'
	fi

	out=$(capuns-bpf load 2>&1)
	rc=$?
	status=$(capuns-bpf status 2>&1)
	src=$?
	links=$(hook_links)
	enforce=$(netadmin)
	if [ $rc = 0 ] && [ $src = 0 ] && [ "$(status_attached "$status")" = $HOOKS ] &&
		[ "$links" = $HOOKS ] && [ ! -e "$STAGE" ] && [ "$enforce" = refused ]; then
		ok "killed after step $step: the next load succeeds and enforces, nothing of the killed one left"
	else
		not_ok "killed after step $step: the next load (exit $rc, status exit $src, $links hook links, alice: $enforce)"
		printf '%s\n%s\n' "$out" "$status" | sed 's/^/#   /'
	fi
	if [ "$complete_seen" = $step ]; then
		pu=$($UNS get $holder)
		case $pu in
		0x*) if has_cap "$pu" $CAP_SYS_ADMIN; then
			not_ok "a restriction set before the next load was dropped by it ($pu)"
		else ok "a restriction set before the next load survives it"; fi ;;
		*) not_ok "the holder's pU is unreadable after the next load: '$pu'" ;;
		esac
		kill $holder 2>/dev/null
		wait $holder 2>/dev/null
	fi
	capuns-bpf unload >/dev/null 2>&1
	links=$(hook_links)
	if [ "$links" != 0 ] || [ -e "$PIN" ] || [ -e "$STAGE" ]; then
		not_ok "step $step: unload left $links hook links, $(ls -d $PIN $STAGE 2>/dev/null)"
	fi
done
expect_eq "every step this run takes was interrupted (${planned[*]} of $nsteps)" "$interrupted" ${#planned[@]}
if [ "$complete_seen" != 0 ]; then ok "a load killed with every hook pinned was published by the next one"; else
	not_ok "no step left every hook pinned and unpublished: publishing it is untested"; fi

# A reload killed after each of its steps leaves the backend whole: links/
# holds the old programs or the new ones, never fewer (duplicates pinned
# in links-new/ may stay attached until the next load).
fresh_unload
capuns-bpf load >/dev/null 2>&1 || not_ok "load before the reloads"
spawn_as_user $UNS lower cap_sys_admin -- /usr/bin/sleep 600
holder=$SPAWNED
wait_comm $holder sleep
interrupted=0
trace_steps --reload
for step in "${planned[@]}"; do
	killed_load $step --reload || continue
	status=$(capuns-bpf status 2>&1)
	src=$?
	links=$(hook_links)
	enforce=$(netadmin)
	pu=$($UNS get $holder)
	diag "reload step $step ($what): $links hook links attached; alice: $enforce; holder $pu"
	if [ $rc = 137 ] && [ -n "$what" ] && [ $src = 0 ] &&
		[ "$(status_attached "$status")" = $HOOKS ] && [ "$links" -ge $HOOKS ] &&
		[ "$enforce" = refused ] && [[ $pu == 0x* ]] && ! has_cap "$pu" $CAP_SYS_ADMIN; then
		ok "reload killed after step $step ($what): every hook enforces, the holder stays restricted"
		interrupted=$((interrupted + 1))
	else
		not_ok "reload killed after step $step ($what): exit $rc, status exit $src, holder '$pu'"
		printf '%s\n%s\n' "$out" "$status" | sed 's/^/#   /'
	fi
done
expect_eq "every step of the reload this run takes was interrupted (${planned[*]} of $nsteps)" \
	"$interrupted" ${#planned[@]}
expect_eq "the reload that finished left no duplicate attached" "$(hook_links)" $HOOKS
pu=$($UNS get $holder)
if [[ $pu == 0x* ]] && ! has_cap "$pu" $CAP_SYS_ADMIN; then ok "the holder is still restricted"; else
	not_ok "the holder's pU after the reloads: '$pu'"; fi
kill $holder 2>/dev/null
wait $holder 2>/dev/null

# unload removes what a killed load left, too.
fresh_unload
# killed after the second link pin: two hooks attached, nothing enforces
step=$((load_first_link + 1))
CAPUNS_BPF_TEST_KILL_STEP=$step capuns-bpf load >/dev/null 2>&1
links=$(hook_links)
diag "killed after step $step: $links hook links attached"
json=$(capuns-bpf status --json)
expect_eq "status --json reports them" "$(jq -c .interrupted_load <<<"$json")" \
	"{\"path\":\"$STAGE\",\"hooks\":$HOOKS,\"attached\":$links,\"enforcing\":false}"
check "unload after a killed load succeeds" capuns-bpf unload
expect_eq "unload detached every hook link the killed load left" "$(hook_links)" 0
if [ -e "$PIN" ] || [ -e "$STAGE" ]; then not_ok "unload left $(ls -d $PIN $STAGE 2>/dev/null)"; else
	ok "unload removed the killed load's pins"; fi
expect_eq "status then says not loaded and nothing more" "$(capuns-bpf status 2>&1)" \
	"capuns BPF backend: not loaded"
done_testing
