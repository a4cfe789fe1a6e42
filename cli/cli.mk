# capuns(1): the command-line tool, linked with the shared libcapuns.

CLI_CFLAGS = $(CFLAGS) $(WARN) -DCAPUNS_VERSION='"$(CAPUNS_VERSION)"' \
	     -DCAPUNS_BPF_PATH='"$(CAPUNS_BPF_PATH)"'

BINS += $(B)/capuns
GUEST_FILES += $(B)/guest/usr/local/bin/capuns

$(B)/capuns: cli/capuns.c include/capuns.h include/capuns-abi.h $(B)/libcapuns.so
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CLI_CFLAGS) $(LDFLAGS) -o $@ $< $(LIBCAPUNS_LINK)

# The same program with the sanitizers, for the host unit tests.
$(B)/san/capuns: cli/capuns.c include/capuns.h include/capuns-abi.h $(B)/san/libcapuns.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CLI_CFLAGS) $(SAN) $(LDFLAGS) -o $@ $< $(B)/san/libcapuns.a $(LIBCAPUNS_LDLIBS)

$(B)/guest/usr/local/bin/capuns: $(B)/capuns
	@mkdir -p $(@D)
	install -m 0755 $< $@

# Host unit tests: argument handling and the man page.
UNIT_TESTS += tests/unit/cli-args.sh tests/unit/cli-man.sh
tests/unit/cli-args.sh: $(B)/san/capuns
