// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Operation sequences: generation (seeded, deterministic), the model side
 * of each operation and the argv encoding.  The generator consults the
 * model only to pick plausible arguments (e.g. capset subsets of the
 * current sets); what each op returns is decided by seq_apply() alone.
 */
#include "seq.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Securebits the sequences toggle: commoncap's 0 to 7, then the strict bit
 * and its lock (capuns-abi.h).  Bits 8 to 11 are left alone: they are the
 * kernel's exec restrictions of 6.14, outside the rules.  The model knows
 * them (cm_sys.exec_securebits: set without CAP_SETPCAP, kept at entry;
 * model-rules checks it), but of the kernels the runner compares only the
 * mainline series has them, and drawing them too would change every
 * seed's sequence on every kernel.  Unknown bits are those above the
 * strict lock.
 */
#define COMMON_SECUREBITS 8
#define TOGGLED_SECUREBITS (COMMON_SECUREBITS + 2)
#define FIRST_UNKNOWN_SECUREBIT (CM_SECURE_USERNS_STRICT_CAPS_LOCKED + 1)

#define ID_KEEP CM_ID_NONE

/* splitmix64: small, seedable, and the same on every host and guest. */
uint64_t seq_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int below(uint64_t *s, unsigned int n)
{
	return (unsigned int)(seq_rand(s) % n);
}

static bool chance(uint64_t *s, unsigned int percent)
{
	return below(s, 100) < percent;
}

/* One of the toggled securebits, each as likely. */
static unsigned int pick_securebit(uint64_t *s)
{
	unsigned int b = below(s, TOGGLED_SECUREBITS);

	return b < COMMON_SECUREBITS ? b : CM_SECURE_USERNS_STRICT_CAPS + b - COMMON_SECUREBITS;
}

/* Caps that matter to the rules, so that random sequences collide on them. */
static const int hot_caps[] = { 8 /* SETPCAP */,  21 /* SYS_ADMIN */, 17 /* SYS_RAWIO */,
				13 /* NET_RAW */, 31 /* SETFCAP */,   7 /* SETUID */,
				41 /* SYS_CONTROL */, 0 /* CHOWN */ };

static uint64_t pick_cap(uint64_t *s, int last_cap)
{
	static const uint64_t bad[] = { 42, 63, 64, UINT64_MAX, 1ULL << 32, 0x8000000000000000ULL };
	unsigned int r = below(s, 100);

	if (r < 60)
		return (uint64_t)hot_caps[below(s, sizeof(hot_caps) / sizeof(hot_caps[0]))] %
		       (uint64_t)(last_cap + 1);
	if (r < 94)
		return below(s, (unsigned int)last_cap + 1);
	return bad[below(s, sizeof(bad) / sizeof(bad[0]))];
}

/* A random subset of set, mostly dropping a few hot caps. */
static cm_caps drop_some(uint64_t *s, cm_caps set)
{
	int n = (int)below(s, 3);

	if (chance(s, 10))
		return set & seq_rand(s);
	for (int i = 0; i < n; i++)
		set &= ~CM_BIT(hot_caps[below(s, sizeof(hot_caps) / sizeof(hot_caps[0]))]);
	return set;
}

static uint64_t pick_uid(uint64_t *s)
{
	static const uint64_t ids[] = { ID_KEEP, 0, 1000, 1001 };

	return ids[below(s, 4)];
}

/* The BPF backend's extension ops: the strict bits, the mask, the bound. */
static void gen_bpf_extension(uint64_t *s, uint64_t *a, const struct seq_state *st,
			      const struct seq_opts *o)
{
	unsigned int r = below(s, 100);

	a[0] = CM_PR_CAP_USERNS;
	if (r < 55) {
		a[1] = CM_BPF_OP_STRICT_SET;
		a[2] = st->cred.uns_strict ^ (1U << below(s, 2));
		if (chance(s, 20))
			a[2] ^= 1U << below(s, 2);
		if (chance(s, 5))
			a[2] |= 1ULL << below(s, 64);
	} else if (r < 65) {
		a[1] = CM_BPF_OP_STRICT_GET;
	} else if (r < 80) {
		a[1] = CM_BPF_OP_BOUND_IS_SET;
		a[2] = pick_cap(s, st->sys.last_cap);
	} else if (r < 90 || !o->mask) {
		a[1] = chance(s, 20) ? CM_BPF_OP_PROBE : CM_BPF_OP_MASK_IS_SET;
		a[2] = a[1] == CM_BPF_OP_PROBE ? chance(s, 10) : pick_cap(s, st->sys.last_cap);
	} else {
		a[1] = CM_BPF_OP_MASK_LOWER;
		a[2] = pick_cap(s, st->sys.last_cap);
	}
	if (chance(s, 3))
		a[1] = CM_BPF_OP_PROBE + 6 + below(s, 3); /* unknown: EINVAL */
}

