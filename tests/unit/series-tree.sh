#!/usr/bin/env bash
# vm/series-tree: a series opened as commits and exported unchanged is the
# same files; an edit changes its patch only; a refused export writes
# nothing. On a copy of the repository's kernel/ and vm/ (the script finds
# its root from where it lies), with the shared cache's pristine tree.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/guest/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
mkdir "$tmp/root"
cp -a "$root/kernel" "$root/vm" "$tmp/root/"
st() { "$tmp/root/vm/series-tree" "$@" >"$tmp/err" 2>&1; }
patches=$tmp/root/kernel/patches/linux-6.1
last=$(ls "$patches" | tail -n 1)

check "open: the 6.1 series as commits" st open 6.1 "$tmp/tree"
expect_eq "... one commit a patch on the tag pristine" \
	"$(git -C "$tmp/tree" rev-list --count pristine..)" "$(($(ls "$patches" | wc -l) - 1))"
check_fails "open into a folder that is not empty: refused" st open 6.1 "$tmp/tree"
check "export of the unchanged commits" st export 6.1 "$tmp/tree"
expect_eq "... gives back the same files, byte for byte" \
	"$(diff -r "$root/kernel/patches/linux-6.1" "$patches")" ""

# An edit: one more line in the last patch's changelog.
git -C "$tmp/tree" log -1 --format=%B >"$tmp/msg"
sed -i '1a\
\
An added paragraph.' "$tmp/msg"
check "an amended changelog commits" git -C "$tmp/tree" -c user.name=t -c user.email=t@t \
	commit -q --amend -F "$tmp/msg"
check "export of the edit" st export 6.1 "$tmp/tree"
# (the cover's text is the same but for its first line, the From line
# that names a commit: it keeps its file)
expect_eq "... changes that patch only" \
	"$(diff -rq "$root/kernel/patches/linux-6.1" "$patches" | awk '{ print $2 }' | xargs -n1 basename)" \
	"$last"
expect_match "... and the patch holds the new paragraph" "$(cat "$patches/$last")" "^An added paragraph\.$"

# A change checkpatch refuses: the files are written, the export fails.
printf 'int capuns_series_tree_test(void) { return 0; } \n' >>"$tmp/tree/kernel/umh.c"
check_fails "uncommitted changes: export refused" st export 6.1 "$tmp/tree"
git -C "$tmp/tree" -c user.name=t -c user.email=t@t commit -q -a --fixup=HEAD~1
git -C "$tmp/tree" -c user.name=t -c user.email=t@t -c sequence.editor=true \
	rebase -q -i --autosquash pristine
check_fails "a patch checkpatch --strict refuses: export fails" st export 6.1 "$tmp/tree"
expect_match "... and says why" "$(cat "$tmp/err")" "checkpatch --strict complains"
done_testing
