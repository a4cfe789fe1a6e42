#!/bin/sh
# The shell-script macro workload: ITERATIONS rounds of small text work,
# each one a handful of fork/exec of ordinary tools (no setuid, no
# namespaces): what a build script or a CI job does most of the time.
n=${1:-100}
dir=$(mktemp -d) || exit 1
i=0
while [ $i -lt "$n" ]; do
	printf 'alpha %d\nbeta %d\ngamma %d\n' $i $i $i >"$dir/in"
	grep -c a "$dir/in" >/dev/null || exit 1
	sed 's/a/A/g' "$dir/in" >"$dir/out" || exit 1
	wc -l <"$dir/out" >/dev/null || exit 1
	cat "$dir/in" "$dir/out" | sort >/dev/null || exit 1
	i=$((i + 1))
done
rm -rf "$dir"
