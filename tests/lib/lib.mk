# Helpers of the tests (tests/lib/): headers that the C tests include
# (-Itests/lib), bpf-uns, the shell functions of every guest test
# (guest-lib.sh) and of the BPF backend's tests (bpf-test-lib.sh).

TESTS_LIB_HDRS := tests/lib/id-maps.h tests/lib/fd-pass.h tests/lib/uns-prctl.h

# bpf-uns: libcapuns operations from the shell, linked statically with
# libcapuns, so that the guest tests give the same answers on both backends.
GUEST_FILES += $(B)/guest/capuns/bin/bpf-uns $(B)/guest/capuns/bin/bpf-test-lib.sh \
	$(B)/guest/capuns/bin/guest-lib.sh

$(B)/tests/bpf-uns: tests/lib/bpf-uns.c tests/lib/id-maps.h include/capuns.h $(B)/libcapuns.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) -Itests/lib $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ $< \
		$(B)/libcapuns.a $(LIBCAPUNS_LDLIBS)

$(B)/guest/capuns/bin/bpf-uns: $(B)/tests/bpf-uns
	@mkdir -p $(@D)
	install -m 0755 $< $@

$(B)/guest/capuns/bin/bpf-test-lib.sh: tests/lib/bpf-test-lib.sh
	@mkdir -p $(@D)
	install -m 0644 $< $@

$(B)/guest/capuns/bin/guest-lib.sh: tests/lib/guest-lib.sh
	@mkdir -p $(@D)
	install -m 0644 $< $@
