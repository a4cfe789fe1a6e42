#!/bin/sh
# prctl(48) and sysctl fuzzing (tests/fuzz/prctl-fuzz.c). On the patched
# kernel it narrows kernel.cap_userns_mask and the usermodehelper set for
# good: keep it last in the suite. On the stock kernel it fuzzes the BPF
# backend (prctl answers, extension ops instead of the sysctls) and
# unloads it afterwards, which resets the backend's mask. `make fuzz`
# passes capuns.fuzz_seed= and capuns.fuzz_calls= on the kernel command
# line for a longer random run.
seed=1 calls=20000
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	capuns.fuzz_seed=*) seed=${arg#*=} ;;
	capuns.fuzz_calls=*) calls=${arg#*=} ;;
	esac
done
case $CAPUNS_TARGET in
patched)
	exec /capuns/bin/prctl-fuzz --seed "$seed" --calls "$calls" --threads 4 --writes 200 ;;
stock)
	capuns-bpf unload >/dev/null 2>&1
	out=$(capuns-bpf load 2>&1) || { echo "not ok 1 - capuns-bpf load: $out"; exit 1; }
	/capuns/bin/prctl-fuzz --bpf --seed "$seed" --calls "$calls" --threads 4 --writes 200
	rc=$?
	capuns-bpf unload >/dev/null 2>&1
	exit $rc ;;
*)
	echo "not ok 1 - prctl-fuzz needs the patched or stock kernel (got '$CAPUNS_TARGET')"
	exit 1 ;;
esac
