// SPDX-License-Identifier: GPL-2.0-only
/*
 * capuns BPF-LSM backend: the rules of the user-namespace capability set
 * (pU) on a kernel without the capuns series, with "bpf" in its LSM list.
 *
 * A stock kernel gives every new user namespace the full capability sets,
 * and a BPF program may not write a struct cred.  So instead of changing
 * X/pP/pE at namespace entry as the series does, the programs record, per
 * credential, the set the series would have put there ("bound") and deny
 * in lsm/capable every capability outside it.  Since each capability check
 * of the kernel goes through security_capable(), that is the complete
 * effect of the series' X = pP = pE = pU' (the kernel's own sets are still
 * intersected: effective rights = kernel set & bound).
 *
 * State (include/capuns-bpf-abi.h):
 *   creds   hash, cred address -> { pU, bound, strict bits }.  No entry
 *           means the default state (everything, no strict bit), so
 *           unrestricted credentials cost one lookup in the hot hooks.
 *           Kept by cred_prepare (copy) and cred_free (delete), like the
 *           series keeps cap_userns in struct cred (rule 1).
 *   config  the system mask and counters.
 *   events  ring buffer of denials and refusals.
 *   cred_filter (.bss)  per-slot counts of the entries whose key hashes
 *           there: a zero slot proves a credential has no entry, so the
 *           hot hooks skip the hash lookup for most unrestricted ones.
 *
 * Fail closed: when an entry that carries a restriction cannot be created,
 * the operation that would have made it is refused (-ENOMEM): a user
 * namespace is never created unrestricted, a restricted credential is
 * never copied without its restriction.  Two hooks cannot refuse (setns,
 * key session transfer): there the task is killed before it returns to
 * user space.
 *
 * The LSM programs do not take BPF-LSM's trailing "ret" argument: the
 * trampoline stops at the first program that returns nonzero, so a program
 * that runs would always see 0, and returning it unchecked would fail the
 * return range check of 6.12+ verifiers.
 */
#include "kernel.h"

#include <linux/bpf.h>
#include <linux/errno.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "capuns-abi.h"
#include "capuns-bpf-abi.h"

#define CAP_SETPCAP 8
#define CAP_SYS_ADMIN 21
#define CAP_OPT_NOAUDIT (1U << 1)
#define SIGKILL 9
/* User namespaces nest 33 below the initial one (create_user_ns: parent level > 32 -> ENOSPC). */
#define MAX_USERNS_LEVEL 33

char LICENSE[] SEC("license") = "GPL";

/* Set by the loader from /proc/sys/kernel/cap_last_cap. */
const volatile __u32 cap_last_cap = 40;

/*
 * Set by the loader when it creates the credential map with these programs
 * (empty map, zero counts).  A reload reuses a map whose entries this
 * object's filter never counted: then every check looks the entry up.
 */
const volatile __u32 filter_valid = 0;

/*
 * The filter of the credential map: cred_filter[slot(key)] >= number of
 * entries whose key hashes to that slot.  A writer counts before it
 * inserts and uncounts after it deleted, so a reader that finds a zero
 * slot ran before any insert of such a key became visible, the same as a
 * lookup that missed it.  A count is only ever too high (never too low),
 * which costs a lookup, not a rule.
 */
#define FILTER_BITS 16
__u32 cred_filter[1 << FILTER_BITS];

struct {
	__uint(type, BPF_MAP_TYPE_HASH); /* never LRU: eviction would unrestrict */
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct capuns_bpf_cred);
} creds SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct capuns_bpf_config);
} config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

static __always_inline __u64 full_set(void)
{
	return cap_last_cap >= 63 ? ~0ULL : (1ULL << (cap_last_cap + 1)) - 1;
}

static __always_inline int cap_valid(unsigned long cap)
{
	return cap <= cap_last_cap;
}

static __always_inline __u64 cap_bit(unsigned long cap)
{
	return 1ULL << (cap & 63);
}

static __always_inline struct capuns_bpf_config *get_config(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&config, &zero);
}

