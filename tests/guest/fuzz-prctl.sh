#!/bin/sh
# prctl(48) and sysctl fuzzing on the patched kernel (tests/fuzz/prctl-fuzz.c).
# It narrows kernel.cap_userns_mask and the usermodehelper set for good:
# keep it last in the suite. `make fuzz` runs it longer with a random seed.
exec /capuns/bin/prctl-fuzz --seed "${CAPUNS_FUZZ_SEED:-1}" --calls 20000 --threads 4 --writes 200
