#!/bin/sh
# Every JSON output of the capuns programs is JSON (jq -e) with the keys
# and values it documents: capuns --json (self, --pid, in a namespace),
# capuns mask --json and, on the BPF backend, capuns bpf status --json and
# capuns monitor --json, the latter for a process whose name holds quotes,
# a backslash, control characters and non-ASCII.
. /capuns/tests/tap.sh

UNSHARE=/usr/bin/unshare
# expect_jq NAME JSON EXPR [jq args...]
expect_jq() {
	name=$1 json=$2 expr=$3
	shift 3
	if printf '%s\n' "$json" | jq -e "$@" "$expr" >/dev/null 2>/tmp/jq.err; then
		ok "$name"
	else
		not_ok "$name (jq -e '$expr')"
		sed 's/^/#   /' /tmp/jq.err
		printf '%s\n' "$json" | head -40 | sed 's/^/#   /'
	fi
}

if [ "$CAPUNS_TARGET" = stock ]; then
	check "the BPF backend is loaded" capuns bpf load
	backend=bpf
else
	backend=kernel
fi

set_doc='{hex: (.hex | test("^0x[0-9a-f]{16}$")), text: (.text | type == "string"),
	caps: (.caps | type == "array" and all(type == "string"))} | all'
out=$(capuns --json)
expect_jq "capuns --json: object with the documented keys" "$out" \
	'keys == ["backend","backend_error","kernel_sets","mask","pid","securebits","sets"]'
expect_jq "capuns --json: backend $backend, no error" "$out" \
	'.backend == $b and .backend_error == null' --arg b "$backend"
expect_jq "capuns --json: six sets, each hex, text and caps" "$out" \
	"(.sets | keys) == [\"ambient\",\"bounding\",\"effective\",\"inheritable\",\"permitted\",\"userns\"]
	 and (.sets | map($set_doc) | all)"
expect_jq "capuns --json: root's userns set is every capability" "$out" \
	'.sets.userns.text == "all" and (.sets.userns.caps | index("cap_sys_admin"))'
expect_jq "capuns --json: securebits and mask" "$out" \
	".securebits == {strict: false, locked: false} and (.mask.mask | $set_doc)"

out=$(as_user capuns --drop=cap_net_admin -- $UNSHARE -r capuns --json)
expect_jq "capuns --json in a namespace: effective lacks cap_net_admin" "$out" \
	'(.sets.effective.caps | index("cap_net_admin") | not) and (.sets.effective.caps | index("cap_sys_admin"))'
if [ "$backend" = bpf ]; then
	expect_jq "capuns --json in a namespace: kernel_sets has /proc's full effective set" "$out" \
		".kernel_sets.effective.text == \"all\" and (.kernel_sets | map_values($set_doc) | all)"
else
	expect_jq "capuns --json in a namespace: no kernel_sets on the kernel backend" "$out" \
		'.kernel_sets == null'
fi
expect_jq "capuns --json --pid=1" "$(capuns --json --pid=1)" '.pid == 1 and .securebits == null'
expect_jq "capuns mask --json" "$(capuns mask --json)" \
	"keys == [\"mask\"] and (.mask | $set_doc)"
expect_jq "capuns --json without a backend (CAPUNS_BACKEND=none)" \
	"$(CAPUNS_BACKEND=none capuns --json)" \
	'.backend == "none" and (.backend_error | test("no capuns backend")) and .mask == null'

if [ "$backend" = bpf ]; then
	out=$(capuns bpf status --json)
	expect_jq "capuns bpf status --json: loaded, every hook attached" "$out" \
		'.loaded and .abi == 2 and (.hooks | length >= 17 and all(.attached and .prog_id > 0))
		 and (.mask | test("^0x[0-9a-f]+$")) and (.mask_caps | index("cap_sys_admin"))
		 and .creds_max == 65536 and (.creds_used | type == "number") and .tasks_iterator'

	# A process name with a quote, a backslash, a newline, a tab, non-ASCII
	# (é) and a control character: comm is the name of the file executed.
	weird=$(printf 'n"\\\n\t\303\251\001x')
	mkdir -p /tmp/json-names
	ln -sf /usr/sbin/ip "/tmp/json-names/$weird"
	start_monitor capuns monitor --json --count=1 --timeout=30
	as_user capuns --drop=cap_net_admin -- $UNSHARE -rn "/tmp/json-names/$weird" \
		link add d0 type dummy 2>/dev/null
	wait $mon
	out=$(cat /tmp/mon.out)
	expect_jq "capuns monitor --json: one JSON event for the denial" "$out" \
		'.reason == "cap-denied" and .cap == "cap_net_admin" and .cap_nr == 12 and .errno == 1
		 and .depth == 1 and (.ts_ns | type == "number")'
	expect_jq "capuns monitor --json: a name with controls and non-ASCII reads back" "$out" \
		'.comm == $c' --arg c "$weird"
	if printf '%s' "$out" | LC_ALL=C grep -q '[^ -~]'; then
		not_ok "capuns monitor --json: the output is printable ASCII"
		printf '%s\n' "$out" | od -c | head -5 | sed 's/^/#   /'
	else
		ok "capuns monitor --json: the output is printable ASCII"
	fi

	check "the BPF backend unloads" capuns bpf unload
	out=$(capuns bpf status --json)
	expect_jq "capuns bpf status --json when not loaded" "$out" '. == {loaded: false}'
fi
done_testing