/* ---- kernel_cap_t of either layout (CO-RE) ----------------------------- */

enum cred_set { SET_PERMITTED, SET_EFFECTIVE, SET_BSET };

static __always_inline __u64 cap_join(__u32 lo, __u32 hi)
{
	return (__u64)hi << 32 | lo;
}

static __always_inline __u64 cap_read(const struct cred *c, enum cred_set which)
{
	const struct cred___v63 *n = (const void *)c;

	if (bpf_core_field_exists(n->cap_bset.val)) {
		switch (which) {
		case SET_PERMITTED: return BPF_CORE_READ(n, cap_permitted.val);
		case SET_EFFECTIVE: return BPF_CORE_READ(n, cap_effective.val);
		default:            return BPF_CORE_READ(n, cap_bset.val);
		}
	}
	switch (which) {
	case SET_PERMITTED:
		return cap_join(BPF_CORE_READ(c, cap_permitted.cap[0]),
				BPF_CORE_READ(c, cap_permitted.cap[1]));
	case SET_EFFECTIVE:
		return cap_join(BPF_CORE_READ(c, cap_effective.cap[0]),
				BPF_CORE_READ(c, cap_effective.cap[1]));
	default:
		return cap_join(BPF_CORE_READ(c, cap_bset.cap[0]),
				BPF_CORE_READ(c, cap_bset.cap[1]));
	}
}

/* ---- per-credential state ---------------------------------------------- */

static __always_inline __u64 cred_key(const struct cred *c)
{
	return (__u64)(unsigned long)c;
}

/*
 * Multiplicative hash: cred addresses are slab objects, strided alike.
 * The verifier allows no arithmetic on a cred pointer but the difference
 * of two pointers, which is a number: hash the offset from a fixed one.
 */
static __always_inline __u32 *filter_slot(__u64 key)
{
	__u64 off = key - (__u64)(unsigned long)cred_filter;

	return &cred_filter[(off * 0x9e3779b97f4a7c15ULL) >> (64 - FILTER_BITS)];
}

static __always_inline struct capuns_bpf_cred *cred_state(const struct cred *c)
{
	__u64 key = cred_key(c);

	if (filter_valid && !*filter_slot(key))
		return NULL; /* no entry: default state */
	return bpf_map_lookup_elem(&creds, &key);
}

/*
 * Store the entry of key.  BPF_NOEXIST fails when there is one; BPF_ANY
 * replaces it (a replacement adds no entry: the count goes back).
 */
static __always_inline int cred_store(__u64 key, const struct capuns_bpf_cred *v, __u64 flags)
{
	__u32 *slot = filter_slot(key);
	int err;

	__sync_fetch_and_add(slot, 1);
	err = bpf_map_update_elem(&creds, &key, v, BPF_NOEXIST);
	if (!err)
		return 0;
	if (err == -EEXIST && flags == BPF_ANY)
		err = bpf_map_update_elem(&creds, &key, v, BPF_ANY);
	__sync_fetch_and_sub(slot, 1);
	return err;
}

static __always_inline void cred_forget(__u64 key)
{
	/* Before the helper call: the key it read is no pointer afterwards. */
	__u32 *slot = filter_slot(key);

	/* Concurrent deletes of one key: only one succeeds and uncounts. */
	if (!bpf_map_delete_elem(&creds, &key))
		__sync_fetch_and_sub(slot, 1);
}

static __always_inline struct capuns_bpf_cred default_state(void)
{
	struct capuns_bpf_cred d = {
		.userns = full_set(),
		.bound = full_set(),
	};
	return d;
}

/* The entry of c, created in the default state if missing; NULL when full. */
static __always_inline struct capuns_bpf_cred *cred_state_get_or_create(const struct cred *c)
{
	struct capuns_bpf_cred d = default_state();
	__u64 key = cred_key(c);
	struct capuns_bpf_cred *s;

	s = cred_state(c);
	if (s)
		return s;
	/* -EEXIST: a thread sharing this cred created it meanwhile. */
	cred_store(key, &d, BPF_NOEXIST);
	return bpf_map_lookup_elem(&creds, &key);
}

