#!/bin/sh
# capuns reports what the backend enforces, on both backends.  On a stock
# kernel /proc shows full sets in every new user namespace, while the BPF
# backend denies what pU lacks: `capuns check` and `capuns --print` must
# follow the backend, not /proc.  After dropping cap_net_admin from pU,
# for depths 1 to 8: check exits 3 and --print's effective set lacks it.
. /capuns/tests/tap.sh

UNSHARE=/usr/bin/unshare
if [ "$CAPUNS_TARGET" = stock ]; then
	check "the BPF backend is loaded" capuns bpf load
fi
backend=$(capuns --print | sed -n 's/^backend: *\([a-z]*\).*/\1/p')
case "$CAPUNS_TARGET:$backend" in
patched:kernel | stock:bpf) ok "capuns uses the $backend backend" ;;
*) not_ok "capuns uses the backend of $CAPUNS_TARGET (got '$backend')"; done_testing ;;
esac

# nest N: "unshare -r" N times, for a command line.
nest() {
	i=0 s=
	while [ $i -lt "$1" ]; do s="$s $UNSHARE -r"; i=$((i + 1)); done
	echo "$s"
}

# effective_hex OUTPUT: the hex of the effective line of capuns --print.
effective_hex() { printf '%s\n' "$1" | awk '$1 == "effective" { print $3 }'; }

for n in 1 2 3 4 5 6 7 8; do
	out=$(as_user capuns --drop=cap_net_admin -- capuns check cap_net_admin --depth=$n 2>&1)
	expect_eq "depth $n: capuns check cap_net_admin exits 3 after the drop" "$?" 3
	expect_match "depth $n: check says effective=no at depth $n" "$out" \
		"^depth $n: cap_net_admin effective=no "

	# shellcheck disable=SC2046
	out=$(as_user capuns --drop=cap_net_admin -- $(nest $n) capuns --print 2>&1)
	eff=$(effective_hex "$out")
	if [ -n "$eff" ] && [ $((0x$eff & (1 << 12))) -eq 0 ] && [ $((0x$eff & (1 << 21))) -ne 0 ]; then
		ok "depth $n: --print's effective set lacks cap_net_admin, has cap_sys_admin"
	else
		not_ok "depth $n: --print's effective set lacks cap_net_admin (got '$eff')"
		printf '%s\n' "$out" | sed 's/^/#   /'
	fi
	if [ "$backend" = bpf ]; then
		expect_match "depth $n: --print says what /proc shows instead" "$out" \
			"^kernel view: /proc shows .*effective=all.*; the bpf backend enforces the sets above$"
	else
		check_fails "depth $n: no kernel view line where the kernel enforces its sets" \
			sh -c 'printf "%s\n" "$1" | grep -q "^kernel view"' - "$out"
	fi
done

# Controls: what pU keeps is reported available at every depth.
check "control: cap_sys_admin stays available down to depth 8" \
	as_user capuns --drop=cap_net_admin -- capuns check cap_sys_admin --depth=8
check "control: without a drop cap_net_admin is available down to depth 8" \
	as_user capuns check cap_net_admin --depth=8
out=$(as_user $(nest 2) capuns --print 2>&1)
eff=$(effective_hex "$out")
expect_eq "control: without a drop the effective set is full at depth 2" \
	"$(printf '%s\n' "$out" | awk '$1 == "effective" { print $4 }')" "all"

# Another task's enforced sets, by pid (the task iterator on BPF).  Not
# as_user in the background: $! would be a subshell, not the holder.
/usr/bin/setpriv --reuid=$UNPRIV_UID --regid=$UNPRIV_GID --init-groups --reset-env -- \
	capuns --drop=cap_net_admin -- $UNSHARE -r /bin/sleep 30 &
holder=$!
for _ in $(seq 50); do
	[ "$(cat /proc/$holder/comm 2>/dev/null)" = sleep ] && \
		[ "$(readlink /proc/$holder/ns/user)" != "$(readlink /proc/self/ns/user)" ] && break
	sleep 0.1
done
out=$(capuns --print --pid=$holder 2>&1)
eff=$(effective_hex "$out")
if [ -n "$eff" ] && [ $((0x$eff & (1 << 12))) -eq 0 ]; then
	ok "--pid: another task's effective set lacks cap_net_admin"
else
	not_ok "--pid: another task's effective set lacks cap_net_admin (got '$eff')"
	printf '%s\n' "$out" | sed 's/^/#   /'
fi
kill $holder 2>/dev/null
wait $holder 2>/dev/null

if [ "$CAPUNS_TARGET" = stock ]; then
	check "the BPF backend unloads" capuns bpf unload
fi
done_testing
