# Host unit tests: programs built with the sanitizers (ASan, UBSan) that
# print TAP, and shell scripts that drive the built programs.  make unit
# runs every UNIT_TESTS entry; the model's own tests are in model/model.mk,
# the harness's and valgrind's in tests/tests.mk.

UNIT_CFLAGS = $(CFLAGS) $(WARN) $(SAN) -Itests/unit

# ---- libcapuns: text functions, and answers of each backend -------------
UNIT_TESTS += $(B)/tests/unit/lib-text $(B)/tests/unit/lib-answers

$(B)/tests/unit/lib-%: tests/unit/lib-%.c $(B)/san/libcapuns.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Ilib $(DEPFLAGS) $(UNIT_CFLAGS) $(LDFLAGS) -o $@ $< \
		$(B)/san/libcapuns.a $(LIBCAPUNS_LDLIBS)

# ---- libcapuns-common.a: the JSON writer, the capuns.conf parser --------
UNIT_TESTS += $(B)/tests/unit/json-writer $(B)/tests/unit/pam-conf

$(B)/tests/unit/json-writer $(B)/tests/unit/pam-conf: $(B)/tests/unit/%: tests/unit/%.c \
		$(COMMON_SAN_LIB) $(B)/san/libcapuns.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(COMMON_CPPFLAGS) $(DEPFLAGS) $(UNIT_CFLAGS) $(LDFLAGS) -o $@ $< \
		$(COMMON_SAN_LIB) $(B)/san/libcapuns.a $(LIBCAPUNS_LDLIBS)

# ---- capuns: argument handling, the man page ----------------------------
UNIT_TESTS += tests/unit/cli-args.sh tests/unit/cli-man.sh
tests/unit/cli-args.sh: $(B)/san/capuns
# learn --journal: rules from the journals of several hosts.
UNIT_TESTS += tests/unit/cli-learn.sh
tests/unit/cli-learn.sh: $(B)/san/capuns

# ---- pam_capuns.so, driven through libpam -------------------------------
UNIT_TESTS += $(B)/tests/unit/pam-module

$(B)/tests/unit/pam-module: tests/unit/pam-module.c $(B)/san/pam_capuns.so
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(UNIT_CFLAGS) -DPAM_CAPUNS_SO='"$(abspath $(B)/san/pam_capuns.so)"' \
		$(LDFLAGS) -o $@ $< -lpam

# The module with libcapuns' backend calls left to the test program, which
# provides them over a pretend thread (tests/unit/pam-strict.c); the
# capability list parser is the library's own.
UNIT_TESTS += $(B)/tests/unit/pam-strict

$(B)/tests/unit/pam_capuns-calls.so: $(B)/san/pam/pam_capuns.o $(COMMON_SAN_LIB) \
				     $(B)/san/lib/capset.o pam/pam_capuns.map
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) $(PAM_LDFLAGS) $(LDFLAGS) -o $@ $< $(COMMON_SAN_LIB) \
		$(B)/san/lib/capset.o -lcap -lpam

$(B)/tests/unit/pam-strict: tests/unit/pam-strict.c $(B)/tests/unit/pam_capuns-calls.so
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(UNIT_CFLAGS) -rdynamic \
		-DPAM_CAPUNS_SO='"$(abspath $(B)/tests/unit/pam_capuns-calls.so)"' \
		$(LDFLAGS) -o $@ $< -lpam

# The build tree's capuns runs from there (its library and loader beside
# it); the installed one has no runpath.
UNIT_TESTS += tests/unit/build-tree.sh
tests/unit/build-tree.sh: $(B)/capuns $(B)/install/capuns $(B)/capuns-bpf $(B)/pam_capuns.so

# ---- capuns-bpf: argument checking --------------------------------------
UNIT_TESTS += tests/unit/bpf-args.sh
tests/unit/bpf-args.sh: $(B)/capuns-bpf

# The loader's pin functions with the sanitizers: failures of the file
# system and injected failures of system calls (--wrap), so that nothing
# needs a bpf filesystem or a loadable kernel; the order in which a
# backend's pins are removed (unlink recorded).
UNIT_TESTS += $(B)/tests/unit/bpf-pins
BPF_PINS_WRAP := -Wl,--wrap=statfs,--wrap=open,--wrap=rename,--wrap=renameat2,--wrap=unlink

$(B)/tests/unit/bpf-pins.o: tests/unit/bpf-pins.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Ibpf $(DEPFLAGS) $(UNIT_CFLAGS) -c -o $@ $<

$(B)/tests/unit/pins.o: bpf/pins.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(COMMON_CPPFLAGS) -Ibpf $(DEPFLAGS) $(UNIT_CFLAGS) -c -o $@ $<

$(B)/tests/unit/bpf-pins: $(B)/tests/unit/bpf-pins.o $(B)/tests/unit/pins.o $(COMMON_SAN_LIB)
	$(CC) $(CFLAGS) $(SAN) $(LDFLAGS) $(BPF_PINS_WRAP) -o $@ $^ $(CAPUNS_BPF_LIB_LDLIBS)

# ---- make install, the installed programs and files ---------------------
# make install, the shared library, the header, pkg-config.
UNIT_TESTS += tests/unit/install.sh
tests/unit/install.sh: all

# Usage texts against man pages, -h/-V, the pages of man/.
UNIT_TESTS += tests/unit/man-usage.sh
tests/unit/man-usage.sh: $(B)/capuns $(B)/capuns-bpf
UNIT_TESTS += tests/unit/check-conf.sh
tests/unit/check-conf.sh: $(B)/capuns $(B)/system/capuns.conf
UNIT_TESTS += tests/unit/bash-completion.sh
tests/unit/bash-completion.sh: $(B)/capuns system/capuns.bash-completion
UNIT_TESTS += tests/unit/system-boot.sh
tests/unit/system-boot.sh: all
UNIT_TESTS += tests/unit/system-unit.sh
tests/unit/system-unit.sh: all
UNIT_TESTS += tests/unit/ansible-role.sh
tests/unit/ansible-role.sh: $(B)/capuns
# vm/post-series: the series signed by whoever posts it.
UNIT_TESTS += tests/unit/post-series.sh
# The ABI numbers each series defines, against include/capuns-abi.h.
UNIT_TESTS += tests/unit/series-abi.sh
# vm/series-tree: a series edited as commits and written back.
UNIT_TESTS += tests/unit/series-tree.sh
