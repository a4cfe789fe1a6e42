# Shell helpers that any guest test may use, whatever the backend.  Source
# it after tap.sh; installed in the guest as /capuns/bin/guest-lib.sh.

# in_bindroot CMD...: run CMD in a mount namespace whose root is a bind
# mount of /, moved onto / as switch_root does: bwrap's pivot_root(2)
# refuses the initramfs itself as root.
in_bindroot() {
	/usr/bin/unshare -m /bin/sh -c 'mkdir -p /run/bindroot &&
		/bin/mount -o rbind / /run/bindroot && cd /run/bindroot &&
		/bin/mount -o move . / && exec /usr/sbin/chroot . "$@"' sh "$@"
}
