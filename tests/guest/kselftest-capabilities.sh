#!/bin/sh
# The kernel's own tools/testing/selftests/capabilities programs, built
# against the booted kernel's tree (vm/build-kernel), must pass on every
# kernel we build. validate_cap is a helper of test_execve, not a test.
# Each program's TAP lines are prefixed with its name.
# test_userns_caps narrows kernel.cap_userns_mask (by CAP_SYS_RAWIO) only
# when asked: this suite asks, and runs it after the other mask readers.
# This script's own results are numbered too: the harness counts only
# numbered TAP lines.
dir=/capuns/kselftests
status=0 ran=0 n=0
own() { n=$((n + 1)); echo "$1 $n - $2"; }
for t in "$dir"/*; do
	name=${t##*/}
	[ -x "$t" ] && [ "$name" != validate_cap ] || continue
	ran=$((ran + 1))
	# results come from its stdout only; its stderr is shown as comments
	(cd "$dir" && USERNS_CAPS_NARROW_MASK=1 "./$name") >/tmp/kselftest.out 2>/tmp/kselftest.err
	rc=$?
	# test_execve says only "Passed": name each result after the last
	# "[RUN]" line it printed, so results can be told apart.
	awk -v p="$name" '
		/\[RUN\]/ { ctx = $0; sub(/.*\[RUN\][ \t]*/, "", ctx) }
		match($0, /^(not )?ok [0-9]+ /) {
			d = substr($0, RLENGTH + 1)
			print substr($0, 1, RLENGTH) p ": " d (ctx != "" && d !~ /#/ ? " [" ctx "]" : "")
			next
		}
		{ print "# " $0 }' /tmp/kselftest.out
	sed 's/^/# stderr: /' /tmp/kselftest.err
	# kselftest exits 4 (KSFT_SKIP) when it skipped everything
	[ $rc = 0 ] || [ $rc = 4 ] || { own "not ok" "$name exited $rc"; status=1; }
	# A program that reports no result at all ("1..0 # SKIP why", exit 4)
	# shows as one SKIP, else as a failure: it must not vanish. The
	# series' own program without the series is checked below.
	if ! grep -qE '^(not )?ok [0-9]+ ' /tmp/kselftest.out &&
		! { [ "$name" = test_userns_caps ] && [ "$CAPUNS_TARGET" = unpatched ]; }; then
		why=$(sed -n 's/^1\.\.0 # SKIP \(..*\)/\1/p' /tmp/kselftest.out)
		if [ $rc = 4 ] && [ -n "$why" ]; then
			own ok "$name: every test skipped # SKIP $why"
		else
			own "not ok" "$name reported no result (exit $rc)"
			status=1
		fi
	fi
	# Without the series (unpatched), its selftest must skip every test,
	# each with a reason, and fail none.
	if [ "$name" = test_userns_caps ] && [ "$CAPUNS_TARGET" = unpatched ]; then
		results=$(grep -cE '^(not )?ok [0-9]+ ' /tmp/kselftest.out)
		skipped=$(grep -cE '^ok [0-9]+ .*# SKIP .' /tmp/kselftest.out)
		plan_skip=$(sed -n 's/^1\.\.0 # SKIP \(..*\)/\1/p' /tmp/kselftest.out)
		if [ $rc = 4 ] && [ "$results" = 0 ] && [ -n "$plan_skip" ]; then
			own ok "test_userns_caps without the series: skips as a whole, exit 4: $plan_skip"
		elif [ "$results" -gt 0 ] && [ "$results" = "$skipped" ]; then
			own ok "test_userns_caps without the series: all $results tests skip with a reason"
		else
			own "not ok" "test_userns_caps without the series: $skipped of $results tests skip"
			status=1
		fi
	fi
done
[ $ran -gt 0 ] || { own "not ok" "no kernel selftest found in $dir"; status=1; }
exit $status
