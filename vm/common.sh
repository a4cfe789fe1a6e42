# Shared settings for the vm/ scripts. Source it; do not run it.
# Everything expensive (kernel trees, builds, downloads) lives in a cache
# outside the repository so that fresh clones reuse it.

set -euo pipefail
# Guest images must be readable by the unprivileged test users.
umask 022

CAPUNS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CAPUNS_CACHE=${CAPUNS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capuns}
mkdir -p "$CAPUNS_CACHE"

log() { printf '[%s] %s\n' "${0##*/}" "$*" >&2; }
die() { printf '[%s] error: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# Serialise concurrent users of one cache entry (two make check runs,
# or a build and a test) with flock on a per-entry lock file. Waiting for
# another holder shows progress (the lock belongs to the open file, so
# the background flock's lock stays with this process).
with_lock() {
	local lock=$1; shift
	mkdir -p "$(dirname "$lock")"
	exec {lockfd}>"$lock"
	if ! flock -n "$lockfd"; then
		log "waiting for ${lock##*/} (another build holds it)"
		with_progress "waiting for ${lock##*/}" flock "$lockfd"
	fi
	"$@"
	local rc=$?
	exec {lockfd}>&-
	return $rc
}

# with_progress STAGE CMD...: run CMD and, while it runs, log a line with
# the stage and the elapsed time every CAPUNS_PROGRESS_SECONDS (30) s, so
# that long work (kernel and root file system builds) never looks hung.
# With CAPUNS_PROGRESS_LOG set to a kbuild log, the line also counts the
# objects compiled so far.
with_progress() {
	local stage=$1 every=${CAPUNS_PROGRESS_SECONDS:-30} pid ticker rc=0
	shift
	"$@" &
	pid=$!
	(
		t=0
		while kill -0 "$pid" 2>/dev/null; do
			sleep 1
			t=$((t + 1))
			if [ $((t % every)) = 0 ] && kill -0 "$pid" 2>/dev/null; then
				log "$stage: still running, $((t / 60)) min $((t % 60)) s$(progress_count)"
			fi
		done
	) &
	ticker=$!
	wait "$pid" || rc=$?
	wait "$ticker" 2>/dev/null || true
	return $rc
}

progress_count() {
	[ -n "${CAPUNS_PROGRESS_LOG:-}" ] && [ -f "$CAPUNS_PROGRESS_LOG" ] || return 0
	printf ', %s objects compiled' "$(grep -c '^  CC ' "$CAPUNS_PROGRESS_LOG")"
}

# The kernel series a script works on: the patches in kernel/patches/SERIES/
# on a pristine source tree. The backports, 6.1 and 6.12, apply to Debian's
# linux-source-SERIES as bookworm installs it. The mainline series applies
# to the upstream release MAINLINE_RELEASE: Debian ships its source in
# trixie-backports or sid (linux-source-MAINLINE_RELEASE, the newest
# stable update of it), and kernel/upstream/ holds what turns Debian's
# tree back into upstream's in the files the series touches. 6.1 unless a
# script is told otherwise (use_kernel_series 6.12).
KERNEL_SERIES_ALL="6.1 6.12 mainline"
MAINLINE_RELEASE=7.3
use_kernel_series() {
	case " $KERNEL_SERIES_ALL " in
	*" $1 "*) ;;
	*) die "unknown kernel series '$1' (one of: $KERNEL_SERIES_ALL)" ;;
	esac
	# what vm/run-tests' targets and the builds append to their name
	# (patched-6.12, unpatched-mainline): 6.1 keeps the plain names
	KERNEL_TARGET_SUFFIX=
	[ "$1" = 6.1 ] || KERNEL_TARGET_SUFFIX=-$1
	if [ "$1" = mainline ]; then
		KERNEL_SERIES=mainline
		KERNEL_SOURCE_PACKAGE=linux-source-$MAINLINE_RELEASE
		KERNEL_SOURCE_TARBALL=
		KERNEL_BASE_PATCHES=("$CAPUNS_ROOT/kernel/upstream/linux-$MAINLINE_RELEASE"-*.patch)
	else
		KERNEL_SERIES=linux-$1
		KERNEL_SOURCE_PACKAGE=linux-source-$1
		KERNEL_SOURCE_TARBALL=/usr/src/linux-source-$1.tar.xz
		KERNEL_BASE_PATCHES=()
	fi
}
use_kernel_series 6.1

