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

# Trampoline floors (bench/floor.bpf.c): empty programs attached alone.
FLOOR_BIN := $(B)/guest/usr/local/bin/capuns-floor
GUEST_FILES += $(FLOOR_BIN)

$(B)/bench/floor.bpf.o: bench/floor.bpf.c
	$(BPF_COMPILE)

$(B)/bench/floor.skel.h: $(B)/bench/floor.bpf.o
	$(BPF_SKELETON)

$(FLOOR_BIN): bench/capuns-floor.c $(B)/bench/floor.skel.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -I$(B)/bench $(DEPFLAGS) $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ $< \
		$(shell $(PKG_CONFIG) --libs libbpf)
