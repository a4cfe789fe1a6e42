# Turn a marked test log into one result line per TAP result.
#
# Input: lines "@@CAPUNS:<nonce> BEGIN <test> [<time>]", the test's own
# output (TAP), "@@CAPUNS:<nonce> END <test> <exit status> [<time>]", and
# finally
# "@@CAPUNS:<nonce> DONE <failures>". Markers with another nonce are test
# output like any other. Used for guest serial logs and host unit tests.
#
# Output: "PASS|FAIL|SKIP <prefix><test>: <description>" lines.
# A test fails as a whole when it reports no result (it asserts nothing),
# exits nonzero without a "not ok", never reaches END (crash, hang), or
# reports more or fewer results than its plan ("1..N") says, or more than
# one plan. A plan of no results with a skip ("1..0 # SKIP why") and no
# result is one SKIP. The runners send a test's stderr as comment lines:
# results count from its stdout only.
#
# Variables: nonce (required), prefix (e.g. "patched/"), expect (space-
# separated test names that must all appear), need_done (1: a missing DONE
# marker is a failure: the guest died), timefile (where to append
# "<prefix><test> <seconds>" for each test whose markers carry times).

function emit(status, test, desc) {
	printf "%s %s%s: %s\n", status, prefix, test, desc
	count[status]++
}
function finish(test, rc,    kskip, whole_skip) {
	# kselftest exits 4 (KSFT_SKIP) when every result was a skip
	kskip = (rc == 4 && results[test] > 0 && results[test] == skips[test])
	# "1..0 # SKIP why" and nothing else: the whole test skipped
	whole_skip = (results[test] == 0 && plans[test] == 1 && planned[test] == 0 &&
		      (test in plan_skip) && (rc == 0 || rc == 4))
	# timeout(1) ends a test past its limit: 124, or 143 (SIGTERM)
	if (rc == 124 || rc == 143)
		emit("FAIL", test, "timed out")
	else if (whole_skip)
		emit("SKIP", test, "all of it (skipped: " plan_skip[test] ")")
	else if (results[test] == 0)
		emit("FAIL", test, "no result reported (a test must assert something); exit " rc)
	else if (rc != 0 && fails[test] == 0 && !kskip)
		emit("FAIL", test, "exit status " rc)
	if (rc != 124 && rc != 143) {
		if (plans[test] > 1)
			emit("FAIL", test, plans[test] " TAP plans (one at most)")
		else if (plans[test] == 1 && planned[test] != results[test])
			emit("FAIL", test, "planned " planned[test] " results, reported " results[test])
	}
	ended[test] = 1
}
BEGIN { if (nonce == "") { print "tap-results.awk: nonce not set" > "/dev/stderr"; exit 2 } }
{ sub(/\r+$/, "") }
index($0, "@@CAPUNS:" nonce " ") {
	line = substr($0, index($0, "@@CAPUNS:" nonce " "))
	n = split(line, f, " ")
	if (f[2] == "BEGIN") {
		cur = f[3]; seen[cur] = 1; order[++norder] = cur
		if (n >= 4) began[cur] = f[4]
		next
	}
	if (f[2] == "END") {
		finish(f[3], f[4] + 0)
		if (timefile != "" && n >= 5 && (f[3] in began))
			printf "%s%s %.1f\n", prefix, f[3], f[5] - began[f[3]] >> timefile
		cur = ""
		next
	}
	if (f[2] == "DONE") { done = 1; next }
	next
}
# A plan: "1..N", optionally "# SKIP why" (kselftest's plan is indented
# in no test of ours; an indented one belongs to a subtest).
cur != "" && /^1\.\.[0-9]+/ {
	l = $0
	plans[cur]++
	planned[cur] = substr(l, 4) + 0
	if (match(l, /#[ \t]*[Ss][Kk][Ii][Pp]/)) {
		reason = substr(l, RSTART + RLENGTH)
		sub(/^[ \t:]*/, "", reason)
		sub(/[ \t]+$/, "", reason)
		plan_skip[cur] = reason == "" ? "no reason given" : reason
	}
	next
}
cur != "" && /^[ \t]*(not )?ok [0-9]+/ {
	l = $0
	sub(/^[ \t]*/, "", l)
	bad = (l ~ /^not /)
	sub(/^(not )?ok [0-9]+[ \t]*(- )?/, "", l)
	status = bad ? "FAIL" : "PASS"
	if (match(l, /#[ \t]*[Ss][Kk][Ii][Pp]/)) {
		desc = substr(l, 1, RSTART - 1)
		reason = substr(l, RSTART + RLENGTH)
		sub(/^[ \t:]*/, "", reason)
		sub(/[ \t]+$/, "", desc)
		if (!bad) { status = "SKIP"; l = desc " (skipped: " (reason == "" ? "no reason given" : reason) ")"; skips[cur]++ }
	}
	if (l == "") l = "result " (results[cur] + 1)
	results[cur]++
	if (bad) fails[cur]++
	emit(status, cur, l)
	next
}
END {
	for (i = 1; i <= norder; i++)
		if (!(order[i] in ended))
			emit("FAIL", order[i], "did not finish (crash, hang or timeout of the whole run)")
	n = split(expect, want, " ")
	for (i = 1; i <= n; i++)
		if (!(want[i] in seen))
			emit("FAIL", want[i], "never started")
	if (need_done && !done)
		emit("FAIL", "(run)", "no DONE marker: the run did not complete")
}
