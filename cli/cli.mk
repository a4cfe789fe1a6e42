# capuns(1): the command-line tool, linked with libcapuns-common.a and the
# shared libcapuns.

CLI_CFLAGS = $(CFLAGS) $(WARN) -DCAPUNS_VERSION='"$(CAPUNS_VERSION)"' \
	     -DCAPUNS_BPF_PATH='"$(CAPUNS_BPF_PATH)"' $(CAPUNS_CONF_CPPFLAGS)

BINS += $(B)/capuns
GUEST_FILES += $(B)/guest/usr/local/bin/capuns

$(B)/cli/%.o: cli/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(COMMON_CPPFLAGS) $(DEPFLAGS) $(CLI_CFLAGS) -c -o $@ $<

$(B)/capuns: $(B)/cli/capuns.o $(COMMON_LIB) $(B)/libcapuns.so
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(COMMON_LIB) $(LIBCAPUNS_LINK)

# The same program with the sanitizers, for the host unit tests.
$(B)/san/cli/%.o: cli/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(COMMON_CPPFLAGS) $(DEPFLAGS) $(CLI_CFLAGS) $(SAN) -c -o $@ $<

$(B)/san/capuns: $(B)/san/cli/capuns.o $(COMMON_SAN_LIB) $(B)/san/libcapuns.a
	$(CC) $(CFLAGS) $(SAN) $(LDFLAGS) -o $@ $< $(COMMON_SAN_LIB) $(B)/san/libcapuns.a \
		$(LIBCAPUNS_LDLIBS)

$(B)/guest/usr/local/bin/capuns: $(B)/capuns
	@mkdir -p $(@D)
	install -m 0755 $< $@
