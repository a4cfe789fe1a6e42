# libcapuns: build/libcapuns.a and the shared library build/libcapuns.so.X.Y.Z
# with its soname link libcapuns.so.X and development link libcapuns.so
# (-lcap), its exports fixed by lib/libcapuns.map, and libcapuns.pc.
#
# Objects are built twice: position-independent for the archive and the
# shared library, and with the sanitizers for the host unit tests.
#
# The library's BPF backend (lib/backend_bpf.c) talks to the loaded
# programs through prctl(PR_CAP_USERNS) and the pinned task iterator only:
# it needs neither libbpf nor the skeleton.

LIBCAPUNS_SRCS := lib/capset.c lib/proc.c lib/capuns.c lib/backend_kernel.c \
		  lib/backend_none.c lib/backend_bpf.c
LIBCAPUNS_OBJS := $(LIBCAPUNS_SRCS:lib/%.c=$(B)/lib/%.o)
LIBCAPUNS_SAN_OBJS := $(LIBCAPUNS_SRCS:lib/%.c=$(B)/san/lib/%.o)
# What a program linking libcapuns.a needs after it.
LIBCAPUNS_LDLIBS = -lcap -lpthread

LIB_CFLAGS = $(CFLAGS) $(WARN) -fPIC -fvisibility=hidden -Ilib

# Real name libcapuns.so.$(VERSION), soname libcapuns.so.<major>.
LIBCAPUNS_SOMAJOR := $(firstword $(subst ., ,$(VERSION)))
LIBCAPUNS_SONAME  := libcapuns.so.$(LIBCAPUNS_SOMAJOR)
LIBCAPUNS_REAL    := libcapuns.so.$(VERSION)
LIBCAPUNS_SO_LINKS := $(B)/$(LIBCAPUNS_SONAME) $(B)/libcapuns.so

# How the installed programs (capuns, pam_capuns.so) link the library: as
# any user of it would, so they can use only its API (lib/libcapuns.map).
LIBCAPUNS_LINK = -L$(B) -lcapuns

BINS += $(B)/libcapuns.a $(B)/$(LIBCAPUNS_REAL) $(LIBCAPUNS_SO_LINKS)
# In the guest where the system's libraries are (merged /usr, multiarch).
GUEST_FILES += $(B)/guest/usr/lib/$(MULTIARCH)/$(LIBCAPUNS_REAL) \
	       $(B)/guest/usr/lib/$(MULTIARCH)/$(LIBCAPUNS_SONAME)

$(B)/lib/%.o: lib/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(LIB_CFLAGS) -c -o $@ $<

$(B)/san/lib/%.o: lib/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(LIB_CFLAGS) $(SAN) -c -o $@ $<

$(B)/libcapuns.a: $(LIBCAPUNS_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(B)/san/libcapuns.a: $(LIBCAPUNS_SAN_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(B)/$(LIBCAPUNS_REAL): $(LIBCAPUNS_OBJS) lib/libcapuns.map
	$(CC) $(CFLAGS) -shared -Wl,-soname,$(LIBCAPUNS_SONAME) -Wl,-z,defs \
		-Wl,--version-script=lib/libcapuns.map $(LDFLAGS) -o $@ $(LIBCAPUNS_OBJS) $(LIBCAPUNS_LDLIBS)

$(B)/$(LIBCAPUNS_SONAME): $(B)/$(LIBCAPUNS_REAL)
	ln -sf $(<F) $@
$(B)/libcapuns.so: $(B)/$(LIBCAPUNS_SONAME)
	ln -sf $(<F) $@

$(B)/guest/usr/lib/$(MULTIARCH)/$(LIBCAPUNS_REAL): $(B)/$(LIBCAPUNS_REAL)
	@mkdir -p $(@D)
	install -m 0644 $< $@
$(B)/guest/usr/lib/$(MULTIARCH)/$(LIBCAPUNS_SONAME): $(B)/guest/usr/lib/$(MULTIARCH)/$(LIBCAPUNS_REAL)
	ln -sf $(<F) $@

# Guest test of every library call (runs on the patched and unpatched kernels).
GUEST_FILES += $(B)/guest/capuns/tests/userspace-lib

$(B)/guest/capuns/tests/userspace-lib: tests/guest/userspace-lib.c $(B)/libcapuns.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(CFLAGS) $(WARN) -Ilib -Itests/unit $(LDFLAGS) -o $@ $< \
		$(B)/libcapuns.a $(LIBCAPUNS_LDLIBS)
