// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Property tests of the model over generated sequences (the differential
 * runner's generator): invariants after every step, rule 3 at every entry,
 * failed calls change nothing, pU never grows except by rule 10 (and never
 * under the strict bit), the owner holds nothing its namespaces would lack
 * (rule 11), no tracer attaches to a task whose namespaces would get more
 * (rule 12), and the sequence encoding round-trips.
 */
#include <errno.h>
#include <string.h>

#include "capmodel.h"
#include "tap.h"
#include "seq.h"

#define SEQUENCES 20000

#define NPROPS 9
static int fails[NPROPS];
static char why[NPROPS][512];

static void fail(int k, const struct seq *q, int i, const char *what)
{
	if (fails[k]++ == 0)
		snprintf(why[k], sizeof(why[k]), "seed %llu step %d (%s): %s",
			 (unsigned long long)q->seed, i, seq_kind_name(q->op[i].kind), what);
}

/* Rule 3c: the series writes p'U into X, pP and pE; the BPF backend records
 * it as the bound and the kernel gives its stock full sets. */
static bool entered(const struct cm_sys *sys, const struct cm_cred *c)
{
	if (sys->flavour == CM_BPF)
		return c->X == sys->full && c->pP == sys->full && c->pE == sys->full &&
		       c->bound == c->pU && c->uns_strict == 0 && c->pI == 0 && c->pA == 0 &&
		       c->securebits == 0;
	return c->X == c->pU && c->pP == c->pU && c->pE == c->pU && c->pI == 0 && c->pA == 0 &&
	       c->securebits == 0;
}

/*
 * Rules 3a and 3b, stated here apart from the model: what a namespace
 * created or joined by c gets (X as the series sees it).
 */
static cm_caps would_give(const struct cm_sys *sys, const struct cm_cred *c)
{
	cm_caps set = c->pU & sys->mask;

	if ((c->securebits & CM_SECBIT(CM_SECURE_USERNS_STRICT_CAPS)) ||
	    (c->uns_strict & CM_BPF_STRICT))
		set &= c->X & c->bound;
	return set;
}

/* Rule 11: over a namespace it owns, nothing beyond what its namespaces get and its own pE. */
static void check_owner(const struct seq *q, int i, const struct cm_sys *sys,
			const struct cm_cred *c)
{
	cm_caps allowed = would_give(sys, c) | (c->pE & c->bound);

	for (int n = 1; n < sys->nns; n++) {
		if (sys->ns[n].parent != c->ns || sys->ns[n].owner != c->euid)
			continue;
		for (int cap = 0; cap <= sys->last_cap; cap++)
			if (!(allowed & CM_BIT(cap)) && cm_ns_capable(sys, c, n, cap))
				fail(7, q, i, "rule 11: the owner holds a cap over its child that its "
					      "namespaces would lack");
	}
}

/*
 * Rule 12: a copy of the task with one cap less in pU, among those its
 * namespaces would get, never attaches to it.
 */
static void check_tracer(const struct seq *q, int i, const struct cm_sys *sys,
			 const struct cm_cred *c)
{
	cm_caps gives = would_give(sys, c);

	for (int cap = 0; cap <= sys->last_cap; cap += 7) {
		struct cm_cred t = *c;

		if (!(gives & CM_BIT(cap)))
			continue;
		t.pU &= ~CM_BIT(cap);
		if (cm_ptrace_attach(sys, &t, c, false) || cm_ptrace_attach(sys, &t, c, true))
			fail(8, q, i, "rule 12: a tracer whose namespaces would lack a cap of the "
				      "tracee's attached");
	}
}

