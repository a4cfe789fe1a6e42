# Guest test scripts: tests/guest/NAME.sh runs in the guest as
# /capuns/tests/NAME.sh (tap.sh is the TAP library they source).
GUEST_SCRIPTS := $(wildcard tests/guest/*.sh)
GUEST_FILES   += $(patsubst tests/guest/%,$(B)/guest/capuns/tests/%,$(GUEST_SCRIPTS))

$(B)/guest/capuns/tests/%.sh: tests/guest/%.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@

include tests/attacks/attacks.mk

# The harness's own unit test (host side: result parsing).
UNIT_TESTS += tests/unit/harness-parse.sh

# prctl/sysctl fuzzer of the kernel series and of the BPF backend
# (tests/guest/fuzz-prctl.sh).
GUEST_FILES += $(B)/guest/capuns/bin/prctl-fuzz
$(B)/guest/capuns/bin/prctl-fuzz: tests/fuzz/prctl-fuzz.c include/capuns-abi.h include/capuns-bpf-abi.h \
		tests/lib/uns-prctl.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Itests/lib $(CFLAGS) $(WARN) -pthread $(LDFLAGS) -o $@ $<

# make fuzz: the same fuzzer, longer, from a random seed (printed to replay).
.PHONY: prctl-fuzz
fuzz: prctl-fuzz
prctl-fuzz:
	seed=$$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); echo "prctl-fuzz seed $$seed"; \
	export CAPUNS_GUEST_APPEND="capuns.fuzz_seed=$$seed capuns.fuzz_calls=$${CAPUNS_FUZZ_CALLS:-500000}"; \
	rc=0; vm/run-tests patched fuzz-prctl.sh || rc=1; \
	vm/run-tests stock fuzz-prctl.sh || rc=1; exit $$rc

# The installed programs under valgrind (host, error paths included).
UNIT_TESTS += tests/unit/valgrind.sh
tests/unit/valgrind.sh: $(B)/capuns $(B)/capuns-bpf

# Helpers of the guest tests that give the same answers on both backends:
# bpf-uns (libcapuns operations from the shell, linked statically with
# libcapuns) and the shell functions of the BPF backend's tests.
GUEST_FILES += $(B)/guest/capuns/bin/bpf-uns $(B)/guest/capuns/bin/bpf-test-lib.sh

$(B)/tests/bpf-uns: tests/lib/bpf-uns.c include/capuns.h $(B)/libcapuns.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ $< $(B)/libcapuns.a $(LIBCAPUNS_LDLIBS)

$(B)/guest/capuns/bin/bpf-uns: $(B)/tests/bpf-uns
	@mkdir -p $(@D)
	install -m 0755 $< $@

$(B)/guest/capuns/bin/bpf-test-lib.sh: tests/lib/bpf-test-lib.sh
	@mkdir -p $(@D)
	install -m 0644 $< $@
