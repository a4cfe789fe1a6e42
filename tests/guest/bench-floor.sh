#!/usr/bin/bash
# make bench's trampoline floors (bench/floor.bpf.c, attached by
# capuns-floor): each empty program loads, attaches and detaches on this
# kernel, and decides nothing while attached, so that a benchmark run
# measures the attachment and nothing else.
. /capuns/tests/tap.sh
. /capuns/bin/bpf-test-lib.sh

require_stock
fresh_unload

programs=$(capuns-floor list)
# the sets make bench attaches (bench/guest-bench.sh, run_floor) need these
for p in capable capable_task capable_taskptr fmod_capable cred_prepare cred_free task_alloc; do
	printf '%s\n' "$programs" | grep -qx "$p" || not_ok "capuns-floor list lacks $p"
done
for p in $programs; do
	if ! out=$(capuns-floor attach $p 2>&1); then
		not_ok "$p: attach failed: $out"
		continue
	fi
	if [ -e /sys/fs/bpf/capuns-floor/$p ] && [ -n "$(bpftool prog show name "floor_$p" 2>/dev/null)" ]; then
		ok "$p: attached and pinned"
	else
		not_ok "$p: no pinned link or no loaded program after attach"
	fi
	# a user namespace with its root mapped and a hostname set in it: the
	# capability checks the benchmarks make, answered as without programs
	out=$(as_user /usr/bin/unshare -r -u /usr/bin/bash -c 'hostname floor && hostname' 2>&1)
	expect_eq "$p: capability checks answer as the kernel does" "$out" floor
	if capuns-floor detach && [ ! -e /sys/fs/bpf/capuns-floor ]; then
		ok "$p: detached, pins removed"
	else
		not_ok "$p: detach left /sys/fs/bpf/capuns-floor"
	fi
done

# bad input: nothing attached, a clear error, a nonzero exit
out=$(capuns-floor attach capable no-such-program 2>&1)
rc=$?
if [ $rc -ne 0 ] && [ ! -e /sys/fs/bpf/capuns-floor/capable ]; then
	expect_match "an unknown program: refused, nothing attached" "$out" "no program 'no-such-program'"
else
	not_ok "an unknown program: exit $rc, capable pinned: $([ -e /sys/fs/bpf/capuns-floor/capable ] && echo yes || echo no)"
fi
capuns-floor detach >/dev/null 2>&1
out=$(capuns-floor 2>&1)
rc=$?
[ $rc -eq 2 ] && expect_match "no arguments: usage, exit 2" "$out" "usage" ||
	not_ok "no arguments: exit $rc"

done_testing
