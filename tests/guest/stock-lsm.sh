#!/bin/sh
# Which LSM stack the stock kernel runs: the BPF backend's tests hold on
# Debian's default stack (AppArmor on, no lsm= argument) as well as on the
# reduced list lsm=lockdown,capability,landlock,bpf (stock-6.12).
. /capuns/tests/tap.sh

lsm=$(cat /sys/kernel/security/lsm)
diag "LSM list: $lsm; command line: $(cat /proc/cmdline)"
case ",$lsm," in
*,bpf,*) ok "bpf is in the active LSM list ($lsm)" ;;
*) not_ok "bpf is in the active LSM list ($lsm)" ;;
esac
if grep -q 'lsm=' /proc/cmdline; then
	given=$(sed -n 's/.*lsm=\([^ ]*\).*/\1/p' /proc/cmdline)
	absent=
	for m in $(echo "$given" | tr , ' '); do
		case ",$lsm," in *,"$m",*) ;; *) absent="$absent $m" ;; esac
	done
	expect_eq "with lsm=$given, every LSM given is active" "$absent" ""
else
	case ",$lsm," in
	*,apparmor,*) ok "no lsm= argument: Debian's default stack, AppArmor included" ;;
	*) not_ok "no lsm= argument: Debian's default stack, AppArmor included ($lsm)" ;;
	esac
	expect_eq "AppArmor is enabled" "$(cat /sys/module/apparmor/parameters/enabled 2>/dev/null)" Y
fi
done_testing