/* ---- events ------------------------------------------------------------ */

static __always_inline void count(__u64 *counter)
{
	__sync_fetch_and_add(counter, 1);
}

static __always_inline __u32 ns_level(const struct user_namespace *ns)
{
	return BPF_CORE_READ(ns, level);
}

static __always_inline void emit(const struct cred *c, int cap, __u32 target_depth,
				 enum capuns_bpf_reason reason, int err)
{
	struct capuns_bpf_config *cfg = get_config();
	struct capuns_bpf_event *ev;
	__u64 id;

	ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		if (cfg)
			count(&cfg->lost_events);
		return;
	}
	id = bpf_get_current_pid_tgid();
	ev->ts_ns = bpf_ktime_get_ns();
	ev->pid = (__u32)id;
	ev->tgid = id >> 32;
	ev->uid = BPF_CORE_READ(c, uid.val);
	ev->cap = cap;
	ev->depth = ns_level(BPF_CORE_READ(c, user_ns));
	ev->target_depth = target_depth;
	ev->reason = reason;
	ev->err = err;
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	bpf_ringbuf_submit(ev, 0);
}

/* An operation is refused because its state could not be recorded. */
static __always_inline int refuse(const struct cred *c, enum capuns_bpf_reason reason)
{
	struct capuns_bpf_config *cfg = get_config();

	if (cfg)
		count(&cfg->refusals);
	emit(c, -1, ns_level(BPF_CORE_READ(c, user_ns)), reason, -ENOMEM);
	return -ENOMEM;
}

/* A hook that cannot refuse: kill the task before it runs user code again. */
static __always_inline void kill_current(const struct cred *c, enum capuns_bpf_reason reason)
{
	refuse(c, reason);
	bpf_send_signal(SIGKILL);
}

/* ---- rule 3: credentials enter a user namespace ------------------------ */

/*
 * Rule 3 for the credential whose state is s (NULL: default state), whose
 * bounding set before the entry was bset (as the kernel sees it).  strict:
 * pU &= X; mask: pU &= mask; then X = pP = pE = pU ("bound"), securebits
 * reset (the strict bits live here, so they are cleared too).
 */
static __always_inline struct capuns_bpf_cred entered(const struct capuns_bpf_cred *s, __u64 bset)
{
	struct capuns_bpf_cred n = s ? *s : default_state();
	struct capuns_bpf_config *cfg = get_config();

	if (n.flags & CAPUNS_BPF_STRICT)
		n.userns &= bset & n.bound; /* X as the series sees it */
	n.userns &= cfg ? cfg->mask : 0; /* no config: fail closed */
	n.bound = n.userns;
	n.flags = 0;
	n.reserved = 0;
	return n;
}

static __always_inline int is_default(const struct capuns_bpf_cred *n)
{
	return n->userns == full_set() && n->bound == full_set() && !n->flags;
}

/*
 * Store the state of a credential that just entered a namespace.  In place
 * when it has an entry (the copy made by cred_prepare: no allocation, cannot
 * fail), else a new entry unless the state is the default one.
 */
static __always_inline int record_entry(const struct cred *c, struct capuns_bpf_cred *s, __u64 bset)
{
	struct capuns_bpf_cred n = entered(s, bset);
	__u64 key = cred_key(c);

	if (s) {
		/* c is still private to the task building it: plain stores. */
		s->userns = n.userns;
		s->bound = n.bound;
		s->flags = 0;
		return 0;
	}
	if (is_default(&n))
		return 0;
	return cred_store(key, &n, BPF_NOEXIST) ? -ENOMEM : 0;
}

/*
 * clone(CLONE_NEWUSER) and unshare(CLONE_NEWUSER): the hook sees the new
 * credentials (for clone too, where current is still the parent) before the
 * namespace exists; refusing here means no namespace is created.
 */