static void gen_prctl(uint64_t *s, struct seq_op *op, const struct seq_state *st,
		      const struct seq_opts *o)
{
	const struct cm_cred *c = &st->cred;
	int last = st->sys.last_cap;
	uint64_t *a = op->a;

	op->kind = OP_PRCTL;
	memset(a, 0, sizeof(op->a));
	switch (below(s, 20)) {
	case 0 ... 8: /* rule 2 */
		if (st->sys.flavour == CM_BPF && chance(s, 30)) {
			gen_bpf_extension(s, a, st, o);
			break;
		}
		a[0] = CM_PR_CAP_USERNS;
		a[1] = chance(s, 5) ? below(s, 7) : (uint64_t[]){ 1, 2, 2, 3, 3, 3, 4 }[below(s, 7)];
		a[2] = a[1] == CM_PR_CAP_OP_CLEAR_ALL && !chance(s, 10) ? 0 : pick_cap(s, last);
		break;
	case 9 ... 10:
		a[0] = CM_PR_CAPBSET_DROP;
		a[1] = pick_cap(s, last);
		break;
	case 11:
		a[0] = CM_PR_CAPBSET_READ;
		a[1] = pick_cap(s, last);
		break;
	case 12 ... 14: {
		/* Mostly the current bits with one or two flipped. */
		uint64_t bits = c->securebits;

		a[0] = CM_PR_SET_SECUREBITS;
		bits ^= 1ULL << pick_securebit(s);
		if (chance(s, 30))
			bits ^= 1ULL << pick_securebit(s);
		if (chance(s, 3))
			bits |= 1ULL << (FIRST_UNKNOWN_SECUREBIT +
					 below(s, 64 - FIRST_UNKNOWN_SECUREBIT));
		a[1] = bits;
		break;
	}
	case 15:
		a[0] = chance(s, 50) ? CM_PR_GET_SECUREBITS : CM_PR_GET_KEEPCAPS;
		break;
	case 16:
		a[0] = CM_PR_SET_KEEPCAPS;
		a[1] = chance(s, 10) ? 2 : below(s, 2);
		break;
	default: /* ambient */
		a[0] = CM_PR_CAP_AMBIENT;
		a[1] = chance(s, 5) ? below(s, 7) : (uint64_t[]){ 1, 2, 2, 2, 3, 4 }[below(s, 6)];
		a[2] = a[1] == CM_PR_CAP_OP_CLEAR_ALL ? 0 : pick_cap(s, last);
		break;
	}
	/* Garbage in the arguments that must be zero. */
	if (chance(s, 4))
		a[3] = seq_rand(s) | 1;
	if (chance(s, 2))
		a[4] = 1;
}

static void gen_capset(uint64_t *s, struct seq_op *op, const struct seq_state *st)
{
	const struct cm_cred *c = &st->cred;
	cm_caps p = drop_some(s, c->pP), i, e;

	if (chance(s, 5))
		p |= CM_BIT(below(s, (unsigned int)st->sys.last_cap + 1)); /* grow: EPERM */
	i = chance(s, 50) ? drop_some(s, c->pI | p) : c->pI;
	if (chance(s, 30))
		i |= CM_BIT(hot_caps[below(s, 8)]);
	e = chance(s, 70) ? p : drop_some(s, p);
	if (chance(s, 5))
		e |= CM_BIT(below(s, (unsigned int)st->sys.last_cap + 1));
	op->kind = OP_CAPSET;
	op->a[0] = e;
	op->a[1] = p;
	op->a[2] = i;
}

