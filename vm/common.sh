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
				log "$stage: still running, $((t / 60)) min $((t % 60)) s"
			fi
		done
	) &
	ticker=$!
	wait "$pid" || rc=$?
	wait "$ticker" 2>/dev/null || true
	return $rc
}

# The kernel series a script works on: Debian's linux-source-SERIES and
# the patches in kernel/patches/linux-SERIES/. 6.1 unless a script is told
# otherwise (use_kernel_series 6.12).
KERNEL_SERIES_ALL="6.1 6.12"
use_kernel_series() {
	case " $KERNEL_SERIES_ALL " in
	*" $1 "*) ;;
	*) die "unknown kernel series '$1' (one of: $KERNEL_SERIES_ALL)" ;;
	esac
	KERNEL_SERIES=linux-$1
	KERNEL_SOURCE_PACKAGE=linux-source-$1
	KERNEL_SOURCE_TARBALL=/usr/src/linux-source-$1.tar.xz
}
use_kernel_series 6.1

# Version string of the Debian kernel source package, part of every key.
kernel_source_version() {
	dpkg-query -W -f='${Version}' "$KERNEL_SOURCE_PACKAGE" 2>/dev/null ||
		die "$KERNEL_SOURCE_PACKAGE is not installed (run: make deps)"
}

# Pristine, unpacked source tree shared by all builds (read-only use).
pristine_tree() {
	local ver dir
	ver=$(kernel_source_version)
	dir=$CAPUNS_CACHE/src/linux-source-$ver
	if [ ! -f "$dir/.capuns-complete" ]; then
		log "unpacking linux-source $ver (once)"
		rm -rf "$dir.tmp"
		mkdir -p "$dir.tmp"
		tar -C "$dir.tmp" --strip-components=1 -xf "$KERNEL_SOURCE_TARBALL"
		touch "$dir.tmp/.capuns-complete"
		rm -rf "$dir"
		mv "$dir.tmp" "$dir"
	fi
	printf '%s\n' "$dir"
}
