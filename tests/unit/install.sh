#!/usr/bin/env bash
# make install and the shared library as a user of them sees them: flags
# from the environment reach every compile and link, the install variables
# place every file, the soname chain, the exported symbols, a public header
# that defines nothing without the capuns prefix, and a program built from
# the installed header and library through pkg-config (the example of
# libcapuns(3)). One version number everywhere. The default directories
# put the PAM module and its pam-auth-update profile where Debian looks for
# them, and make uninstall takes away all but the configuration.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/guest/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
version=$(cat "$root/VERSION")
mk() { make -s -C "$root" WERROR=-Werror "$@"; }
# Dry runs show what a plain make does: under make check, MAKEFLAGS carries
# the test build's WERROR=-Werror into every sub-make (and make exports
# command-line variables to the environment), so leave both out.
dry_make() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u WERROR make "$@"; }

# --- flags: user CPPFLAGS/CFLAGS/LDFLAGS are added, never replace ---------
# A dry run of a full build in a scratch tree lists every command: each
# link must carry the LDFLAGS marker, each compile the CPPFLAGS one.
probe_ld=-Wl,--defsym=capuns_ldflags_probe=0x1234
cmds=$(dry_make -C "$root" -n -B B="$tmp/dry" CPPFLAGS=-DCAPUNS_CPPFLAGS_PROBE \
	LDFLAGS="$probe_ld" CFLAGS="-O1 -g" all guest 2>&1 | sed -e ':a' -e '/\\$/N; s/\\\n//; ta')
links=$(printf '%s\n' "$cmds" | grep -E '^(gcc|cc|\$\(CC\)) ' | grep -v -- ' -c ')
# A compile: the dry run's $(CC), whatever it is, on a .c file. Each check
# below counts the compiles it read: none read is no evidence.
cc=$(dry_make -s -C "$root" --no-print-directory --eval='capuns-print-cc: ; @echo "$(CC)"' capuns-print-cc)
c_compiles() { awk -v cc="$cc " 'index($0, cc) == 1 && / [^ ]*\.c( |$)/'; }
compiles=$(printf '%s\n' "$cmds" | c_compiles)
n_compiles=$(printf '%s\n' "$compiles" | grep -c .)
n_links=$(printf '%s\n' "$links" | grep -c .)
missing=$(printf '%s\n' "$links" | grep -vF -- "$probe_ld" || true)
if [ "$n_links" -gt 10 ] && [ -z "$missing" ]; then ok "LDFLAGS reach all $n_links links"; else
	not_ok "LDFLAGS reach every link ($n_links links)"; printf '%s\n' "$missing" | sed 's/^/#   /' | head; fi
missing=$(printf '%s\n' "$compiles" | grep -vF -- -DCAPUNS_CPPFLAGS_PROBE || true)
if [ "$n_compiles" -gt 0 ] && [ -z "$missing" ]; then ok "CPPFLAGS reach every compile"; else
	not_ok "CPPFLAGS reach every compile ($n_compiles compiles by '$cc')"; printf '%s\n' "$missing" | sed 's/^/#   /' | head; fi
missing=$(printf '%s\n' "$compiles" | grep -vF -- '-Iinclude' || true)
if [ "$n_compiles" -gt 0 ] && [ -z "$missing" ]; then ok "the project's own CPPFLAGS stay with user CPPFLAGS"; else
	not_ok "user CPPFLAGS replaced the project's ($n_compiles compiles by '$cc')"; printf '%s\n' "$missing" | sed 's/^/#   /' | head; fi
# -Werror only in the test builds: not in `make all` (what install builds).
compiles=$(dry_make -C "$root" -n -B B="$tmp/dry" all 2>&1 | c_compiles)
n_compiles=$(printf '%s\n' "$compiles" | grep -c .)
werror=$(printf '%s\n' "$compiles" | grep -cE -- '-Werror( |$)')
if [ "$n_compiles" -gt 0 ] && [ "$werror" = 0 ]; then ok "no -Werror in make all (installation build)"; else
	not_ok "no -Werror in make all ($werror of $n_compiles compiles by '$cc' have it)"; fi
