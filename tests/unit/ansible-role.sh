#!/usr/bin/env bash
# The Ansible role in deploy/ansible, without a fleet (the system test's
# fleet stage runs it against booted guests): the playbooks parse,
# ansible-lint's production profile passes, and the policy template
# renders a file that capuns check-conf accepts, rule for rule.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/guest/tap.sh"
export LD_LIBRARY_PATH=$root/build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CAPUNS_BACKEND=none
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ANSIBLE_HOME=$tmp/home ANSIBLE_LOCAL_TEMP=$tmp/tmp ANSIBLE_NOCOLOR=1
dir=$root/deploy/ansible

for tool in ansible-playbook ansible ansible-lint; do
	command -v $tool >/dev/null || { not_ok "CANNOT RUN: $tool is not installed (make deps)"; done_testing; }
done

out=$(cd "$dir" && ansible-playbook --syntax-check site.yml learn.yml 2>&1); rc=$?
expect_eq "ansible-playbook --syntax-check site.yml learn.yml" "$rc" 0
[ $rc = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'

out=$(cd "$dir" && ansible-lint --offline --profile production --nocolor 2>&1); rc=$?
expect_eq "ansible-lint --profile production: no violation" "$rc" 0
[ $rc = 0 ] || printf '%s\n' "$out" | tail -n 20 | sed 's/^/#   /'

# The template, rendered as the role renders it.
cat >"$tmp/vars.yml" <<'EOF'
capuns_policy:
  - caps: "!cap_net_admin,!cap_sys_module"
    who: "@root nobody"
    comment: "no netfilter from a user namespace"
  - caps: "none"
    who: "daemon"
    audit: true
EOF
out=$(ansible localhost -c local -i localhost, -e "@$tmp/vars.yml" -m ansible.builtin.template \
	-a "src=$dir/roles/capuns/templates/capuns.conf.j2 dest=$tmp/capuns.conf mode=0644" 2>&1); rc=$?
expect_eq "the policy template renders" "$rc" 0
[ $rc = 0 ] || printf '%s\n' "$out" | tail -n 5 | sed 's/^/#   /'
expect_eq "... one line per rule, audit keyword and comment kept" \
	"$(grep -v '^#' "$tmp/capuns.conf" 2>/dev/null)" \
	"$(printf '!cap_net_admin,!cap_sys_module\t@root nobody\naudit none\tdaemon')"
expect_match "... with its comment" "$(cat "$tmp/capuns.conf" 2>/dev/null)" "# no netfilter from a user namespace"
out=$("$root/build/capuns" check-conf "$tmp/capuns.conf" 2>&1)
expect_match "capuns check-conf accepts it (no backend here: exit 4 is the enforcement check)" "$out" "OK, 2 rules"
"$root/build/capuns" check-conf --protect=root "$tmp/capuns.conf" >/dev/null 2>&1; rc=$?
expect_eq "... and the role's validation refuses it: @root matches root" "$rc" 1
done_testing
