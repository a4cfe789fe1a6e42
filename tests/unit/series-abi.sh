#!/usr/bin/env bash
# Each kernel series defines the ABI numbers of include/capuns-abi.h, the
# one statement of them outside the series: in its uapi headers and in
# the fallback defines of its selftest (test_userns_caps.c), which a
# build against headers without the series uses. A fallback that
# disagrees makes the selftest flip another bit on such a build (8/9 are
# mainline's exec securebits since 6.14).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/guest/tap.sh"
CC=${CC:-cc}
names="PR_CAP_USERNS PR_CAP_USERNS_IS_SET PR_CAP_USERNS_RAISE PR_CAP_USERNS_LOWER
	PR_CAP_USERNS_CLEAR_ALL SECURE_USERNS_STRICT_CAPS SECURE_USERNS_STRICT_CAPS_LOCKED
	CAP_SYS_CONTROL"
abi=$(printf '#include "capuns-abi.h"\n' | "$CC" -E -dM -I"$root/include" -x c - 2>/dev/null)
[ -n "$abi" ] || { not_ok "include/capuns-abi.h preprocesses"; done_testing; }
abi_value() { awk -v n="$1" '$1 == "#define" && $2 == n { print $3 }' <<<"$abi"; }
# the value of each added "#define NAME VALUE" line of FILES, one a line
series_values() { # NAME FILE...
	local name=$1
	shift
	sed -n -E "s/^\+#[[:space:]]*define[[:space:]]+$name[[:space:]]+([0-9]+).*/\1/p" "$@"
}
for dir in "$root"/kernel/patches/*/; do
	series=$(basename "$dir")
	selftest=$(grep -l '^+++ b/tools/testing/selftests/capabilities/test_userns_caps.c' "$dir"*.patch)
	others=$(grep -L '^+++ b/tools/testing/selftests/capabilities/test_userns_caps.c' "$dir"0[0-9]*.patch)
	[ -n "$selftest" ] || { not_ok "$series: a patch adds test_userns_caps.c"; continue; }
	for name in $names; do
		want=$(abi_value "$name")
		[ -n "$want" ] || { not_ok "capuns-abi.h defines $name"; continue; }
		# shellcheck disable=SC2086 # a list of files
		expect_eq "$series: the uapi headers define $name as capuns-abi.h does" \
			"$(series_values "$name" $others | sort -u)" "$want"
		expect_eq "$series: the selftest's fallback $name is capuns-abi.h's" \
			"$(series_values "$name" "$selftest" | sort -u)" "$want"
	done
done
done_testing