compiles=$(dry_make -C "$root" -n -B B="$tmp/dry" unit 2>&1 | c_compiles)
n_compiles=$(printf '%s\n' "$compiles" | grep -c .)
werror=$(printf '%s\n' "$compiles" | grep . | grep -vcE -- '-Werror( |$)')
if [ "$n_compiles" -gt 0 ] && [ "$werror" = 0 ]; then ok "-Werror on every compile of make unit"; else
	not_ok "-Werror on every compile of make unit ($werror of $n_compiles compiles by '$cc' lack it)"; fi
# A real build with Debian's hardening flags (the library and the CLI).
if make -s -C "$root" B="$tmp/fortify" CPPFLAGS="-D_FORTIFY_SOURCE=2" \
	CFLAGS="-O2 -g -fstack-protector-strong -Wformat -Werror=format-security" \
	LDFLAGS="-Wl,-z,relro -Wl,-z,now" "$tmp/fortify/capuns" >"$tmp/fortify.log" 2>&1; then
	ok "make CPPFLAGS=-D_FORTIFY_SOURCE=2 builds"
else
	not_ok "make CPPFLAGS=-D_FORTIFY_SOURCE=2 builds"; sed 's/^/#   /' "$tmp/fortify.log" | tail
fi

# --- make install with every directory variable ---------------------------
dest=$tmp/dest
if mk install DESTDIR="$dest" PREFIX=/opt/cu BINDIR=/opt/cu/b SBINDIR=/opt/cu/sb \
	LIBDIR=/opt/cu/l INCLUDEDIR=/opt/cu/i MANDIR=/opt/cu/m PAMDIR=/opt/cu/pam \
	SYSCONFDIR=/opt/cu/etc UNITDIR=/opt/cu/unit LIBEXECDIR=/opt/cu/le >"$tmp/install.log" 2>&1; then
	ok "make install DESTDIR=... with every directory set"
else
	not_ok "make install"; sed 's/^/#   /' "$tmp/install.log" | tail
fi
for f in b/capuns sb/capuns-bpf l/libcapuns.so.$version l/libcapuns.so.0 l/libcapuns.so \
	l/pkgconfig/libcapuns.pc i/capuns.h pam/pam_capuns.so etc/security/capuns.conf \
	etc/default/capuns unit/capuns-bpf.service le/capuns/capuns-boot \
	m/man1/capuns.1 m/man3/libcapuns.3 m/man8/pam_capuns.8; do
	if [ -e "$dest/opt/cu/$f" ]; then ok "installed $f"; else not_ok "installed $f"; fi
done
if grep -q "ExecStart=/opt/cu/le/capuns/capuns-boot start" "$dest/opt/cu/unit/capuns-bpf.service" &&
	grep -q "^capuns_bpf=/opt/cu/sb/capuns-bpf" "$dest/opt/cu/le/capuns/capuns-boot" &&
	! grep -qE '@[A-Z_]+@' "$dest/opt/cu/unit/capuns-bpf.service" "$dest/opt/cu/le/capuns/capuns-boot"; then
	ok "the unit and its script name the installed paths"
else
	not_ok "the unit and its script name the installed paths"
fi
expect_eq "PAMDIR elsewhere: the profile names the module by its path" \
	"$(awk '/^Session:/ { s = 1; next } s { print $2 }' "$dest/usr/share/pam-configs/capuns" 2>&1)" \
	"/opt/cu/pam/pam_capuns.so"
echo '# edited' >>"$dest/opt/cu/etc/security/capuns.conf"
mk install DESTDIR="$dest" PREFIX=/opt/cu SYSCONFDIR=/opt/cu/etc >/dev/null 2>&1
expect_eq "a second make install keeps the administrator's capuns.conf" \
	"$(tail -n 1 "$dest/opt/cu/etc/security/capuns.conf")" "# edited"

