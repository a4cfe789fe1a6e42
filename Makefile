# capuns: user-namespace capability set for Linux.
#
#   make          build the userspace (library, CLI, PAM module, BPF backend)
#   make deps     install the Debian packages everything needs (idempotent)
#   make check    host unit tests, then every guest suite on every kernel
#   make demo     boot the patched kernel and show capuns at work
#   make install  install (PREFIX=/usr/local, DESTDIR, BINDIR, ... see below)
#   make deb      build the Debian packages into build/deb/
#   make kernel-deb  the patched kernel as Debian packages (SERIES=6.1,
#                    FLAVOUR=cloud for Debian's cloud-amd64 config)
#   make system-test  build the Debian packages, install them on a booted
#                 Debian 12 (stock and patched kernels) and test them there
#
# Each component adds itself through a fragment <dir>/<dir>.mk (listed by
# name below: a missing one is an error), appending to:
#   BINS         host build products (built by `make`)
#   UNIT_TESTS   host test programs printing TAP (run by `make unit`)
#   GUEST_FILES  files under $(B)/guest/, laid out as in the guest's root;
#                the initramfs copies that tree as is (plus shared libraries)

B        := build
CC       := gcc
# The one version number: programs' --version, man pages, libcapuns.pc,
# the shared library's real name and the Debian packages all take it from
# the file VERSION.
VERSION  := $(shell cat VERSION)
CAPUNS_VERSION := $(VERSION)

# CFLAGS, CPPFLAGS and LDFLAGS from the environment or the command line
# (for instance dpkg-buildflags) are honoured. The project's own flags are
# kept apart and always apply: user CFLAGS replace only the default
# optimisation below, and user CPPFLAGS are added after the project's.
CFLAGS   ?= -O2 -g
LDFLAGS  ?=
override CPPFLAGS := -D_GNU_SOURCE -Iinclude $(CPPFLAGS)
# -Werror in the test builds (make unit, check, guest, demo, bench, fuzz;
# tests/check passes it too), not in builds for installation, where a newer
# compiler's new warning must not stop an administrator's build.
TEST_GOALS := unit check guest demo bench fuzz
ifneq ($(filter $(TEST_GOALS),$(MAKECMDGOALS)),)
WERROR   ?= -Werror
endif
WERROR   ?=
WARN     := -Wall -Wextra $(WERROR)
# Tests run with the sanitizers on; the installed programs do not.
SAN      := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# The one multiarch tuple (x86_64-linux-gnu): library and PAM directories,
# the BPF compiler's system headers.
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
PKG_CONFIG ?= pkg-config
# The BPF compiler and bpftool (BPF objects and their skeletons).
CLANG    ?= clang
BPFTOOL  ?= bpftool

# Header dependencies: every rule that compiles C adds $(DEPFLAGS), and the
# compiler writes what $@ read into $(DEPDIR) (-MP: a header that goes away
# does not stop the build).  Not beside the targets: the initramfs copies
# $(B)/guest as it is.
DEPDIR   := $(B)/.deps
DEPFLAGS  = -MMD -MP -MT $@ -MF $(DEPDIR)/$(subst /,_,$@).d

# Installation directories (make install; DESTDIR is prepended to each).
PREFIX      ?= /usr/local
EXEC_PREFIX ?= $(PREFIX)
BINDIR      ?= $(EXEC_PREFIX)/bin
SBINDIR     ?= $(EXEC_PREFIX)/sbin
# Where capuns runs the BPF backend's loader (capuns bpf ..., capuns monitor):
# its installed path, never a PATH lookup.
CAPUNS_BPF_PATH ?= $(SBINDIR)/capuns-bpf
LIBDIR      ?= $(EXEC_PREFIX)/lib$(if $(MULTIARCH),/$(MULTIARCH))
LIBEXECDIR  ?= $(EXEC_PREFIX)/libexec
INCLUDEDIR  ?= $(PREFIX)/include
DATADIR     ?= $(PREFIX)/share
MANDIR      ?= $(DATADIR)/man
DOCDIR      ?= $(DATADIR)/doc/capuns
DOCDIR      ?= $(DATADIR)/doc/capuns
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
# Where Debian's libpam looks for a module named without a path (the one
# directory it knows), whatever PREFIX is: under /usr/local, PAM would not
# find it.  Another PAMDIR makes the pam-auth-update profile name the
# module by its full path.
PAM_SYSTEM_DIR := /lib$(if $(MULTIARCH),/$(MULTIARCH))/security
PAMDIR      ?= $(PAM_SYSTEM_DIR)
# /etc whatever PREFIX is: PAM and systemd read their configuration there.
SYSCONFDIR  ?= /etc
UNITDIR     ?= $(EXEC_PREFIX)/lib/systemd/system
# pam_capuns and capuns check-conf read the rules there.
CAPUNS_CONF_CPPFLAGS = -DCAPUNS_CONF_DEFAULT='"$(SYSCONFDIR)/security/capuns.conf"' \
		       -DCAPUNS_SYSCONFDIR='"$(SYSCONFDIR)"'
