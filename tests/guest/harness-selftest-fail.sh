#!/bin/sh
# Deliberately failing guest test: used only by tests/harness-check to show
# that a failing guest test fails the run. Listed in no suite.
. /capuns/tests/tap.sh
ok "a passing result before the failure"
not_ok "this result must be reported as FAIL"
done_testing
