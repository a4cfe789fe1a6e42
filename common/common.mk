# libcapuns-common.a: code the programs share (capuns, capuns-bpf,
# pam_capuns.so): the JSON writer, the capuns.conf parser, number parsing,
# a capability set as text, ARRAY_SIZE (c.h).  Private: never installed,
# and no program's folder holds code another program compiles.
#
# It uses libc and libcapuns' public API (include/capuns.h) only, so that
# pam_capuns.so can link it; the program links libcapuns after it.  Built
# position-independent for pam_capuns.so, and with the sanitizers for the
# host unit tests.

COMMON_SRCS := common/conf.c common/json_writer.c common/settext.c common/strutils.c
COMMON_LIB := $(B)/libcapuns-common.a
COMMON_SAN_LIB := $(B)/san/libcapuns-common.a
COMMON_CFLAGS = $(CFLAGS) $(WARN) -fPIC -fvisibility=hidden $(CAPUNS_CONF_CPPFLAGS)
# What a program that links the library compiles with.
COMMON_CPPFLAGS := -Icommon

BINS += $(COMMON_LIB)

$(B)/common/%.o: common/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(COMMON_CFLAGS) -c -o $@ $<

$(B)/san/common/%.o: common/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(COMMON_CFLAGS) $(SAN) -c -o $@ $<

$(COMMON_LIB): $(COMMON_SRCS:%.c=$(B)/%.o)
	@rm -f $@
	ar rcs $@ $^

$(COMMON_SAN_LIB): $(COMMON_SRCS:%.c=$(B)/san/%.o)
	@rm -f $@
	ar rcs $@ $^