SEC("lsm/userns_create")
int BPF_PROG(capuns_userns_create, const struct cred *cred)
{
	if (record_entry(cred, cred_state(cred), cap_read(cred, SET_BSET)))
		return refuse(cred, CAPUNS_BPF_REFUSE_USERNS);
	return 0;
}

/*
 * setns(CLONE_NEWUSER).  Linux 6.1 has no LSM hook on this path: setns
 * prepares a cred (cred_prepare copies the joiner's state), then
 * userns_install() moves it into the target namespace with full sets.
 * userns_install is the one function that does that for an existing
 * namespace; it is called through proc_ns_operations.install, so it is
 * never inlined and fexit can attach to it on every kernel with BTF.
 * fexit cannot change the result: when the state cannot be recorded, the
 * task is killed before it returns to user space in the namespace.
 */
SEC("fexit/userns_install")
int BPF_PROG(capuns_userns_install, struct nsset *nsset, struct ns_common *ns, int ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	const struct cred *old = task->cred; /* not yet committed: the joiner's */
	struct cred *cred;

	if (ret)
		return 0;
	cred = nsset->cred; /* a typed pointer: the filter hashes it (filter_slot) */
	if (!cred)
		return 0;
	if (record_entry(cred, cred_state(cred), cap_read(old, SET_BSET)))
		kill_current(old, CAPUNS_BPF_KILL_SETNS);
	return 0;
}

/* ---- rule 1: pU follows every copy of the credentials ------------------ */

SEC("lsm/cred_prepare")
int BPF_PROG(capuns_cred_prepare, struct cred *new, const struct cred *old, unsigned gfp)
{
	struct capuns_bpf_cred *s;
	__u64 key;

	s = cred_state(old);
	if (!s)
		return 0; /* fast path: default state, nothing to copy */
	key = cred_key(new);
	if (cred_store(key, s, BPF_ANY))
		return refuse(old, CAPUNS_BPF_REFUSE_CRED);
	return 0;
}

/*
 * keyctl(KEYCTL_SESSION_TO_PARENT) allocates a blank cred in the child and
 * fills it from the parent's later (cred_transfer, which cannot fail).
 * Reserve the entry here, where failing is allowed; it is rare.
 */
SEC("lsm/cred_alloc_blank")
int BPF_PROG(capuns_cred_alloc_blank, struct cred *cred, unsigned gfp)
{
	struct capuns_bpf_cred d = default_state();
	__u64 key = cred_key(cred);

	if (cred_store(key, &d, BPF_ANY))
		return refuse(cred, CAPUNS_BPF_REFUSE_CRED);
	return 0;
}

SEC("lsm/cred_transfer")
int BPF_PROG(capuns_cred_transfer, struct cred *new, const struct cred *old)
{
	struct capuns_bpf_cred *from = cred_state(old);
	struct capuns_bpf_cred *to = cred_state(new);
	__u64 key = cred_key(new);

	if (from && to) {
		*to = *from;
	} else if (from) {
		/* Blank cred allocated before the programs were loaded. */
		if (cred_store(key, from, BPF_ANY))
			kill_current(old, CAPUNS_BPF_KILL_TRANSFER);
	} else if (to) {
		cred_forget(key);
	}
	return 0;
}

SEC("lsm/cred_free")
int BPF_PROG(capuns_cred_free, struct cred *cred)
{
	/* Look up first: a delete of a missing key still takes the bucket lock. */
	if (cred_state(cred))
		cred_forget(cred_key(cred));
	return 0;
}

/*
 * Rule 10: execve of a setuid program that gains privilege sets p'U = X, so
 * that an unprivileged user who dropped pU cannot break a privileged program
 * that creates namespaces.  "Gains privilege": the effective uid changes and
 * the permitted set (as the series sees it) grows.
 */
