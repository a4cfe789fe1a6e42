# capuns(1): the command-line tool, linked with the shared libcapuns.

CLI_CFLAGS = $(CFLAGS) $(WARN) -DCAPUNS_VERSION='"$(CAPUNS_VERSION)"' \
	     -DCAPUNS_BPF_PATH='"$(CAPUNS_BPF_PATH)"' $(CAPUNS_CONF_CPPFLAGS)
# capuns check-conf uses pam_capuns' own parser (pam/conf.c); --json the
# JSON writer it shares with capuns-bpf.
CLI_SRCS := cli/capuns.c cli/json_writer.c pam/conf.c
CLI_HDRS := include/capuns.h include/capuns-abi.h pam/conf.h cli/json_writer.h

BINS += $(B)/capuns
GUEST_FILES += $(B)/guest/usr/local/bin/capuns

$(B)/capuns: $(CLI_SRCS) $(CLI_HDRS) $(B)/libcapuns.so
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Ipam $(CLI_CFLAGS) $(LDFLAGS) -o $@ $(CLI_SRCS) $(LIBCAPUNS_LINK)

# The same program with the sanitizers, for the host unit tests.
$(B)/san/capuns: $(CLI_SRCS) $(CLI_HDRS) $(B)/san/libcapuns.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Ipam $(CLI_CFLAGS) $(SAN) $(LDFLAGS) -o $@ $(CLI_SRCS) $(B)/san/libcapuns.a $(LIBCAPUNS_LDLIBS)

$(B)/guest/usr/local/bin/capuns: $(B)/capuns
	@mkdir -p $(@D)
	install -m 0755 $< $@

# Host unit tests: argument handling, the man page, the JSON writer.
UNIT_TESTS += tests/unit/cli-args.sh tests/unit/cli-man.sh $(B)/tests/unit/json-writer

$(B)/tests/unit/json-writer: tests/unit/json-writer.c tests/unit/tap.h cli/json_writer.c cli/json_writer.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(SAN) -Icli -Itests/unit $(LDFLAGS) -o $@ $< cli/json_writer.c
tests/unit/cli-args.sh: $(B)/san/capuns
