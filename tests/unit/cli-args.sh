#!/usr/bin/env bash
# Host unit test of capuns(1) argument handling (TAP).  Needs no capuns
# kernel: usage errors must exit 2 before anything happens, and with the
# "none" backend every change must fail (exit 1) without running the
# command.  Uses the sanitizer build of the CLI.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
capuns=$root/build/san/capuns
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
if [ ! -x "$capuns" ]; then
	not_ok "capuns binary $capuns exists (run make)"
	echo "1..$n"; exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect_rc NAME WANT_RC ARGS...: run capuns, check exit status and that
# the marker command it was given (if any) did not run.
expect_rc() {
	local name=$1 want=$2; shift 2
	rm -f "$tmp/ran"
	"$capuns" "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ "$rc" = "$want" ]; then ok "$name"; else
		not_ok "$name (exit $rc, want $want)"; sed 's/^/#   /' "$tmp/err"; fi
}
expect_not_ran() {
	if [ -e "$tmp/ran" ]; then not_ok "$1: command did not run"; else ok "$1: command did not run"; fi
}
expect_err() {
	if grep -q -- "$2" "$tmp/err"; then ok "$1"; else
		not_ok "$1 (stderr lacks '$2')"; sed 's/^/#   /' "$tmp/err"; fi
}
expect_out() {
	if grep -q -- "$2" "$tmp/out"; then ok "$1"; else
		not_ok "$1 (stdout lacks '$2')"; sed 's/^/#   /' "$tmp/out"; fi
}
marker=(-- /usr/bin/touch "$tmp/ran")

# Usage errors: exit 2, nothing run, whatever the backend.
for b in kernel none; do
	export CAPUNS_BACKEND=$b
	expect_rc "[$b] unknown cap name is a usage error" 2 --drop=cap_bogus "${marker[@]}"
	expect_not_ran "[$b] unknown cap name"
	expect_err "[$b] unknown cap is named in the message" "'cap_bogus'"
	expect_rc "[$b] second bad list after a good one" 2 --drop=cap_chown --keep=cap_chown,,cap_kill "${marker[@]}"
	expect_not_ran "[$b] bad second list"
	expect_rc "[$b] unknown option" 2 --frobnicate "${marker[@]}"
	expect_not_ran "[$b] unknown option"
	expect_rc "[$b] --strict=bogus" 2 --strict=bogus "${marker[@]}"
	expect_not_ran "[$b] --strict=bogus"
	expect_rc "[$b] --drop without argument" 2 --drop
	expect_rc "[$b] command without --" 2 --drop=cap_chown /usr/bin/touch "$tmp/ran"
	expect_not_ran "[$b] command without --"
	expect_rc "[$b] -- without command" 2 --drop=cap_chown --
	expect_rc "[$b] --pid with a change" 2 --pid=1 --drop=cap_chown
	expect_rc "[$b] --pid not a number" 2 --pid=12x
	expect_rc "[$b] --pid zero" 2 --pid=0
	expect_rc "[$b] --print with a command" 2 --print "${marker[@]}"
	expect_not_ran "[$b] --print with a command"
	expect_rc "[$b] mask: bad cap" 2 mask --drop=cap_nope
	expect_rc "[$b] mask: stray argument" 2 mask extra
	expect_rc "[$b] check: no cap" 2 check
	expect_rc "[$b] check: unknown cap" 2 check cap_nope
	expect_rc "[$b] check: depth 0" 2 check cap_chown --depth=0
	expect_rc "[$b] check: depth 33" 2 check cap_chown --depth=33
	expect_rc "[$b] check: depth junk" 2 check cap_chown --depth=3x
	expect_rc "[$b] check: two caps" 2 check cap_chown cap_kill
done

# Capability lists are read strictly (issue: libcap alone takes 012 as octal
# 10 and the first word of cap_chown;id): usage errors, nothing run.
for b in kernel none; do
	export CAPUNS_BACKEND=$b
	for bad in 'cap_chown;id' cap_net_admin=eip 'cap_chown ;id' 00 0x0c ++12 'cap_kill,-012' 012; do
		expect_rc "[$b] --drop=$bad is a usage error" 2 --drop="$bad" "${marker[@]}"
		expect_not_ran "[$b] --drop=$bad"
	done
	expect_err "[$b] --drop=012: the message says numbers are decimal" \
		"'012': unknown capability (a name such as cap_net_admin, or a decimal number without leading zeros"
	expect_rc "[$b] mask --drop=012 is a usage error" 2 mask --drop=012
done
# 41 (cap_sys_control) exists only with the series: elsewhere a usage error.
export CAPUNS_BACKEND=none
if [ "$(cat /proc/sys/kernel/cap_last_cap)" -lt 41 ]; then
	for c in 41 cap_sys_control; do
		expect_rc "--drop=$c on a kernel without capability 41: exit 2" 2 --drop=$c "${marker[@]}"
		expect_not_ran "--drop=$c"
		expect_err "--drop=$c says capability 41 does not exist here" \
			"capability 41 (cap_sys_control) does not exist on this kernel (its last is"
	done
else
	expect_rc "--drop=41 on a kernel with capability 41 is no usage error" 1 --drop=41 "${marker[@]}"