# apt_newest: sets APT_NEWEST to the apt options that read the lists of
# sid and trixie-backports, kept in the cache and refreshed daily, so that
# the machine's own sources stay bookworm's (Debian's newest kernel image
# and the mainline series' source come from there).
apt_newest() {
	local adir=$CAPUNS_CACHE/apt-newest
	APT_NEWEST=(-o "Dir::Etc::sourcelist=$adir/sources.list" -o Dir::Etc::sourceparts=-
		-o "Dir::State::Lists=$adir/lists" -o "Dir::Cache=$adir/cache"
		-o APT::Sandbox::User=root)
	with_lock "$CAPUNS_CACHE/stock.lock" apt_newest_update "$adir"
}
apt_newest_update() {
	local adir=$1 key=/usr/share/keyrings/debian-archive-keyring.gpg suite
	[ -n "$(find "$adir/lists" -maxdepth 1 -name '*_Packages*' -mmin -1440 2>/dev/null | head -1)" ] &&
		return 0
	mkdir -p "$adir/lists/partial" "$adir/cache/archives/partial"
	for suite in sid trixie-backports; do
		echo "deb [signed-by=$key] http://deb.debian.org/debian $suite main"
	done >"$adir/sources.list"
	log "updating the apt lists of sid and trixie-backports"
	apt-get "${APT_NEWEST[@]}" -q update >"$adir/update.log" 2>&1 ||
		die "apt-get update of sid and trixie-backports failed (see $adir/update.log)"
}

# newest_version PKG [WANT]: the highest version of PKG in sid and
# trixie-backports (apt's own candidate would prefer sid by pin priority),
# or WANT when given and carried. Needs apt_newest.
newest_version() {
	local v ver=
	for v in $(apt-cache "${APT_NEWEST[@]}" show "$1" 2>/dev/null | sed -n 's/^Version: //p'); do
		if [ -n "${2:-}" ]; then
			[ "$v" = "$2" ] && ver=$v
		elif [ -z "$ver" ] || dpkg --compare-versions "$v" gt "$ver"; then
			ver=$v
		fi
	done
	[ -n "$ver" ] || die "no $1 ${2:-} in sid or trixie-backports"
	printf '%s\n' "$ver"
}

# Version string of the Debian kernel source package, part of every key.
kernel_source_version() {
	if [ "$KERNEL_SERIES" = mainline ]; then
		apt_newest
		newest_version "$KERNEL_SOURCE_PACKAGE"
		return
	fi
	dpkg-query -W -f='${Version}' "$KERNEL_SOURCE_PACKAGE" 2>/dev/null ||
		die "$KERNEL_SOURCE_PACKAGE is not installed (run: make deps)"
}

