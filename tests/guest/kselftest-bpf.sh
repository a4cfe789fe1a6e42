#!/bin/sh
# The tree's own BPF selftests that the series changes (deny_namespace),
# built by vm/build-kernel as a test_progs holding only them, at
# /capuns/bpf-selftests/. Each result test_progs prints becomes one TAP
# line; a run that reports nothing or exits nonzero fails.
. /capuns/tests/tap.sh
dir=/capuns/bpf-selftests
tests=deny_namespace
[ -x "$dir/test_progs" ] || { not_ok "no BPF selftest runner at $dir/test_progs"; done_testing; }
for t in $tests; do
	(cd "$dir" && ./test_progs -t "$t") >/tmp/test_progs.out 2>&1
	rc=$?
	sed 's/^/# /' /tmp/test_progs.out
	# "#12/1    deny_namespace/unpriv_userns_create_no_bpf:OK", "#12 deny_namespace:OK"
	sed -n -E 's/^#[0-9]+(\/[0-9]+)?[[:space:]]+([^:[:space:]]+):(OK|FAIL|SKIP)$/\3 \2/p' \
		/tmp/test_progs.out >/tmp/test_progs.results
	[ -s /tmp/test_progs.results ] || not_ok "$t: test_progs reported no result (exit $rc)"
	while read -r verdict name; do
		case $verdict in
		OK) ok "test_progs: $name" ;;
		SKIP) skip "test_progs: $name" "test_progs skipped it" ;;
		*) not_ok "test_progs: $name" ;;
		esac
	done </tmp/test_progs.results
	[ $rc = 0 ] || not_ok "$t: test_progs exited $rc"
done
done_testing
