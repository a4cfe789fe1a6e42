#!/usr/bin/env bash
# capuns-boot, what capuns-bpf.service runs, on the host with stand-in
# /proc and securityfs files: a kernel with the series loads nothing and
# succeeds; an LSM list without bpf fails and names the lsm= argument to
# add; an unreadable list fails; anything but start|reload|stop is a
# usage error (stop: tests/unit/system-unit.sh); a kernel built with the
# series warns when the installed linux-source is newer. (The system test runs it
# for real at boot.)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/guest/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -s -C "$root" WERROR=-Werror install DESTDIR="$tmp/dest" >/dev/null 2>&1 ||
	{ not_ok "make install"; done_testing; }
boot=$tmp/dest/usr/local/libexec/capuns/capuns-boot

printf 'Name:\tx\nCapBnd:\t000001ffffffffff\nCapAmb:\t0000000000000000\n' >"$tmp/stock-status"
{ cat "$tmp/stock-status"; printf 'CapUNs:\t000001ffffffffff\n'; } >"$tmp/patched-status"
echo 'lockdown,capability,landlock,yama,apparmor' >"$tmp/lsm-nobpf"

out=$(CAPUNS_STATUS_FILE=$tmp/patched-status CAPUNS_LSM_FILE=$tmp/lsm-nobpf CAPUNS_MASK_DROP= \
	"$boot" start 2>&1); rc=$?
expect_eq "kernel with the series: start succeeds" "$rc" 0
expect_match "and says the kernel backend is active" "$out" "kernel backend active"

# The stale-kernel warning: uname and dpkg-query stand in for the
# running kernel and the installed linux-source.
mkdir -p "$tmp/bin"
stale() { # RELEASE SOURCE-STATUS-AND-VERSION
	printf '#!/bin/sh\necho %s\n' "$1" >"$tmp/bin/uname"
	printf '#!/bin/sh\nprintf %%s "%s"\n' "$2" >"$tmp/bin/dpkg-query"
	chmod +x "$tmp/bin/uname" "$tmp/bin/dpkg-query"
	out=$(PATH=$tmp/bin:$PATH CAPUNS_STATUS_FILE=$tmp/patched-status CAPUNS_LSM_FILE=$tmp/lsm-nobpf \
		CAPUNS_MASK_DROP= JOURNAL_STREAM=8:1 "$boot" start 2>&1); rc=$?
}
stale 6.1.158-capuns 'ii 6.1.160-1'
expect_eq "a -capuns kernel older than the installed linux-source: start succeeds" "$rc" 0
expect_match "... and warns, at warning priority, naming both versions and the rebuild" "$out" \
	"^<4>capuns: warning: linux-source-6.1 6.1.160-1 is newer than the running kernel 6.1.158-capuns:.*no Debian security update.*make kernel-deb"
stale 6.12.48-capuns 'ii 6.12.48-1~bpo12+1'
expect_eq "the same upstream version (a backport): no warning" "$(grep -c warning <<<"$out")" 0
stale 6.1.160-capuns 'ii 6.1.158-1'
expect_eq "a kernel newer than the source: no warning" "$(grep -c warning <<<"$out")" 0
stale 6.1.158-capuns 'un '
expect_eq "linux-source not installed: no warning" "$(grep -c warning <<<"$out")" 0
stale 6.1.0-28-amd64 'ii 6.1.160-1'
expect_eq "Debian's own kernel: no warning" "$(grep -c warning <<<"$out")" 0

out=$(CAPUNS_STATUS_FILE=$tmp/stock-status CAPUNS_LSM_FILE=$tmp/lsm-nobpf "$boot" start 2>&1); rc=$?
expect_eq "bpf not in the LSM list: start fails" "$rc" 1
expect_match "and names the argument to add" "$out" \
	"Add 'lsm=lockdown,capability,landlock,yama,apparmor,bpf' to the kernel command line"
expect_match "and says nothing is restricted" "$out" "NOT restricted"

out=$(CAPUNS_STATUS_FILE=$tmp/stock-status CAPUNS_LSM_FILE=$tmp/missing "$boot" start 2>&1); rc=$?
expect_eq "an unreadable LSM list: start fails" "$rc" 1
expect_match "and says why" "$out" "cannot read"

for a in "" bogus start-now; do
	# shellcheck disable=SC2086
	"$boot" $a >/dev/null 2>&1; rc=$?
	expect_eq "capuns-boot '$a': usage error" "$rc" 2
done
done_testing
