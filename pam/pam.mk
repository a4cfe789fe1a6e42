# pam_capuns.so: the PAM module, linked with the shared libcapuns, and
# its man page pam_capuns(8).

# The guest root is merged-/usr (/lib is a symlink), so install under usr/.
PAM_SECURITY_DIR := usr/lib/$(MULTIARCH)/security
PAM_CFLAGS = $(CFLAGS) $(WARN) -fPIC -fvisibility=hidden -Ipam $(CAPUNS_CONF_CPPFLAGS)

BINS += $(B)/pam_capuns.so
GUEST_FILES += $(B)/guest/$(PAM_SECURITY_DIR)/pam_capuns.so

PAM_CAPUNS_SRCS := pam/pam_capuns.c pam/conf.c
PAM_CAPUNS_HDRS := pam/conf.h include/capuns.h include/capuns-abi.h pam/pam_capuns.map

$(B)/pam_capuns.so: $(PAM_CAPUNS_SRCS) $(PAM_CAPUNS_HDRS) $(B)/libcapuns.so
	$(CC) $(CPPFLAGS) $(PAM_CFLAGS) -shared -Wl,-z,defs -Wl,--version-script=pam/pam_capuns.map $(LDFLAGS) -o $@ $(PAM_CAPUNS_SRCS) \
		$(LIBCAPUNS_LINK) -lpam -lcap

$(B)/san/pam_capuns.so: $(PAM_CAPUNS_SRCS) $(PAM_CAPUNS_HDRS) $(B)/san/libcapuns.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(PAM_CFLAGS) $(SAN) -shared -Wl,--version-script=pam/pam_capuns.map $(LDFLAGS) -o $@ $(PAM_CAPUNS_SRCS) \
		$(B)/san/libcapuns.a $(LIBCAPUNS_LDLIBS) -lpam -lcap

$(B)/guest/$(PAM_SECURITY_DIR)/pam_capuns.so: $(B)/pam_capuns.so
	@mkdir -p $(@D)
	install -m 0644 $< $@

# Host unit tests: the config parser, and the module driven through libpam.
UNIT_TESTS += $(B)/tests/unit/pam-conf $(B)/tests/unit/pam-module

$(B)/tests/unit/pam-conf: tests/unit/pam-conf.c pam/conf.c $(PAM_CAPUNS_HDRS) \
			  tests/unit/tap.h $(B)/san/libcapuns.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(UNIT_CFLAGS) -Ipam $(LDFLAGS) -o $@ $< pam/conf.c \
		$(B)/san/libcapuns.a $(LIBCAPUNS_LDLIBS)

$(B)/tests/unit/pam-module: tests/unit/pam-module.c tests/unit/tap.h tests/unit/pam-test.h \
			    $(B)/san/pam_capuns.so
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(UNIT_CFLAGS) -DPAM_CAPUNS_SO='"$(abspath $(B)/san/pam_capuns.so)"' \
		$(LDFLAGS) -o $@ $< -lpam

# The module with libcapuns' backend calls left to the test program, which
# provides them over a pretend thread (tests/unit/pam-strict.c); the
# capability list parser is the library's own.
UNIT_TESTS += $(B)/tests/unit/pam-strict

$(B)/tests/unit/pam_capuns-calls.so: $(PAM_CAPUNS_SRCS) $(PAM_CAPUNS_HDRS) $(B)/san/lib/capset.o
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(PAM_CFLAGS) $(SAN) -shared -Wl,--version-script=pam/pam_capuns.map $(LDFLAGS) -o $@ $(PAM_CAPUNS_SRCS) \
		$(B)/san/lib/capset.o -lcap -lpam

$(B)/tests/unit/pam-strict: tests/unit/pam-strict.c tests/unit/tap.h tests/unit/pam-test.h include/capuns.h \
			    $(B)/tests/unit/pam_capuns-calls.so
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(UNIT_CFLAGS) -rdynamic -DPAM_CAPUNS_SO='"$(abspath $(B)/tests/unit/pam_capuns-calls.so)"' \
		$(LDFLAGS) -o $@ $< -lpam

# Guest: a minimal login that opens a session and runs a command in it.
GUEST_FILES += $(B)/guest/capuns/bin/capuns-pam-session

$(B)/guest/capuns/bin/capuns-pam-session: tests/guest/userspace-pamsession.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ $< -lpam