SEC("lsm/bprm_creds_from_file")
int BPF_PROG(capuns_bprm_creds_from_file, struct linux_binprm *bprm, struct file *file)
{
	struct task_struct *task = bpf_get_current_task_btf();
	const struct cred *old = task->cred;
	struct cred *new;
	struct capuns_bpf_cred *s, n;
	__u64 bound, gained, key;

	new = bprm->cred;
	if (BPF_CORE_READ(new, euid.val) == BPF_CORE_READ(old, euid.val))
		return 0;
	s = cred_state(new);
	bound = s ? s->bound : full_set();
	gained = cap_read(new, SET_PERMITTED) & bound & ~(cap_read(old, SET_PERMITTED) & bound);
	if (!gained)
		return 0;
	n = s ? *s : default_state();
	n.userns = cap_read(new, SET_BSET) & bound;
	if (s) {
		s->userns = n.userns;
		return 0;
	}
	if (is_default(&n))
		return 0;
	key = cred_key(new);
	if (cred_store(key, &n, BPF_NOEXIST))
		return refuse(old, CAPUNS_BPF_REFUSE_EXEC);
	return 0;
}

/* ---- enforcement ------------------------------------------------------- */

/*
 * SPEC rule 11, the owner rule of cap_capable(): the owner (euid) of a user
 * namespace, while in that namespace's parent, holds every capability in it
 * and its descendants, whatever the sets of the namespace.  The series does
 * not touch it, so neither does the backend: when target is below the
 * credential's namespace and its ancestor one level below was created by
 * cred's euid, the kernel granted the capability by ownership, not from pE,
 * and the bound of the credential does not apply.
 */
static __always_inline int granted_by_owner(const struct cred *cred, const struct user_namespace *target)
{
	const struct user_namespace *home = BPF_CORE_READ(cred, user_ns);
	const struct user_namespace *ns = target;
	int home_level = BPF_CORE_READ(home, level);
	__u32 euid = BPF_CORE_READ(cred, euid.val);

	for (int i = 0; i < MAX_USERNS_LEVEL; i++) {
		const struct user_namespace *parent;

		if (!ns || ns == home || BPF_CORE_READ(ns, level) <= home_level)
			return 0;
		parent = BPF_CORE_READ(ns, parent);
		if (parent == home)
			return BPF_CORE_READ(ns, owner.val) == euid;
		ns = parent;
	}
	return 0;
}

/*
 * The capability LSM ran first and granted cap (else this program is not
 * called).  Deny it when the kernel granted it from the credential's own
 * sets and cap is outside the set recorded when the credential entered its
 * user namespace: the series would have had it in neither X, pP nor pE.
 */
SEC("lsm/capable")
int BPF_PROG(capuns_capable, const struct cred *cred, struct user_namespace *ns, int cap,
	     unsigned int opts)
{
	struct capuns_bpf_config *cfg;
	struct capuns_bpf_cred *s;

	s = cred_state(cred);
	if (!s || cap < 0 || cap > 63 || (s->bound & cap_bit(cap)))
		return 0;
	if (granted_by_owner(cred, ns))
		return 0;
	cfg = get_config();
	if (cfg)
		count(&cfg->denials);
	/* noaudit checks probe (e.g. has_ns_capability_noaudit): no event, as no audit record. */
	if (!(opts & CAP_OPT_NOAUDIT))
		emit(cred, cap, ns_level(ns), CAPUNS_BPF_DENY_CAP, -EPERM);
	return -EPERM;
}

/* ---- rule 2: prctl(PR_CAP_USERNS) --------------------------------------- */

static __always_inline int answer(__u64 v)
{
	/* Bounded for the verifier of 6.12+, which checks the range [-4095, 0]. */
	if (v > CAPUNS_BPF_RET_MAX)
		v = CAPUNS_BPF_RET_MAX;
	return CAPUNS_BPF_RET(v);
}

/* The sets of the series: the kernel's, cut down to the bound. */
static __always_inline __u64 series_set(const struct cred *c, const struct capuns_bpf_cred *s,
					enum cred_set which)
{
	return cap_read(c, which) & (s ? s->bound : full_set());
}

