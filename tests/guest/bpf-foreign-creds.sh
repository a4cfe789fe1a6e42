#!/usr/bin/bash
# Credentials that are not the calling task's own reach the capability
# checks: overlayfs does every operation on its layers with a copy of the
# mounter's credential, whoever uses the mount.  A restriction of the
# mounter's namespace must hold for that copy, as it does on the patched
# kernel, where the copy carries the series' pE.  Here alice mounts an
# overlay in her own user and mount namespace (root writes the id maps:
# she is 0 there, and 1-65535 map to 100001-165535), with and without
# CAP_FOWNER in pU, over a file of uid 5; an unrestricted root joins the
# namespaces and changes the file's mode.  Root's own check passes; the
# copy-up and the change on the layer run as the mounter, who is not the
# owner and must still lack CAP_FOWNER.  (docs/bpf-task-state.md: the
# backend's state must cover such credentials.)  The mounter keeps
# CAP_DAC_OVERRIDE: overlayfs needs it for its work directory (mode 0).
. /capuns/tests/tap.sh
. /capuns/bin/bpf-test-lib.sh

require_stock
fresh_unload
capuns-bpf load >/dev/null 2>&1 || { not_ok "load the backend"; done_testing; }
grep -qw overlay /proc/filesystems ||
	{ not_ok "CANNOT RUN: no overlay filesystem in this kernel"; done_testing; }

# mounter [CAP]: alice, pU less CAP (if given), in a new user and mount
# namespace with the maps above: a tmpfs on /tmp, lower/f of uid 5, an
# overlay on /tmp/m.  MOUNTER is her pid once the overlay is up (bash execs
# sleep).
mounter() {
	local i
	spawn_as_user /usr/local/bin/capuns ${1:+--drop=$1} -- /usr/bin/unshare -U -m /usr/bin/bash -c '
		while [ -z "$(cat /proc/self/uid_map)" ]; do sleep 0.05; done
		mount -t tmpfs t /tmp && mkdir /tmp/l /tmp/u /tmp/w /tmp/m &&
		echo data >/tmp/l/f && chown 5:5 /tmp/l/f &&
		mount -t overlay o -o lowerdir=/tmp/l,upperdir=/tmp/u,workdir=/tmp/w /tmp/m &&
		exec sleep 600'
	MOUNTER=$SPAWNED
	for i in $(seq 50); do
		[ "$(readlink /proc/$MOUNTER/ns/user)" != "$(readlink /proc/self/ns/user)" ] && break
		sleep 0.1
	done
	# one write each (bash's printf writes line by line; a map takes one)
	busybox printf '0 1000 1\n1 100001 65535\n' >/proc/$MOUNTER/uid_map &&
		busybox printf '0 1000 1\n1 100001 65535\n' >/proc/$MOUNTER/gid_map &&
		wait_comm "$MOUNTER" sleep
}

# chmod_as_joiner: root (unrestricted) joins the mounter's namespaces,
# becomes root there and changes f's mode through the overlay.
chmod_as_joiner() {
	/usr/bin/nsenter -t "$MOUNTER" -U -m /usr/bin/bash -c 'chmod 0600 /tmp/m/f' 2>&1
}

stop_mounter() { kill "$MOUNTER" 2>/dev/null; wait "$MOUNTER" 2>/dev/null; }

# The control: an unrestricted mounter's copy has CAP_FOWNER.
control=0
if mounter; then
	if out=$(chmod_as_joiner); then
		ok "unrestricted mounter: root changes the mode through the overlay"
		control=1
	else
		not_ok "CANNOT RUN: root cannot change the mode through an unrestricted mounter's overlay: $out"
	fi
else
	not_ok "CANNOT RUN: alice cannot mount an overlay in her namespace"
fi
stop_mounter

if [ $control = 1 ]; then
	if mounter cap_fowner; then
		if out=$(chmod_as_joiner); then
			not_ok "restricted mounter: root changed the mode (ESCAPE: the mounter's copy held CAP_FOWNER)"
		else
			expect_match "restricted mounter: the layer refuses the change" "$out" "Operation not permitted"
		fi
	else
		not_ok "CANNOT RUN: alice without cap_fowner cannot mount an overlay"
	fi
	stop_mounter
fi

fresh_unload
done_testing
