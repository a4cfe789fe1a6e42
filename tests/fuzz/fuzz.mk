# prctl/sysctl fuzzer of the kernel series and of the BPF backend
# (tests/guest/fuzz-prctl.sh).
GUEST_FILES += $(B)/guest/capuns/bin/prctl-fuzz

$(B)/guest/capuns/bin/prctl-fuzz: tests/fuzz/prctl-fuzz.c include/capuns-abi.h include/capuns-bpf-abi.h \
		$(TESTS_LIB_HDRS) tests/unit/tap.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) -Itests/lib -Itests/unit $(CFLAGS) $(WARN) -pthread $(LDFLAGS) -o $@ $<

# make fuzz: the same fuzzer, longer, from a random seed (printed to replay).
.PHONY: prctl-fuzz
fuzz: prctl-fuzz
prctl-fuzz:
	seed=$$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); echo "prctl-fuzz seed $$seed"; \
	export CAPUNS_GUEST_APPEND="capuns.fuzz_seed=$$seed capuns.fuzz_calls=$${CAPUNS_FUZZ_CALLS:-500000}"; \
	rc=0; vm/run-tests patched fuzz-prctl.sh || rc=1; \
	vm/run-tests stock fuzz-prctl.sh || rc=1; exit $$rc
