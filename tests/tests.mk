# The tests: one fragment per test folder, each named here.  tests/lib
# comes first (the others use its variables in their prerequisites).
# tests/unit and tests/diff have their own (tests/unit/unit.mk,
# model/model.mk).
include tests/lib/lib.mk
include tests/guest/guest.mk
include tests/attacks/attacks.mk
include tests/fuzz/fuzz.mk

# The harness's own unit test (host side: result parsing).
UNIT_TESTS += tests/unit/harness-parse.sh

# The installed programs under valgrind (host, error paths included).
UNIT_TESTS += tests/unit/valgrind.sh
tests/unit/valgrind.sh: $(B)/capuns $(B)/capuns-bpf
