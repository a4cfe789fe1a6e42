# The attack suite (tests/attacks/): one program per way around pU, run as
# an unprivileged user in the guest by the driver attacks.sh.  Each attack
# is its own guest test, /capuns/tests/attack-NAME (a link to the driver),
# listed in the suites where it must hold.

ATTACKS := owner-ifflags owner-xtables owner-lowport setuid-helper \
	   ptrace-attach ptrace-mem ptrace-traceme psi-trigger \
	   map-quota tasks-iter ringbuf-flood setns-race \
	   strict-owner strict-ptrace setgroups-sibling quota-container \
	   setpcap-bypass setfcap-rootmap
# Guest test names: the setuid helper attack runs once per helper.
ATTACK_TESTS := owner-ifflags owner-xtables owner-lowport \
		setuid-newgrp setuid-sg setuid-su setuid-sudo \
		ptrace-attach ptrace-mem ptrace-traceme ptrace-strace psi-trigger \
		map-quota tasks-iter ringbuf-flood setns-race setns-skipped \
		strict-owner strict-ptrace setgroups-sibling quota-container \
		setpcap-bypass setfcap-rootmap

GUEST_FILES += $(ATTACKS:%=$(B)/guest/capuns/attacks/%) \
	       $(B)/guest/capuns/tests/attacks.sh \
	       $(ATTACK_TESTS:%=$(B)/guest/capuns/tests/attack-%) \
	       $(B)/guest/usr/bin/newgrp $(B)/guest/usr/bin/sg $(B)/guest/usr/bin/su \
	       $(B)/guest/usr/bin/sudo $(B)/guest/usr/libexec/sudo/sudoers.so $(B)/guest/etc/sudoers \
	       $(B)/guest/usr/bin/strace

$(B)/guest/capuns/attacks/%: tests/attacks/%.c tests/attacks/attack.h $(TESTS_LIB_HDRS) \
		include/capuns.h $(B)/libcapuns.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) -Itests/lib $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ $< $(B)/libcapuns.a $(LIBCAPUNS_LDLIBS)

$(B)/guest/capuns/tests/attacks.sh: tests/attacks/attacks.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@

$(B)/guest/capuns/tests/attack-%: $(B)/guest/capuns/tests/attacks.sh
	ln -sf attacks.sh $@

# The real setuid-root helpers of Debian (login, util-linux, sudo), with
# their setuid bit (the initramfs copies this tree as it is).
$(B)/guest/usr/bin/newgrp $(B)/guest/usr/bin/su $(B)/guest/usr/bin/sudo: $(B)/guest/usr/bin/%: /usr/bin/%
	@mkdir -p $(@D)
	install -m 4755 $< $@

$(B)/guest/usr/bin/sg: $(B)/guest/usr/bin/newgrp
	ln -sf newgrp $@

$(B)/guest/usr/libexec/sudo/sudoers.so: /usr/libexec/sudo/sudoers.so
	@mkdir -p $(@D)
	install -m 0644 $< $@

$(B)/guest/etc/sudoers: tests/attacks/sudoers
	@mkdir -p $(@D)
	install -m 0440 $< $@

$(B)/guest/usr/bin/strace: /usr/bin/strace
	@mkdir -p $(@D)
	install -m 0755 $< $@
