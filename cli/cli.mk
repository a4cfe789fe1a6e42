# capuns(1): the command-line tool, linked with libcapuns-common.a and the
# shared libcapuns.
#
# Two links of the same objects, apart from where the loader is found
# (cli/loader-path.c):
#   build/capuns          the build tree's: runs from there as it is, with
#                         the libcapuns.so.0 and the capuns-bpf beside it
#                         (a $ORIGIN runpath);
#   build/install/capuns  what make install installs (and the guest runs):
#                         no runpath, as Debian requires (lintian), and the
#                         loader at CAPUNS_BPF_PATH.

CLI_CFLAGS = $(CFLAGS) $(WARN) -DCAPUNS_VERSION='"$(CAPUNS_VERSION)"' \
	     -DCAPUNS_BPF_PATH='"$(CAPUNS_BPF_PATH)"' $(CAPUNS_CONF_CPPFLAGS)

BINS += $(B)/capuns $(B)/install/capuns
GUEST_FILES += $(B)/guest/usr/local/bin/capuns

$(B)/cli/%.o: cli/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(COMMON_CPPFLAGS) $(DEPFLAGS) $(CLI_CFLAGS) -c -o $@ $<

$(B)/cli/loader-path-beside.o: cli/loader-path.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(CLI_CFLAGS) -DCAPUNS_BPF_BESIDE -c -o $@ $<

# $$ORIGIN reaches the linker as $ORIGIN: the directory of the program.
$(B)/capuns: $(B)/cli/capuns.o $(B)/cli/loader-path-beside.o $(COMMON_LIB) $(B)/libcapuns.so
	$(CC) $(CFLAGS) $(LDFLAGS) -Wl,-rpath,'$$ORIGIN' -o $@ $(filter %.o,$^) $(COMMON_LIB) \
		$(LIBCAPUNS_LINK)

$(B)/install/capuns: $(B)/cli/capuns.o $(B)/cli/loader-path.o $(COMMON_LIB) $(B)/libcapuns.so
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) $(COMMON_LIB) $(LIBCAPUNS_LINK)

# The installed program with the sanitizers, for the host unit tests.
$(B)/san/cli/%.o: cli/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(COMMON_CPPFLAGS) $(DEPFLAGS) $(CLI_CFLAGS) $(SAN) -c -o $@ $<

$(B)/san/capuns: $(B)/san/cli/capuns.o $(B)/san/cli/loader-path.o $(COMMON_SAN_LIB) \
		 $(B)/san/libcapuns.a
	$(CC) $(CFLAGS) $(SAN) $(LDFLAGS) -o $@ $(filter %.o,$^) $(COMMON_SAN_LIB) \
		$(B)/san/libcapuns.a $(LIBCAPUNS_LDLIBS)

$(B)/guest/usr/local/bin/capuns: $(B)/install/capuns
	@mkdir -p $(@D)
	install -m 0755 $< $@
