# BPF-LSM backend: the BPF object, its skeleton, the loader library
# build/libcapuns-bpf.a, the capuns-bpf tool and the stock-kernel guest tests.
#
# The object is compiled against bpf/kernel.h (hand-declared CO-RE types),
# not a vmlinux.h: the build needs no kernel and no host BTF.

BPF_CLANG   ?= clang
BPFTOOL     ?= bpftool
BPF_ARCH    := x86
BPF_CFLAGS  := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(BPF_ARCH) $(WARN) \
	       -Wno-unused-parameter \
	       -Iinclude -Ibpf -I/usr/include/$(shell $(CC) -print-multiarch)

# For the capuns CLI (see bpf/CLI-INTEGRATION.md): link $(CAPUNS_BPF_LIB)
# and add $(CAPUNS_BPF_LIB_LDLIBS); include bpf/capuns-bpf.h.
CAPUNS_BPF_LIB         := $(B)/libcapuns-bpf.a
CAPUNS_BPF_LIB_LDLIBS  := -lbpf -lelf -lz -lcap

BPF_GUEST_TESTS := $(patsubst tests/guest/%,$(B)/guest/capuns/tests/%,$(wildcard tests/guest/bpf-*.sh))

BINS += $(CAPUNS_BPF_LIB) $(B)/capuns-bpf $(B)/bpf/bpf-uns
GUEST_FILES += $(B)/guest/usr/local/bin/capuns-bpf $(B)/guest/capuns/bin/bpf-uns \
	       $(B)/guest/capuns/bin/bpf-test-lib.sh \
	       $(BPF_GUEST_TESTS)

$(B)/bpf/capuns.bpf.o: bpf/capuns.bpf.c bpf/kernel.h include/capuns-abi.h include/capuns-bpf-abi.h
	@mkdir -p $(@D)
	$(BPF_CLANG) $(BPF_CFLAGS) -c -o $@ $<

$(B)/bpf/capuns.skel.h: $(B)/bpf/capuns.bpf.o
	$(BPFTOOL) gen skeleton $< name capuns_bpf > $@.tmp
	@mv $@.tmp $@

$(B)/bpf/loader.o: bpf/loader.c bpf/capuns-bpf.h $(B)/bpf/capuns.skel.h \
		   include/capuns-bpf-abi.h include/capuns-abi.h
	$(CC) $(CPPFLAGS) -I$(B)/bpf -Ibpf -DCAPUNS_VERSION='"$(CAPUNS_VERSION)"' \
		$(CFLAGS) $(WARN) -c -o $@ $<

$(CAPUNS_BPF_LIB): $(B)/bpf/loader.o
	@rm -f $@
	ar rcs $@ $^

$(B)/capuns-bpf: bpf/capuns-bpf.c bpf/capuns-bpf.h $(CAPUNS_BPF_LIB)
	$(CC) $(CPPFLAGS) -Ibpf $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ $< $(CAPUNS_BPF_LIB) $(CAPUNS_BPF_LIB_LDLIBS)

# Guest helper: libcapuns operations from the shell, for the tests that run
# against both backends (linked statically with libcapuns).
$(B)/bpf/bpf-uns: bpf/bpf-uns.c include/capuns.h $(B)/libcapuns.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ $< $(B)/libcapuns.a -lcap -lpthread

$(B)/guest/usr/local/bin/capuns-bpf: $(B)/capuns-bpf
	@mkdir -p $(@D)
	install -m 0755 $< $@

$(B)/guest/capuns/bin/bpf-uns: $(B)/bpf/bpf-uns
	@mkdir -p $(@D)
	install -m 0755 $< $@

$(B)/guest/capuns/tests/bpf-%.sh: tests/guest/bpf-%.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@

$(B)/guest/capuns/bin/bpf-test-lib.sh: bpf/test-lib.sh
	@mkdir -p $(@D)
	install -m 0644 $< $@

# Argument checking of capuns-bpf, on the host.
UNIT_TESTS += tests/unit/bpf-args.sh
tests/unit/bpf-args.sh: $(B)/capuns-bpf
