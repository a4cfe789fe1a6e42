#!/usr/bin/env bash
# capuns-bpf.service as installed: its hardening, measured by systemd's
# own yardstick (systemd-analyze security, offline), stays under a limit;
# stopping it says the backend stays loaded; unit errors reach the journal
# at error priority (capuns-boot's "<3>" prefix under JOURNAL_STREAM); a
# bad CAPUNS_MODE fails the unit.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/guest/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -s -C "$root" WERROR=-Werror install DESTDIR="$tmp/dest" >/dev/null 2>&1 ||
	{ not_ok "make install"; done_testing; }
unit=$tmp/dest/usr/local/lib/systemd/system/capuns-bpf.service
[ -f "$unit" ] || unit=$(find "$tmp/dest" -name capuns-bpf.service | head -1)
boot=$(find "$tmp/dest" -name capuns-boot | head -1)

# Exposure: 0 (locked down) to 10 (unsafe). The unit loads BPF-LSM
# programs, so it keeps CAP_SYS_ADMIN and CAP_BPF whatever else it gives
# up; without hardening it scores 9.5.
LIMIT=2.5
command -v systemd-analyze >/dev/null ||
	{ not_ok "systemd-analyze is not installed (make deps)"; done_testing; }
out=$(systemd-analyze security --offline=true --no-pager "$unit" 2>&1)
level=$(printf '%s\n' "$out" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
if [ -n "$level" ] && awk -v l="$level" -v m="$LIMIT" 'BEGIN { exit !(l <= m) }'; then
	ok "systemd-analyze security: exposure level $level (limit $LIMIT; 9.5 unhardened)"
else
	not_ok "systemd-analyze security: exposure level '$level' above $LIMIT"
	printf '%s\n' "$out" | grep '✗' | sed 's/^/#   /'
fi
for key in NoNewPrivileges=yes ProtectSystem=strict PrivateNetwork=yes RestrictNamespaces=yes \
	'SystemCallFilter=@system-service bpf'; do
	check "the unit sets $key" grep -qx "$key" "$unit"
done
expect_match "ExecStop= runs capuns-boot stop" "$(grep '^ExecStop=' "$unit")" 'capuns-boot stop$'

printf 'Name:\tx\nCapBnd:\t000001ffffffffff\n' >"$tmp/stock-status"
echo 'lockdown,capability,landlock,yama,apparmor' >"$tmp/lsm-nobpf"
out=$(CAPUNS_STATUS_FILE=$tmp/stock-status CAPUNS_LSM_FILE=$tmp/lsm-nobpf JOURNAL_STREAM=8:1 \
	"$boot" start 2>&1 >/dev/null)
expect_match "under the journal, an error carries the error priority prefix <3>" "$out" \
	'^<3>capuns: error: the BPF LSM is not active'
out=$(CAPUNS_STATUS_FILE=$tmp/stock-status CAPUNS_LSM_FILE=$tmp/lsm-nobpf \
	"$boot" start 2>&1 >/dev/null)
expect_match "on a terminal, no prefix" "$out" '^capuns: error: the BPF LSM is not active'

printf 'Name:\tx\nCapUNs:\t000001ffffffffff\n' >"$tmp/patched-status"
out=$(CAPUNS_STATUS_FILE=$tmp/patched-status "$boot" stop 2>&1); rc=$?
expect_eq "stop on a kernel with the series: exit 0" "$rc" 0
expect_match "and says the kernel keeps enforcing" "$out" 'stays enforced by the kernel'
out=$(CAPUNS_STATUS_FILE=$tmp/patched-status CAPUNS_MODE=bogus "$boot" start 2>&1); rc=$?
expect_eq "CAPUNS_MODE=bogus: start fails" "$rc" 1
expect_match "... and names the two modes" "$out" "CAPUNS_MODE='bogus'.*enforce or complain"
out=$(CAPUNS_STATUS_FILE=$tmp/patched-status CAPUNS_MODE=complain "$boot" start 2>&1); rc=$?
expect_eq "CAPUNS_MODE=complain on a kernel with the series: start fails" "$rc" 1
expect_match "... the kernel backend has no complain mode" "$out" "no complain mode"
done_testing