fi
expect_rc "--drop=12 is decimal (fails only for want of a backend)" 1 --drop=12 "${marker[@]}"
expect_rc "--drop=0 is capability 0" 1 --drop=0 "${marker[@]}"

# The none backend: changes fail with exit 1 and a message saying why.
export CAPUNS_BACKEND=none
for opt in --drop=cap_net_admin --only=cap_chown --keep=cap_chown --raise=cap_chown --clear --strict --strict=lock; do
	expect_rc "[none] $opt fails" 1 "$opt" "${marker[@]}"
	expect_not_ran "[none] $opt"
	expect_err "[none] $opt says there is no backend" "no capuns backend"
done
expect_rc "[none] mask --drop fails" 1 mask --drop=cap_sys_rawio
expect_err "[none] mask --drop says why" "no capuns backend"
expect_rc "[none] mask read fails" 1 mask

# Printing works without a backend and says so.
expect_rc "[none] print" 0 --print
expect_out "[none] print names the backend" "^backend: *none"
expect_out "[none] print shows CapBnd in hex" "^bounding  *CapBnd  *[0-9a-f]\{16\}"
expect_out "[none] print says pU is unavailable" "^userns .*unavailable: no backend$"
if [ "$(grep -c "no capuns backend" "$tmp/out")" = 1 ]; then
	ok "[none] print explains the missing backend once"
else
	not_ok "[none] print explains the missing backend once"; sed 's/^/#   /' "$tmp/out"
fi
expect_rc "[none] default action is print" 0
expect_out "[none] default prints the effective set" "^effective"
expect_rc "[none] --json" 0 --json
# expect_jq NAME EXPR: stdout is JSON (jq -e) and EXPR holds.
expect_jq() {
	if jq -e "$2" "$tmp/out" >/dev/null 2>"$tmp/jq"; then ok "$1"; else
		not_ok "$1 (jq -e '$2')"; sed 's/^/#   /' "$tmp/jq" "$tmp/out"; fi
}
expect_jq "[none] --json is valid JSON with the expected keys" \
	'.backend == "none" and .mask == null and .securebits == null and .kernel_sets == null
	 and (.sets | has("bounding") and (has("userns") | not))
	 and (.backend_error | test("no capuns backend"))
	 and .sets.effective.hex == "0x\(.sets.effective.hex[2:])" and (.sets.inheritable.caps | type == "array")'
expect_rc "[none] --print --json" 0 --print --json
expect_jq "[none] --print --json: sets of this process" '.pid > 1 and (.sets | length) == 5'
expect_rc "[none] --json --pid" 0 --json --pid=$$
expect_jq "[none] --json --pid is JSON naming that pid" ".pid == $$"
expect_rc "[none] --pid=self's pid" 0 --pid=$$
expect_out "[none] --pid prints sets" "^permitted"
expect_rc "[none] --pid of no process" 1 --pid=2147483647
expect_err "[none] --pid of no process says so" "No such process"
# --only sets pU exactly; --keep is its old name, but capsh's --keep=0|1
# (keep-caps) must not silently become "pU = {cap 1}".
for v in 0 1; do
	expect_rc "--keep=$v (capsh's keep-caps) is a usage error" 2 --keep=$v "${marker[@]}"
	expect_not_ran "--keep=$v"
	expect_err "--keep=$v names the clash and the option to use" "say --only=$v"
done
expect_rc "--keep=12 is --only=12 (fails only for want of a backend)" 1 --keep=12 "${marker[@]}"
expect_err "--keep=12 fails as --keep" "^capuns: --keep failed"
expect_rc "--only=12 (fails only for want of a backend)" 1 --only=12 "${marker[@]}"
expect_err "--only=12 fails as --only" "^capuns: --only failed"
expect_rc "--help" 0 --help
expect_out "--help shows usage" "^Usage: capuns"
expect_rc "--version" 0 --version
unset CAPUNS_BACKEND

# capuns bpf / capuns monitor run the loader by its installed path, never
# a capuns-bpf found on PATH.
bpf_path=$(strings "$capuns" | grep -m1 '/capuns-bpf$')
mkdir -p "$tmp/bin"
printf '#!/bin/sh\ntouch %s/ran\n' "$tmp" >"$tmp/bin/capuns-bpf"
chmod +x "$tmp/bin/capuns-bpf"
for sub in "bpf status" "monitor"; do
	rm -f "$tmp/ran"
	PATH=$tmp/bin:$PATH "$capuns" $sub >"$tmp/out" 2>"$tmp/err"
	rc=$?
	expect_not_ran "capuns $sub ignores a capuns-bpf on PATH"
	if [ -z "$bpf_path" ]; then
		not_ok "capuns $sub: the binary names an absolute capuns-bpf path"
	elif [ -x "$bpf_path" ]; then
		ok "capuns $sub: runs $bpf_path (installed here; exit $rc)"
	elif [ "$rc" = 127 ] && grep -q "cannot run $bpf_path" "$tmp/err"; then
		ok "capuns $sub: exit 127 naming $bpf_path, which is absent"
	else
		not_ok "capuns $sub: exit $rc, want 127 naming $bpf_path"; sed 's/^/#   /' "$tmp/err"
	fi
done

echo "1..$n"
[ "$failed" = 0 ]
