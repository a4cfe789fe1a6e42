// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * capmodel: reference model of credentials under the capuns series.
 *
 * This file holds the state, what userspace observes of it and the
 * invariants; the rules are in commoncap.c and syscalls.c (Linux 6.1),
 * series.c (the series, one function per rule) and bpf.c (the BPF-LSM
 * backend), each backend filling one hook table (hooks.h).
 */
#include "hooks.h"

#include <stdio.h>
#include <string.h>

#define OVERFLOWUID 65534U /* what an unmapped id reads as */

void cm_sys_init(struct cm_sys *sys, enum cm_flavour flavour)
{
	memset(sys, 0, sizeof(*sys));
	sys->flavour = flavour;
	sys->hooks = flavour == CM_PATCHED ? &cm_series_hooks
		     : flavour == CM_BPF   ? &cm_bpf_hooks
					   : &cm_stock_hooks;
	sys->last_cap = sys->hooks->last_cap;
	sys->full = (CM_BIT(sys->last_cap) << 1) - 1;
	sys->mask = sys->full;
	sys->umh_bset = sys->umh_inheritable = sys->umh_userns = sys->full;
	sys->nns = 1;
	sys->ns[0] = (struct cm_ns){ .parent = -1, .level = 0, .owner = 0, .group = 0,
				     .root_uid = 0, .root_gid = 0, .ceiling = sys->full };
}

/* Rule 1: init_cred has the full pU (as it is after /init is exec'd). */
void cm_cred_init_root(const struct cm_sys *sys, struct cm_cred *c)
{
	memset(c, 0, sizeof(*c));
	c->pE = c->pP = c->X = c->pU = c->bound = sys->full;
}

/* ---- observation and invariants ------------------------------------- */

static uint32_t visible_uid(const struct cm_sys *sys, int ns, uint32_t kuid)
{
	uint32_t id = cm_from_kuid(sys, ns, kuid);

	return id == CM_ID_NONE ? OVERFLOWUID : id;
}

/* What userspace sees; pU among it (rule 8: CapUNs, or prctl on BPF). */
void cm_observe(const struct cm_sys *sys, const struct cm_cred *c, struct cm_obs *o)
{
	memset(o, 0, sizeof(*o));
	o->pE = c->pE;
	o->pP = c->pP;
	o->pI = c->pI;
	o->pA = c->pA;
	o->X = c->X;
	o->securebits = c->securebits;
	o->uid = visible_uid(sys, c->ns, c->uid);
	o->euid = visible_uid(sys, c->ns, c->euid);
	o->suid = visible_uid(sys, c->ns, c->suid);
	o->level = sys->ns[c->ns].level;
	/* pU and the backend's state; no CapUNs line, no prctl(48) without a backend. */
	if (sys->hooks->observe)
		sys->hooks->observe(c, o);
}

/*
 * Classic invariants (pA ⊆ pP ∩ pI, pE ⊆ pP, sets within CAP_FULL_SET), and
 * Rule 4: inside a non-initial namespace every set, pU included, stays within
 * what was brought into it, and a namespace created from a non-initial one
 * (and never entered by setns) holds nothing its parent never held.
 */
const char *cm_check_invariants(const struct cm_sys *sys, const struct cm_cred *c)
{
	const struct cm_ns *ns = &sys->ns[c->ns];
	cm_caps all = c->pE | c->pP | c->pI | c->pA | c->X | c->pU, held;
	const char *broken;

	if (!subset(c->pA, c->pP & c->pI))
		return "ambient not within permitted and inheritable";
	if (!subset(c->pE, c->pP))
		return "effective not within permitted";
	if (!subset(all, sys->full))
		return "a set holds a bit beyond CAP_LAST_CAP";
	if (!sys->hooks->ns_invariants || c->ns == 0)
		return NULL;
	broken = sys->hooks->ns_invariants(c, &held);
	if (broken)
		return broken;
	if (!subset(held, ns->ceiling))
		return "a set holds a cap never brought into its namespace";
	for (int i = 1; i < sys->nns; i++) {
		const struct cm_ns *n = &sys->ns[i];

		if (n->parent > 0 && !n->entered_by_setns && !sys->ns[n->parent].entered_by_setns &&
		    !subset(n->ceiling, sys->ns[n->parent].ceiling))
			return "a nested namespace holds a cap absent from its parent";
	}
	return NULL;
}

char *cm_format_obs(const struct cm_obs *o, char *buf, size_t len)
{
	snprintf(buf, len,
		 "CapEff=%016llx CapPrm=%016llx CapInh=%016llx CapAmb=%016llx "
		 "CapBnd=%016llx CapUNs=%016llx bound=%016llx strict=%#x secbits=%#x "
		 "uid=%u/%u/%u level=%d",
		 (unsigned long long)o->pE, (unsigned long long)o->pP,
		 (unsigned long long)o->pI, (unsigned long long)o->pA,
		 (unsigned long long)o->X, (unsigned long long)o->pU,
		 (unsigned long long)o->bound, o->uns_strict, o->securebits, o->uid, o->euid,
		 o->suid, o->level);
	return buf;
}