static void check_step(const struct seq *q, int i, const struct seq_state *before,
		       const struct seq_state *after, long ret)
{
	const struct cm_cred *b = &before->cred, *a = &after->cred;
	int kind = q->op[i].kind;
	const char *inv = cm_check_invariants(&after->sys, a);

	if (inv)
		fail(0, q, i, inv);
	if (ret < 0 && kind != OP_UNSHARE && kind != OP_HOLD_CHILD && memcmp(a, b, sizeof(*a)))
		fail(1, q, i, "a failed call changed the credentials");
	if (a->ns != b->ns && ret == 0) {
		cm_caps bound = would_give(&before->sys, b);

		if (!entered(&after->sys, a))
			fail(2, q, i, "rule 3c: X = pP = pE = pU, pI = pA = 0 after entry");
		if (a->pU & ~bound)
			fail(3, q, i, "rule 3a/3b: entry set beyond pU & mask (& X if strict)");
	}
	if (a->ns == b->ns && (a->pU & ~b->pU)) {
		/* X as the series sees it: bound is full but on the BPF backend. */
		bool rule10 = (kind == OP_EXEC_SUID || kind == OP_EXEC_PLAIN ||
			       kind == OP_EXEC_FCAPS) && a->pU == (b->pU | (a->X & a->bound)) &&
			      a->euid != b->euid;
		bool raise = kind == OP_PRCTL && q->op[i].a[0] == CM_PR_CAP_USERNS &&
			     q->op[i].a[1] == CM_PR_CAP_OP_RAISE &&
			     !(a->pU & ~(b->pU | (b->X & b->bound)));

		if (!rule10 && !raise)
			fail(4, q, i, "pU grew outside RAISE and rule 10");
	}
	if (kind == OP_FORK && memcmp(a, b, sizeof(*a)))
		fail(5, q, i, "rule 1: fork changed the credentials");
	if (kind == OP_EXEC_SUID && ret == 0 && (a->pU & ~b->pU) &&
	    ((b->securebits & CM_SECBIT(CM_SECURE_USERNS_STRICT_CAPS)) || (b->uns_strict & CM_BPF_STRICT)))
		fail(6, q, i, "rule 10: a setuid-root exec under the strict bit grew pU");
	check_owner(q, i, &after->sys, a);
	check_tracer(q, i, &after->sys, a);
}

/* One flavour's sequences; returns through the globals above. */
static void run_flavour(enum cm_flavour flavour)
{
	struct seq_opts opt = { .flavour = flavour, .fcaps = true, .mask = true,
				.start_mask = ~0ULL };
	long entries = 0, steps = 0, depth_max = 0, roundtrip_bad = 0, nondet = 0, ext = 0;
	const char *name = flavour == CM_BPF ? "bpf" : "patched";

	for (uint64_t seed = 1; seed <= SEQUENCES; seed++) {
		struct seq q, q2, dec;
		struct seq_state st, before;
		char enc[8192];

		opt.mask = seed % 8 == 0;
		seq_generate(&q, seed, &opt);
		seq_generate(&q2, seed, &opt);
		nondet += memcmp(&q, &q2, sizeof(q)) != 0;
		seq_encode(&q, enc, sizeof(enc));
		if (seq_decode(&dec, enc) || dec.n != q.n || memcmp(dec.op, q.op, sizeof(q.op)))
			roundtrip_bad++;
		seq_state_init(&st, &opt);
		for (int i = 0; i < q.n; i++) {
			long ret;

			before = st;
			ret = seq_apply(&st, &q.op[i]);
			steps++;
			ext += q.op[i].kind == OP_PRCTL && q.op[i].a[0] == CM_PR_CAP_USERNS &&
			       q.op[i].a[1] >= CM_BPF_OP_PROBE;
			entries += st.cred.ns != before.cred.ns;
			if (st.sys.ns[st.cred.ns].level > depth_max)
				depth_max = st.sys.ns[st.cred.ns].level;
			check_step(&q, i, &before, &st, ret);
		}
	}
	printf("# %s: %d sequences, %ld steps, %ld namespace entries, max depth %ld\n", name,
	       SEQUENCES, steps, entries, depth_max);
	tap_ok(nondet == 0, "%s: generation is deterministic by seed", name);
	tap_ok(roundtrip_bad == 0, "%s: argv encoding round-trips", name);
	tap_ok(entries > SEQUENCES / 2, "%s: sequences enter namespaces (%ld entries)", name,
	       entries);
	tap_ok(depth_max >= 6, "%s: sequences nest deep (max depth %ld)", name, depth_max);
	if (flavour == CM_BPF)
		tap_ok(ext > SEQUENCES / 10, "bpf: sequences use the extension ops (%ld)", ext);
	static const char *const names[] = {
		"invariants (rule 4 and classic) hold after every step",
		"failed calls change no credentials",
		"rule 3c holds at every entry",
		"rule 3a/3b bound every entry",
		"pU grows only by RAISE within X or by rule 10",
		"rule 1: fork copies",
		"rule 10: under the strict bit a setuid-root exec never grows pU",
		"rule 11: the owner holds nothing its namespaces would lack (beyond its pE) over its children",
		"rule 12: no attach to a task whose namespaces would get more",
	};
	for (int k = 0; k < NPROPS; k++) {
		if (!tap_ok(fails[k] == 0, "%s: %s", name, names[k]))
			printf("#   %d failures, first: %s\n", fails[k], why[k]);
		fails[k] = 0;
	}
}

int main(void)
{
	run_flavour(CM_PATCHED);
	run_flavour(CM_BPF);
	return tap_done();
}
