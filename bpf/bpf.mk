# BPF-LSM backend: the BPF object, its skeleton, the loader library
# build/libcapuns-bpf.a and the capuns-bpf program that uses it.
#
# The object is compiled against bpf/kernel.h (hand-declared CO-RE types),
# not a vmlinux.h: the build needs no kernel and no host BTF.
#
# libbpf, libelf and zlib stay in capuns-bpf: libcapuns and the capuns CLI
# do not link them; the CLI runs capuns-bpf (see CAPUNS_BPF_PATH in
# cli/cli.mk).  capuns-bpf links libcapuns statically: the boot unit
# loads the backend before anything else, with no shared library to find.

BPF_ARCH    := x86
BPF_CFLAGS  := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(BPF_ARCH) $(WARN) \
	       -Wno-unused-parameter \
	       -Iinclude -Ibpf -I/usr/include/$(MULTIARCH)

CAPUNS_BPF_LIB         := $(B)/libcapuns-bpf.a
CAPUNS_BPF_LIB_OBJS    := $(B)/bpf/pins.o $(B)/bpf/skeleton.o $(B)/bpf/status.o
CAPUNS_BPF_LIB_LDLIBS  := $(shell $(PKG_CONFIG) --libs libbpf libcap)
BPF_PROG_CFLAGS = $(CFLAGS) $(WARN) -DCAPUNS_VERSION='"$(CAPUNS_VERSION)"'

BPF_GUEST_TESTS := $(patsubst tests/guest/%,$(B)/guest/capuns/tests/%,$(wildcard tests/guest/bpf-*.sh))

BINS += $(CAPUNS_BPF_LIB) $(B)/capuns-bpf
GUEST_FILES += $(B)/guest$(CAPUNS_BPF_PATH) $(BPF_GUEST_TESTS)

# The two steps of every BPF object in the tree (this one, bench/'s
# floors): compile X.bpf.c, generate the skeleton struct X_bpf from X.bpf.o.
BPF_COMPILE = @mkdir -p $(@D) && $(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c -o $@ $<
BPF_SKELETON = $(BPFTOOL) gen skeleton $< name $(basename $(basename $(notdir $<)))_bpf > $@.tmp && mv $@.tmp $@

$(B)/bpf/capuns.bpf.o: bpf/capuns.bpf.c
	$(BPF_COMPILE)

$(B)/bpf/capuns.skel.h: $(B)/bpf/capuns.bpf.o
	$(BPF_SKELETON)

# The skeleton is generated: the first build cannot learn from a .d file
# that the objects include it.
$(B)/bpf/%.o: bpf/%.c $(B)/bpf/capuns.skel.h
	$(CC) $(CPPFLAGS) $(COMMON_CPPFLAGS) -I$(B)/bpf -Ibpf $(DEPFLAGS) -c \
		$(BPF_PROG_CFLAGS) -o $@ $<

$(CAPUNS_BPF_LIB): $(CAPUNS_BPF_LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(B)/capuns-bpf: $(B)/bpf/capuns-bpf.o $(CAPUNS_BPF_LIB) $(COMMON_LIB) $(B)/libcapuns.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(CAPUNS_BPF_LIB) $(COMMON_LIB) $(B)/libcapuns.a \
		$(CAPUNS_BPF_LIB_LDLIBS) $(LIBCAPUNS_LDLIBS)

# In the guest where the CLI looks for it.
$(B)/guest$(CAPUNS_BPF_PATH): $(B)/capuns-bpf
	@mkdir -p $(@D)
	install -m 0755 $< $@

$(B)/guest/capuns/tests/bpf-%.sh: tests/guest/bpf-%.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@
