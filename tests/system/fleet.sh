# shellcheck shell=bash
# shellcheck disable=SC2154 # result, work, logs, disk, stock, bootrd, fleet_key: tests/system/run
# The fleet stage of the system test (sourced by tests/system/run): the
# Ansible role in deploy/ansible rolls a policy out to two Debian 12
# guests booted with systemd and sshd from the system test's disk (each
# with its own throw-away overlay, QEMU's snapshot=on, and an ssh port
# forwarded from the host), the way an administrator runs it against a
# fleet: audit first, learn from the journals, enforce, then the two ways
# a rollout must stop (a policy that fails validation, a host that fails
# its health check after the change).
#
# Uses from tests/system/run: result, work, logs, disk, stock, bootrd,
# debs, fleet_key.

fleet_hosts=(host-a host-b)
fleet_ssh_opts=(-o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null
	-o LogLevel=ERROR -o ConnectTimeout=60)

# A TCP port on the loopback that nothing listens on.
fleet_free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 20000))
		ss -Htln "sport = :$p" | grep -q . || { echo "$p"; return; }
	done
}

# on HOST CMD: CMD as root on HOST over ssh, through one connection per
# host (a login costs seconds under TCG); on_fresh: a login of its own.
on() {
	local h=$1
	shift
	ssh "${fleet_ssh_opts[@]}" -o ControlMaster=auto -o "ControlPath=$fleet_dir/ssh-%p" \
		-o ControlPersist=600 -i "$fleet_key" -p "${fleet_port[$h]}" root@127.0.0.1 "$@" </dev/null
}
on_fresh() {
	local h=$1
	shift
	ssh "${fleet_ssh_opts[@]}" -o ControlPath=none -i "$fleet_key" -p "${fleet_port[$h]}" \
		root@127.0.0.1 "$@" </dev/null
}

# play NAME PLAYBOOK VARS...: ansible-playbook from the host against the
# guests, its output in the logs; sets play_rc and play_log.
play() {
	local name=$1 book=$2 t0=$SECONDS
	shift 2
	play_log=$logs/system-fleet-$name.log
	(cd "$CAPUNS_ROOT/deploy/ansible" &&
		ansible-playbook -i "$fleet_dir/inventory.ini" "$book" -e "@$fleet_dir/common.yml" "$@") \
		>"$play_log" 2>&1
	play_rc=$?
	echo "# system/fleet: ansible-playbook $book ($name): exit $play_rc, $((SECONDS - t0)) s" >&2
}

# The PLAY RECAP's counter KEY (ok, changed, failed...) for HOST.
recap() { sed -n "s/^$1 *:.* $2=\([0-9]*\).*/\1/p" "$play_log" | tail -1; }

# The end of a play's log, for a failing result.
play_tail() { grep -E 'fatal:|FAILED|msg' "$play_log" | tail -n 6 | cut -c1-240 | sed 's/^/#   /' >&2; }

fleet_check() { # WHAT CMD...: PASS if CMD succeeds
	local what=$1
	shift
	if "$@"; then result PASS fleet "$what"; else result FAIL fleet "$what"; fi
}

# Each host's state that a failed rollout must leave alone.
fleet_state() { # HOST
	on "$1" 'sha256sum /etc/security/capuns.conf /etc/default/capuns; stat -c %Y /etc/security/capuns.conf'
}

# alice's unshare -rn ip link set lo up on HOST: CAP_NET_ADMIN in a new
# user namespace, which the policy takes from the developers.
ALICE_NET_ADMIN="su -l alice -c 'unshare -rn ip link set lo up'"

