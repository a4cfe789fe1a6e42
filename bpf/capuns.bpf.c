// SPDX-License-Identifier: GPL-2.0-only
/*
 * capuns BPF-LSM backend: the rules of the user-namespace capability set
 * (pU) on a kernel without the capuns series, with "bpf" in its LSM list.
 *
 * A stock kernel gives every new user namespace the full capability sets,
 * and a BPF program may not write a struct cred.  So instead of changing
 * X/pP/pE at namespace entry as the series does, the programs record, per
 * credential, the set the series would have put there ("bound") and deny
 * in lsm/capable every capability outside it (effective rights = kernel
 * set & bound).  Most capability checks of the kernel go through
 * security_capable(); the few that read a credential's sets directly are
 * enforced in the hook that guards them (ptrace, nice, PSI triggers) or
 * are harmless, each for a stated reason (bpf/README.md).
 *
 * State (include/capuns-bpf-abi.h):
 *   creds   hash, cred address -> { pU, bound, namespace, strict bits,
 *           charged actor }.  No entry means the default state (everything,
 *           no strict bit), so unrestricted credentials cost one lookup in
 *           the hot hooks.  Kept by cred_prepare (copy) and cred_free
 *           (delete), like the series keeps cap_userns in struct cred
 *           (rule 1).
 *   quota   actor (quota_key()) -> entries charged to it: no actor can
 *           fill creds, and a reserve keeps room for newcomers.
 *   config  the system mask and counters.
 *   events  ring buffer of denials and refusals, rate-limited per actor.
 *   cred_filter (.bss)  per-slot counts of the entries whose key hashes
 *           there: a zero slot proves a credential has no entry, so the
 *           hot hooks skip the hash lookup for most unrestricted ones.
 *
 * Fail closed: when an entry that carries a restriction cannot be created,
 * the operation that would have made it is refused (-ENOMEM, or -EDQUOT
 * when the uid is at its quota): a user namespace is never created
 * unrestricted, a restricted credential is never copied without its
 * restriction.  Two hooks cannot refuse (setns, key session transfer):
 * there the task is killed before it returns to user space.
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

#define CAP_SETGID 6
#define CAP_SETUID 7
#define CAP_SETPCAP 8
#define CAP_SYS_ADMIN 21
#define CAP_SYS_PTRACE 19
#define CAP_SYS_NICE 23
#define CAP_SYS_RESOURCE 24
#define CAP_OPT_NOAUDIT (1U << 1)
#define PTRACE_MODE_ATTACH 0x02
#define PTRACE_MODE_FSCREDS 0x08
#define FMODE_WRITE 0x2
#define SUID_DUMP_USER 1
#define MMF_DUMPABLE_MASK 3
#define MUTEX_FLAGS 0x07
#define PROC_SUPER_MAGIC 0x9fa0
#define CGROUP2_SUPER_MAGIC 0x63677270
#define PR_SET_SECUREBITS 28
#define NR_SETNS 308 /* x86-64 */
#define NR_SETNS_IA32 346
#define X32_SYSCALL_BIT 0x40000000
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

/* Events per second and burst per actor (the rest is counted, not sent). */
const volatile __u32 events_per_sec = 20;
const volatile __u32 events_burst = 100;

/*
 * Addresses of static kernel objects, read by the loader (as root) from
 * /proc/kallsyms; 0 when missing, which turns off what needs them (the
 * id-map and setgroups waivers of rule 11, the PSI file check) in the
 * strict direction.
 */
const volatile __u64 ksym_userns_state_mutex = 0; /* held across map_write() */
const volatile __u64 ksym_proc_setgroups_operations = 0; /* /proc/PID/setgroups */
const volatile __u64 ksym_psi_fop_poll = 0; /* /proc/pressure/ * */
const volatile __u64 ksym_cgroup_pressure_poll = 0; /* <cgroup>/ *.pressure */

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

/*
 * Entries per actor (quota_key()): the value packs the key (high half)
 * with the count (low half), so that one compare-and-swap both counts and
 * proves the element still belongs to that key (a preallocated element is
 * reused at once after a delete).  Never LRU either: eviction would lose
 * counts.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u64);
} quota SEC(".maps");

/*
 * Entries charged over all actors, for the reserve (quota_charge()).  A
 * reload starts it at 0 while older entries live on, so it may run below
 * zero for a while: that only ever leaves more room, never less.
 */
__s64 quota_total;



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

/*
 * Learn records (CAPUNS_BPF_OP_LEARN_START), keyed by learn id.  LRU: a
 * record left behind by a learner that died is evicted, which loses a
 * report, never a rule.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct capuns_bpf_learn);
} learn SEC(".maps");

/* uid -> when its next event is due (rate limit); forgetting one is harmless. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} event_due SEC(".maps");

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

/*
 * 0 while the system mask is known to be full: the hot hooks then skip the
 * config lookup for credentials in the default state.  Set before the
 * mask is lowered (mask_lower()); a reloaded object starts with it set
 * (the loader), since the pinned mask may be lowered already.
 */
__u32 mask_lowered;

static __always_inline int mask_is_full(void)
{
	return !*(volatile __u32 *)&mask_lowered;
}

/* The system mask; without a config, nothing (fail closed). */
static __always_inline __u64 system_mask(void)
{
	struct capuns_bpf_config *cfg = get_config();

	return cfg ? cfg->mask : 0;
}

static __always_inline void count(__u64 *counter)
{
	__sync_fetch_and_add(counter, 1);
}

/* ---- kernel_cap_t of either layout (CO-RE) ----------------------------- */

enum cred_set { SET_INHERITABLE, SET_PERMITTED, SET_EFFECTIVE, SET_BSET };

static __always_inline __u64 cap_join(__u32 lo, __u32 hi)
{
	return (__u64)hi << 32 | lo;
}

