#!/usr/bin/bash
# The exec securebits: SECBIT_EXEC_RESTRICT_FILE (8), SECBIT_EXEC_DENY_
# INTERACTIVE (10) and their locks (9, 11).  From 6.14 the kernel lets any
# task set them on itself without CAP_SETPCAP (they only restrict it);
# before, it knows no such bits and refuses them to everyone.  The
# backend's CAP_SETPCAP check of PR_SET_SECUREBITS (rule 3c, past
# lsm/capable) must let a restricted credential do exactly what the kernel
# lets an unprivileged one: those bits where the kernel has them, no other
# bit, and no refusal event (which capuns learn would turn into a rule).
# The clients: libcap's capsh --secbits, as alice.
. /capuns/tests/tap.sh
. /capuns/bin/bpf-test-lib.sh

require_stock

CAPSH=/usr/sbin/capsh

# secbits BITS... -- [PREFIX...]: run PREFIX capsh --secbits=B for each B in
# turn, as alice; print the securebits capsh then reads (0x...), or
# "refused" when a PR_SET_SECUREBITS failed.
secbits() {
	local args=()
	while [ "$1" != -- ]; do args+=("--secbits=$1"); shift; done
	shift
	as_user "$@" $CAPSH "${args[@]}" --print 2>/dev/null |
		awk -F/ '/^Securebits:/ { print $2; found = 1 }
			 END { if (!found) print "refused" }'
}

# What the kernel lets an unprivileged task do: the exec bits from 6.14.
IFS=.- read -r major minor _ <<<"$(uname -r)"
if [ "$major" -gt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -ge 14 ]; }; then
	kernel_has=1
	want_file=0x100 want_interactive=0x400 want_all=0xf00
else
	kernel_has=0
	want_file=refused want_interactive=refused want_all=refused
fi
diag "kernel $(uname -r): exec securebits for unprivileged tasks: $kernel_has"

# The kernel alone: no backend.
fresh_unload
expect_eq "no backend: alice sets SECBIT_EXEC_RESTRICT_FILE as the kernel allows" \
	"$(secbits 0x100 --)" "$want_file"
expect_eq "no backend: alice, all four exec bits and locks" "$(secbits 0xf00 --)" "$want_all"
expect_eq "no backend: alice, SECBIT_NOROOT (CAP_SETPCAP): refused" "$(secbits 0x1 --)" refused

capuns-bpf load >/dev/null 2>&1 || { not_ok "load the backend"; done_testing; }
denials() { capuns-bpf status | sed -n 's/^denials: \([0-9]*\),.*/\1/p'; }

# A restricted credential in the initial namespace: a lowered pU.
low=($UNS lower cap_net_admin --)
before=$(denials)
expect_eq "restricted alice: SECBIT_EXEC_RESTRICT_FILE as the kernel allows" \
	"$(secbits 0x100 -- "${low[@]}")" "$want_file"
expect_eq "restricted alice: SECBIT_EXEC_DENY_INTERACTIVE as the kernel allows" \
	"$(secbits 0x400 -- "${low[@]}")" "$want_interactive"
expect_eq "restricted alice: all four exec bits and locks as the kernel allows" \
	"$(secbits 0xf00 -- "${low[@]}")" "$want_all"
if [ $kernel_has = 1 ]; then
	expect_eq "... and the backend counted no denial for them" "$(denials)" "$before"
fi
expect_eq "restricted alice: SECBIT_NOROOT: refused" "$(secbits 0x1 -- "${low[@]}")" refused
expect_eq "restricted alice: an exec bit with SECBIT_NOROOT: refused" \
	"$(secbits 0x101 -- "${low[@]}")" refused

# In a user namespace entered without CAP_SETPCAP: the kernel's pE is full
# there, the series' lacks CAP_SETPCAP, so only what needs none may pass.
ns=($UNS lower cap_setpcap -- $UNS unshare user --)
before=$(denials)
expect_eq "namespace without CAP_SETPCAP: SECBIT_EXEC_RESTRICT_FILE as the kernel allows" \
	"$(secbits 0x100 -- "${ns[@]}")" "$want_file"
expect_eq "namespace without CAP_SETPCAP: all four exec bits and locks as the kernel allows" \
	"$(secbits 0xf00 -- "${ns[@]}")" "$want_all"
if [ $kernel_has = 1 ]; then
	expect_eq "... and the backend counted no denial for them" "$(denials)" "$before"
	expect_eq "namespace without CAP_SETPCAP: a locked exec bit stays (the kernel's lock)" \
		"$(secbits 0x300 0x100 -- "${ns[@]}")" refused
	expect_eq "namespace without CAP_SETPCAP: set, then clear an unlocked exec bit" \
		"$(secbits 0x400 0x0 -- "${ns[@]}")" 0x0
fi
expect_eq "namespace without CAP_SETPCAP: SECBIT_NOROOT: refused (attack-setpcap-bypass)" \
	"$(secbits 0x1 -- "${ns[@]}")" refused
expect_eq "namespace without CAP_SETPCAP: an exec bit with SECBIT_KEEP_CAPS: refused" \
	"$(secbits 0x110 -- "${ns[@]}")" refused
expect_eq "namespace without CAP_SETPCAP: no change (the kernel's legacy EPERM)" \
	"$(secbits 0x0 -- "${ns[@]}")" refused

# With CAP_SETPCAP in the entry set every known bit may be set, as before.
expect_eq "namespace with CAP_SETPCAP: SECBIT_NOROOT" \
	"$(secbits 0x1 -- $UNS unshare user --)" 0x1

done_testing
