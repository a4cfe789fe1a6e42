#!/usr/bin/env bash
# vm/post-series: the series leaves for posting signed by git's identity.
# Only the placeholder's From: and Signed-off-by: lines change, for each
# series; without an identity, or with the placeholder as identity, or
# into a folder that is not empty, it fails and writes nothing.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/guest/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
placeholder="capuns developers <dev@capuns.invalid>"
# Outside any repository, with a git config of the test's own; the name
# holds characters sed would read as special.
cd "$tmp" || exit 1
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$tmp/gitconfig
post() { "$root/vm/post-series" "$@" 2>"$tmp/err"; }

: >"$tmp/gitconfig"
check_fails "no git identity: refused" post 6.1 "$tmp/none"
check_fails "... and nothing written" test -e "$tmp/none"

git config --global user.name "capuns developers"
git config --global user.email dev@capuns.invalid
check_fails "the placeholder as identity: refused" post 6.1 "$tmp/placeholder"

git config --global user.name 'Ada & Co | O\Brien'
git config --global user.email ada@example.org
me='Ada & Co | O\Brien <ada@example.org>'
for series in 6.1 6.12; do
	src=$root/kernel/patches/linux-$series out=$tmp/$series
	check "$series: the series is copied out" post "$series" "$out"
	expect_eq "... every file of it" "$(ls "$out")" "$(ls "$src")"
	expect_eq "... no placeholder From: or Signed-off-by: left" \
		"$(grep -hxcF -e "From: $placeholder" -e "Signed-off-by: $placeholder" "$out"/*.patch | sort -u)" 0
	expect_eq "... each placeholder line now names git's identity" \
		"$(grep -hxF -e "From: $me" -e "Signed-off-by: $me" "$out"/*.patch | wc -l)" \
		"$(grep -hxF -e "From: $placeholder" -e "Signed-off-by: $placeholder" "$src"/*.patch | wc -l)"
	changed=$(diff -r "$src" "$out" | grep '^[<>]' | grep -vxF -e "< From: $placeholder" \
		-e "< Signed-off-by: $placeholder" -e "> From: $me" -e "> Signed-off-by: $me")
	expect_eq "... and no other line changed" "$changed" ""
done
check_fails "a folder that is not empty: refused" post 6.1 "$tmp/6.1"
expect_match "... saying why" "$(cat "$tmp/err")" "not empty"
check_fails "an unknown series: refused" post 5.10 "$tmp/old"
done_testing