static __always_inline __u64 cap_read(const struct cred *c, enum cred_set which)
{
	const struct cred___v63 *n = (const void *)c;

	if (bpf_core_field_exists(n->cap_bset.val)) {
		switch (which) {
		case SET_INHERITABLE: return BPF_CORE_READ(n, cap_inheritable.val);
		case SET_PERMITTED: return BPF_CORE_READ(n, cap_permitted.val);
		case SET_EFFECTIVE: return BPF_CORE_READ(n, cap_effective.val);
		default:            return BPF_CORE_READ(n, cap_bset.val);
		}
	}
	switch (which) {
	case SET_INHERITABLE:
		return cap_join(BPF_CORE_READ(c, cap_inheritable.cap[0]),
				BPF_CORE_READ(c, cap_inheritable.cap[1]));
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

static __always_inline const struct user_namespace *user_ns_of(const struct cred *c)
{
	return BPF_CORE_READ(c, user_ns);
}

static __always_inline __u32 ns_level(const struct user_namespace *ns)
{
	return BPF_CORE_READ(ns, level);
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
 * So every cred whose state is looked up is a typed pointer (a hook
 * argument or a direct field load), never a value read by BPF_CORE_READ.
 */
static __always_inline __u32 *filter_slot(__u64 key)
{
	__u64 off = key - (__u64)(unsigned long)cred_filter;

	return &cred_filter[(off * 0x9e3779b97f4a7c15ULL) >> (64 - FILTER_BITS)];
}

/* The entry of c as stored, or NULL (default state). */
static __always_inline struct capuns_bpf_cred *cred_entry(const struct cred *c)
{
	__u64 key = cred_key(c);

	if (filter_valid && !*filter_slot(key))
		return NULL; /* no entry: default state */
	return bpf_map_lookup_elem(&creds, &key);
}

/*
 * Who an entry of c is charged to, for the quota and the event rate
 * limit: an actor, not a uid.  In the initial namespace, the real uid.
 * Inside namespaces the outermost one decides: a user's own (not owned by
 * root) is hers, whatever ids she maps.  One that root owns (a container
 * manager's: LXD, podman --userns=auto, systemd-nspawn -U) gives one
 * actor, its root, many host uids: it is charged as one, by its inode
 * number.  Those lie at 0xf0000000 and above (PROC_DYNAMIC_FIRST), where
 * no allocator hands out uids; a uid there would share that namespace's
 * quota, which can only refuse early, never admit more.
 */
static __always_inline __u32 quota_key(const struct cred *c)
{
	const struct user_namespace *ns = user_ns_of(c);
	__u32 uid = BPF_CORE_READ(c, uid.val), owner;

	for (int i = 0; i < MAX_USERNS_LEVEL && ns && ns_level(ns) > 1; i++)
		ns = BPF_CORE_READ(ns, parent);
	if (!ns || ns_level(ns) != 1)
		return uid;
	owner = BPF_CORE_READ(ns, owner.val);
	return owner ? owner : BPF_CORE_READ(ns, ns.inum);
}

#define QUOTA_DYING 0xffffffffU /* count of an element being deleted */
/*
 * The reserve: past the first QUOTA_LIGHT entries of an actor, a charge
 * is refused once the actors together hold three quarters of the map.
 * The last quarter is kept for actors that hold few, so that however many
 * actors fill their quotas, one that arrives later still gets its first
 * entries (its logins, forks and namespaces), unless
 * (map size / 4) / QUOTA_LIGHT actors each hold that many at once.
 */
#define QUOTA_LIGHT 64

static __always_inline __u64 quota_pack(__u32 key, __u32 count)
{
	return (__u64)key << 32 | count;
}

static __always_inline int quota_reserve_allows(__u32 count)
{
	/* The map's size as the loader set it, read from the map itself. */
	__u32 size = ((struct bpf_map *)&creds)->max_entries;

	return count < QUOTA_LIGHT || quota_total < (__s64)(size - size / 4);
}

/*
 * Count one more entry for key: 0, -EDQUOT at the quota or past the
 * reserve, -ENOMEM when the key cannot be stored or the count keeps
 * changing under us (fail closed: the caller refuses the operation).
 */
static __always_inline int quota_charge(__u32 key)
{
	struct capuns_bpf_config *cfg = get_config();
	__u64 fresh = quota_pack(key, 0), *n, v;
	__u32 count;

	if (!cfg)
		return -ENOMEM;
	for (int i = 0; i < 8; i++) {
		n = bpf_map_lookup_elem(&quota, &key);
		if (!n) {
			bpf_map_update_elem(&quota, &key, &fresh, BPF_NOEXIST);
			n = bpf_map_lookup_elem(&quota, &key);
			if (!n)
				return -ENOMEM;
		}
		v = *(volatile __u64 *)n;
		count = (__u32)v;
		/* Reused for another key, or being deleted: look it up again. */
		if (v >> 32 != key || count == QUOTA_DYING)
			continue;
		if (count >= cfg->creds_per_uid || !quota_reserve_allows(count))
			return -EDQUOT;
		if (__sync_val_compare_and_swap(n, v, v + 1) == v) {
			__sync_fetch_and_add(&quota_total, 1);
			return 0;
		}
	}
	return -ENOMEM;
}

/*
 * One entry less for key.  The last one deletes the key (marked dying
 * first, so that no charge counts on an element on its way out): a key
 * lives only while it counts something, and actors that come and go
 * (container uids, namespaces) leave nothing behind.  Never below zero:
 * a count lost to a reload would wrap.
 */
static __always_inline void quota_uncharge(__u32 key)
{
	__u64 *n, v, to;
	__u32 count;

	for (int i = 0; i < 8; i++) {
		n = bpf_map_lookup_elem(&quota, &key);
		if (!n)
			return;
		v = *(volatile __u64 *)n;
		count = (__u32)v;
		if (v >> 32 != key || !count || count == QUOTA_DYING)
			return;
		to = count == 1 ? quota_pack(key, QUOTA_DYING) : v - 1;
		if (__sync_val_compare_and_swap(n, v, to) != v)
			continue;
		__sync_fetch_and_sub(&quota_total, 1);
		if (count == 1)
			bpf_map_delete_elem(&quota, &key);
		return;
	}
}

/* Copy a state, keeping the charge of the destination (the count it holds). */
static __always_inline void state_assign(struct capuns_bpf_cred *to, const struct capuns_bpf_cred *from)
{
	to->userns = from->userns;
	to->bound = from->bound;
	to->xset = from->xset;
	to->flags = from->flags;
	*(volatile __u64 *)&to->ns = from->ns; /* last: see cred_state() */
}

/*
 * Store the entry of key, charged to uid: 0, -EDQUOT or -ENOMEM.
 * BPF_NOEXIST fails when there is one; BPF_ANY updates it in place (no new
 * entry, nothing charged).
 */
static __always_inline int cred_store(__u64 key, struct capuns_bpf_cred *v, __u32 uid, __u64 flags)
{
	__u32 *slot = filter_slot(key);
	struct capuns_bpf_cred *old;
	int err;

	__sync_fetch_and_add(slot, 1);
	v->charge = uid;
	err = quota_charge(uid);
	if (!err) {
		err = bpf_map_update_elem(&creds, &key, v, BPF_NOEXIST);
		if (!err)
			return 0;
		quota_uncharge(uid);
	}
	if (err == -EEXIST && flags == BPF_ANY) {
		old = bpf_map_lookup_elem(&creds, &key);
		if (old) {
			state_assign(old, v);
			err = 0;
		}
	}
	__sync_fetch_and_sub(slot, 1);
	return err == -EDQUOT ? err : err ? -ENOMEM : 0;
}

static __always_inline void cred_forget(__u64 key, __u32 charge)
{
	/* Before the helper call: the key it read is no pointer afterwards. */
	__u32 *slot = filter_slot(key);

	/* Concurrent deletes of one key: only one succeeds and uncounts. */
	if (!bpf_map_delete_elem(&creds, &key)) {
		quota_uncharge(charge);
		__sync_fetch_and_sub(slot, 1);
	}
}

static __always_inline struct capuns_bpf_cred default_state(const struct cred *c)
{
	struct capuns_bpf_cred d = {
		.userns = full_set(),
		.bound = full_set(),
		.ns = (__u64)(unsigned long)user_ns_of(c),
		.xset = full_set(),
	};
	return d;
}

/* ---- events ------------------------------------------------------------ */

/*
 * Rate limit per charged actor (GCRA): an event is due every 1/rate s, and
 * up to burst may come early.  Approximate under races; never blocks a
 * rule, only a report.
 */
static __always_inline int event_allowed(const struct cred *c, __u64 now)
{
	__u64 interval = 1000000000ULL / (events_per_sec ? events_per_sec : 1);
	__u32 actor = quota_key(c);
	__u64 *due = bpf_map_lookup_elem(&event_due, &actor), next;

	if (!due) {
		next = now + interval;
		bpf_map_update_elem(&event_due, &actor, &next, BPF_ANY);
		return 1;
	}
	next = *due > now ? *due : now;
	if (next > now + (__u64)events_burst * interval)
		return 0;
	*due = next + interval;
	return 1;
}

static __always_inline void emit(const struct cred *c, int cap, __u32 target_depth,
				 enum capuns_bpf_reason reason, int err)
{
	struct capuns_bpf_config *cfg = get_config();
	struct capuns_bpf_event *ev;
	__u64 id, now = bpf_ktime_get_ns();

	if (!event_allowed(c, now)) {
		if (cfg)
			count(&cfg->limited_events);
		return;
	}
	ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		if (cfg)
			count(&cfg->lost_events);
		return;
	}
	id = bpf_get_current_pid_tgid();
	ev->ts_ns = now;
	ev->pid = (__u32)id;
	ev->tgid = id >> 32;
	ev->uid = BPF_CORE_READ(c, uid.val);
	ev->cap = cap;
	ev->depth = ns_level(user_ns_of(c));
	ev->target_depth = target_depth;
	ev->reason = reason;
	ev->err = err;
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	bpf_ringbuf_submit(ev, 0);
}

/*
 * A denial of the rules (not of the backend's resources): counted and
 * reported.  In complain mode the use is reported with err 0 and allowed;
 * refusals for want of room (refuse()) stay: they keep state, not rules.
 */
static __always_inline int deny(const struct cred *c, int cap, __u32 target_depth,
				enum capuns_bpf_reason reason, int err, int audit)
{
	struct capuns_bpf_config *cfg = get_config();
	int complain = cfg && *(volatile __u32 *)&cfg->complain;

	if (cfg)
		count(&cfg->denials);
	if (complain)
		err = 0;
	if (audit)
		emit(c, cap, target_depth, reason, err);
	return err;
}

/* An operation is refused because its state could not be recorded. */
static __always_inline int refuse(const struct cred *c, enum capuns_bpf_reason reason, int err)
{
	struct capuns_bpf_config *cfg = get_config();

	if (cfg) {
		count(&cfg->refusals);
		if (err == -EDQUOT)
			count(&cfg->quota_refusals);
	}
	emit(c, -1, ns_level(user_ns_of(c)), reason, err);
	return err;
}

/* A hook that cannot refuse: kill the task before it runs user code again. */
static __always_inline void kill_current(const struct cred *c, enum capuns_bpf_reason reason, int err)
{
	refuse(c, reason, err);
	bpf_send_signal(SIGKILL);
}

/* ---- Rule 3: credentials enter a user namespace ------------------- */

static __always_inline __u64 userns_of(const struct capuns_bpf_cred *s)
{
	return s ? s->userns : full_set();
}

/*
 * Rules 3a and 3b: what a namespace created or joined by a credential in
 * state s (NULL: default state) gets, its X as the series sees it being
 * x: pU, & X under the strict bit, & the system mask.
 */
static __always_inline __u64 entry_set(const struct capuns_bpf_cred *s, __u64 x)
{
	__u64 set = userns_of(s) & system_mask();

	if (s && (s->flags & CAPUNS_BPF_STRICT))
		set &= x;
	return set;
}

/*
 * Rule 3 for the state s (NULL: default state) of a credential whose X as
 * the series sees it (kernel bset & bound) was x before the entry:
 * p'U = entry_set(), then X = pP = pE = p'U ("bound"), securebits reset
 * (the strict bits live here, so they are cleared too).
 */
static __always_inline struct capuns_bpf_cred entered(const struct capuns_bpf_cred *s, __u64 x,
						      __u64 ns, const struct cred *c)
{
	struct capuns_bpf_cred n = s ? *s : default_state(c);

	n.userns = entry_set(&n, x);
	n.bound = n.userns;
	n.xset = n.userns;
	n.flags &= ~(__u32)CAPUNS_BPF_STRICT_BITS; /* a learn record goes on */
	n.ns = ns;
	return n;
}

static __always_inline int is_default(const struct capuns_bpf_cred *n)
{
	return n->userns == full_set() && n->bound == full_set() && !n->flags;
}

/*
 * Store the state of credential c that just entered (or is entering) the
 * namespace ns.  In place when it has an entry (the copy made by
 * cred_prepare: no allocation, cannot fail), else a new entry unless the
 * state is the default one.  0 or -errno.
 */
static __always_inline int record_entry(const struct cred *c, struct capuns_bpf_cred *s, __u64 x, __u64 ns)
{
	struct capuns_bpf_cred n = entered(s, x, ns, c);

	if (s) {
		/* c is still private to the task building it. */
		state_assign(s, &n);
		return 0;
	}
	if (is_default(&n))
		return 0;
	return cred_store(cred_key(c), &n, quota_key(c), BPF_NOEXIST);
}

/*
 * The state of c, after rule 3 for a namespace c entered without the
 * fexit program below seeing it: tracing programs keep a per-CPU
 * recursion guard, so under preempt=full a setns on a CPU where another
 * task was preempted inside that program skips it.  The entry records its
 * namespace; found in another one, the credential entered it unseen, and
 * Rule 3 applies now, with the X recorded when cred_prepare copied it.
 * Every reader of a state goes through here, so the skip is never seen.
 */
static __always_inline struct capuns_bpf_cred *cred_state(const struct cred *c)
{
	struct capuns_bpf_cred *s = cred_entry(c), n;
	struct capuns_bpf_config *cfg;
	__u64 ns;

	if (!s)
		return NULL;
	ns = (__u64)(unsigned long)user_ns_of(c);
	if (*(volatile __u64 *)&s->ns == ns)
		return s;
	if (!s->ns) {
		/* Recorded by userns_create before the namespace existed. */
		*(volatile __u64 *)&s->ns = ns;
		return s;
	}
	n = entered(s, s->xset, ns, c);
	n.xset = s->xset;
	state_assign(s, &n); /* idempotent: a racing thread computes the same */
	cfg = get_config();
	if (cfg)
		count(&cfg->late_entries);
	return s;
}

/* The state of c, created in the default state if missing; NULL on error (*err). */
static __always_inline struct capuns_bpf_cred *cred_state_get_or_create(const struct cred *c, int *err)
{
	struct capuns_bpf_cred d = default_state(c);
	__u64 key = cred_key(c);
	struct capuns_bpf_cred *s;

	s = cred_state(c);
	if (s)
		return s;
	/* -EEXIST: a thread sharing this cred created it meanwhile. */
	*err = cred_store(key, &d, quota_key(c), BPF_NOEXIST);
	s = bpf_map_lookup_elem(&creds, &key);
	if (s)
		*err = 0;
	return s;
}

/* The sets of the series: the kernel's, cut down to the bound. */
static __always_inline __u64 series_set(const struct cred *c, const struct capuns_bpf_cred *s,
					enum cred_set which)
{
	return cap_read(c, which) & (s ? s->bound : full_set());
}

/*
 * What a namespace that c creates or joins now would get.  Rules 11 and
 * 12 measure the owner and the tracer by it, not by pU: a strict login
 * whose X lacks a cap keeps that cap in pU.
 */
static __always_inline __u64 could_give(const struct cred *c, const struct capuns_bpf_cred *s)
{
	return entry_set(s, series_set(c, s, SET_BSET));
}

/*
 * clone(CLONE_NEWUSER) and unshare(CLONE_NEWUSER): the hook sees the new
 * credentials (for clone too, where current is still the parent) before the
 * namespace exists; refusing here means no namespace is created.
 */
SEC("lsm/userns_create")
int BPF_PROG(capuns_userns_create, const struct cred *cred)
{
	struct capuns_bpf_cred *s = cred_state(cred);
	int err = record_entry(cred, s, series_set(cred, s, SET_BSET), 0);

	return err ? refuse(cred, CAPUNS_BPF_REFUSE_USERNS, err) : 0;
}

/*
 * setns(CLONE_NEWUSER).  Linux 6.1 has no LSM hook on this path: setns
 * prepares a cred (cred_prepare copies the joiner's state), then
 * userns_install() moves it into the target namespace with full sets.
 * userns_install is the one function that does that for an existing
 * namespace; it is called through proc_ns_operations.install, so it is
 * never inlined and fexit can attach to it on every kernel with BTF.
 * fexit cannot change the result: when the state cannot be recorded, the
 * task is killed before it returns to user space in the namespace.  When
 * the program is skipped (recursion guard), cred_state() applies the
 * rule at the credential's first use.
 */
SEC("fexit/userns_install")
int BPF_PROG(capuns_userns_install, struct nsset *nsset, struct ns_common *ns, int ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	const struct cred *old = task->cred; /* not yet committed: the joiner's */
	struct capuns_bpf_cred *s;
	struct cred *cred;
	int err;

	if (ret)
		return 0;
	cred = nsset->cred; /* a typed pointer: the filter hashes it (filter_slot) */
	if (!cred)
		return 0;
	s = cred_entry(cred); /* as copied: its recorded namespace is the old one */
	err = record_entry(cred, s, cap_read(old, SET_BSET) & (s ? s->bound : full_set()),
			   (__u64)(unsigned long)user_ns_of(cred));
	if (err)
		kill_current(old, CAPUNS_BPF_KILL_SETNS, err);
	return 0;
}

/* ---- Rule 1: pU follows every copy of the credentials ------------- */

/* Is the current task in setns(2)?  (Its syscall number, any x86 ABI.) */
static __always_inline int in_setns(void)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	unsigned long nr = BPF_CORE_READ(regs, orig_ax) & ~(unsigned long)X32_SYSCALL_BIT;

	return nr == NR_SETNS || nr == NR_SETNS_IA32;
}

SEC("lsm/cred_prepare")
int BPF_PROG(capuns_cred_prepare, struct cred *new, const struct cred *old, unsigned gfp)
{
	struct capuns_bpf_cred *s, n;
	int err;

	s = cred_state(old);
	if (!s) {
		/*
		 * Fast path: default state, nothing to copy.  But a setns with
		 * the mask lowered turns a default joiner into a restricted
		 * one: give it an entry that records its namespace, so that a
		 * skipped fexit/userns_install is seen (cred_state()).
		 */
		if (mask_is_full() || system_mask() == full_set() || !in_setns())
			return 0;
		n = default_state(old);
	} else {
		n = *s;
		if (n.flags & CAPUNS_BPF_STRICT) /* for a late rule 3a: X now */
			n.xset = cap_read(old, SET_BSET) & n.bound;
	}
	err = cred_store(cred_key(new), &n, quota_key(new), BPF_ANY);
	return err ? refuse(old, CAPUNS_BPF_REFUSE_CRED, err) : 0;
}

/*
 * keyctl(KEYCTL_SESSION_TO_PARENT) allocates a blank cred in the child and
 * fills it from the parent's later (cred_transfer, which cannot fail).
 * Reserve the entry here, where failing is allowed; it is rare.  The
 * blank cred has no ids yet: the entry is charged to the caller.
 */
SEC("lsm/cred_alloc_blank")
int BPF_PROG(capuns_cred_alloc_blank, struct cred *cred, unsigned gfp)
{
	const struct cred *cur = bpf_get_current_task_btf()->cred;
	struct capuns_bpf_cred d = default_state(cur);
	int err;

	d.ns = 0; /* set from the parent's entry by cred_transfer */
	err = cred_store(cred_key(cred), &d, quota_key(cur), BPF_ANY);
	return err ? refuse(cur, CAPUNS_BPF_REFUSE_CRED, err) : 0;
}

SEC("lsm/cred_transfer")
int BPF_PROG(capuns_cred_transfer, struct cred *new, const struct cred *old)
{
	struct capuns_bpf_cred *from = cred_state(old);
	struct capuns_bpf_cred *to = cred_entry(new);
	__u64 key = cred_key(new);
	int err;

	if (from && to) {
		state_assign(to, from);
	} else if (from) {
		/* Blank cred allocated before the programs were loaded. */
		err = cred_store(key, from, quota_key(old), BPF_ANY);
		if (err)
			kill_current(old, CAPUNS_BPF_KILL_TRANSFER, err);
	} else if (to) {
		cred_forget(key, to->charge);
	}
	return 0;
}

SEC("lsm/cred_free")
int BPF_PROG(capuns_cred_free, struct cred *cred)
{
	/* Look up first: a delete of a missing key still takes the bucket lock. */
	struct capuns_bpf_cred *s = cred_entry(cred);

	if (s)
		cred_forget(cred_key(cred), s->charge);
	return 0;
}

/*
 * Rule 10 (R10): execve of a setuid-root program that gains
 * privilege: p'U = strict ? pU & X : pU | X.  Adding X back keeps a
 * user's own lowering from breaking a privileged program (the "sendmail"
 * problem) and leaves a pU never lowered full; a restriction imposed by
 * privileged code carries the strict bit, which needs CAP_SETPCAP to set,
 * and survives.  "Gains privilege": the effective uid changes and the
 * permitted set (as the series sees it) grows.
 */
SEC("lsm/bprm_creds_from_file")
int BPF_PROG(capuns_bprm_creds_from_file, struct linux_binprm *bprm, struct file *file)
{
	struct task_struct *task = bpf_get_current_task_btf();
	const struct cred *old = task->cred;
	struct capuns_bpf_cred *s;
	struct cred *new;
	__u64 x;

	new = bprm->cred;
	if (BPF_CORE_READ(new, euid.val) == BPF_CORE_READ(old, euid.val))
		return 0;
	/*
	 * Without state of its own the credential has the default one: a
	 * full pU and no strict flag, which pU | X leaves as it is.  So this
	 * hook never creates an entry, and cannot fail for want of room.
	 */
	s = cred_state(new);
	if (!s || !(series_set(new, s, SET_PERMITTED) & ~series_set(old, s, SET_PERMITTED)))
		return 0;
	x = series_set(new, s, SET_BSET);
	s->userns = s->flags & CAPUNS_BPF_STRICT ? s->userns & x : s->userns | x;
	return 0;
}

/* ---- capability checks ------------------------------------------------- */

/*
 * cap_capable() with the series' sets: the user namespace walk from
 * target up to the credential's own, where pE (kernel pE & bound) decides,
 * and rule 11 (docs/rules.md): the owner (euid) of a namespace acting from
 * its parent holds a capability over it and its descendants only when its
 * own new namespaces would hold the cap (could_give()); otherwise the walk
 * goes on up.
 */
static __always_inline int rules_capable(const struct cred *c, const struct capuns_bpf_cred *s,
					 const struct user_namespace *target, int cap)
{
	const struct user_namespace *home = user_ns_of(c), *ns = target, *parent;
	__u32 home_level = ns_level(home), euid = BPF_CORE_READ(c, euid.val);
	__u64 bit = cap_bit(cap), owner_set = could_give(c, s);

	for (int i = 0; i <= MAX_USERNS_LEVEL; i++) {
		if (!ns)
			return 0;
		if (ns == home)
			return !!(series_set(c, s, SET_EFFECTIVE) & bit);
		if (ns_level(ns) <= home_level)
			return 0;
		parent = BPF_CORE_READ(ns, parent);
		if (parent == home && BPF_CORE_READ(ns, owner.val) == euid && (owner_set & bit))
			return 1;
		ns = parent;
	}
	return 0;
}

/* Does the current task hold userns_state_mutex, i.e. is it in map_write()? */
static __always_inline int in_map_write(void)
{
	struct mutex *m = (struct mutex *)ksym_userns_state_mutex;

	return ksym_userns_state_mutex &&
	       (BPF_CORE_READ(m, owner.counter) & ~(__s64)MUTEX_FLAGS) ==
	       (__s64)bpf_get_current_task();
}

/* Is the current task opening /proc/PID/setgroups (proc_setgroups_open())? */
static __always_inline int opening_setgroups(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct nameidata *nd = task->nameidata;

	return ksym_proc_setgroups_operations && nd &&
	       (__u64)(unsigned long)BPF_CORE_READ(nd, path.dentry, d_inode, i_fop) ==
	       ksym_proc_setgroups_operations;
}

/*
 * The one CAP_SYS_ADMIN over ns that rule 11 waives: writing the id
 * map that new_idmap_permitted() accepts without privilege, or "deny" to
 * setgroups, by a credential whose euid owns ns, from inside ns or from
 * its parent.  map_write() asks for CAP_SYS_ADMIN before it parses the
 * text, so the waiver lets it go on, and then only the single-extent
 * self-mapping passes: new_idmap_permitted() accepts it itself, and every
 * other map needs CAP_SETUID/CAP_SETGID over the parent, which
 * idmap_needs_admin() refuses.  setgroups opened for writing can only
 * deny ("allow" never changes a namespace).  What the kernel reads is
 * its own copy: nothing to race.
 */
static __always_inline int idmap_waiver(const struct cred *c, const struct user_namespace *ns)
{
	const struct user_namespace *home = user_ns_of(c);

	if (BPF_CORE_READ(ns, owner.val) != BPF_CORE_READ(c, euid.val))
		return 0;
	if (ns != home && BPF_CORE_READ(ns, parent) != home)
		return 0;
	return in_map_write() || opening_setgroups();
}

/*
 * In map_write(), CAP_SETUID/CAP_SETGID over the parent of the map's
 * namespace is asked for a map other than the self-mapping (the owner
 * writing from the parent: from inside, the kernel refuses it anyway).
 * Such a map needs CAP_SYS_ADMIN over the namespace: refuse it when the
 * credential holds that only through the waiver above.
 */
static __always_inline int idmap_needs_admin(const struct cred *c, const struct capuns_bpf_cred *s,
					     const struct user_namespace *ns, int cap)
{
	__u64 admin = cap_bit(CAP_SYS_ADMIN);

	return (cap == CAP_SETUID || cap == CAP_SETGID) && ns == user_ns_of(c) &&
	       !(series_set(c, s, SET_EFFECTIVE) & admin) &&
	       !(could_give(c, s) & admin) && in_map_write();
}

/*
 * Add cap to the learn record of state s when the check is against a
 * user namespace below the initial one (where pU decides).  Not counted:
 * probes (noaudit checks: asking is not needing), and the CAP_SYS_ADMIN
 * that rule 11 waives for an owner's own id map (granted whatever pU).
 */
static __always_inline void learn_note(const struct cred *c, const struct capuns_bpf_cred *s,
				       const struct user_namespace *ns, int cap, int refused,
				       unsigned int opts)
{
	__u32 id = s ? CAPUNS_BPF_LEARN_ID(s->flags) : 0;
	struct capuns_bpf_learn *rec;

	if (!id || (opts & CAP_OPT_NOAUDIT) || !ns_level(ns))
		return;
	if (cap == CAP_SYS_ADMIN && idmap_waiver(c, ns))
		return;
	rec = bpf_map_lookup_elem(&learn, &id);
	if (!rec)
		return;
	__sync_fetch_and_or(&rec->used, cap_bit(cap));
	if (refused)
		__sync_fetch_and_or(&rec->refused, cap_bit(cap));
}

/* The series' answer to cap over ns for c in state s (NULL: default state). */
static __always_inline int series_capable(const struct cred *c, const struct capuns_bpf_cred *s,
					  const struct user_namespace *ns, int cap)
{
	/* Fast paths: the kernel's answer is the series' own. */
	if (!s && (mask_is_full() || system_mask() == full_set()))
		return 1;
	if (s && (s->bound & cap_bit(cap)) && ns == user_ns_of(c) &&
	    cap != CAP_SETUID && cap != CAP_SETGID)
		return 1;
	return rules_capable(c, s, ns, cap) ? !idmap_needs_admin(c, s, ns, cap)
					    : cap == CAP_SYS_ADMIN && idmap_waiver(c, ns);
}

/*
 * The capability LSM ran first and granted cap (else this program is not
 * called).  Deny it when the series would not have: rules_capable() (the
 * bound and rule 11), with rule 11's waiver for the id maps.
 */
SEC("lsm/capable")
int BPF_PROG(capuns_capable, const struct cred *cred, struct user_namespace *ns, int cap,
	     unsigned int opts)
{
	struct capuns_bpf_cred *s = cred_state(cred);
	int ok;

	if (cap < 0 || cap > 63)
		return 0;
	ok = series_capable(cred, s, ns, cap);
	learn_note(cred, s, ns, cap, !ok, opts);
	if (ok)
		return 0;
	/* noaudit checks probe (e.g. has_ns_capability_noaudit): no event, as no audit record. */
	return deny(cred, cap, ns_level(ns), CAPUNS_BPF_DENY_CAP, -EPERM, !(opts & CAP_OPT_NOAUDIT));
}

/* ---- Rule 12 and commoncap's permitted-subset tests ---------------- */

/*
 * cap_ptrace_access_check(), cap_ptrace_traceme() and cap_safe_nice()
 * compare permitted sets themselves, past security_capable(): a stock
 * kernel compares its own full sets.  Here the series' sets: the tracee's
 * (target's) pP & bound must be within the tracer's caller set & bound,
 * else the tracer needs cap over the target's namespace by the rules.
 */
static __always_inline int subset_or_capable(const struct cred *tracer, const struct capuns_bpf_cred *ts,
					     __u64 caller, const struct cred *target,
					     const struct capuns_bpf_cred *s, int cap)
{
	return !(series_set(target, s, SET_PERMITTED) & ~caller) ||
	       rules_capable(tracer, ts, user_ns_of(target), cap);
}

/*
 * Rule 12 for an attach (attach) of tracer to tracee: what the tracee's
 * namespaces would get within what the tracer's would; then
 * commoncap's subset test on the series' sets (PTRACE_MODE_FSCREDS: the
 * tracer's effective set, else its permitted set; same namespace only, as
 * commoncap: across namespaces it asked ns_capable(), which lsm/capable
 * saw).
 */
static __always_inline int may_trace(const struct cred *tracer, const struct cred *tracee, int attach,
				     int fscreds)
{
	struct capuns_bpf_cred *ts = cred_state(tracer), *cs = cred_state(tracee);

	if (!ts && !cs)
		return 0; /* fast path: the kernel's sets are the series' */
	if (attach && (could_give(tracee, cs) & ~could_give(tracer, ts)))
		return deny(tracer, -1, ns_level(user_ns_of(tracee)), CAPUNS_BPF_DENY_PTRACE, -EPERM, 1);
	if (user_ns_of(tracer) == user_ns_of(tracee) &&
	    !subset_or_capable(tracer, ts, series_set(tracer, ts, fscreds ? SET_EFFECTIVE : SET_PERMITTED),
			       tracee, cs, CAP_SYS_PTRACE))
		return deny(tracer, CAP_SYS_PTRACE, ns_level(user_ns_of(tracee)), CAPUNS_BPF_DENY_CAP,
			    -EPERM, 1);
	return 0;
}

/* ptrace attach and every other PTRACE_MODE_ATTACH check: /proc/PID/mem, process_vm_writev... */
SEC("lsm/ptrace_access_check")
int BPF_PROG(capuns_ptrace_access_check, struct task_struct *child, unsigned int mode)
{
	const struct cred *tracer = bpf_get_current_task_btf()->cred;

	return may_trace(tracer, child->real_cred, mode & PTRACE_MODE_ATTACH,
			 mode & PTRACE_MODE_FSCREDS);
}

/* PTRACE_TRACEME: the current task's pU must be within its parent's. */
SEC("lsm/ptrace_traceme")
int BPF_PROG(capuns_ptrace_traceme, struct task_struct *parent)
{
	const struct cred *child = bpf_get_current_task_btf()->cred;

	return may_trace(parent->real_cred, child, 1, 0);
}

/* cap_safe_nice(): nice, ioprio and scheduler of another task. */
static __always_inline int may_nice(struct task_struct *p)
{
	const struct cred *cur = bpf_get_current_task_btf()->cred, *pc = p->real_cred;
	struct capuns_bpf_cred *cs = cred_state(cur), *ps = cred_state(pc);

	if (!cs && !ps)
		return 0;
	if (subset_or_capable(cur, cs, series_set(cur, cs, SET_PERMITTED), pc, ps, CAP_SYS_NICE))
		return 0;
	return deny(cur, CAP_SYS_NICE, ns_level(user_ns_of(pc)), CAPUNS_BPF_DENY_CAP, -EPERM, 1);
}

SEC("lsm/task_setnice")
int BPF_PROG(capuns_task_setnice, struct task_struct *p, int nice)
{
	return may_nice(p);
}

SEC("lsm/task_setioprio")
int BPF_PROG(capuns_task_setioprio, struct task_struct *p, int ioprio)
{
	return may_nice(p);
}

SEC("lsm/task_setscheduler")
int BPF_PROG(capuns_task_setscheduler, struct task_struct *p)
{
	return may_nice(p);
}

/* ---- PSI triggers: CAP_SYS_RESOURCE read from the opener's pE ---------- */

/* A PSI pressure file: /proc/pressure/{io,memory,cpu,irq} or a cgroup's *.pressure. */
static __always_inline int is_pressure_file(struct file *file)
{
	struct inode *inode = BPF_CORE_READ(file, f_inode);
	unsigned long magic = BPF_CORE_READ(inode, i_sb, s_magic);
	struct proc_inode *pi;
	struct kernfs_node *kn;
	struct cftype *cft;
	__u64 poll;

	if (magic == PROC_SUPER_MAGIC && ksym_psi_fop_poll) {
		pi = (void *)inode - bpf_core_field_offset(struct proc_inode, vfs_inode);
		poll = (__u64)(unsigned long)BPF_CORE_READ(pi, pde, proc_ops, proc_poll);
		return poll == ksym_psi_fop_poll;
	}
	if (magic == CGROUP2_SUPER_MAGIC && ksym_cgroup_pressure_poll) {
		kn = BPF_CORE_READ(file, f_path.dentry, d_fsdata);
		cft = BPF_CORE_READ(kn, priv);
		poll = (__u64)(unsigned long)BPF_CORE_READ(cft, poll);
		return poll == ksym_cgroup_pressure_poll;
	}
	return 0;
}

/*
 * psi_trigger_create() lets the opener's raw effective set decide whether
 * a trigger is privileged (any window, a real-time poller).  In a
 * namespace whose bound lacks CAP_SYS_RESOURCE the series' pE lacks it
 * while the kernel's has it: such an opener may not open a pressure file
 * for writing at all (the series would allow an unprivileged trigger;
 * the backend cannot change what psi reads, so it refuses more).
 */
SEC("lsm/file_open")
int BPF_PROG(capuns_file_open, struct file *file)
{
	const struct cred *c = file->f_cred;
	struct capuns_bpf_cred *s = cred_state(c);
	__u64 res = cap_bit(CAP_SYS_RESOURCE);

	if (!s || !(BPF_CORE_READ(file, f_mode) & FMODE_WRITE) || (s->bound & res) ||
	    !(cap_read(c, SET_EFFECTIVE) & res) || !is_pressure_file(file))
		return 0;
	return deny(c, CAP_SYS_RESOURCE, ns_level(user_ns_of(c)), CAPUNS_BPF_DENY_CAP, -EACCES, 1);
}

/* ---- Rule 2: prctl(PR_CAP_USERNS) --------------------------------------- */

static __always_inline int answer(__u64 v)
{
	/* Bounded for the verifier of 6.12+, which checks the range [-4095, 0]. */
	if (v > CAPUNS_BPF_RET_MAX)
		v = CAPUNS_BPF_RET_MAX;
	return CAPUNS_BPF_RET(v);
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
	int err = -ENOMEM;
	struct capuns_bpf_cred *s = cred_state_get_or_create(c, &err);

	if (!s)
		return err;
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
	int err = -ENOMEM;

	if (s && !(s->userns & cap_bit(cap)))
		return answer(0);
	s = cred_state_get_or_create(c, &err);
	if (!s)
		return err;
	__sync_fetch_and_and(&s->userns, ~cap_bit(cap));
	return answer(0);
}

static __always_inline int userns_is_set(const struct cred *c, unsigned long cap)
{
	struct capuns_bpf_cred *s = cred_state(c);

	return answer(s ? !!(s->userns & cap_bit(cap)) : 1);
}

/*
 * PR_SET_SECUREBITS restricted to the strict bit and its lock: CAP_SETPCAP,
 * a locked bit keeps its value, a lock stays.
 */
static __always_inline int strict_set(const struct cred *c, unsigned long bits)
{
	struct capuns_bpf_cred *s = cred_state(c);
	__u32 old = s ? s->flags : 0;
	int err = -ENOMEM;

	if (bits & ~(unsigned long)(CAPUNS_BPF_STRICT | CAPUNS_BPF_STRICT_LOCKED))
		return -EPERM;
	old &= CAPUNS_BPF_STRICT_BITS;
	if ((old & CAPUNS_BPF_STRICT_LOCKED) &&
	    ((old ^ bits) & CAPUNS_BPF_STRICT || !(bits & CAPUNS_BPF_STRICT_LOCKED)))
		return -EPERM;
	if (!has_setpcap(c, s))
		return -EPERM;
	if (!s && !bits)
		return answer(0);
	s = cred_state_get_or_create(c, &err);
	if (!s)
		return err;
	s->flags = (s->flags & ~(__u32)CAPUNS_BPF_STRICT_BITS) | bits;
	return answer(0);
}

/* A stock kernel has no CAP_SYS_CONTROL: CAP_SYS_ADMIN in the initial namespace. */
static __always_inline int mask_lower(const struct cred *c, unsigned long cap)
{
	struct capuns_bpf_config *cfg = get_config();

	if (ns_level(user_ns_of(c)) != 0 ||
	    !(series_set(c, cred_state(c), SET_EFFECTIVE) & cap_bit(CAP_SYS_ADMIN)))
		return -EPERM;
	if (!cfg)
		return -ENOMEM;
	*(volatile __u32 *)&mask_lowered = 1; /* before the mask: see mask_is_full() */
	__sync_fetch_and_and(&cfg->mask, ~cap_bit(cap));
	return answer(0);
}

/* Complain mode changes what every rule does: as the mask, CAP_SYS_ADMIN in the initial namespace. */
static __always_inline int complain_set(const struct cred *c, unsigned long on)
{
	struct capuns_bpf_config *cfg = get_config();

	if (on > 1)
		return -EINVAL;
	if (ns_level(user_ns_of(c)) != 0 ||
	    !(series_set(c, cred_state(c), SET_EFFECTIVE) & cap_bit(CAP_SYS_ADMIN)))
		return -EPERM;
	if (!cfg)
		return -ENOMEM;
	*(volatile __u32 *)&cfg->complain = on;
	return answer(0);
}

/* The learn id of this thread group: its tgid, which fits the flags' high bits. */
static __always_inline __u32 learn_id_of_current(void)
{
	return (__u32)(bpf_get_current_pid_tgid() >> 32) &
	       ((1U << (32 - CAPUNS_BPF_LEARN_SHIFT)) - 1);
}

static __always_inline int learn_start(const struct cred *c)
{
	struct capuns_bpf_learn empty = {};
	__u32 id = learn_id_of_current();
	struct capuns_bpf_cred *s;
	int err = -ENOMEM;

	if (!id)
		return -EINVAL;
	if (bpf_map_update_elem(&learn, &id, &empty, BPF_ANY))
		return -ENOMEM;
	s = cred_state_get_or_create(c, &err);
	if (!s) {
		bpf_map_delete_elem(&learn, &id);
		return err;
	}
	s->flags = (s->flags & CAPUNS_BPF_STRICT_BITS) | id << CAPUNS_BPF_LEARN_SHIFT;
	return answer(0);
}

static __always_inline int learn_stop(const struct cred *c)
{
	struct capuns_bpf_cred *s = cred_state(c);
	__u32 id = s ? CAPUNS_BPF_LEARN_ID(s->flags) : 0;

	if (!id)
		return answer(0);
	s->flags &= CAPUNS_BPF_STRICT_BITS;
	bpf_map_delete_elem(&learn, &id);
	return answer(0);
}

/* Was cap asked for (refused: and refused) under the caller's learn record? */
static __always_inline int learn_is_set(const struct cred *c, unsigned long cap, int refused)
{
	struct capuns_bpf_cred *s = cred_state(c);
	__u32 id = s ? CAPUNS_BPF_LEARN_ID(s->flags) : 0;
	struct capuns_bpf_learn *rec;

	if (!id)
		return -ENOENT;
	rec = bpf_map_lookup_elem(&learn, &id);
	if (!rec)
		return -ENOENT;
	return answer(!!((refused ? rec->refused : rec->used) & cap_bit(cap)));
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
		return arg3 ? -EINVAL : answer(s ? s->flags & CAPUNS_BPF_STRICT_BITS : 0);
	case CAPUNS_BPF_OP_STRICT_SET:
		return strict_set(c, arg3);
	case CAPUNS_BPF_OP_COMPLAIN_GET:
		cfg = get_config();
		return arg3 ? -EINVAL : answer(cfg ? !!*(volatile __u32 *)&cfg->complain : 0);
	case CAPUNS_BPF_OP_COMPLAIN_SET:
		return complain_set(c, arg3);
	case CAPUNS_BPF_OP_LEARN_START:
		return arg3 ? -EINVAL : learn_start(c);
	case CAPUNS_BPF_OP_LEARN_STOP:
		return arg3 ? -EINVAL : learn_stop(c);
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
	case CAPUNS_BPF_OP_LEARN_USED:
		return learn_is_set(c, arg3, 0);
	case CAPUNS_BPF_OP_LEARN_REFUSED:
		return learn_is_set(c, arg3, 1);
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

/* ---- CAP_SETPCAP checks that bypass lsm/capable ------------------------ */

/*
 * capset(2) and PR_SET_SECUREBITS ask cap_capable() for CAP_SETPCAP
 * directly (cap_inh_is_capped(), cap_task_prctl()), so lsm/capable never
 * sees them.  The series' pE lacks CAP_SETPCAP wherever the entry set
 * did; the kernel's pE here is full.  These two hooks refuse what the
 * series refuses, with its error.
 */

/*
 * capset: cap_capset()'s two checks of the new pI again, with pP and X as
 * the series sees them: beyond old pI | pP needs CAP_SETPCAP, beyond old
 * pI | X is never allowed.  The LSM hook runs after commoncap's checks,
 * before the new credentials are committed.  kernel_cap_t is 8 bytes on
 * 6.1 (two u32, low first) and on 6.3+ (u64): read as a u64 either way
 * (little-endian).
 */
SEC("lsm/capset")
int BPF_PROG(capuns_capset, struct cred *new, const struct cred *old, const void *effective,
	     const void *inheritable, const void *permitted)
{
	const struct capuns_bpf_cred *s = cred_state(old);
	__u64 pi, held;

	if (!s)
		return 0;
	if (bpf_probe_read_kernel(&pi, sizeof(pi), inheritable))
		return -EPERM; /* unreadable: refuse, never guess */
	held = cap_read(old, SET_INHERITABLE);
	/* Beyond pI | X: no capability allows it (the event names none). */
	if (pi & ~(held | series_set(old, s, SET_BSET)))
		return deny(old, -1, ns_level(user_ns_of(old)), CAPUNS_BPF_DENY_CAP, -EPERM, 1);
	if (has_setpcap(old, s) || !(pi & ~(held | series_set(old, s, SET_PERMITTED))))
		return 0;
	return deny(old, CAP_SETPCAP, ns_level(user_ns_of(old)), CAPUNS_BPF_DENY_CAP, -EPERM, 1);
}

/*
 * The securebits the running kernel lets a task change without
 * CAP_SETPCAP: from 6.14, SECBIT_EXEC_RESTRICT_FILE and
 * SECBIT_EXEC_DENY_INTERACTIVE and their locks (SECURE_ALL_UNPRIVILEGED
 * and its locks); none before.  The bits are macros, absent from BTF;
 * linux_binprm.is_check came in with them (AT_EXECVE_CHECK, which they
 * serve), so CO-RE decides it at load.  A kernel without the field gets 0:
 * the strict direction.
 */
#define SECBITS_EXEC 0xf00 /* bits 8-11 */
static __always_inline unsigned int exec_securebits(void)
{
	return bpf_core_field_exists(struct linux_binprm___exec_check, is_check) ? SECBITS_EXEC : 0;
}

/*
 * PR_SET_SECUREBITS: commoncap, the first LSM, commits the new bits before
 * lsm/task_prctl runs, so refuse in front of security_task_prctl(); a
 * nonzero return skips it.  Every other option goes on (0).  Without
 * CAP_SETPCAP as the series sees pE (rule 3c) the kernel's own rule for a
 * task without it applies: a change of the unprivileged bits only, and
 * some change (its legacy EPERM for none); commoncap then checks the locks
 * and the known bits as ever.  So a restricted task may set the exec bits
 * where any task may (rule 5 leaves them to the kernel).
 */
SEC("fmod_ret/security_task_prctl")
int BPF_PROG(capuns_securebits, int option, unsigned long arg2, unsigned long arg3,
	     unsigned long arg4, unsigned long arg5, int ret)
{
	struct task_struct *task;
	const struct cred *c;
	const struct capuns_bpf_cred *s;
	unsigned long changed;

	if (option != PR_SET_SECUREBITS || ret)
		return ret;
	task = bpf_get_current_task_btf();
	c = task->cred;
	s = cred_state(c);
	if (!s || has_setpcap(c, s))
		return 0;
	changed = arg2 ^ BPF_CORE_READ(c, securebits);
	if (changed && !(changed & ~(unsigned long)exec_securebits()))
		return 0;
	return deny(c, CAP_SETPCAP, ns_level(user_ns_of(c)), CAPUNS_BPF_DENY_CAP, -EPERM, 1);
}

/* ---- /sys/fs/bpf/capuns/tasks ------------------------------------------ */

/* mm->flags' first word: an unsigned long through 6.12, a bitmap in 7.3. */
static __always_inline unsigned long mm_flags(struct mm_struct *mm)
{
	struct mm_struct___bitmap *b = (void *)mm;

	if (bpf_core_field_exists(b->flags.__mm_flags))
		return BPF_CORE_READ(b, flags.__mm_flags[0]);
	return BPF_CORE_READ(mm, flags);
}

/*
 * __ptrace_may_access()'s dumpability test: the task is dumpable by its
 * owner, or the reader has CAP_SYS_PTRACE (by the rules) in the namespace
 * that governs it.  Up to 6.12 both live in the task's mm, and a task
 * without one passes; 7.3 keeps them in task->exec_state, for every task.
 */
static __always_inline int task_dumpable_or_capable(const struct cred *rc,
						    struct capuns_bpf_cred *rs,
						    struct task_struct *task)
{
	struct task_struct___exec_state *t = (void *)task;
	struct task_exec_state *es;
	struct mm_struct *mm;

	if (bpf_core_field_exists(t->exec_state)) {
		es = BPF_CORE_READ(t, exec_state);
		if (!es)
			return 0;
		return BPF_CORE_READ(es, dumpable) == TASK_DUMPABLE_OWNER ||
		       rules_capable(rc, rs, BPF_CORE_READ(es, user_ns), CAP_SYS_PTRACE);
	}
	mm = BPF_CORE_READ(task, mm);
	return !mm || (mm_flags(mm) & MMF_DUMPABLE_MASK) == SUID_DUMP_USER ||
	       rules_capable(rc, rs, BPF_CORE_READ(mm, user_ns), CAP_SYS_PTRACE);
}

/*
 * May the reader (credentials rc) read task's /proc status when /proc is
 * mounted with hidepid=invisible?  __ptrace_may_access() in
 * PTRACE_MODE_READ_FSCREDS, with the series' sets: the reader's fsuid and
 * fsgid equal every id of the task, and the task is dumpable; or
 * CAP_SYS_PTRACE over the task by the rules.  Then cap_ptrace_access_check():
 * in the same user namespace the permitted subset test, and across
 * namespaces, same user or not, CAP_SYS_PTRACE over the task's namespace
 * by the rules (rule 11 bounds an owner's): no other LSM hook asks it for
 * an iterator, so this one must.
 */
static __always_inline int may_read_status(const struct cred *rc, struct task_struct *task,
					   const struct cred *tc)
{
	struct capuns_bpf_cred *rs = cred_state(rc), *ts = cred_state(tc);
	__u32 uid = BPF_CORE_READ(rc, fsuid.val), gid = BPF_CORE_READ(rc, fsgid.val);

	if (BPF_CORE_READ(tc, uid.val) != uid || BPF_CORE_READ(tc, euid.val) != uid ||
	    BPF_CORE_READ(tc, suid.val) != uid || BPF_CORE_READ(tc, gid.val) != gid ||
	    BPF_CORE_READ(tc, egid.val) != gid || BPF_CORE_READ(tc, sgid.val) != gid) {
		if (!rules_capable(rc, rs, user_ns_of(tc), CAP_SYS_PTRACE))
			return 0;
	} else if (!task_dumpable_or_capable(rc, rs, task)) {
		return 0;
	}
	if (user_ns_of(rc) != user_ns_of(tc))
		return rules_capable(rc, rs, user_ns_of(tc), CAP_SYS_PTRACE);
	return subset_or_capable(rc, rs, series_set(rc, rs, SET_EFFECTIVE), tc, ts, CAP_SYS_PTRACE);
}

/*
 * Pinned task iterator, world-readable: one line "tid pU bound strict"
 * (hex sets) per thread visible in the reader's pid namespace, with the
 * tid as the reader sees it, for the threads whose /proc status the
 * reader could read under hidepid=invisible (its own process always).
 * It serves capuns_get(pid) for other tasks; a process reads its own
 * state by prctl.
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
	if (BPF_CORE_READ(task, tgid) != reader->tgid && !may_read_status(reader->cred, task, c))
		return 0;
	s = cred_state(c);
	d[0] = tup.nr;
	d[1] = s ? s->userns : full_set();
	d[2] = s ? s->bound : full_set();
	d[3] = s ? s->flags & CAPUNS_BPF_STRICT_BITS : 0;
	bpf_seq_printf(seq, fmt, sizeof(fmt), d, sizeof(d));
	return 0;
}
