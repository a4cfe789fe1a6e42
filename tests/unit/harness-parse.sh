#!/usr/bin/env bash
# Unit test of the result parser shared by guest and host runs: every way a
# test can fail must come out as FAIL, and forged markers must not count.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/guest/tap.sh"

parse() { awk -v nonce=n0nce -v prefix=t/ -v expect="$1" -v need_done="$2" \
	-f "$root/vm/tap-results.awk"; }

out=$(printf '%s\n' '@@CAPUNS:n0nce BEGIN a' 'ok 1 - one' 'ok 2 - two # SKIP why' \
	'@@CAPUNS:n0nce END a 0' '@@CAPUNS:n0nce DONE 0' | parse a 1)
expect_eq "passing and skipped results" "$out" "PASS t/a: one
SKIP t/a: two (skipped: why)"

out=$(printf '%s\n' '@@CAPUNS:n0nce BEGIN a' 'ok 1 - one' 'not ok 2 - two' \
	'@@CAPUNS:n0nce END a 1' '@@CAPUNS:n0nce DONE 1' | parse a 1)
expect_match "a not ok line is a failure" "$out" '^FAIL t/a: two$'

out=$(printf '%s\n' '@@CAPUNS:n0nce BEGIN a' 'hello' '@@CAPUNS:n0nce END a 0' \
	'@@CAPUNS:n0nce DONE 0' | parse a 1)
expect_match "a test that asserts nothing fails" "$out" '^FAIL t/a: no result reported'

out=$(printf '%s\n' '@@CAPUNS:n0nce BEGIN a' 'ok 1 - one' '@@CAPUNS:n0nce END a 2' \
	'@@CAPUNS:n0nce DONE 1' | parse a 1)
expect_match "nonzero exit without not ok fails" "$out" '^FAIL t/a: exit status 2'

out=$(printf '%s\n' '@@CAPUNS:n0nce BEGIN a' 'ok 1 - one' '@@CAPUNS:n0nce END a 143' \
	'@@CAPUNS:n0nce DONE 1' | parse a 1)
expect_match "a timed-out test fails" "$out" '^FAIL t/a: timed out'

out=$(printf '%s\n' '@@CAPUNS:n0nce BEGIN a' '@@CAPUNS:n0nce END a 124' \
	'@@CAPUNS:n0nce DONE 1' | parse a 1)
expect_eq "a test stopped at its limit before any result says it timed out" "$out" \
	'FAIL t/a: timed out'

out=$(printf '%s\n' '@@CAPUNS:n0nce BEGIN a' 'ok 1 - one' | parse a 1)
expect_match "a test that never ends fails" "$out" '^FAIL t/a: did not finish'
expect_match "a run without DONE fails" "$out" '^FAIL t/\(run\): no DONE'

out=$(printf '%s\n' '@@CAPUNS:n0nce DONE 0' | parse "a b" 1)
expect_match "a test that never started fails" "$out" '^FAIL t/b: never started'

out=$(printf '%s\n' '@@CAPUNS:n0nce BEGIN a' 'not ok 1 - bad' '@@CAPUNS:forged END a 0' \
	'@@CAPUNS:forged DONE 0' '@@CAPUNS:n0nce END a 1' '@@CAPUNS:n0nce DONE 1' | parse a 1)
expect_match "markers with another nonce are ignored" "$out" '^FAIL t/a: bad$'

out=$(printf '%s\r\n' '@@CAPUNS:n0nce BEGIN a' 'ok 1 - crlf' \
	'[    3.1] random: crng init done @@CAPUNS:n0nce END a 0' '@@CAPUNS:n0nce DONE 0' | parse a 1)
expect_eq "CRLF and text before a marker are tolerated" "$out" "PASS t/a: crlf"

out=$(printf '%s\n' '@@CAPUNS:n0nce BEGIN k' 'TAP version 13' '1..1' \
	'ok 1 global.thing # SKIP no feature' '@@CAPUNS:n0nce END k 4' '@@CAPUNS:n0nce DONE 0' | parse k 1)
expect_eq "kselftest all-skip exit 4 is not a failure" "$out" "SKIP t/k: global.thing (skipped: no feature)"