# --- the default directories: where Debian's PAM and pam-auth-update look ---
# libpam loads a module named without a path from the directory Debian's
# libpam-modules fills (pam_unix.so's), and pam-auth-update reads its
# profiles from one directory: under PREFIX=/usr/local they see nothing.
# Debian merges /usr, so /lib/... and /usr/lib/... are one directory.
multiarch=$(gcc -print-multiarch)
pam_dir=$(dpkg -L libpam-modules 2>/dev/null | sed -n 's|/pam_unix\.so$||p' | head -n 1)
[ -n "$pam_dir" ] || pam_dir=/lib/$multiarch/security
profiles=$(grep -o '/usr/share/pam-configs' /usr/sbin/pam-auth-update 2>/dev/null | head -n 1)
[ -n "$profiles" ] || profiles=/usr/share/pam-configs
dest2=$tmp/default
mk install DESTDIR="$dest2" >"$tmp/install2.log" 2>&1 ||
	{ not_ok "make install DESTDIR=... with the default directories"; sed 's/^/#   /' "$tmp/install2.log" | tail; }
found=$(cd "$dest2" && find . -name pam_capuns.so | sed 's|^\.||')
expect_eq "pam_capuns.so where Debian's PAM looks (${pam_dir#/usr})" "${found#/usr}" "${pam_dir#/usr}/pam_capuns.so"
if [ -f "$dest2$profiles/capuns" ]; then ok "the profile where pam-auth-update looks ($profiles)"; else
	not_ok "the profile where pam-auth-update looks ($profiles)"; fi
expect_eq "the profile names the module as PAM finds it" \
	"$(awk '/^Session:/ { s = 1; next } s { print $2 }' "$dest2$profiles/capuns" 2>&1)" "pam_capuns.so"
mk uninstall DESTDIR="$dest2" >"$tmp/uninstall.log" 2>&1 ||
	{ not_ok "make uninstall DESTDIR=..."; sed 's/^/#   /' "$tmp/uninstall.log" | tail; }
left=$(cd "$dest2" && find . ! -type d ! -path './etc/*' | sort)
expect_eq "make uninstall removes every file but the configuration" "$left" ""
if [ -f "$dest2/etc/security/capuns.conf" ]; then ok "make uninstall keeps capuns.conf"; else
	not_ok "make uninstall keeps capuns.conf"; fi

# The default capuns.conf restricts nothing: no active line at all.
active=$(grep -Ev '^[[:space:]]*(#|$)' "$dest/opt/cu/etc/security/capuns.conf" || true)
expect_eq "the installed capuns.conf has no active rule" "$active" ""

