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
# The steps that pin one hook's link each run the same code with one link
# more; each takes some 13 s on a TCG guest. The first and the last of
# them (every hook pinned, nothing published) are interrupted on every
# kernel; of the ones between, the stock 6.1 run takes the odd ones and
# the stock 6.12 run the even ones, so that make check, which runs both,
# interrupts every step once. Any other kernel takes all of them.
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

case "${CAPUNS_KERNEL:-}" in
stock) link_steps=odd ;;
stock-6.12) link_steps=even ;;
*) link_steps=all ;;
esac
# skip_step STEP: whether this run leaves STEP to the other kernel's. The
# caller sets first_link to the first link pin's step once it has seen it.
skip_step() {
	local i
	[ -n "$first_link" ] && [ $link_steps != all ] || return 1
	i=$(($1 - first_link))
	[ $i -gt 0 ] && [ $i -lt $((HOOKS - 1)) ] || return 1
	case $link_steps in odd) [ $((i % 2)) = 0 ] ;; even) [ $((i % 2)) = 1 ] ;; esac
}
# is_link_step STEP WHAT: note the first link pin; a step inside the run of
# link pins must be one (else the loader's steps changed under this test).
is_link_step() {
	local pinned=0
	[[ $2 == "pinned "*/links*/* ]] && pinned=1
	if [ -z "$first_link" ]; then
		[ $pinned = 1 ] && first_link=$1
	elif [ $(($1 - first_link)) -lt $HOOKS ] && [ $pinned = 0 ]; then
		not_ok "step $1 ($2) was to pin a hook's link: update this test's idea of the loader's steps"
	fi
}

last=
complete_seen=0
first_link=
skipped=()
for step in $(seq 1 60); do
	if skip_step $step; then skipped+=($step); continue; fi
	out=$(CAPUNS_BPF_TEST_KILL_STEP=$step capuns-bpf load 2>&1)
	rc=$?
	if [ $rc = 0 ]; then
		last=$((step - 1))
		break
	fi
	what=$(sed -n 's/.*killed after step [0-9]*, //p' <<<"$out")
	if [ $rc != 137 ] || [ -z "$what" ]; then
		not_ok "step $step: the loader was killed by its test hook (exit $rc)"
		diag "$out"
		fresh_unload
		continue
	fi
	is_link_step $step "$what"
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
if [ -n "$last" ]; then
	diag "the load has $last steps; link pins from step $first_link; left to the other kernel's run: ${skipped[*]:-none}"
	[ "$last" -gt $HOOKS ] && ok "every step of the load was interrupted once ($last, $link_steps link pins between the first and the last)" ||
		not_ok "only $last steps: the test hook is not reached after each pin"
	[ -n "$first_link" ] && [ $((last - first_link + 1)) -ge $HOOKS ] ||
		not_ok "the link pins (from step '$first_link' to $last) are fewer than the $HOOKS hooks"
else
	not_ok "the load never finished without the test hook's kill"
fi
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
rlast=
first_link=
skipped=()
for step in $(seq 1 60); do
	if skip_step $step; then skipped+=($step); continue; fi
	out=$(CAPUNS_BPF_TEST_KILL_STEP=$step capuns-bpf load --reload 2>&1)
	rc=$?
	if [ $rc = 0 ]; then
		rlast=$((step - 1))
		break
	fi
	what=$(sed -n 's/.*killed after step [0-9]*, //p' <<<"$out")
	is_link_step $step "$what"
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
	else
		not_ok "reload killed after step $step ($what): exit $rc, status exit $src, holder '$pu'"
		printf '%s\n%s\n' "$out" "$status" | sed 's/^/#   /'
	fi
done
diag "the reload has $rlast steps; link pins from step $first_link; left to the other kernel's run: ${skipped[*]:-none}"
if [ -n "$rlast" ] && [ "$rlast" -gt $HOOKS ]; then ok "every step of the reload was interrupted once ($rlast, $link_steps link pins between the first and the last)"; else
	not_ok "the reload's steps: '$rlast'"; fi
expect_eq "the reload that finished left no duplicate attached" "$(hook_links)" $HOOKS
pu=$($UNS get $holder)
if [[ $pu == 0x* ]] && ! has_cap "$pu" $CAP_SYS_ADMIN; then ok "the holder is still restricted"; else
	not_ok "the holder's pU after the reloads: '$pu'"; fi
kill $holder 2>/dev/null
wait $holder 2>/dev/null

# unload removes what a killed load left, too.
fresh_unload
for step in $(seq 1 "${last:-0}"); do
	CAPUNS_BPF_TEST_KILL_STEP=$step capuns-bpf load >/dev/null 2>&1
	links=$(hook_links)
	[ "$links" -gt 0 ] && [ "$links" -lt $HOOKS ] && break
done
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