/* cap_is_capped() of the series: CAP_SETPCAP effective in its own namespace. */
static __always_inline int has_setpcap(const struct cred *c, const struct capuns_bpf_cred *s)
{
	return !!(series_set(c, s, SET_EFFECTIVE) & cap_bit(CAP_SETPCAP));
}

/* p'U = (pE has CAP_SETPCAP) ? X : X & pP, for a cap not yet in pU. */
static __always_inline int may_raise(const struct cred *c, const struct capuns_bpf_cred *s,
				     unsigned long cap)
{
	if (!(series_set(c, s, SET_BSET) & cap_bit(cap)))
		return 0;
	return has_setpcap(c, s) || (series_set(c, s, SET_PERMITTED) & cap_bit(cap));
}

static __always_inline int userns_clear_all(const struct cred *c)
{
	struct capuns_bpf_cred *s = cred_state_get_or_create(c);

	if (!s)
		return -ENOMEM;
	__sync_fetch_and_and(&s->userns, 0);
	return answer(0);
}

static __always_inline int userns_raise(const struct cred *c, unsigned long cap)
{
	struct capuns_bpf_cred *s = cred_state(c);

	if (!s || (s->userns & cap_bit(cap)))
		return answer(0); /* already set (no entry: everything is) */
	if (!may_raise(c, s, cap))
		return -EPERM;
	__sync_fetch_and_or(&s->userns, cap_bit(cap));
	return answer(0);
}

static __always_inline int userns_lower(const struct cred *c, unsigned long cap)
{
	struct capuns_bpf_cred *s = cred_state(c);

	if (s && !(s->userns & cap_bit(cap)))
		return answer(0);
	s = cred_state_get_or_create(c);
	if (!s)
		return -ENOMEM;
	__sync_fetch_and_and(&s->userns, ~cap_bit(cap));
	return answer(0);
}

static __always_inline int userns_is_set(const struct cred *c, unsigned long cap)
{
	struct capuns_bpf_cred *s = cred_state(c);

	return answer(s ? !!(s->userns & cap_bit(cap)) : 1);
}

/*
 * PR_SET_SECUREBITS restricted to bits 8 and 9: CAP_SETPCAP, a locked bit
 * keeps its value, a lock stays.
 */
static __always_inline int strict_set(const struct cred *c, unsigned long bits)
{
	struct capuns_bpf_cred *s = cred_state(c);
	__u32 old = s ? s->flags : 0;

	if (bits & ~(unsigned long)(CAPUNS_BPF_STRICT | CAPUNS_BPF_STRICT_LOCKED))
		return -EPERM;
	if ((old & CAPUNS_BPF_STRICT_LOCKED) &&
	    ((old ^ bits) & CAPUNS_BPF_STRICT || !(bits & CAPUNS_BPF_STRICT_LOCKED)))
		return -EPERM;
	if (!has_setpcap(c, s))
		return -EPERM;
	if (!s && !bits)
		return answer(0);
	s = cred_state_get_or_create(c);
	if (!s)
		return -ENOMEM;
	s->flags = bits;
	return answer(0);
}

/* A stock kernel has no CAP_SYS_CONTROL: CAP_SYS_ADMIN in the initial namespace. */
static __always_inline int mask_lower(const struct cred *c, unsigned long cap)
{
	struct capuns_bpf_config *cfg = get_config();

	if (ns_level(BPF_CORE_READ(c, user_ns)) != 0 ||
	    !(series_set(c, cred_state(c), SET_EFFECTIVE) & cap_bit(CAP_SYS_ADMIN)))
		return -EPERM;
	if (!cfg)
		return -ENOMEM;
	__sync_fetch_and_and(&cfg->mask, ~cap_bit(cap));
	return answer(0);
}

