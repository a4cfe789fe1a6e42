#!/bin/sh
# prctl(48) and sysctl fuzzing on the patched kernel (tests/fuzz/prctl-fuzz.c).
# It narrows kernel.cap_userns_mask and the usermodehelper set for good:
# keep it last in the suite. `make fuzz` passes capuns.fuzz_seed= and
# capuns.fuzz_calls= on the kernel command line for a longer random run.
seed=1 calls=20000
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	capuns.fuzz_seed=*) seed=${arg#*=} ;;
	capuns.fuzz_calls=*) calls=${arg#*=} ;;
	esac
done
exec /capuns/bin/prctl-fuzz --seed "$seed" --calls "$calls" --threads 4 --writes 200
