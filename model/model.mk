# Reference model of credentials under the capuns series (pure C, no syscalls).
# Unit tests link it built with the sanitizers; the guest differential runner
# links it without them.
MODEL_SRC := model/capmodel.c
MODEL_HDR := model/capmodel.h

MODEL_UNIT := $(B)/tests/unit/model-rules $(B)/tests/unit/model-props
UNIT_TESTS += $(MODEL_UNIT)

# The differential runner's sequence generator (tests/diff) is exercised
# against the model on the host as well.
DIFF_SEQ := tests/diff/seq.c
DIFF_HDR := tests/diff/seq.h

$(MODEL_UNIT): $(B)/tests/unit/%: tests/unit/%.c tests/unit/model-tap.h $(MODEL_SRC) $(MODEL_HDR) $(DIFF_SEQ) $(DIFF_HDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) $(SAN) $(CPPFLAGS) -Imodel -Itests/diff -o $@ $< $(MODEL_SRC) $(DIFF_SEQ)
