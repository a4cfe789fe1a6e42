# Reference model of credentials under the capuns series (pure C, no syscalls).
# Unit tests link it built with the sanitizers; the guest differential runner
# links it without them.
MODEL_SRC := model/capmodel.c model/commoncap.c model/syscalls.c model/series.c model/bpf.c
MODEL_HDR := model/capmodel.h model/internal.h model/hooks.h model/series.h

MODEL_UNIT := $(B)/tests/unit/model-rules $(B)/tests/unit/model-props
UNIT_TESTS += $(MODEL_UNIT)

# The differential runner's sequence generator (tests/diff) is exercised
# against the model on the host as well.
DIFF_SEQ := tests/diff/seq.c
DIFF_HDR := tests/diff/seq.h

$(MODEL_UNIT): $(B)/tests/unit/%: tests/unit/%.c tests/unit/tap.h $(MODEL_SRC) $(MODEL_HDR) $(DIFF_SEQ) $(DIFF_HDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) $(SAN) $(CPPFLAGS) -Imodel -Itests/diff $(LDFLAGS) -o $@ $< $(MODEL_SRC) $(DIFF_SEQ)

# Every mutation of the model (model/internal.h) must fail the hand-worked
# cases too: model-mutants.sh runs model-rules built with each one.  Rule
# 12 (mutation 10) has no differential counterpart, so this is where it is
# caught.
MODEL_MUTATIONS := 1 2 3 4 5 6 7 8 9 10 11
MODEL_MUTANT_BINS := $(patsubst %,$(B)/tests/unit/model-rules-mutant-%,$(MODEL_MUTATIONS))
UNIT_TESTS += tests/unit/model-mutants.sh
tests/unit/model-mutants.sh: $(MODEL_MUTANT_BINS)

$(B)/tests/unit/model-rules-mutant-%: tests/unit/model-rules.c tests/unit/tap.h $(MODEL_SRC) $(MODEL_HDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) $(CPPFLAGS) -DCAPMODEL_MUTATION=$* -Imodel $(LDFLAGS) -o $@ $< $(MODEL_SRC)

# ---- differential runner (guest) -------------------------------------------
# diff-runner compares the kernel with the model; diff-mutant-N is the same
# runner over a deliberately broken model (CAPMODEL_MUTATION=N), which the
# diff-mutants test expects to be caught.
DIFF_RUNNER_SRC := tests/diff/runner.c $(DIFF_SEQ) $(MODEL_SRC)
DIFF_RUNNER_DEP := $(DIFF_RUNNER_SRC) $(DIFF_HDR) $(MODEL_HDR) include/capuns-abi.h \
	include/capuns-bpf-abi.h tests/lib/uns-prctl.h tests/lib/id-maps.h tests/lib/fd-pass.h
# Mutation 10 (rule 12, ptrace) is invisible to the runner: see above.
DIFF_MUTATIONS := 1 2 3 4 5 6 7 8 9
DIFF_BINS := $(B)/guest/capuns/bin/diff-runner \
	$(patsubst %,$(B)/guest/capuns/bin/diff-mutant-%,$(DIFF_MUTATIONS))
DIFF_TESTS := diff-patched diff-unpatched diff-mutants diff-patched-mask diff-fuzz \
	diff-bpf diff-bpf-mutants
GUEST_FILES += $(DIFF_BINS) $(patsubst %,$(B)/guest/capuns/tests/%,$(DIFF_TESTS))

$(B)/guest/capuns/bin/diff-runner: $(DIFF_RUNNER_DEP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) $(CPPFLAGS) -Imodel -Itests/diff -Itests/lib -static $(LDFLAGS) -o $@ $(DIFF_RUNNER_SRC)

$(B)/guest/capuns/bin/diff-mutant-%: $(DIFF_RUNNER_DEP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) $(CPPFLAGS) -DCAPMODEL_MUTATION=$* -Imodel -Itests/diff -Itests/lib -static $(LDFLAGS) -o $@ $(DIFF_RUNNER_SRC)

$(B)/guest/capuns/tests/diff-%: tests/diff/guest/diff-%
	@mkdir -p $(@D)
	install -m 0755 $< $@

# make fuzz: long differential runs (random seeds) on the patched kernel
# and on the stock kernel with the BPF backend, CAPUNS_FUZZ_SECONDS each.
.PHONY: diff-fuzz
fuzz: diff-fuzz
diff-fuzz:
	CAPUNS_GUEST_TIMEOUT=$${CAPUNS_FUZZ_SECONDS:-3600} vm/run-tests patched diff-fuzz
	CAPUNS_GUEST_TIMEOUT=$${CAPUNS_FUZZ_SECONDS:-3600} vm/run-tests stock diff-fuzz
