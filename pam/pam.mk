# pam_capuns.so: the PAM module, linked with libcapuns-common.a (the
# capuns.conf parser) and the shared libcapuns, and its man page
# pam_capuns(8).

# The guest root is merged-/usr (/lib is a symlink), so install under usr/.
PAM_SECURITY_DIR := usr/lib/$(MULTIARCH)/security
PAM_CFLAGS = $(CFLAGS) $(WARN) -fPIC -fvisibility=hidden $(CAPUNS_CONF_CPPFLAGS)
# Only pam_sm_* are exported; the rest, libcapuns-common.a's included, stays local.
PAM_LDFLAGS = -shared -Wl,--version-script=pam/pam_capuns.map

BINS += $(B)/pam_capuns.so
GUEST_FILES += $(B)/guest/$(PAM_SECURITY_DIR)/pam_capuns.so

$(B)/pam/%.o: pam/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(COMMON_CPPFLAGS) $(DEPFLAGS) $(PAM_CFLAGS) -c -o $@ $<

$(B)/san/pam/%.o: pam/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(COMMON_CPPFLAGS) $(DEPFLAGS) $(PAM_CFLAGS) $(SAN) -c -o $@ $<

$(B)/pam_capuns.so: $(B)/pam/pam_capuns.o $(COMMON_LIB) $(B)/libcapuns.so pam/pam_capuns.map
	$(CC) $(CFLAGS) $(PAM_LDFLAGS) -Wl,-z,defs $(LDFLAGS) -o $@ $< $(COMMON_LIB) \
		$(LIBCAPUNS_LINK) -lpam -lcap

# With the sanitizers, for the host unit tests (tests/unit/unit.mk).
$(B)/san/pam_capuns.so: $(B)/san/pam/pam_capuns.o $(COMMON_SAN_LIB) $(B)/san/libcapuns.a \
			pam/pam_capuns.map
	$(CC) $(CFLAGS) $(SAN) $(PAM_LDFLAGS) $(LDFLAGS) -o $@ $< $(COMMON_SAN_LIB) \
		$(B)/san/libcapuns.a $(LIBCAPUNS_LDLIBS) -lpam -lcap

$(B)/guest/$(PAM_SECURITY_DIR)/pam_capuns.so: $(B)/pam_capuns.so
	@mkdir -p $(@D)
	install -m 0644 $< $@

# Guest: a minimal login that opens a session and runs a command in it.
GUEST_FILES += $(B)/guest/capuns/bin/capuns-pam-session

$(B)/guest/capuns/bin/capuns-pam-session: tests/guest/userspace-pamsession.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ $< -lpam