static void gen_one(uint64_t *s, struct seq_op *op, const struct seq_state *st,
		    const struct seq_opts *o)
{
	int level = st->sys.ns[st->cred.ns].level;

	memset(op, 0, sizeof(*op));
	for (;;) {
		unsigned int r = below(s, 100);

		if (r < 30) {
			gen_prctl(s, op, st, o);
		} else if (r < 37) {
			gen_capset(s, op, st);
		} else if (r < 49) {
			if (level >= SEQ_MAX_DEPTH)
				continue;
			op->kind = chance(s, 12) ? OP_UNSHARE_BARE : OP_UNSHARE;
		} else if (r < 55) {
			if (st->nheld >= SEQ_MAX_HELD || level >= SEQ_MAX_DEPTH)
				continue;
			op->kind = OP_HOLD_CHILD;
		} else if (r < 58) {
			if (st->nheld >= SEQ_MAX_HELD)
				continue;
			op->kind = OP_HOLD_SELF;
		} else if (r < 66) {
			if (st->nheld == 0)
				continue;
			op->kind = OP_SETNS;
			op->a[0] = below(s, (unsigned int)st->nheld);
		} else if (r < 73) {
			op->kind = OP_EXEC_PLAIN;
		} else if (r < 79) {
			op->kind = OP_EXEC_SUID;
		} else if (r < 82) {
			if (!o->fcaps)
				continue;
			op->kind = OP_EXEC_FCAPS;
			op->a[0] = drop_some(s, CM_BIT(13) | CM_BIT(21) | CM_BIT(8));
			op->a[1] = chance(s, 50) ? CM_BIT(13) : 0;
			op->a[2] = chance(s, 60);
		} else if (r < 89) {
			op->kind = OP_SETRESUID;
			op->a[0] = pick_uid(s);
			op->a[1] = pick_uid(s);
			op->a[2] = pick_uid(s);
		} else if (r < 92) {
			op->kind = OP_SETUID;
			op->a[0] = pick_uid(s);
			if (op->a[0] == ID_KEEP)
				op->a[0] = 0;
		} else if (r < 97) {
			op->kind = OP_FORK;
		} else {
			if (!o->mask)
				continue;
			if (o->flavour == CM_BPF) { /* no sysctl: an extension op */
				op->kind = OP_PRCTL;
				op->a[0] = CM_PR_CAP_USERNS;
				op->a[1] = CM_BPF_OP_MASK_LOWER;
				op->a[2] = (uint64_t)hot_caps[below(s, 8)] % (uint64_t)(st->sys.last_cap + 1);
				return;
			}
			op->kind = OP_MASK;
			op->a[0] = st->sys.full & ~CM_BIT(hot_caps[below(s, 8)]);
		}
		return;
	}
}

void seq_generate(struct seq *q, uint64_t seed, const struct seq_opts *o)
{
	uint64_t s = seed;
	struct seq_state st;
	int len;

	memset(q, 0, sizeof(*q));
	q->seed = seed;
	seq_state_init(&st, o);
	/* Half the sequences start unprivileged: a login as alice. */
	if (chance(&s, 50)) {
		q->op[q->n++] = (struct seq_op){ .kind = OP_SETGID, .a = { 1000 } };
		q->op[q->n++] = (struct seq_op){ .kind = OP_SETRESUID, .a = { 1000, 1000, 1000 } };
		q->op[q->n++] = (struct seq_op){ .kind = OP_EXEC_PLAIN };
	}
	len = 1 + (int)below(&s, 40);
	for (int i = 0; i < q->n; i++)
		seq_apply(&st, &q->op[i]);
	for (int i = 0; i < len && q->n < SEQ_MAX_OPS; i++) {
		gen_one(&s, &q->op[q->n], &st, o);
		seq_apply(&st, &q->op[q->n]);
		q->n++;
	}
}

void seq_state_init(struct seq_state *st, const struct seq_opts *o)
{
	memset(st, 0, sizeof(*st));
	cm_sys_init(&st->sys, o->flavour);
	st->sys.setid_by_euid = o->setid_by_euid;
	st->sys.exec_securebits = o->exec_securebits;
	if (o->flavour != CM_UNPATCHED)
		st->sys.mask = o->start_mask & st->sys.full;
	cm_cred_init_root(&st->sys, &st->cred);
}