# Pristine, unpacked source tree shared by all builds (read-only use).
# For the mainline series: the source package downloaded (not installed:
# bookworm cannot install trixie's), unpacked and returned to upstream's
# text by KERNEL_BASE_PATCHES.
pristine_tree() {
	local ver dir base=
	[ "$KERNEL_SERIES" != mainline ] || apt_newest
	ver=$(kernel_source_version)
	[ ${#KERNEL_BASE_PATCHES[@]} = 0 ] ||
		base=+$(cat "${KERNEL_BASE_PATCHES[@]}" | sha256sum | cut -c1-8)
	dir=$CAPUNS_CACHE/src/linux-source-$ver$base
	[ -f "$dir/.capuns-complete" ] || with_lock "$CAPUNS_CACHE/src.lock" unpack_source "$ver" "$dir"
	printf '%s\n' "$dir"
}
unpack_source() {
	local ver=$1 dir=$2 p
	[ -f "$dir/.capuns-complete" ] && return 0
	log "unpacking $KERNEL_SOURCE_PACKAGE $ver (once)"
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	if [ -n "$KERNEL_SOURCE_TARBALL" ]; then
		tar -C "$dir.tmp" --strip-components=1 -xf "$KERNEL_SOURCE_TARBALL"
	else
		mkdir "$dir.tmp/.deb"
		(cd "$dir.tmp/.deb" && apt-get "${APT_NEWEST[@]}" download -q \
			"$KERNEL_SOURCE_PACKAGE=$ver" >/dev/null) ||
			die "apt-get download $KERNEL_SOURCE_PACKAGE=$ver failed"
		dpkg-deb --fsys-tarfile "$dir.tmp"/.deb/*.deb |
			tar -xO "./usr/src/$KERNEL_SOURCE_PACKAGE.tar.xz" |
			tar -C "$dir.tmp" --strip-components=1 -xJ ||
			die "no source tarball in $KERNEL_SOURCE_PACKAGE $ver"
		rm -rf "$dir.tmp/.deb"
	fi
	for p in "${KERNEL_BASE_PATCHES[@]}"; do
		(cd "$dir.tmp" && git apply --whitespace=error-all "$p") ||
			die "${p##*/} does not apply to $KERNEL_SOURCE_PACKAGE $ver"
	done
	touch "$dir.tmp/.capuns-complete"
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
}

# qemu_accel PROBE: the accelerator for guests on this machine, kvm or
# tcg. CAPUNS_ACCEL decides when set. Otherwise KVM when /dev/kvm is
# writable and PROBE (a command given the argument kvm, run once per
# machine and QEMU version, its answer cached) succeeds: a guest that
# hangs on KVM would cost its whole timeout at every run, so TCG is used
# from then on.
qemu_accel() {
	local probe=$1 cache
	if [ -n "${CAPUNS_ACCEL:-}" ]; then
		echo "$CAPUNS_ACCEL"
		return
	fi
	cache=$CAPUNS_CACHE/accel-$(uname -r)-$(qemu-system-x86_64 --version | head -1 | tr -dc '0-9.')
	if [ -f "$cache" ]; then
		cat "$cache"
	elif [ -w /dev/kvm ]; then
		if "$probe" kvm >&2; then
			echo kvm | tee "$cache"
		else
			log "KVM probe did not complete: using TCG on this machine"
			echo tcg | tee "$cache"
		fi
	else
		echo tcg
	fi
}

# qemu_boot ACCEL MEMORY TIMEOUT KERNEL INITRD APPEND LOGPREFIX [QEMU-ARG...]
# One x86_64 guest with one CPU (CAPUNS_SMP=N: N), MEMORY MiB, no display
# and no reboot: the kernel console on the first serial port
# (LOGPREFIX.console), the guest's report on the second
# (LOGPREFIX.results), both emptied first; QEMU's own output in
# LOGPREFIX.qemu. The guest's command line is
# "console=ttyS0 panic=-1 APPEND" (a panic powers off). Killed after
# TIMEOUT seconds. Returns QEMU's exit status (124 or 137: timeout).
# CAPUNS_QEMU_ARGS adds QEMU arguments (debugging).
qemu_boot() {
	local accel=$1 memory=$2 limit=$3 kernel=$4 initrd=$5 append=$6 pfx=$7 cpu=max
	shift 7
	# TCG has no host CPU model to pass through
	[ "$accel" = kvm ] && cpu=host
	: >"$pfx.console"
	: >"$pfx.results"
	# shellcheck disable=SC2086 # CAPUNS_QEMU_ARGS is a list of words
	timeout --kill-after=5 "$limit" qemu-system-x86_64 \
		-machine pc,accel="$accel" -cpu "$cpu" -m "$memory" -smp "${CAPUNS_SMP:-1}" \
		-display none -monitor none -no-reboot \
		-kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 $append" \
		-serial "file:$pfx.console" -serial "file:$pfx.results" \
		"$@" ${CAPUNS_QEMU_ARGS:-} </dev/null >"$pfx.qemu" 2>&1
}