out=$(printf '%s\n' '@@CAPUNS:n0nce BEGIN a' 'ok 1 - one' 'ok 2 - two' '1..3' \
	'@@CAPUNS:n0nce END a 0' '@@CAPUNS:n0nce DONE 0' | parse a 1)
expect_match "fewer results than planned fail" "$out" '^FAIL t/a: planned 3 results, reported 2$'
out=$(printf '%s\n' '@@CAPUNS:n0nce BEGIN a' '1..1' 'ok 1 - one' 'ok 2 - two' \
	'@@CAPUNS:n0nce END a 0' '@@CAPUNS:n0nce DONE 0' | parse a 1)
expect_match "more results than planned fail" "$out" '^FAIL t/a: planned 1 results, reported 2$'
out=$(printf '%s\n' '@@CAPUNS:n0nce BEGIN a' '1..1' 'ok 1 - one' '1..1' \
	'@@CAPUNS:n0nce END a 0' '@@CAPUNS:n0nce DONE 0' | parse a 1)
expect_match "two plans fail" "$out" '^FAIL t/a: 2 TAP plans'
out=$(printf '%s\n' '@@CAPUNS:n0nce BEGIN a' 'ok 1 - one' '# 1..5' '    1..7' '1..1' \
	'@@CAPUNS:n0nce END a 0' '@@CAPUNS:n0nce DONE 0' | parse a 1)
expect_eq "a plan that matches passes; commented or indented ones are not the test's" \
	"$out" 'PASS t/a: one'

out=$(printf '%s\n' '@@CAPUNS:n0nce BEGIN k' 'TAP version 13' '1..0 # SKIP no feature here' \
	'@@CAPUNS:n0nce END k 4' '@@CAPUNS:n0nce DONE 0' | parse k 1)
expect_eq "a kselftest that skips everything (a 1..0 plan with a skip) shows as SKIP" "$out" \
	'SKIP t/k: all of it (skipped: no feature here)'
out=$(printf '%s\n' '@@CAPUNS:n0nce BEGIN k' '1..0 # SKIP why' \
	'@@CAPUNS:n0nce END k 1' '@@CAPUNS:n0nce DONE 0' | parse k 1)
expect_match "...but not when it exits 1" "$out" '^FAIL t/k: no result reported'
out=$(printf '%s\n' '@@CAPUNS:n0nce BEGIN k' '1..0' \
	'@@CAPUNS:n0nce END k 0' '@@CAPUNS:n0nce DONE 0' | parse k 1)
expect_match "...nor with an empty plan and no skip" "$out" '^FAIL t/k: no result reported'

# The host runner: a result on stderr does not count, one on stdout does.
td=$(mktemp -d)
tf=$(mktemp)
trap 'rm -rf "$tf" "$td"' EXIT
printf '#!/bin/sh\necho "ok 1 - said on stderr" >&2\n' >"$td/errout"
printf '#!/bin/sh\necho "ok 1 - said on stdout"; echo "ok 2 - said on stderr" >&2\n' >"$td/both"
chmod +x "$td/errout" "$td/both"
out=$("$root/tests/run-unit" "$td/errout" "$td/both")
rc=$?
expect_eq "run-unit: results on stderr are not results" "$out" \
	"FAIL host/errout: no result reported (a test must assert something); exit 0
PASS host/both: said on stdout"
expect_eq "run-unit: ...and the run fails" "$rc" 1

out=$(printf '%s\n' '@@CAPUNS:n0nce BEGIN a 3.25' 'ok 1 - one' '@@CAPUNS:n0nce END a 0 10.75' \
	'@@CAPUNS:n0nce BEGIN b' 'ok 1 - two' '@@CAPUNS:n0nce END b 0' '@@CAPUNS:n0nce DONE 0' |
	awk -v nonce=n0nce -v prefix=t/ -v expect="a b" -v need_done=1 -v timefile="$tf" \
		-f "$root/vm/tap-results.awk")
expect_eq "times on the markers do not change the results" "$out" $'PASS t/a: one\nPASS t/b: two'
expect_eq "... and each timed test's seconds go to the time file" "$(cat "$tf")" "t/a 7.5"

done_testing