# pam-auth-update reads profiles from this directory only, whatever PREFIX is.
PAMCONFIGDIR ?= /usr/share/pam-configs
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions

# A change of flags, or of an installed path compiled into a program,
# rebuilds everything: every target depends on a stamp whose content is
# them (rewritten only when they change).
FLAGS_STAMP := $(B)/flags.stamp
flags_now := $(CC) $(CFLAGS) $(CPPFLAGS) $(LDFLAGS) $(WARN) $(CAPUNS_BPF_PATH) $(SYSCONFDIR)
ifneq ($(shell cat $(FLAGS_STAMP) 2>/dev/null),$(strip $(flags_now)))
$(shell mkdir -p $(B) && echo '$(strip $(flags_now))' >$(FLAGS_STAMP))
endif
.EXTRA_PREREQS := $(FLAGS_STAMP)

BINS        :=
UNIT_TESTS  :=
GUEST_FILES :=

.PHONY: all deps unit check demo guest kernels clean fuzz bench bench-scale install system-test deb kernel-deb
all:

# In this order: a fragment may use the variables of those before it in
# its prerequisites (the unit tests come last, after what they test).
include lib/lib.mk
include common/common.mk
include cli/cli.mk
include pam/pam.mk
include bpf/bpf.mk
include kernel/kernel.mk
include system/system.mk
include bench/bench.mk
include model/model.mk
include tests/tests.mk
include tests/unit/unit.mk

$(shell mkdir -p $(DEPDIR))
-include $(wildcard $(DEPDIR)/*.d)

all: $(BINS)

guest: $(GUEST_FILES)

deps:
	@vm/deps

unit: $(UNIT_TESTS)
	@tests/run-unit $(UNIT_TESTS) | tee $(B)/unit.results; tests/summarize <$(B)/unit.results

check: deps
	@tests/check

demo: deps
	@vm/demo

# The Debian packages of this tree, into build/deb/ (build tools:
# apt-get build-dep ./, or make deps).
deb:
	@vm/build-debs

# The patched kernel as Debian packages (Debian's config, bindeb-pkg):
# make kernel-deb [SERIES=6.1] [FLAVOUR=cloud]. Hours on 2 cores for the
# generic config; see kernel/README.md.
SERIES ?= 6.1
FLAVOUR ?=
kernel-deb: deps
	@vm/kernel-deb $(if $(FLAVOUR),--flavour $(FLAVOUR)) $(SERIES)

# The packages installed on a booted Debian 12 (tests/system/run).
system-test: deps
	@tests/system/run | tee $(B)/system.results; tests/summarize <$(B)/system.results

# The kernels make check boots: the test builds (and the 6.12 one) and Debian's stock
# images (the unpatched build, make bench's baseline, comes with its first run).
kernels: deps
	@vm/build-kernel patched >/dev/null
	@vm/build-kernel patched mainline >/dev/null
	@vm/build-kernel patched 6.12 >/dev/null
	@vm/stock-kernel 6.1 >/dev/null
	@vm/stock-kernel 6.12 >/dev/null
	@vm/stock-kernel newest >/dev/null

clean:
	rm -rf $(B)

bench: deps guest
	@bench/run

# the owner rule's capability check on 1 to all CPUs, patched against not
bench-scale: deps guest
	@bench/scale
