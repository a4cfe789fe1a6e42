# Guest microbenchmarks (bench/run drives them).
BENCH_BIN := $(B)/guest/usr/local/bin/capuns-bench
GUEST_FILES += $(BENCH_BIN) $(B)/guest/capuns/tests/bench.sh

# Static: fork+exec re-executes it and must not measure the dynamic loader.
$(BENCH_BIN): bench/capuns-bench.c $(B)/libcapuns.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(CFLAGS) $(WARN) -pthread -static $(LDFLAGS) -o $@ $< $(B)/libcapuns.a $(LIBCAPUNS_LDLIBS)

$(B)/guest/capuns/tests/bench.sh: bench/guest-bench.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@

GUEST_FILES += $(B)/guest/capuns/tests/bench-profile.sh
$(B)/guest/capuns/tests/bench-profile.sh: bench/guest-profile.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@

GUEST_FILES += $(B)/guest/capuns/tests/bench-macro-shell.sh
$(B)/guest/capuns/tests/bench-macro-shell.sh: bench/guest-macro-shell.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@