fleet_boot() {
	local h
	for h in "${fleet_hosts[@]}"; do
		fleet_port[$h]=$(fleet_free_port)
		# The guest's own system test unit would run a stage and power off.
		qemu_boot tcg 1536 "${CAPUNS_FLEET_TIMEOUT:-2400}" "$stock/vmlinuz" "$bootrd" \
			"loglevel=4 root=/dev/vda capuns.kernel=stock capuns.stage=fleet systemd.hostname=$h systemd.mask=capuns-systest.service" \
			"$logs/system-fleet-$h" \
			-drive "file=$disk,if=virtio,format=raw,snapshot=on" \
			-nic "user,model=virtio-net-pci,hostfwd=tcp:127.0.0.1:${fleet_port[$h]}-:22" &
		fleet_qemu[$h]=$!
	done
	local t0=$SECONDS up=0
	while [ $((SECONDS - t0)) -lt "${CAPUNS_FLEET_BOOT_TIMEOUT:-600}" ]; do
		up=0
		for h in "${fleet_hosts[@]}"; do
			on_fresh "$h" true 2>/dev/null && up=$((up + 1))
		done
		[ "$up" = ${#fleet_hosts[@]} ] && break
		sleep 5
	done
	echo "# system/fleet: ${up} of ${#fleet_hosts[@]} guests answer ssh after $((SECONDS - t0)) s" >&2
	[ "$up" = ${#fleet_hosts[@]} ]
}

fleet_poweroff() {
	local h
	for h in "${fleet_hosts[@]}"; do
		on "$h" 'systemctl poweroff --no-block' 2>/dev/null
		ssh -o "ControlPath=$fleet_dir/ssh-${fleet_port[$h]}" -O exit x 2>/dev/null
	done
	for h in "${fleet_hosts[@]}"; do
		local n=0
		while kill -0 "${fleet_qemu[$h]}" 2>/dev/null && [ $n -lt 60 ]; do sleep 1; n=$((n + 1)); done
		kill "${fleet_qemu[$h]}" 2>/dev/null
		wait "${fleet_qemu[$h]}" 2>/dev/null
	done
}

# common.yml: what every play of the test shares; POLICY MODE: a play's own.
fleet_vars() { # FILE MODE CAPS WHO
	cat >"$1" <<-EOF
	capuns_mode: $2
	capuns_policy:
	  - caps: "$3"
	    who: "$4"
	EOF
}

stage_fleet() {
	local t_fleet=$SECONDS h out
	declare -gA fleet_port=() fleet_qemu=()
	fleet_dir=$work/fleet
	rm -rf "$fleet_dir"
	mkdir -p "$fleet_dir"
	if ! command -v ansible-playbook >/dev/null; then
		result FAIL fleet "CANNOT RUN: ansible-playbook is not installed (run: make deps)"
		return
	fi
	[ -n "$stock" ] || { result FAIL fleet "CANNOT RUN: no stock kernel"; return; }
	{
		echo "[capuns_fleet]"
		for h in "${fleet_hosts[@]}"; do echo "$h ansible_host=127.0.0.1 ansible_port=@$h@"; done
		echo "[capuns_fleet:vars]"
		echo "ansible_user=root"
		echo "ansible_ssh_private_key_file=$fleet_key"
		echo "ansible_ssh_common_args='-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null'"
	} >"$fleet_dir/inventory.ini"
	cat >"$fleet_dir/common.yml" <<-EOF
	capuns_deb_dir: $work/pkg
	capuns_health_user: alice
	capuns_learn_dir: $fleet_dir/learn
	capuns_learn_command: $CAPUNS_ROOT/build/capuns
	EOF
	# capuns learn runs from the build tree on the controller.
	export LD_LIBRARY_PATH=$CAPUNS_ROOT/build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export ANSIBLE_HOME=$fleet_dir/ansible-home ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0
	export ANSIBLE_LOCAL_TEMP=$fleet_dir/ansible-tmp
	# make check runs another guest beside these two on 2 cores: a new
	# ssh login under TCG can take longer than Ansible's 10 s default.
	export ANSIBLE_TIMEOUT=60

	log "fleet: booting ${fleet_hosts[*]} (stock 6.1, systemd, sshd)"
	if ! fleet_boot; then
		result FAIL fleet "CANNOT RUN: the guests did not answer ssh (console: build/vm/logs/system-fleet-*.console)"
		fleet_poweroff
		return
	fi
	for h in "${fleet_hosts[@]}"; do
		sed -i "s/@$h@/${fleet_port[$h]}/" "$fleet_dir/inventory.ini"
	done
	# CAPUNS_FLEET_HOLD=1: leave the guests to the developer (inventory
	# and key in build/systest/fleet) until they power off.
	if [ -n "${CAPUNS_FLEET_HOLD:-}" ]; then
		log "fleet: guests up: ansible -i $fleet_dir/inventory.ini ...; poweroff both to go on"
		wait "${fleet_qemu[@]}"
		return
	fi

	# 1. First run, audit mode, both hosts at once (capuns_serial: audit
	# mode refuses nothing, and the install is most of the play's time);
	# the runs after it go one host at a time.
	fleet_vars "$fleet_dir/audit.yml" audit '!cap_net_admin' '@developers'
	play first site.yml -e "@$fleet_dir/audit.yml" -e capuns_serial=${#fleet_hosts[@]}
	if [ "$play_rc" = 0 ]; then
		result PASS fleet "first run (audit mode): the play succeeds on ${fleet_hosts[*]}"
	else
		result FAIL fleet "first run (audit mode): ansible-playbook exited $play_rc"; play_tail
	fi
	for h in "${fleet_hosts[@]}"; do
		fleet_check "$h: libcapuns0, capuns and libpam-capuns installed" \
			test "$(on "$h" "dpkg-query -W -f='\${db:Status-Abbrev}' libcapuns0 capuns libpam-capuns")" = "ii ii ii "
		fleet_check "$h: capuns-bpf.service active (stock kernel: the BPF backend)" \
			on "$h" 'systemctl -q is-active capuns-bpf.service && capuns --print | grep -q "^backend: *bpf"'
		fleet_check "$h: the policy is in place" \
			on "$h" "grep -qxP '!cap_net_admin\\t@developers' /etc/security/capuns.conf"
		fleet_check "$h: audit mode (CAPUNS_MODE=complain, the backend in complain mode)" \
			on "$h" 'grep -qx CAPUNS_MODE=complain /etc/default/capuns && capuns complain | grep -qw on'
		out=$(on "$h" 'journalctl -b -t capuns -p warning -o cat --no-pager')
		fleet_check "$h: nothing refused (no warning from capuns in the journal)" test -z "$out"
	done

	# 2. A restricted action in audit mode: logged and allowed.
	for h in "${fleet_hosts[@]}"; do
		fleet_check "$h: audit mode: alice's CAP_NET_ADMIN in a new user namespace is allowed" \
			on "$h" "$ALICE_NET_ADMIN"
		fleet_check "$h: ... and logged (journalctl -t capuns: complain, cap_net_admin, alice)" \
			on "$h" "sleep 2; journalctl -b -t capuns -o cat --no-pager | grep -q '^complain: cap_net_admin .*(alice)'"
	done
	play learn learn.yml
	if [ "$play_rc" = 0 ] && grep -q 'cap_net_admin.*alice' "$play_log"; then
		result PASS fleet "learn.yml: capuns learn on the gathered journals gives alice cap_net_admin ($(grep -oP '"[^"]*cap_net_admin[^"]*"' "$play_log" | head -1))"
	else
		result FAIL fleet "learn.yml: exit $play_rc, no rule with cap_net_admin for alice"; play_tail
	fi
	local learned=0
	for h in "${fleet_hosts[@]}"; do
		[ -s "$fleet_dir/learn/$h.log" ] && learned=$((learned + 1))
	done
	fleet_check "learn.yml: one journal extract per host on the controller ($learned of ${#fleet_hosts[@]})" \
		test "$learned" = ${#fleet_hosts[@]}

	# 3. The same play again: nothing to do. On the first host only: the
	# second runs the same tasks on the same state, at some 75 s a host.
	local first=${fleet_hosts[0]} next=${fleet_hosts[1]}
	play second site.yml -e "@$fleet_dir/audit.yml" --limit "$first"
	local changed
	changed=$(recap "$first" changed)
	if [ "$play_rc" = 0 ] && [ "$changed" = 0 ] && [ -z "$(recap "$next" ok)" ]; then
		result PASS fleet "second run of the same play on $first: idempotent (changed=0)"
	else
		result FAIL fleet "second run on $first: exit $play_rc, changed=$changed"; play_tail
	fi

	# 4. Enforce.
	fleet_vars "$fleet_dir/enforce.yml" enforce '!cap_net_admin' '@developers'
	play enforce site.yml -e "@$fleet_dir/enforce.yml"
	if [ "$play_rc" = 0 ]; then result PASS fleet "enforce: the play succeeds"; else
		result FAIL fleet "enforce: ansible-playbook exited $play_rc"; play_tail; fi
	for h in "${fleet_hosts[@]}"; do
		out=$(on "$h" "$ALICE_NET_ADMIN" 2>&1)
		fleet_check "$h: enforce: alice's CAP_NET_ADMIN in a new user namespace is refused" \
			grep -q 'Operation not permitted' <<<"$out"
		fleet_check "$h: enforce: the administrator's ssh login still works" on_fresh "$h" true
	done

	# 5. A policy that must not replace the enforced one anywhere: a rule
	# that matches root, whom the role protects (capuns check-conf
	# --protect). Other reasons a policy fails validation (an unknown
	# group, a bad name) are check-conf's own, tested in its unit test.
	local before=() i
	for h in "${fleet_hosts[@]}"; do before+=("$(fleet_state "$h")"); done
	fleet_vars "$fleet_dir/bad.yml" enforce '!cap_net_admin' '*'
	play bad-matches-root site.yml -e "@$fleet_dir/bad.yml"
	if [ "$play_rc" != 0 ] && grep -q 'capuns: Write the policy, validated failed on' "$play_log" &&
		grep -q 'matches root' "$play_log"; then
		result PASS fleet "a rule that matches root (!cap_net_admin *): validation fails the play (exit $play_rc)"
	else
		result FAIL fleet "a rule that matches root: ansible-playbook exited $play_rc, no validation failure"; play_tail
	fi
	fleet_check "$next: ... not reached by the play" test -z "$(recap "$next" ok)"
	i=0
	for h in "${fleet_hosts[@]}"; do
		fleet_check "$h: ... the policy and mode files are unchanged" test "$(fleet_state "$h")" = "${before[$i]}"
		out=$(on "$h" "$ALICE_NET_ADMIN" 2>&1)
		fleet_check "$h: ... and the previous rule is still enforced" grep -q 'Operation not permitted' <<<"$out"
		i=$((i + 1))
	done

	# 6. A host that fails its health check: its PAM profile no longer
	#    applies rules (pam_capuns mode=audit), so alice's fresh login does
	#    not get the new policy's set. It is rolled back, the rollout stops.
	on "$first" "sed -i 's/pam_capuns.so/pam_capuns.so mode=audit/' /etc/pam.d/common-session"
	before=("$(fleet_state "$first")" "$(fleet_state "$next")")
	fleet_vars "$fleet_dir/next.yml" enforce '!cap_net_admin,!cap_sys_module' '@developers'
	play health site.yml -e "@$fleet_dir/next.yml"
	if [ "$play_rc" != 0 ] && grep -q "Check that the restricted user's login got the policy's set" "$play_log" &&
		grep -q 'hosts after it were not changed' "$play_log"; then
		result PASS fleet "$first fails its health check (pam_capuns applies nothing): the play stops (exit $play_rc)"
	else
		result FAIL fleet "health check: ansible-playbook exited $play_rc without failing the check on $first"; play_tail
	fi
	fleet_check "$first: ... its previous policy is restored" test "$(fleet_state "$first" | head -2)" = "$(printf '%s\n' "${before[0]}" | head -2)"
	fleet_check "$next: ... the host after it was not touched (policy, mode, mtime)" test "$(fleet_state "$next")" = "${before[1]}"
	fleet_check "$next: ... and not even reached by the play" test -z "$(recap "$next" ok)"

	fleet_poweroff
	echo "# system/fleet: $((SECONDS - t_fleet)) s" >&2
}
