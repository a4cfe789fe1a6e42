# capuns: user-namespace capability set for Linux.
#
#   make          build the userspace (library, CLI, PAM module, BPF backend)
#   make deps     install the Debian packages everything needs (idempotent)
#   make check    host unit tests, then every guest suite on every kernel
#   make demo     boot the patched kernel and show capuns at work
#
# Each component adds itself through a fragment <dir>/<dir>.mk, appending to:
#   BINS         host build products (built by `make`)
#   UNIT_TESTS   host test programs printing TAP (run by `make unit`)
#   GUEST_FILES  files under $(B)/guest/, laid out as in the guest's root;
#                the initramfs copies that tree as is (plus shared libraries)

B        := build
CC       := gcc
CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Werror
CPPFLAGS += -D_GNU_SOURCE -Iinclude
# Tests run with the sanitizers on; the installed programs do not.
SAN      := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

BINS        :=
UNIT_TESTS  :=
GUEST_FILES :=

.PHONY: all deps unit check demo guest kernels clean fuzz bench
all:

-include $(sort $(wildcard */*.mk))

all: $(BINS)

guest: $(GUEST_FILES)

deps:
	@vm/deps

unit: $(UNIT_TESTS)
	@tests/run-unit $(UNIT_TESTS)

check: deps
	@tests/check

demo: deps
	@vm/demo

kernels: deps
	@vm/build-kernel unpatched >/dev/null
	@vm/build-kernel patched >/dev/null

clean:
	rm -rf $(B)

bench: deps guest
	@bench/run
