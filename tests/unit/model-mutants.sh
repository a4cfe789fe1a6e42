#!/usr/bin/env bash
# Each deliberately broken model (model/internal.h, CAPMODEL_MUTATION=N)
# must fail some hand-worked case of model-rules: the cases pin every rule
# down, rule 12 (mutation 10) included, which the differential runner
# cannot exercise (it has no ptrace).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/guest/tap.sh"

for bin in "$root"/build/tests/unit/model-rules-mutant-*; do
	n=${bin##*-}
	out=$("$bin" 2>&1)
	failed=$(printf '%s\n' "$out" | grep -c '^not ok')
	if [ "$failed" -gt 0 ]; then
		ok "mutation $n is caught ($failed cases fail, first: $(printf '%s\n' "$out" |
			grep -m1 '^not ok' | sed 's/^not ok [0-9]* - //'))"
	else
		not_ok "mutation $n passes every case of model-rules"
	fi
done
[ "$TAP_N" -gt 0 ] || not_ok "no mutant binaries under build/tests/unit"
done_testing