# --- the shared library ----------------------------------------------------
lib=$dest/opt/cu/l
expect_eq "soname link" "$(readlink "$lib/libcapuns.so.0")" "libcapuns.so.$version"
expect_eq "development link" "$(readlink "$lib/libcapuns.so")" "libcapuns.so.0"
soname=$(readelf -d "$lib/libcapuns.so.$version" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
expect_eq "SONAME is libcapuns.so.0" "$soname" "libcapuns.so.0"
exported=$(nm -D --defined-only "$lib/libcapuns.so.$version" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' | sort)
declared=$(grep -o 'CAPUNS_API [^(]*(' "$root/include/capuns.h" | grep -o 'capuns_[a-z_0-9]*(' | tr -d '(' | sort)
mapped=$(sed -n 's/^[[:space:]]*\(capuns_[a-z_0-9]*\);$/\1/p' "$root/lib/libcapuns.map" | sort)
expect_eq "exported symbols = CAPUNS_API functions of capuns.h" "$exported" "$declared"
expect_eq "lib/libcapuns.map lists exactly the CAPUNS_API functions" "$mapped" "$declared"
versioned=$(nm -D --defined-only "$lib/libcapuns.so.$version" | awk '$2 == "T"' | grep -vc '@@LIBCAPUNS_' || true)
expect_eq "every export carries a LIBCAPUNS_ symbol version" "$versioned" 0
pcver=$(PKG_CONFIG_PATH=$lib/pkgconfig pkg-config --modversion libcapuns 2>&1)
expect_eq "libcapuns.pc version" "$pcver" "$version"

# Every exported function is documented in libcapuns(3).
undocumented=$(for f in $declared; do grep -q "^\.BR* $f\b\|$f(" "$root/man/libcapuns.3" || echo "$f"; done)
expect_eq "libcapuns(3) documents every exported function" "$undocumented" ""

# --- the public header -----------------------------------------------------
# Every macro capuns.h adds to a program (beyond the system headers it
# includes) starts with CAPUNS_.
inc=$dest/opt/cu/i
printf '#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <sys/types.h>\n' >"$tmp/base.c"
{ cat "$tmp/base.c"; echo '#include <capuns.h>'; } >"$tmp/with.c"
gcc -E -dM -I"$inc" "$tmp/base.c" | awk '{ print $2 }' | sed 's/(.*//' | sort -u >"$tmp/base.m"
gcc -E -dM -I"$inc" "$tmp/with.c" | awk '{ print $2 }' | sed 's/(.*//' | sort -u >"$tmp/with.m"
leaked=$(comm -13 "$tmp/base.m" "$tmp/with.m" | grep -v '^CAPUNS_' || true)
expect_eq "capuns.h defines only CAPUNS_ macros" "$leaked" ""
if [ ! -e "$inc/capuns-abi.h" ]; then ok "the kernel-ABI header is not installed"; else
	not_ok "the kernel-ABI header is not installed"; fi

# --- a program against the installed library (pkg-config) -----------------
sed -n '/example-begin/,/example-end/p' "$root/man/libcapuns.3" |
	sed -e '/^\./d' -e 's/\\e/\\/g' -e 's/\\-/-/g' >"$tmp/lower.c"
flags=$(PKG_CONFIG_PATH=$lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$dest pkg-config --cflags --libs libcapuns)
expect_match "pkg-config names the installed header and library" "$flags" "-I$dest/opt/cu/i .*-L$dest/opt/cu/l -lcapuns"
# shellcheck disable=SC2086
if gcc -Wall -Wextra -Werror -o "$tmp/lower" "$tmp/lower.c" $flags 2>"$tmp/cc.log"; then
	ok "the example of libcapuns(3) compiles with pkg-config --cflags --libs libcapuns"
else
	not_ok "the example of libcapuns(3) compiles"; sed 's/^/#   /' "$tmp/cc.log"
fi
needed=$(readelf -d "$tmp/lower" 2>/dev/null | grep -c 'Shared library: \[libcapuns.so.0\]')
expect_eq "the example links libcapuns.so.0" "$needed" 1
out=$(LD_LIBRARY_PATH=$lib "$tmp/lower" cap_bogus /bin/true 2>&1); rc=$?
expect_eq "the example rejects an unknown capability (exit 2)" "$rc" 2
out=$(CAPUNS_BACKEND=none LD_LIBRARY_PATH=$lib "$tmp/lower" cap_net_admin /bin/true 2>&1); rc=$?
expect_eq "the example fails closed without a backend (exit 1)" "$rc" 1
expect_match "and says why" "$out" "backend none"

# --- one version ------------------------------------------------------------
expect_eq "capuns --version" "$(LD_LIBRARY_PATH=$lib "$dest/opt/cu/b/capuns" --version)" "capuns $version"
for page in "$dest"/opt/cu/m/man*/*; do
	th=$(sed -n 's/^\.TH [^"]*"\(capuns [^"]*\)".*/\1/p' "$page")
	expect_eq "${page##*/} shows capuns $version" "$th" "capuns $version"
done
done_testing