static long apply_exec(struct seq_state *st, const struct seq_op *op)
{
	struct cm_file f = { .uid = 0, .gid = 0 };

	if (op->kind == OP_EXEC_SUID)
		f.setuid = true;
	if (op->kind == OP_EXEC_FCAPS) {
		f.has_caps = true;
		f.fP = op->a[0];
		f.fI = op->a[1];
		f.fE = op->a[2] != 0;
	}
	return cm_execve(&st->sys, &st->cred, &f);
}

/* A forked child unshares; this task (still in the parent) writes its maps. */
static long apply_hold_child(struct seq_state *st)
{
	struct cm_cred child = st->cred;
	long ret;

	if (st->nheld >= SEQ_MAX_HELD)
		return -EMFILE;
	ret = cm_unshare_user(&st->sys, &child);
	if (ret)
		return ret;
	ret = cm_map_root(&st->sys, &st->cred, child.ns);
	st->held[st->nheld++] = child.ns;
	return ret;
}

long seq_apply(struct seq_state *st, const struct seq_op *op)
{
	struct cm_cred writer;
	long ret;

	switch (op->kind) {
	case OP_FORK:
		return 0;
	case OP_EXEC_PLAIN:
	case OP_EXEC_SUID:
	case OP_EXEC_FCAPS:
		return apply_exec(st, op);
	case OP_CAPSET:
		return cm_capset(&st->sys, &st->cred, op->a[0], op->a[1], op->a[2]);
	case OP_PRCTL:
		return cm_prctl(&st->sys, &st->cred, (int)op->a[0], op->a[1], op->a[2], op->a[3],
				op->a[4]);
	case OP_UNSHARE:
	case OP_UNSHARE_BARE:
		writer = st->cred;
		ret = cm_unshare_user(&st->sys, &st->cred);
		if (ret || op->kind == OP_UNSHARE_BARE)
			return ret;
		return cm_map_root(&st->sys, &writer, st->cred.ns);
	case OP_HOLD_CHILD:
		return apply_hold_child(st);
	case OP_HOLD_SELF:
		if (st->nheld >= SEQ_MAX_HELD)
			return -EMFILE;
		st->held[st->nheld++] = st->cred.ns;
		return 0;
	case OP_SETNS:
		if (op->a[0] >= (uint64_t)st->nheld)
			return -EBADF;
		return cm_setns_user(&st->sys, &st->cred, st->held[op->a[0]]);
	case OP_SETRESUID:
		return cm_setresuid(&st->sys, &st->cred, (uint32_t)op->a[0], (uint32_t)op->a[1],
				    (uint32_t)op->a[2]);
	case OP_SETUID:
		return cm_setuid(&st->sys, &st->cred, (uint32_t)op->a[0]);
	case OP_SETGID:
		return cm_setgid_all(&st->sys, &st->cred, (uint32_t)op->a[0]);
	case OP_MASK:
		return cm_mask_write(&st->sys, &st->cred, op->a[0]);
	default:
		return -ENOSYS;
	}
}

static const char *const kind_names[OP__COUNT] = {
	[OP_FORK] = "fork",		[OP_EXEC_PLAIN] = "exec",	[OP_EXEC_SUID] = "exec-suid-root",
	[OP_EXEC_FCAPS] = "exec-fcaps", [OP_CAPSET] = "capset",		[OP_PRCTL] = "prctl",
	[OP_UNSHARE] = "unshare-r",	[OP_UNSHARE_BARE] = "unshare", [OP_HOLD_CHILD] = "hold-child-ns",
	[OP_HOLD_SELF] = "hold-own-ns", [OP_SETNS] = "setns",		[OP_SETRESUID] = "setresuid",
	[OP_SETUID] = "setuid",		[OP_SETGID] = "setresgid",	[OP_MASK] = "write-mask",
};

const char *seq_kind_name(int kind)
{
	return kind >= 0 && kind < OP__COUNT ? kind_names[kind] : "?";
}

