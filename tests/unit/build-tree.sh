#!/usr/bin/env bash
# The build tree's programs run from the build tree as they are, after a
# plain make: build/capuns finds the libcapuns.so.0 and the capuns-bpf
# beside it (capuns bpf ..., capuns monitor run that loader, with their
# arguments), wherever the tree is; the program make install installs
# carries no runpath and runs the loader's installed path.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/guest/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CAPUNS_BACKEND=none
unset LD_LIBRARY_PATH
b=$root/build

out=$("$b/capuns" --print 2>&1); rc=$?
expect_eq "build/capuns --print runs without LD_LIBRARY_PATH" "$rc" 0
expect_match "and prints the sets" "$out" "^userns +CapUNs"
lib=$(ldd "$b/capuns" | awk '$1 == "libcapuns.so.0" { print $3 }')
expect_eq "build/capuns loads the build tree's libcapuns.so.0" \
	"$(readlink -f "$lib")" "$(readlink -f "$b/libcapuns.so.0")"

out=$("$b/capuns" bpf --help 2>&1); rc=$?
expect_eq "build/capuns bpf --help runs build/capuns-bpf" "$rc" 0
expect_eq "with capuns-bpf's own help" "$out" "$("$b/capuns-bpf" --help 2>&1)"

# A copy of the tree's program and library beside a stand-in loader that
# records how it was run: the loader beside the program runs, never one
# found on PATH.
mkdir -p "$tmp/tree" "$tmp/bin"
cp "$b/capuns" "$b/libcapuns.so.0" "$tmp/tree/"
printf '#!/bin/sh\necho "$0 $*" >%s/ran\n' "$tmp" >"$tmp/tree/capuns-bpf"
printf '#!/bin/sh\necho "PATH $*" >%s/ran\n' "$tmp" >"$tmp/bin/capuns-bpf"
chmod +x "$tmp/tree/capuns-bpf" "$tmp/bin/capuns-bpf"
for args in "bpf status --json" "monitor --json --count=1"; do
	rm -f "$tmp/ran"
	# shellcheck disable=SC2086
	PATH=$tmp/bin:$PATH "$tmp/tree/capuns" $args >/dev/null 2>&1
	want="$tmp/tree/capuns-bpf ${args#bpf }"
	expect_eq "capuns $args runs the capuns-bpf beside it" "$(cat "$tmp/ran" 2>/dev/null)" "$want"
done
rm "$tmp/tree/capuns-bpf"
out=$("$tmp/tree/capuns" bpf status 2>&1); rc=$?
expect_eq "no capuns-bpf beside it: exit 127" "$rc" 127
expect_match "naming the path it tried" "$out" "cannot run $tmp/tree/capuns-bpf"

# What make install installs: no runpath (Debian's packages must have none),
# the same program otherwise.
for f in install/capuns capuns-bpf pam_capuns.so libcapuns.so.0; do
	paths=$(readelf -d "$b/$f" 2>&1 | grep -E 'R(UN)?PATH')
	expect_eq "build/$f (installed as it is) has no rpath or runpath" "$paths" ""
done
expect_eq "build/install/capuns --version" \
	"$(LD_LIBRARY_PATH=$b "$b/install/capuns" --version)" "$("$b/capuns" --version)"
done_testing
