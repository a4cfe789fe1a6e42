# Guest test scripts: tests/guest/NAME.sh runs in the guest as
# /capuns/tests/NAME.sh (tap.sh is the TAP library they source).  The C
# programs of tests/guest/ are built by the fragment of what they test
# (lib, pam, kernel).
GUEST_SCRIPTS := $(wildcard tests/guest/*.sh)
GUEST_FILES   += $(patsubst tests/guest/%,$(B)/guest/capuns/tests/%,$(GUEST_SCRIPTS))

$(B)/guest/capuns/tests/%.sh: tests/guest/%.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@