static const char *prctl_name(uint64_t opt)
{
	switch (opt) {
	case CM_PR_GET_KEEPCAPS: return "PR_GET_KEEPCAPS";
	case CM_PR_SET_KEEPCAPS: return "PR_SET_KEEPCAPS";
	case CM_PR_CAPBSET_READ: return "PR_CAPBSET_READ";
	case CM_PR_CAPBSET_DROP: return "PR_CAPBSET_DROP";
	case CM_PR_GET_SECUREBITS: return "PR_GET_SECUREBITS";
	case CM_PR_SET_SECUREBITS: return "PR_SET_SECUREBITS";
	case CM_PR_CAP_AMBIENT: return "PR_CAP_AMBIENT";
	case CM_PR_CAP_USERNS: return "PR_CAP_USERNS";
	default: return "?";
	}
}

static const char *id_str(uint64_t id, char *buf, size_t len)
{
	if ((uint32_t)id == ID_KEEP)
		return "-1";
	snprintf(buf, len, "%" PRIu64, id);
	return buf;
}

char *seq_format_op(const struct seq_op *op, char *buf, size_t len)
{
	char x[3][24];

	switch (op->kind) {
	case OP_CAPSET:
		snprintf(buf, len, "capset(e=%#" PRIx64 ", p=%#" PRIx64 ", i=%#" PRIx64 ")", op->a[0],
			 op->a[1], op->a[2]);
		break;
	case OP_PRCTL:
		snprintf(buf, len, "prctl(%s, %#" PRIx64 ", %#" PRIx64 ", %#" PRIx64 ", %#" PRIx64 ")",
			 prctl_name(op->a[0]), op->a[1], op->a[2], op->a[3], op->a[4]);
		break;
	case OP_EXEC_FCAPS:
		snprintf(buf, len, "exec-fcaps(fP=%#" PRIx64 ", fI=%#" PRIx64 ", fE=%d)", op->a[0],
			 op->a[1], (int)op->a[2]);
		break;
	case OP_SETNS:
		snprintf(buf, len, "setns(held #%" PRIu64 ")", op->a[0]);
		break;
	case OP_SETRESUID:
		snprintf(buf, len, "setresuid(%s, %s, %s)", id_str(op->a[0], x[0], 24),
			 id_str(op->a[1], x[1], 24), id_str(op->a[2], x[2], 24));
		break;
	case OP_SETUID:
	case OP_SETGID:
		snprintf(buf, len, "%s(%s)", seq_kind_name(op->kind), id_str(op->a[0], x[0], 24));
		break;
	case OP_MASK:
		snprintf(buf, len, "write-mask(%#" PRIx64 ")", op->a[0]);
		break;
	default:
		snprintf(buf, len, "%s", seq_kind_name(op->kind));
		break;
	}
	return buf;
}

char *seq_encode(const struct seq *q, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < q->n && off < len; i++) {
		const struct seq_op *op = &q->op[i];
		int w = snprintf(buf + off, len - off, "%s%x:%" PRIx64 ",%" PRIx64 ",%" PRIx64
				 ",%" PRIx64 ",%" PRIx64, i ? ";" : "", op->kind, op->a[0], op->a[1],
				 op->a[2], op->a[3], op->a[4]);
		if (w < 0)
			break;
		off += (size_t)w;
	}
	return buf;
}

int seq_decode(struct seq *q, const char *s)
{
	memset(q, 0, sizeof(*q));
	while (*s) {
		struct seq_op *op;
		unsigned int kind;
		int used = 0;

		if (q->n >= SEQ_MAX_OPS)
			return -1;
		op = &q->op[q->n];
		if (sscanf(s, "%x:%" SCNx64 ",%" SCNx64 ",%" SCNx64 ",%" SCNx64 ",%" SCNx64 "%n",
			   &kind, &op->a[0], &op->a[1], &op->a[2], &op->a[3], &op->a[4], &used) != 6 ||
		    kind >= OP__COUNT)
			return -1;
		op->kind = (uint8_t)kind;
		q->n++;
		s += used;
		if (*s == ';')
			s++;
		else if (*s)
			return -1;
	}
	return 0;
}
