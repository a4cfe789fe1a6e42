/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Kernel ABI of the capuns series for Linux 6.1 and 6.12 (the same numbers
 * in both, and in a mainline series; docs/rules.md, rule 5, on the
 * securebits).
 *
 * These constants are not in the system headers (the series is not in
 * mainline), so they are defined here, once, for the library, the CLI,
 * the PAM module, the BPF backend and the tests.  Each is guarded so that
 * a future uapi header that carries them wins; a mismatch is a build error.
 */
#ifndef CAPUNS_ABI_H
#define CAPUNS_ABI_H

/* prctl(PR_CAP_USERNS, op, cap, 0, 0) */
#ifndef PR_CAP_USERNS
#define PR_CAP_USERNS 48
#endif
#ifndef PR_CAP_USERNS_IS_SET
#define PR_CAP_USERNS_IS_SET 1
#define PR_CAP_USERNS_RAISE 2
#define PR_CAP_USERNS_LOWER 3
#define PR_CAP_USERNS_CLEAR_ALL 4
#endif

/*
 * Rule 5's strict securebit and its lock: mainline's next free pair, as
 * 6.14 took bits 8 to 11 (SECURE_EXEC_RESTRICT_FILE,
 * SECURE_EXEC_DENY_INTERACTIVE and their locks).  The 6.1 and 6.12 series
 * use the same pair although 8 and 9 are free there, so that userspace
 * sees one ABI on every kernel that carries the set.  This is the one
 * place outside the kernel series that says which.  capuns.h's
 * CAPUNS_SECBIT_STRICT(_LOCKED) are libcapuns' own flags, which the kernel
 * backend translates from these bits.
 */
#ifndef SECURE_USERNS_STRICT_CAPS
#define SECURE_USERNS_STRICT_CAPS 12
#define SECURE_USERNS_STRICT_CAPS_LOCKED 13
#endif
#ifndef SECBIT_USERNS_STRICT_CAPS
#define SECBIT_USERNS_STRICT_CAPS (1UL << SECURE_USERNS_STRICT_CAPS)
#define SECBIT_USERNS_STRICT_CAPS_LOCKED (1UL << SECURE_USERNS_STRICT_CAPS_LOCKED)
#endif

/* New capability guarding kernel.cap_userns_mask; CAP_LAST_CAP on the patched kernel. */
#ifndef CAP_SYS_CONTROL
#define CAP_SYS_CONTROL 41
#endif
#if CAP_SYS_CONTROL != 41
#error "CAP_SYS_CONTROL must be 41 on the capuns 6.1 ABI"
#endif

/* sysctl kernel.cap_userns_mask */
#define CAPUNS_MASK_SYSCTL "/proc/sys/kernel/cap_userns_mask"

/* /proc/PID/status line carrying pU (spelled CapUNs by the kernel). */
#define CAPUNS_STATUS_FIELD "CapUNs:"

/* Where the BPF backend pins its maps and links (bpffs). */
#define CAPUNS_BPF_PIN_DIR "/sys/fs/bpf/capuns"

#endif /* CAPUNS_ABI_H */
