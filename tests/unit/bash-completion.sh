#!/usr/bin/env bash
# The bash completion of capuns: subcommands, options, capability names
# of the running kernel (from capuns --list-caps) in every item of a
# list, signs kept, users for check-conf --user and --protect, commands
# after "--", files after learn --journal.
# Driven as bash drives it: COMP_LINE, COMP_POINT, COMP_WORDS split at
# COMP_WORDBREAKS, then the function complete -p names.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/guest/tap.sh"
export LD_LIBRARY_PATH=$root/build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
PATH=$root/build:$PATH
. "$root/system/capuns.bash-completion"

expect_eq "complete -p names the function" "$(complete -p capuns)" "complete -F _capuns capuns"

# comp LINE: complete at the end of LINE; the candidates, sorted, one line.
comp() {
	COMP_LINE=$1
	COMP_POINT=${#1}
	# bash's split: blanks separate words, '=' is a word of its own
	read -r -a COMP_WORDS <<<"${1//=/ = }"
	[[ $1 == *[[:space:]] ]] && COMP_WORDS+=("")
	[[ $1 == *= ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_capuns
	printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}

expect_eq "subcommands" "$(comp 'capuns check')" "check check-conf"
expect_match "options" "$(comp 'capuns --dr')" "^--drop=$"
expect_eq "--drop=cap_net_a: the name" "$(comp 'capuns --drop=cap_net_a')" "cap_net_admin"
expect_eq "the last item of a list, with its sign" "$(comp 'capuns --drop=cap_chown,!cap_sys_ad')" \
	"cap_chown,!cap_sys_admin"
expect_eq "all and none" "$(comp 'capuns --only=no')" "none"
last=$(capuns --list-caps | tail -n 1 | cut -d' ' -f2)
expect_match "every name of the running kernel, the last ($last) included" \
	"$(comp 'capuns --raise=')" " $last( |$)"
expect_eq "--strict=" "$(comp 'capuns --strict=l')" "lock"
expect_eq "check CAP" "$(comp 'capuns check cap_sys_ch')" "cap_sys_chroot"
expect_eq "check-conf --user NAME" "$(comp 'capuns check-conf --user roo')" "root"
expect_eq "check-conf options" "$(comp 'capuns check-conf --u')" "--user"
expect_eq "check-conf --protect" "$(comp 'capuns check-conf --pro')" "--protect"
expect_eq "check-conf --protect NAME" "$(comp 'capuns check-conf --protect roo')" "root"
expect_eq "check-conf --protect=NAME" "$(comp 'capuns check-conf --protect=roo')" "root"
expect_eq "bpf actions" "$(comp 'capuns bpf unl')" "unload"
expect_match "after --, commands" "$(comp 'capuns --drop=cap_chown -- bas')" "(^| )bash( |$)"
expect_eq "complain on|off" "$(comp 'capuns complain o')" "off on"
expect_eq "learn options" "$(comp 'capuns learn --f')" "--for="
expect_eq "learn --for=USER" "$(comp 'capuns learn --for=roo')" "root"
expect_eq "learn --for=@GROUP" "$(comp 'capuns learn --for=@roo')" "@root"
expect_match "learn COMMAND" "$(comp 'capuns learn bas')" "(^| )bash( |$)"
expect_eq "learn --journal" "$(comp 'capuns learn --jo')" "--journal"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
touch "$tmp/host1.log" "$tmp/host2.log"
expect_eq "learn --journal FILE: files, not commands" "$(comp "capuns learn --journal $tmp/ho")" \
	"$tmp/host1.log $tmp/host2.log"
expect_eq "learn --for=WHO --journal -- FILE: files" \
	"$(comp "capuns learn --for=alice --journal -- $tmp/host1")" "$tmp/host1.log"
expect_eq "learn without --journal: no file after --" "$(comp "capuns learn -- $tmp/ho")" ""
expect_eq "the new subcommands" "$(comp 'capuns l')" "learn"
done_testing
