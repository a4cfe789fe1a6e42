# make install (and uninstall), and the files that fit capuns into a
# system: the boot unit capuns-bpf.service and its script, the PAM profile
# for pam-auth-update, the default configuration files.
#
# Directories are the variables of the top Makefile (PREFIX, BINDIR, ...);
# DESTDIR is prepended to each.  Configuration files in SYSCONFDIR are
# installed only when absent: make install never overwrites an
# administrator's edits.

# Install-time paths written into the unit and the script.
SYSTEM_SUBST = sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@SBINDIR@|$(SBINDIR)|g' \
		   -e 's|@LIBEXECDIR@|$(LIBEXECDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		   -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
		   -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g'

# What an administrator reads beside the man pages, in DOCDIR.
SYSTEM_DOCS := README.md docs/rules.md docs/cli-and-bpf-backend.md

# Man pages: the .TH line carries the version of the file VERSION.
MAN_PAGES := $(wildcard man/*.[0-9])
MAN_BUILT := $(addprefix $(B)/man/,$(notdir $(MAN_PAGES)))

BINS += $(MAN_BUILT) $(B)/system/capuns.conf

$(B)/man/%: VERSION
	@mkdir -p $(@D)
	sed -e '/^\.TH /s/"capuns[^"]*"/"capuns $(VERSION)"/' $(filter %/$*,$(MAN_PAGES)) >$@
$(foreach p,$(MAN_PAGES),$(eval $(B)/man/$(notdir $(p)): $(p)))

# The installed /etc/security/capuns.conf restricts nothing: the example
# with every rule commented out.
$(B)/system/capuns.conf: pam/capuns.conf.example
	@mkdir -p $(@D)
	{ echo '# Nothing is restricted until a rule below is enabled.  After an edit,'; \
	  echo '# check the file before you log out: capuns check-conf'; echo '#'; \
	  sed -e '/^[^#]/s/^/# /' $<; } >$@

# The module as the profile names it: by name where PAM looks, else by path.
PAM_MODULE = $(if $(filter $(PAM_SYSTEM_DIR),$(PAMDIR)),pam_capuns.so,$(PAMDIR)/pam_capuns.so)

.PHONY: install uninstall
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) $(DESTDIR)$(LIBDIR) \
		$(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PAMDIR) \
		$(DESTDIR)$(LIBEXECDIR)/capuns $(DESTDIR)$(UNITDIR) $(DESTDIR)$(PAMCONFIGDIR) \
		$(DESTDIR)$(SYSCONFDIR)/security $(DESTDIR)$(SYSCONFDIR)/default
	install -m 0755 $(B)/install/capuns $(DESTDIR)$(BINDIR)/capuns
	install -m 0755 $(B)/capuns-bpf $(DESTDIR)$(SBINDIR)/capuns-bpf
	install -m 0644 $(B)/$(LIBCAPUNS_REAL) $(DESTDIR)$(LIBDIR)/$(LIBCAPUNS_REAL)
	ln -sf $(LIBCAPUNS_REAL) $(DESTDIR)$(LIBDIR)/$(LIBCAPUNS_SONAME)
	ln -sf $(LIBCAPUNS_SONAME) $(DESTDIR)$(LIBDIR)/libcapuns.so
	install -m 0644 $(B)/libcapuns.a $(DESTDIR)$(LIBDIR)/libcapuns.a
	$(SYSTEM_SUBST) lib/libcapuns.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/libcapuns.pc
	install -m 0644 include/capuns.h $(DESTDIR)$(INCLUDEDIR)/capuns.h
	install -m 0644 $(B)/pam_capuns.so $(DESTDIR)$(PAMDIR)/pam_capuns.so
	$(SYSTEM_SUBST) system/capuns-boot.in >$(DESTDIR)$(LIBEXECDIR)/capuns/capuns-boot
	chmod 0755 $(DESTDIR)$(LIBEXECDIR)/capuns/capuns-boot
	$(SYSTEM_SUBST) system/capuns-bpf.service.in >$(DESTDIR)$(UNITDIR)/capuns-bpf.service
	$(SYSTEM_SUBST) system/capuns-log.service.in >$(DESTDIR)$(UNITDIR)/capuns-log.service
	install -d $(DESTDIR)$(DOCDIR)
	install -m 0644 $(SYSTEM_DOCS) $(DESTDIR)$(DOCDIR)/
	sed -e 's|pam_capuns\.so|$(PAM_MODULE)|' system/pam-config >$(DESTDIR)$(PAMCONFIGDIR)/capuns
	install -D -m 0644 system/capuns.bash-completion \
		$(DESTDIR)$(BASHCOMPDIR)/capuns
	for p in $(MAN_BUILT); do s=$${p##*.}; install -d $(DESTDIR)$(MANDIR)/man$$s; \
		install -m 0644 $$p $(DESTDIR)$(MANDIR)/man$$s/; done
	[ -e $(DESTDIR)$(SYSCONFDIR)/security/capuns.conf ] || \
		install -m 0644 $(B)/system/capuns.conf $(DESTDIR)$(SYSCONFDIR)/security/capuns.conf
	[ -e $(DESTDIR)$(SYSCONFDIR)/default/capuns ] || \
		install -m 0644 system/capuns.default $(DESTDIR)$(SYSCONFDIR)/default/capuns
	if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then ldconfig; fi

# Removes what install put, except the configuration files (purge them by hand).
# pam_capuns leaves the PAM stacks first: a stack that names a missing
# required module fails every login.
uninstall:
	if [ -z "$(DESTDIR)" ] && [ -e $(PAMCONFIGDIR)/capuns ] && \
	   command -v pam-auth-update >/dev/null; then pam-auth-update --package --remove capuns; fi
	rm -f $(DESTDIR)$(BINDIR)/capuns $(DESTDIR)$(SBINDIR)/capuns-bpf \
		$(DESTDIR)$(LIBDIR)/$(LIBCAPUNS_REAL) $(DESTDIR)$(LIBDIR)/$(LIBCAPUNS_SONAME) \
		$(DESTDIR)$(LIBDIR)/libcapuns.so $(DESTDIR)$(LIBDIR)/libcapuns.a \
		$(DESTDIR)$(PKGCONFIGDIR)/libcapuns.pc $(DESTDIR)$(INCLUDEDIR)/capuns.h \
		$(DESTDIR)$(PAMDIR)/pam_capuns.so $(DESTDIR)$(LIBEXECDIR)/capuns/capuns-boot \
		$(DESTDIR)$(UNITDIR)/capuns-bpf.service $(DESTDIR)$(UNITDIR)/capuns-log.service \
		$(DESTDIR)$(PAMCONFIGDIR)/capuns $(DESTDIR)$(BASHCOMPDIR)/capuns \
		$(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(SYSTEM_DOCS))) \
		$(foreach p,$(MAN_BUILT),$(DESTDIR)$(MANDIR)/man$(subst .,,$(suffix $(p)))/$(notdir $(p)))
	-rmdir $(DESTDIR)$(LIBEXECDIR)/capuns $(DESTDIR)$(DOCDIR)