static __always_inline int extension_op(const struct cred *c, unsigned long op, unsigned long arg3)
{
	struct capuns_bpf_config *cfg;
	struct capuns_bpf_cred *s;

	switch (op) {
	case CAPUNS_BPF_OP_PROBE:
		return arg3 ? -EINVAL : answer(CAPUNS_BPF_ABI_VERSION);
	case CAPUNS_BPF_OP_STRICT_GET:
		s = cred_state(c);
		return arg3 ? -EINVAL : answer(s ? s->flags : 0);
	case CAPUNS_BPF_OP_STRICT_SET:
		return strict_set(c, arg3);
	}
	if (!cap_valid(arg3))
		return -EINVAL;
	switch (op) {
	case CAPUNS_BPF_OP_MASK_IS_SET:
		cfg = get_config();
		return answer(cfg ? !!(cfg->mask & cap_bit(arg3)) : 0);
	case CAPUNS_BPF_OP_MASK_LOWER:
		return mask_lower(c, arg3);
	case CAPUNS_BPF_OP_BOUND_IS_SET:
		s = cred_state(c);
		return answer(s ? !!(s->bound & cap_bit(arg3)) : 1);
	}
	return -EINVAL;
}

/*
 * Reached for option 48 because the capability LSM answers -ENOSYS to it.
 * Answers are encoded (capuns-bpf-abi.h): never 0, which means "no
 * decision".  The checks and errors are those of the series' cap_task_prctl.
 */
SEC("lsm/task_prctl")
int BPF_PROG(capuns_task_prctl, int option, unsigned long arg2, unsigned long arg3,
	     unsigned long arg4, unsigned long arg5)
{
	struct task_struct *task;
	const struct cred *c;

	if (option != PR_CAP_USERNS)
		return 0; /* no decision */
	task = bpf_get_current_task_btf();
	c = task->cred;
	if (arg2 == PR_CAP_USERNS_CLEAR_ALL)
		return (arg3 | arg4 | arg5) ? -EINVAL : userns_clear_all(c);
	if (arg4 | arg5)
		return -EINVAL;
	if (arg2 >= CAPUNS_BPF_OP_BASE)
		return extension_op(c, arg2, arg3);
	if (!cap_valid(arg3))
		return -EINVAL;
	switch (arg2) {
	case PR_CAP_USERNS_IS_SET:
		return userns_is_set(c, arg3);
	case PR_CAP_USERNS_RAISE:
		return userns_raise(c, arg3);
	case PR_CAP_USERNS_LOWER:
		return userns_lower(c, arg3);
	}
	return -EINVAL;
}

/* ---- /sys/fs/bpf/capuns/tasks ------------------------------------------ */

/*
 * Pinned task iterator, world-readable like /proc/PID/status: one line
 * "tid pU bound strict" (hex sets) per thread visible in the reader's pid
 * namespace, with the tid as the reader sees it.  It serves
 * capuns_get(pid) for other tasks; a process reads its own state by prctl.
 */
SEC("iter/task")
int capuns_tasks(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *task = ctx->task;
	struct task_struct *reader = bpf_get_current_task_btf();
	struct pid *rpid, *tpid;
	struct upid rup, tup;
	struct capuns_bpf_cred *s;
	const struct cred *c;
	unsigned int lvl;
	static const char fmt[] = "%llu %llx %llx %llx\n";
	__u64 d[4];

	if (!task)
		return 0;
	rpid = reader->thread_pid;
	tpid = BPF_CORE_READ(task, thread_pid);
	lvl = BPF_CORE_READ(rpid, level);
	if (lvl > MAX_USERNS_LEVEL || !tpid || BPF_CORE_READ(tpid, level) < lvl)
		return 0;
	if (bpf_core_read(&rup, sizeof(rup), &rpid->numbers[lvl]) ||
	    bpf_core_read(&tup, sizeof(tup), &tpid->numbers[lvl]) || rup.ns != tup.ns)
		return 0;
	c = task->real_cred;
	s = cred_state(c);
	d[0] = tup.nr;
	d[1] = s ? s->userns : full_set();
	d[2] = s ? s->bound : full_set();
	d[3] = s ? s->flags : 0;
	bpf_seq_printf(seq, fmt, sizeof(fmt), d, sizeof(d));
	return 0;
}
