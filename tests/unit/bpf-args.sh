#!/usr/bin/env bash
# capuns-bpf rejects bad input before touching anything: unknown commands,
# unknown options, options of another command and malformed numbers all
# exit 2 with a message (checked on the host, where nothing can load).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/guest/tap.sh"
bin=$root/build/capuns-bpf

usage_error() { # NAME ARGS...
	local name=$1 rc err
	shift
	err=$("$bin" "$@" 2>&1 >/dev/null)
	rc=$?
	if [ $rc = 2 ] && [ -n "$err" ]; then ok "$name"; else
		not_ok "$name (exit $rc, message '$err')"; fi
}
usage_error "no command" 
usage_error "unknown command" bogus
usage_error "unknown option" status --nope
usage_error "--json does not apply to unload" unload --json
usage_error "--reload does not apply to status" status --reload
usage_error "--count does not apply to load" load --count=3
usage_error "--max-creds does not apply to monitor" monitor --max-creds=5
usage_error "a stray argument" status extra
usage_error "--max-creds=0" load --max-creds=0
usage_error "--max-creds=abc" load --max-creds=abc
usage_error "--max-creds-per-uid=0" load --max-creds-per-uid=0
usage_error "--max-creds-per-uid does not apply to status" status --max-creds-per-uid=5
usage_error "--timeout=-1" monitor --timeout=-1
usage_error "--count=1x" monitor --count=1x
out=$("$bin" status --json 2>/dev/null); rc=$?
expect_eq "status --json with nothing loaded exits 1" "$rc" 1
if printf '%s\n' "$out" | jq -e '.loaded == false' >/dev/null 2>&1; then
	ok "status --json with nothing loaded: JSON saying so (jq -e)"
else
	not_ok "status --json with nothing loaded: JSON saying so (got '$out')"
fi
out=$("$bin" help 2>&1); rc=$?
expect_eq "help exits 0" "$rc" 0
expect_match "help lists the commands" "$out" "capuns-bpf monitor"
done_testing
