// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Hand-worked cases for the reference model: the seed's examples, each
 * rule, and the classic commoncap.c rules the series sits on.
 * Values are written out in hex on purpose: they were computed by hand.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "capmodel.h"
#include "tap.h"

#define FULL42 0x3ffffffffffULL /* caps 0..41: CAP_SYS_CONTROL is 41 */
#define FULL41 0x1ffffffffffULL /* caps 0..40: a kernel without the series */
#define RAWIO 17
#define NOT_RAWIO (FULL42 & ~CM_BIT(RAWIO))
#define SETPCAP 8
#define STRICT CM_SECBIT(CM_SECURE_USERNS_STRICT_CAPS)
#define STRICT_LOCKED CM_SECBIT(CM_SECURE_USERNS_STRICT_CAPS_LOCKED)
#define SYS_ADMIN 21
#define SETFCAP 31
#define NET_RAW 13
#define SYS_PTRACE 19
#define SYS_CONTROL 41
#define NONE CM_ID_NONE
#define ALICE 1000
#define BOB 1001

static const struct cm_file plain = { .uid = 0, .gid = 0 };
static const struct cm_file suid_root = { .uid = 0, .gid = 0, .setuid = true };

/* A login as uid/gid: setresgid, setresuid from root, then exec of a shell. */
static void login(const struct cm_sys *sys, struct cm_cred *c, uint32_t uid)
{
	cm_cred_init_root(sys, c);
	cm_setgid_all(sys, c, uid);
	cm_setresuid(sys, c, uid, uid, uid);
	cm_execve(sys, c, &plain);
}

/* The start of most cases: a system of the flavour, root, and alice logged in. */
static void boot(struct cm_sys *sys, enum cm_flavour flavour, struct cm_cred *root,
		 struct cm_cred *alice)
{
	cm_sys_init(sys, flavour);
	cm_cred_init_root(sys, root);
	if (alice)
		login(sys, alice, ALICE);
}

/* unshare -r: unshare, then a helper left in the parent writes the maps. */
static int unshare_r(struct cm_sys *sys, struct cm_cred *c)
{
	struct cm_cred writer = *c;
	int ret = cm_unshare_user(sys, c);

	return ret ? ret : cm_map_root(sys, &writer, c->ns);
}

static void test_init(void)
{
	struct cm_sys sys;
	struct cm_cred c;
	struct cm_obs o;

	boot(&sys, CM_PATCHED, &c, NULL);
	cm_observe(&sys, &c, &o);
	TAP_EQ(o.pU, FULL42, "rule 1: init has the full pU (42 caps)");
	TAP_EQ(o.X, FULL42, "init bounding set is full");
	TAP_EQ(sys.mask, FULL42, "rule 6: the mask starts full");
	TAP_EQ(o.pI | o.pA, 0, "init pI and pA empty");

	struct cm_cred child;
	cm_prctl(&sys, &c, CM_PR_CAP_USERNS, CM_PR_CAP_OP_LOWER, RAWIO, 0, 0);
	cm_fork(&c, &child);
	TAP_EQ(child.pU, NOT_RAWIO, "rule 1: fork copies pU");
	cm_execve(&sys, &child, &plain);
	TAP_EQ(child.pU, NOT_RAWIO, "rule 1: plain exec (root) keeps pU");
	login(&sys, &c, ALICE);
	TAP_EQ(c.pU, FULL42, "rule 1: login (setresuid + exec) keeps pU");
	TAP_EQ(c.pP | c.pE | c.pA, 0, "login as alice: no pP/pE/pA");
}

/* Seed 1/4: prctl(PR_CAP_USERNS, LOWER, CAP_SYS_RAWIO) then unshare -r. */
static void test_seed_lower(void)
{
	struct cm_sys sys;
	struct cm_cred c;
	struct cm_obs o;
	char buf[256];

	for (int as_root = 0; as_root <= 1; as_root++) {
		const char *who = as_root ? "root" : "alice";

		cm_sys_init(&sys, CM_PATCHED);
		if (as_root)
			cm_cred_init_root(&sys, &c);
		else
			login(&sys, &c, ALICE);
		TAP_EQ(cm_prctl(&sys, &c, CM_PR_CAP_USERNS, CM_PR_CAP_OP_LOWER, RAWIO, 0, 0), 0,
		       "seed 1 (%s): LOWER CAP_SYS_RAWIO succeeds", who);
		cm_execve(&sys, &c, &plain); /* execvp(unshare) */
		TAP_EQ(unshare_r(&sys, &c), 0, "seed 1 (%s): unshare -r succeeds", who);
		cm_execve(&sys, &c, &plain); /* unshare execs grep as root in the ns */
		cm_observe(&sys, &c, &o);
		if (!tap_ok(o.pU == NOT_RAWIO && o.pP == NOT_RAWIO && o.pE == NOT_RAWIO &&
				    o.X == NOT_RAWIO && o.pI == 0 && o.pA == 0,
			    "seed 1 (%s): CapUNs/CapPrm/CapEff/CapBnd 000003fffffdffff", who))
			printf("#   %s\n", cm_format_obs(&o, buf, sizeof(buf)));
		TAP_EQ(o.uid, 0, "seed 1 (%s): uid 0 in the namespace", who);
	}

	/* The seed printed 000001fffffdffff: its kernel had 41 caps (patch 1/4
	 * comes before CAP_SYS_CONTROL).  The same steps on a kernel of 41
	 * caps, the BPF backend's stock one, through the model: */
	cm_sys_init(&sys, CM_BPF);
	login(&sys, &c, ALICE);
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_CAP_USERNS, CM_PR_CAP_OP_LOWER, RAWIO, 0, 0), 0,
	       "seed 1 (41 caps): LOWER CAP_SYS_RAWIO succeeds");
	cm_execve(&sys, &c, &plain);
	TAP_EQ(unshare_r(&sys, &c), 0, "seed 1 (41 caps): unshare -r succeeds");
	cm_execve(&sys, &c, &plain);
	cm_observe(&sys, &c, &o);
	if (!tap_ok(o.pU == 0x1fffffdffffULL && o.bound == 0x1fffffdffffULL,
		    "seed 1 (41 caps): pU and the entry set are 000001fffffdffff"))
		printf("#   %s\n", cm_format_obs(&o, buf, sizeof(buf)));
}

/* Seed 2/4: capsh --secbits=STRICT --drop=cap_sys_rawio -- -c 'unshare -r ...'. */
static void test_seed_strict(void)
{
	struct cm_sys sys;
	struct cm_cred c;

	for (int strict = 0; strict <= 1; strict++) {
		const char *tag = strict ? " (strict)" : "";

		cm_sys_init(&sys, CM_PATCHED);
		cm_cred_init_root(&sys, &c);
		if (strict)
			TAP_EQ(cm_prctl(&sys, &c, CM_PR_SET_SECUREBITS, STRICT, 0, 0, 0), 0,
			       "seed 2%s: --secbits=%u as root", tag, STRICT);
		TAP_EQ(cm_prctl(&sys, &c, CM_PR_CAPBSET_DROP, RAWIO, 0, 0, 0), 0,
		       "seed 2%s: --drop=cap_sys_rawio", tag);
		cm_execve(&sys, &c, &plain); /* bash */
		TAP_EQ(c.pP, NOT_RAWIO, "seed 2%s: root exec gives pP = X", tag);
		TAP_EQ(c.securebits, strict ? STRICT : 0, "seed 2%s: securebits survive exec", tag);
		TAP_EQ(c.pU, FULL42, "seed 2%s: pU untouched by the bounding-set drop", tag);
		cm_execve(&sys, &c, &plain); /* unshare */
		TAP_EQ(unshare_r(&sys, &c), 0, "seed 2%s: unshare -r succeeds", tag);
		if (strict)
			tap_ok(c.pU == NOT_RAWIO && c.pP == NOT_RAWIO && c.pE == NOT_RAWIO &&
				       c.X == NOT_RAWIO,
			       "seed 2%s: rule 3a: strict bit gives 000003fffffdffff everywhere", tag);
		else
			tap_ok(c.pU == FULL42 && c.X == FULL42,
			       "seed 2%s: without the strict bit the namespace gets rawio back", tag);
		TAP_EQ(c.securebits, 0, "seed 2%s: rule 3c: securebits reset in the namespace", tag);
	}
}

/* Cover letter: sysctl -w kernel.cap_userns_mask=0x1fffffdffff (rule 6, 3b). */
static void test_seed_mask(void)
{
	struct cm_sys sys;
	struct cm_cred root, alice, old_ns, in_ns;

	boot(&sys, CM_PATCHED, &root, &alice);
	old_ns = alice;
	TAP_EQ(unshare_r(&sys, &old_ns), 0, "mask: a namespace made before the write");

	TAP_EQ(cm_mask_write(&sys, &alice, 0x1fffffdffffULL), -EACCES,
	       "rule 6: alice cannot open the mask for writing (EACCES)");
	struct cm_cred weak = root;
	cm_capset(&sys, &weak, weak.pE & ~CM_BIT(SYS_CONTROL), weak.pP, 0);
	TAP_EQ(cm_mask_write(&sys, &weak, 0x1fffffdffffULL), -EPERM,
	       "rule 6: root without CAP_SYS_CONTROL in pE gets EPERM");
	in_ns = root;
	unshare_r(&sys, &in_ns);
	TAP_EQ(cm_mask_write(&sys, &in_ns, 0x1fffffdffffULL), -EPERM,
	       "rule 6: root of a child namespace gets EPERM (needs the initial ns)");
	TAP_EQ(sys.mask, FULL42, "rule 6: failed writes leave the mask alone");

	TAP_EQ(cm_mask_write(&sys, &root, 0x1fffffdffffULL), 0, "rule 6: root writes the mask");
	TAP_EQ(sys.mask, 0x1fffffdffffULL, "rule 6: mask reads 0x1fffffdffff");
	TAP_EQ(cm_mask_write(&sys, &root, FULL42), 0, "rule 6: writing the full set succeeds");
	TAP_EQ(sys.mask, 0x1fffffdffffULL, "rule 6: ...but only intersects (nothing comes back)");

	TAP_EQ(unshare_r(&sys, &alice), 0, "mask: alice creates a namespace after the write");
	tap_ok(alice.pU == 0x1fffffdffffULL && alice.X == 0x1fffffdffffULL &&
		       alice.pE == 0x1fffffdffffULL && alice.pP == 0x1fffffdffffULL,
	       "rule 3b: new namespace gets 000001fffffdffff (no rawio, no sys_control)");
	TAP_EQ(old_ns.X, FULL42, "rule 6: an existing namespace keeps what it has");
	struct cm_cred deeper = old_ns;
	TAP_EQ(unshare_r(&sys, &deeper), 0, "mask: nested creation from the old namespace");
	TAP_EQ(deeper.X, 0x1fffffdffffULL, "rule 3b: the mask applies at every entry");
}

static long uns(struct cm_sys *sys, struct cm_cred *c, uint64_t op, uint64_t cap, uint64_t a4,
		uint64_t a5)
{
	return cm_prctl(sys, c, CM_PR_CAP_USERNS, op, cap, a4, a5);
}

/* Rule 2: every return of prctl(PR_CAP_USERNS). */
static void test_prctl_userns(void)
{
	struct cm_sys sys;
	struct cm_cred r, a, c;

	boot(&sys, CM_PATCHED, &r, &a);

	c = r;
	TAP_EQ(uns(&sys, &c, 4, 1, 0, 0), -EINVAL, "rule 2: CLEAR_ALL with arg3 != 0: EINVAL");
	TAP_EQ(uns(&sys, &c, 4, 0, 1, 0), -EINVAL, "rule 2: CLEAR_ALL with arg4 != 0: EINVAL");
	TAP_EQ(uns(&sys, &c, 4, 0, 0, 1), -EINVAL, "rule 2: CLEAR_ALL with arg5 != 0: EINVAL");
	TAP_EQ(c.pU, FULL42, "rule 2: failed CLEAR_ALL changes nothing");
	TAP_EQ(uns(&sys, &c, 4, 0, 0, 0), 0, "rule 2: CLEAR_ALL succeeds");
	TAP_EQ(c.pU, 0, "rule 2: CLEAR_ALL empties pU");
	c = a;
	TAP_EQ(uns(&sys, &c, 4, 0, 0, 0), 0, "rule 2: CLEAR_ALL needs no privilege");

	c = r;
	TAP_EQ(uns(&sys, &c, 1, 42, 0, 0), -EINVAL, "rule 2: IS_SET cap 42: EINVAL");
	TAP_EQ(uns(&sys, &c, 1, UINT64_MAX, 0, 0), -EINVAL, "rule 2: IS_SET cap -1: EINVAL");
	TAP_EQ(uns(&sys, &c, 1, 1ULL << 32, 0, 0), -EINVAL, "rule 2: IS_SET cap 2^32: EINVAL");
	TAP_EQ(uns(&sys, &c, 1, 41, 0, 0), 1, "rule 2: IS_SET CAP_SYS_CONTROL: 1");
	TAP_EQ(uns(&sys, &c, 1, 0, 1, 0), -EINVAL, "rule 2: IS_SET with arg4: EINVAL");
	TAP_EQ(uns(&sys, &c, 1, 0, 0, 1), -EINVAL, "rule 2: IS_SET with arg5: EINVAL");
	TAP_EQ(uns(&sys, &c, 0, 0, 0, 0), -EINVAL, "rule 2: op 0: EINVAL");
	TAP_EQ(uns(&sys, &c, 5, 0, 0, 0), -EINVAL, "rule 2: op 5: EINVAL");
	TAP_EQ(uns(&sys, &c, UINT64_MAX, 0, 0, 0), -EINVAL, "rule 2: op -1: EINVAL");

	c = a;
	TAP_EQ(uns(&sys, &c, 3, 99, 0, 0), -EINVAL, "rule 2: LOWER invalid cap: EINVAL");
	TAP_EQ(uns(&sys, &c, 3, RAWIO, 0, 0), 0, "rule 2: LOWER needs no privilege");
	TAP_EQ(uns(&sys, &c, 1, RAWIO, 0, 0), 0, "rule 2: IS_SET after LOWER: 0");
	TAP_EQ(uns(&sys, &c, 3, RAWIO, 0, 0), 0, "rule 2: LOWER of a clear bit succeeds");
	TAP_EQ(uns(&sys, &c, 2, RAWIO, 0, 0), -EPERM,
	       "rule 2: RAISE without pP and without CAP_SETPCAP: EPERM");
	TAP_EQ(uns(&sys, &c, 2, NET_RAW, 0, 0), 0, "rule 2: RAISE of a set bit always succeeds");

	c = a;
	cm_prctl(&sys, &c, CM_PR_CAP_USERNS, 4, 0, 0, 0);
	c.X &= ~CM_BIT(NET_RAW); /* as if dropped by a privileged ancestor */
	TAP_EQ(uns(&sys, &c, 2, NET_RAW, 0, 0), -EPERM, "rule 2: RAISE outside X: EPERM");

	c = r;
	uns(&sys, &c, 3, RAWIO, 0, 0);
	TAP_EQ(uns(&sys, &c, 2, RAWIO, 0, 0), 0, "rule 2: RAISE with CAP_SETPCAP in pE");
	cm_prctl(&sys, &c, CM_PR_CAPBSET_DROP, RAWIO, 0, 0, 0);
	uns(&sys, &c, 3, RAWIO, 0, 0);
	TAP_EQ(uns(&sys, &c, 2, RAWIO, 0, 0), -EPERM,
	       "rule 2: RAISE outside X fails even with CAP_SETPCAP");

	c = r;
	uns(&sys, &c, 3, RAWIO, 0, 0);
	cm_capset(&sys, &c, FULL42 & ~CM_BIT(SETPCAP), FULL42, 0);
	TAP_EQ(uns(&sys, &c, 2, RAWIO, 0, 0), 0,
	       "rule 2: RAISE of a cap in X and pP without CAP_SETPCAP");
	TAP_EQ(cm_capset(&sys, &c, FULL42 & ~CM_BIT(SETPCAP) & ~CM_BIT(RAWIO),
			 FULL42 & ~CM_BIT(RAWIO), 0),
	       0, "capset: pP without rawio, pE without CAP_SETPCAP");
	uns(&sys, &c, 3, RAWIO, 0, 0);
	TAP_EQ(uns(&sys, &c, 2, RAWIO, 0, 0), -EPERM,
	       "rule 2: CAP_SETPCAP only in pP (not pE) does not count");

	struct cm_sys stock;
	boot(&stock, CM_UNPATCHED, &c, NULL);
	TAP_EQ(uns(&stock, &c, 1, 0, 0, 0), -EINVAL, "unpatched: prctl(48) is EINVAL");
	TAP_EQ(stock.full, FULL41, "unpatched: 41 caps");
}

static void test_prctl_classic(void)
{
	struct cm_sys sys;
	struct cm_cred r, a, c;

	boot(&sys, CM_PATCHED, &r, &a);

	/* PR_CAPBSET_READ / DROP */
	c = r;
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_CAPBSET_READ, 41, 0, 0, 0), 1, "CAPBSET_READ 41: 1");
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_CAPBSET_READ, 42, 0, 0, 0), -EINVAL,
	       "CAPBSET_READ 42: EINVAL");
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_CAPBSET_DROP, 42, 0, 0, 0), -EINVAL,
	       "CAPBSET_DROP 42 as root: EINVAL");
	c = a;
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_CAPBSET_DROP, 42, 0, 0, 0), -EPERM,
	       "CAPBSET_DROP 42 as alice: EPERM (privilege is checked first)");
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_CAPBSET_DROP, RAWIO, 0, 0, 0), -EPERM,
	       "CAPBSET_DROP as alice: EPERM");
	c = r;
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_CAPBSET_DROP, RAWIO, 0, 0, 0), 0, "CAPBSET_DROP as root");
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_CAPBSET_READ, RAWIO, 0, 0, 0), 0,
	       "CAPBSET_READ after drop: 0");
	TAP_EQ(c.pU, FULL42, "CAPBSET_DROP leaves pU alone");
	TAP_EQ(c.pP, FULL42, "CAPBSET_DROP leaves pP alone");
	c = a;
	TAP_EQ(unshare_r(&sys, &c), 0, "alice in her namespace");
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_CAPBSET_DROP, RAWIO, 0, 0, 0), 0,
	       "CAPBSET_DROP as root of a child namespace (CAP_SETPCAP there)");

	/* PR_SET_SECUREBITS */
	c = a;
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_SET_SECUREBITS, STRICT, 0, 0, 0), -EPERM,
	       "SET_SECUREBITS as alice: EPERM");
	c = r;
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_SET_SECUREBITS, 0x400, 0, 0, 0), -EPERM,
	       "SET_SECUREBITS bit 10 (unknown): EPERM");
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_SET_SECUREBITS, 1ULL << 40, 0, 0, 0), -EPERM,
	       "SET_SECUREBITS bit 40: EPERM");
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_SET_SECUREBITS, (STRICT | STRICT_LOCKED), 0, 0, 0), 0,
	       "rule 5: SET_SECUREBITS strict + its lock");
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_GET_SECUREBITS, 0, 0, 0, 0), (STRICT | STRICT_LOCKED),
	       "GET_SECUREBITS returns the strict bit and its lock");
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_SET_SECUREBITS, STRICT_LOCKED, 0, 0, 0), -EPERM,
	       "rule 5: clearing a locked strict bit: EPERM");
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_SET_SECUREBITS, STRICT, 0, 0, 0), -EPERM,
	       "rule 5: unlocking: EPERM");
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_SET_SECUREBITS, STRICT | STRICT_LOCKED | 0x11, 0, 0, 0), 0,
	       "other bits still change beside a lock");
	struct cm_sys stock;
	boot(&stock, CM_UNPATCHED, &c, NULL);
	TAP_EQ(cm_prctl(&stock, &c, CM_PR_SET_SECUREBITS, STRICT, 0, 0, 0), -EPERM,
	       "unpatched: the strict bit is unknown: EPERM");

	/* PR_SET_KEEPCAPS */
	c = a;
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_SET_KEEPCAPS, 2, 0, 0, 0), -EINVAL, "SET_KEEPCAPS 2: EINVAL");
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_SET_KEEPCAPS, 1, 0, 0, 0), 0,
	       "SET_KEEPCAPS 1 needs no privilege");
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_GET_KEEPCAPS, 0, 0, 0, 0), 1, "GET_KEEPCAPS 1");
	c = r;
	cm_prctl(&sys, &c, CM_PR_SET_SECUREBITS, 0x20, 0, 0, 0);
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_SET_KEEPCAPS, 1, 0, 0, 0), -EPERM,
	       "SET_KEEPCAPS with KEEP_CAPS_LOCKED: EPERM");

	/* PR_CAP_AMBIENT */
	c = r;
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_CAP_AMBIENT, 2, NET_RAW, 0, 0), -EPERM,
	       "AMBIENT RAISE without pI: EPERM");
	TAP_EQ(cm_capset(&sys, &c, c.pE, c.pP, CM_BIT(NET_RAW)), 0, "capset pI = {net_raw}");
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_CAP_AMBIENT, 2, NET_RAW, 0, 0), 0, "AMBIENT RAISE");
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_CAP_AMBIENT, 1, NET_RAW, 0, 0), 1, "AMBIENT IS_SET 1");
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_CAP_AMBIENT, 1, 42, 0, 0), -EINVAL,
	       "AMBIENT IS_SET 42: EINVAL");
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_CAP_AMBIENT, 4, 1, 0, 0), -EINVAL,
	       "AMBIENT CLEAR_ALL arg3: EINVAL");
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_CAP_AMBIENT, 9, 1, 0, 0), -EINVAL, "AMBIENT op 9: EINVAL");
	struct cm_cred amb = c;
	TAP_EQ(cm_setresuid(&sys, &amb, NONE, ALICE, NONE), 0, "setresuid(-1, alice, -1)");
	TAP_EQ(amb.pA, CM_BIT(NET_RAW), "keeping a root id keeps pA");
	cm_prctl(&sys, &c, CM_PR_SET_SECUREBITS, 0x40, 0, 0, 0);
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_CAP_AMBIENT, 2, NET_RAW, 0, 0), -EPERM,
	       "AMBIENT RAISE with NO_CAP_AMBIENT_RAISE: EPERM");
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_CAP_AMBIENT, 3, NET_RAW, 0, 0), 0, "AMBIENT LOWER");

	/* Ambient through a non-root exec. */
	c = r;
	cm_capset(&sys, &c, c.pE, c.pP, CM_BIT(NET_RAW));
	cm_prctl(&sys, &c, CM_PR_CAP_AMBIENT, 2, NET_RAW, 0, 0);
	cm_prctl(&sys, &c, CM_PR_SET_KEEPCAPS, 1, 0, 0, 0);
	cm_setresuid(&sys, &c, ALICE, ALICE, ALICE);
	TAP_EQ(c.pA, 0, "leaving root clears pA even with KEEP_CAPS");
	TAP_EQ(c.pP, FULL42, "KEEP_CAPS keeps pP on leaving root");
	TAP_EQ(c.pE, 0, "...but pE is cleared");
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_CAP_AMBIENT, 2, NET_RAW, 0, 0), 0,
	       "AMBIENT RAISE as alice with pP and pI");
	cm_execve(&sys, &c, &plain);
	tap_ok(c.pA == CM_BIT(NET_RAW) && c.pP == CM_BIT(NET_RAW) && c.pE == CM_BIT(NET_RAW),
	       "non-root exec: pP' = pE' = pA");
	TAP_EQ(c.securebits, 0, "exec clears KEEP_CAPS");

	TAP_EQ(cm_prctl(&sys, &c, 12345, 0, 0, 0, 0), -EINVAL, "unknown prctl option: EINVAL");
}

static void test_capset(void)
{
	struct cm_sys sys;
	struct cm_cred r, c;

	boot(&sys, CM_PATCHED, &r, NULL);
	c = r;
	TAP_EQ(cm_capset(&sys, &c, 0, CM_BIT(NET_RAW), CM_BIT(SYS_ADMIN)), 0, "capset shrink pP");
	TAP_EQ(cm_capset(&sys, &c, 0, CM_BIT(NET_RAW) | CM_BIT(1), 0), -EPERM,
	       "capset growing pP: EPERM");
	TAP_EQ(cm_capset(&sys, &c, CM_BIT(1), CM_BIT(NET_RAW), 0), -EPERM,
	       "capset pE outside new pP: EPERM");
	TAP_EQ(cm_capset(&sys, &c, 0, CM_BIT(NET_RAW), CM_BIT(SYS_ADMIN) | CM_BIT(2)), -EPERM,
	       "capset pI beyond pI|pP without CAP_SETPCAP: EPERM");
	c = r;
	c.pU = 0; /* pU plays no part in capset */
	TAP_EQ(cm_capset(&sys, &c, 0, FULL42, ~0ULL), 0, "capset with CAP_SETPCAP, pI = all");
	TAP_EQ(c.pI, FULL42, "capset drops bits above CAP_LAST_CAP");
	c = r;
	cm_prctl(&sys, &c, CM_PR_CAPBSET_DROP, RAWIO, 0, 0, 0);
	cm_capset(&sys, &c, FULL42, FULL42, 0);
	TAP_EQ(cm_capset(&sys, &c, FULL42, FULL42, CM_BIT(RAWIO)), -EPERM,
	       "capset pI outside pI|X: EPERM even with CAP_SETPCAP");
}

static void test_exec(void)
{
	struct cm_sys sys;
	struct cm_cred r, a, c;
	struct cm_file fcap = { .uid = 0, .gid = 0, .has_caps = true, .fP = CM_BIT(NET_RAW),
				.fE = true };

	boot(&sys, CM_PATCHED, &r, &a);

	c = r;
	cm_capset(&sys, &c, 0, 0, 0);
	cm_execve(&sys, &c, &plain);
	TAP_EQ(c.pP, FULL42, "root exec: pP' = X | pI");
	TAP_EQ(c.pE, FULL42, "root exec: pE' = pP'");
	c = r;
	cm_prctl(&sys, &c, CM_PR_SET_SECUREBITS, 1, 0, 0, 0);
	cm_execve(&sys, &c, &plain);
	TAP_EQ(c.pP | c.pE, 0, "SECURE_NOROOT: root exec gets nothing");

	/* Rule 10. */
	c = a;
	cm_prctl(&sys, &c, CM_PR_CAP_USERNS, 4, 0, 0, 0);
	TAP_EQ(cm_execve(&sys, &c, &suid_root), 0, "alice execs a setuid-root program");
	TAP_EQ(c.euid, 0, "euid 0 after setuid-root exec");
	TAP_EQ(c.uid, ALICE, "ruid stays alice");
	TAP_EQ(c.pP, FULL42, "setuid-root exec: pP' = X");
	TAP_EQ(c.pU, FULL42, "rule 10: setuid-root exec that gains privilege: pU' = pU | X");
	c = a;
	c.X &= ~CM_BIT(RAWIO); /* a privileged ancestor dropped rawio from X */
	cm_prctl(&sys, &c, CM_PR_CAP_USERNS, CM_PR_CAP_OP_LOWER, SYS_ADMIN, 0, 0);
	cm_prctl(&sys, &c, CM_PR_CAP_USERNS, CM_PR_CAP_OP_LOWER, RAWIO, 0, 0);
	cm_execve(&sys, &c, &suid_root);
	TAP_EQ(c.pU, NOT_RAWIO, "rule 10: only what X holds comes back");
	c = a;
	c.X &= ~CM_BIT(RAWIO);
	cm_execve(&sys, &c, &suid_root);
	TAP_EQ(c.pU, FULL42, "rule 10: a pU never lowered stays full, whatever X lacks");
	c = r;
	cm_prctl(&sys, &c, CM_PR_CAP_USERNS, 4, 0, 0, 0);
	cm_execve(&sys, &c, &suid_root);
	TAP_EQ(c.pU, 0, "rule 10: root running a setuid-root program gains nothing: pU kept");
	c = a;
	cm_prctl(&sys, &c, CM_PR_CAP_USERNS, 4, 0, 0, 0);
	cm_prctl(&sys, &c, CM_PR_SET_SECUREBITS, 0, 0, 0, 0);
	c.securebits = CM_SECBIT(CM_SECURE_NOROOT); /* inherited from a parent */
	cm_execve(&sys, &c, &suid_root);
	TAP_EQ(c.euid, 0, "SECURE_NOROOT: setuid still changes euid");
	TAP_EQ(c.pU, 0, "rule 10: SECURE_NOROOT setuid-root exec gains nothing: pU kept");

	/* Rule 10 (R10): a restriction imposed with the strict bit survives. */
	c = r;
	cm_prctl(&sys, &c, CM_PR_CAP_USERNS, CM_PR_CAP_OP_LOWER, NET_RAW, 0, 0);
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_SET_SECUREBITS, (STRICT | STRICT_LOCKED), 0, 0, 0), 0,
	       "a login policy: root sets the strict bit, locked");
	cm_setgid_all(&sys, &c, ALICE);
	cm_setresuid(&sys, &c, ALICE, ALICE, ALICE);
	cm_execve(&sys, &c, &plain);
	TAP_EQ(c.securebits, (STRICT | STRICT_LOCKED), "the strict bits survive setuid and exec");
	cm_prctl(&sys, &c, CM_PR_CAP_USERNS, CM_PR_CAP_OP_LOWER, SYS_ADMIN, 0, 0);
	c.X &= ~CM_BIT(RAWIO);
	cm_execve(&sys, &c, &suid_root);
	TAP_EQ(c.pU, FULL42 & ~CM_BIT(NET_RAW) & ~CM_BIT(SYS_ADMIN) & ~CM_BIT(RAWIO),
	       "rule 10 (R10): strict: setuid-root exec gives pU & X (sg, su, sudo keep the policy)");

	/* File capabilities. */
	c = a;
	TAP_EQ(cm_execve(&sys, &c, &fcap), 0, "exec of a file with cap_net_raw=ep");
	tap_ok(c.pP == CM_BIT(NET_RAW) && c.pE == CM_BIT(NET_RAW), "file caps: pP' = pE' = fP & X");
	TAP_EQ(c.pU, FULL42, "file caps without setuid do not touch pU");
	c = a;
	c.X &= ~CM_BIT(NET_RAW);
	struct cm_cred before = c;
	TAP_EQ(cm_execve(&sys, &c, &fcap), -EPERM, "fE with a forced cap outside X: EPERM");
	TAP_EQ(memcmp(&c, &before, sizeof(c)), 0, "failed exec changes nothing");

	/* ruid != euid: a plain exec counts as setid and clears pA. */
	c = r;
	cm_capset(&sys, &c, c.pE, c.pP, CM_BIT(NET_RAW));
	cm_prctl(&sys, &c, CM_PR_CAP_AMBIENT, 2, NET_RAW, 0, 0);
	cm_setresuid(&sys, &c, ALICE, 0, 0);
	cm_execve(&sys, &c, &plain);
	TAP_EQ(c.pA, 0, "exec with euid != ruid clears pA (__is_setuid uses the old ruid)");
	/* Newer kernels compare with the old euid: the same exec keeps pA,
	 * and a setuid-root exec from euid alice (ruid root) clears it. */
	sys.setid_by_euid = true;
	c = r;
	cm_capset(&sys, &c, c.pE, c.pP, CM_BIT(NET_RAW));
	cm_prctl(&sys, &c, CM_PR_CAP_AMBIENT, 2, NET_RAW, 0, 0);
	struct cm_cred euid_alice = c;
	cm_setresuid(&sys, &c, ALICE, 0, 0);
	cm_execve(&sys, &c, &plain);
	TAP_EQ(c.pA, CM_BIT(NET_RAW), "setid_by_euid: an exec that changes no id keeps pA");
	c = euid_alice;
	cm_setresuid(&sys, &c, NONE, ALICE, NONE);
	cm_execve(&sys, &c, &suid_root);
	TAP_EQ(c.pA, 0, "setid_by_euid: setuid-root exec from euid alice clears pA");
	sys.setid_by_euid = false;
	c = euid_alice;
	cm_setresuid(&sys, &c, NONE, ALICE, NONE);
	cm_execve(&sys, &c, &suid_root);
	TAP_EQ(c.pA, CM_BIT(NET_RAW), "the old rule: the same exec keeps pA (new euid = old ruid)");

	/* Rule 10 needs a non-root old euid: ruid alice, euid 0 keeps pU. */
	c = r;
	cm_setresuid(&sys, &c, ALICE, 0, 0);
	cm_prctl(&sys, &c, CM_PR_CAP_USERNS, 4, 0, 0, 0);
	cm_capset(&sys, &c, 0, 0, 0);
	cm_execve(&sys, &c, &suid_root);
	TAP_EQ(c.pP, FULL42, "ruid alice, euid 0, empty pP: setuid-root exec gives pP = X");
	TAP_EQ(c.pU, 0, "rule 10: the old euid was already root: pU kept");
}

static void test_setuid(void)
{
	struct cm_sys sys;
	struct cm_cred r, c;

	boot(&sys, CM_PATCHED, &r, NULL);
	c = r;
	TAP_EQ(cm_setresuid(&sys, &c, 0, ALICE, 0), 0, "setresuid(0, alice, 0)");
	tap_ok(c.pE == 0 && c.pP == FULL42, "euid leaves root: pE cleared, pP kept");
	TAP_EQ(cm_setresuid(&sys, &c, NONE, 0, NONE), 0, "setresuid(-1, 0, -1)");
	TAP_EQ(c.pE, FULL42, "euid back to root: pE = pP");
	TAP_EQ(cm_setuid(&sys, &c, ALICE), 0, "setuid(alice) as root");
	tap_ok(c.uid == ALICE && c.euid == ALICE && c.suid == ALICE && c.pP == 0 && c.pE == 0,
	       "setuid(alice) as root drops every id and pP/pE");
	TAP_EQ(cm_setuid(&sys, &c, 0), -EPERM, "setuid(0) as alice: EPERM");
	TAP_EQ(cm_setresuid(&sys, &c, BOB, NONE, NONE), -EPERM, "setresuid(bob) as alice: EPERM");
	TAP_EQ(c.pU, FULL42, "set*uid leaves pU alone");
	c = r;
	cm_prctl(&sys, &c, CM_PR_SET_SECUREBITS, CM_SECBIT(CM_SECURE_NO_SETUID_FIXUP), 0, 0, 0);
	cm_setresuid(&sys, &c, ALICE, ALICE, ALICE);
	TAP_EQ(c.pE, FULL42, "NO_SETUID_FIXUP: leaving root keeps pE");
	c = r;
	unshare_r(&sys, &c);
	TAP_EQ(cm_setuid(&sys, &c, ALICE), -EINVAL, "setuid to an unmapped id: EINVAL");
	TAP_EQ(cm_setresuid(&sys, &c, 0, 0, 0), 0, "setresuid(0,0,0) in the namespace: no-op");
}

static void test_namespaces(void)
{
	struct cm_sys sys;
	struct cm_cred r, a, b, c, hold;

	boot(&sys, CM_PATCHED, &r, &a);
	login(&sys, &b, BOB);

	/* Unmapped namespaces. */
	c = a;
	TAP_EQ(cm_unshare_user(&sys, &c), 0, "alice unshares");
	TAP_EQ(sys.ns[c.ns].owner, ALICE, "the namespace is owned by alice's euid");
	struct cm_obs o;
	cm_observe(&sys, &c, &o);
	TAP_EQ(o.euid, 65534, "unmapped: euid reads as the overflow id");
	TAP_EQ(cm_unshare_user(&sys, &c), -EPERM, "nesting from an unmapped namespace: EPERM");
	cm_execve(&sys, &c, &plain);
	TAP_EQ(c.pP | c.pE, 0, "unmapped: no root in the namespace, exec drops pP");

	/* The level limit: parent level > 32 is ENOSPC. */
	c = r;
	int ret = 0, made = 0;
	while ((ret = unshare_r(&sys, &c)) == 0)
		made++;
	TAP_EQ(ret, -ENOSPC, "create_user_ns: ENOSPC past the level limit");
	TAP_EQ(made, 33, "33 nested namespaces fit below the initial one");

	/* setns, rule 3 and the owner grant of cap_capable() (classic). */
	cm_sys_init(&sys, CM_PATCHED);
	hold = a;
	cm_prctl(&sys, &hold, CM_PR_CAP_USERNS, 3, SYS_ADMIN, 0, 0);
	unshare_r(&sys, &hold);
	int ns = hold.ns;
	TAP_EQ(hold.X, FULL42 & ~CM_BIT(SYS_ADMIN), "alice's namespace lacks CAP_SYS_ADMIN");
	for (int cap = 0; cap <= 41; cap += 41)
		tap_ok(cm_ns_capable(&sys, &a, ns, cap),
		       "owner grant: owner alice in the parent has cap %d in her namespace", cap);
	tap_ok(cm_ns_capable(&sys, &a, ns, SYS_ADMIN),
	       "owner grant: ...even CAP_SYS_ADMIN the namespace's own sets lack");
	tap_ok(!cm_ns_capable(&sys, &hold, ns, SYS_ADMIN),
	       "inside, CAP_SYS_ADMIN is absent (pE)");
	tap_ok(!cm_ns_capable(&sys, &b, ns, 0), "bob (not owner, no pE) has nothing there");
	tap_ok(cm_ns_capable(&sys, &r, ns, SYS_ADMIN), "init root has every cap in descendants");
	struct cm_cred deeper = hold;
	cm_prctl(&sys, &deeper, CM_PR_CAP_USERNS, 3, NET_RAW, 0, 0);
	TAP_EQ(unshare_r(&sys, &deeper), 0,
	       "rule 11: nested unshare -r without CAP_SYS_ADMIN: the self-mapping needs none");
	TAP_EQ(deeper.X, FULL42 & ~CM_BIT(SYS_ADMIN) & ~CM_BIT(NET_RAW),
	       "nested namespace: sets shrink along the chain");
	tap_ok(cm_ns_capable(&sys, &a, deeper.ns, SYS_ADMIN),
	       "owner grant: alice (euid owns the chain) has every cap two levels down");

	/* Rule 11 (R11): the owner grant covers pU & mask (& X if strict) only. */
	tap_ok(!cm_ns_capable(&sys, &hold, deeper.ns, SYS_ADMIN),
	       "rule 11: an owner without CAP_SYS_ADMIN in pU lacks it over its child");
	struct cm_cred owner = a;
	cm_prctl(&sys, &owner, CM_PR_CAP_USERNS, 3, NET_RAW, 0, 0);
	struct cm_cred kid = owner;
	unshare_r(&sys, &kid);
	tap_ok(!cm_ns_capable(&sys, &owner, kid.ns, NET_RAW),
	       "rule 11: an owner whose pU lacks CAP_NET_RAW lacks it over its child (fd passing)");
	tap_ok(cm_ns_capable(&sys, &owner, kid.ns, SYS_ADMIN), "rule 11: it keeps what pU has");
	struct cm_cred grandkid = kid;
	unshare_r(&sys, &grandkid);
	tap_ok(!cm_ns_capable(&sys, &owner, grandkid.ns, NET_RAW),
	       "rule 11: ...at every depth");
	struct cm_cred rootowner = r;
	cm_prctl(&sys, &rootowner, CM_PR_CAP_USERNS, 3, NET_RAW, 0, 0);
	kid = rootowner;
	unshare_r(&sys, &kid);
	tap_ok(cm_ns_capable(&sys, &rootowner, kid.ns, NET_RAW),
	       "rule 11: root still has it over the child from its own pE (the walk goes on up)");
	struct cm_cred noadmin = a;
	cm_prctl(&sys, &noadmin, CM_PR_CAP_USERNS, 3, SYS_ADMIN, 0, 0);
	kid = noadmin;
	TAP_EQ(unshare_r(&sys, &kid), 0, "rule 11: unshare -r works without CAP_SYS_ADMIN in pU");
	struct cm_cred alien = r;
	cm_capset(&sys, &alien, FULL42 & ~CM_BIT(SYS_ADMIN), FULL42, 0);
	kid = noadmin;
	cm_unshare_user(&sys, &kid);
	TAP_EQ(cm_map_root(&sys, &alien, kid.ns), -EPERM,
	       "rule 11: any other map still needs CAP_SYS_ADMIN over the namespace");
	kid = noadmin;
	cm_unshare_user(&sys, &kid);
	TAP_EQ(cm_setns_user(&sys, &noadmin, kid.ns), -EPERM,
	       "rule 11: an owner without CAP_SYS_ADMIN in pU cannot join its child");
	struct cm_cred masked = a;
	struct cm_sys msys = sys;
	cm_mask_write(&msys, &r, FULL42 & ~CM_BIT(NET_RAW));
	kid = masked;
	unshare_r(&msys, &kid);
	tap_ok(!cm_ns_capable(&msys, &masked, kid.ns, NET_RAW),
	       "rule 11: the mask bounds the owner too");

	c = b;
	TAP_EQ(cm_setns_user(&sys, &c, ns), -EPERM, "setns by bob into alice's namespace: EPERM");
	c = a;
	TAP_EQ(cm_setns_user(&sys, &c, c.ns), -EINVAL, "setns into the own namespace: EINVAL");
	c = a;
	cm_prctl(&sys, &c, CM_PR_CAP_USERNS, 3, RAWIO, 0, 0);
	TAP_EQ(cm_setns_user(&sys, &c, ns), 0, "setns by the owner (owner rule, empty pE)");
	tap_ok(c.pU == NOT_RAWIO && c.X == NOT_RAWIO && c.pP == NOT_RAWIO && c.pE == NOT_RAWIO,
	       "rule 3 at setns: the entering cred's pU gives X = pP = pE");
	TAP_EQ(cm_setns_user(&sys, &c, 0), -EPERM, "setns back to the parent: EPERM");
	c = r;
	cm_prctl(&sys, &c, CM_PR_SET_SECUREBITS, STRICT, 0, 0, 0);
	cm_prctl(&sys, &c, CM_PR_CAPBSET_DROP, RAWIO, 0, 0, 0);
	cm_prctl(&sys, &c, CM_PR_SET_SECUREBITS, STRICT, 0, 0, 0);
	TAP_EQ(cm_setns_user(&sys, &c, ns), 0, "setns by init root (CAP_SYS_ADMIN in pE)");
	TAP_EQ(c.X, NOT_RAWIO, "rule 3a at setns: strict bit bounds pU by X");
	TAP_EQ(c.securebits, 0, "rule 3c at setns: securebits reset");
	c = r;
	cm_capset(&sys, &c, FULL42 & ~CM_BIT(SYS_ADMIN), FULL42, 0);
	TAP_EQ(cm_setns_user(&sys, &c, ns), -EPERM,
	       "setns by root without CAP_SYS_ADMIN in pE, not owner: EPERM");
	cm_mask_write(&sys, &r, FULL42 & ~CM_BIT(NET_RAW));
	c = a;
	TAP_EQ(cm_setns_user(&sys, &c, ns), 0, "setns after a mask write");
	TAP_EQ(c.X, FULL42 & ~CM_BIT(NET_RAW), "rule 3b at setns: the mask applies");

	/* Maps. */
	cm_sys_init(&sys, CM_PATCHED);
	c = r;
	struct cm_cred w = r;
	cm_capset(&sys, &w, FULL42 & ~CM_BIT(SETFCAP), FULL42, 0);
	c = w;
	cm_unshare_user(&sys, &c);
	TAP_EQ(cm_map_root(&sys, &w, c.ns), -EPERM,
	       "mapping root (0 0 1) needs CAP_SETFCAP in the writer's pE");
	c = r;
	TAP_EQ(unshare_r(&sys, &c), 0, "root maps 0 0 1 with CAP_SETFCAP");
	TAP_EQ(sys.ns[c.ns].root_uid, 0, "kuid 0 is root inside");
	struct cm_cred w2 = c;
	TAP_EQ(cm_map_root(&sys, &w2, c.ns), -EPERM, "map written once only / writer must be in the parent");
}

static void test_umh(void)
{
	struct cm_sys sys;
	struct cm_cred r, a, h;

	boot(&sys, CM_PATCHED, &r, &a);
	TAP_EQ(cm_umh_write(&sys, &a, CM_UMH_USERNS, 0), -EACCES, "rule 7: alice: EACCES");
	struct cm_cred weak = r;
	cm_capset(&sys, &weak, FULL42 & ~CM_BIT(16), FULL42, 0);
	TAP_EQ(cm_umh_write(&sys, &weak, CM_UMH_USERNS, 0), -EPERM,
	       "rule 7: root without CAP_SYS_MODULE: EPERM");
	TAP_EQ(cm_umh_write(&sys, &r, CM_UMH_USERNS, NOT_RAWIO), 0, "rule 7: root writes userns");
	TAP_EQ(cm_umh_write(&sys, &r, CM_UMH_USERNS, FULL42), 0, "rule 7: writes intersect");
	cm_umh_cred(&sys, &h);
	cm_execve(&sys, &h, &plain);
	TAP_EQ(h.pU, NOT_RAWIO, "rule 7: a usermode helper gets pU & userns");
	TAP_EQ(h.X, FULL42, "rule 7: its bounding set is bset (untouched)");
	TAP_EQ(unshare_r(&sys, &h), 0, "helper creates a namespace");
	TAP_EQ(h.X, NOT_RAWIO, "rule 7: the helper's namespaces lack rawio");
}

/*
 * The BPF backend on a stock kernel (bpf/README.md): the kernel's own sets
 * stay stock, the backend records the bound at entry and cuts every check
 * made through security_capable() by it.
 */
static void test_bpf_backend(void)
{
	struct cm_sys sys;
	struct cm_cred r, c, owner, child;
	const cm_caps no_admin = FULL41 & ~CM_BIT(SYS_ADMIN);

	boot(&sys, CM_BPF, &r, NULL);
	TAP_EQ(sys.full, FULL41, "bpf: a stock kernel has 41 caps");
	TAP_EQ(cm_prctl(&sys, &r, CM_PR_CAP_USERNS, CM_BPF_OP_PROBE, 0, 0, 0), CM_BPF_ABI_VERSION,
	       "bpf: PROBE answers the ABI version");
	TAP_EQ(cm_prctl(&sys, &r, CM_PR_CAP_USERNS, CM_PR_CAP_OP_IS_SET, 41, 0, 0), -EINVAL,
	       "bpf: cap 41 is EINVAL (no CAP_SYS_CONTROL)");
	TAP_EQ(cm_prctl(&sys, &r, CM_PR_CAP_USERNS, CM_BPF_OP_STRICT_GET, 1, 0, 0), -EINVAL,
	       "bpf: STRICT_GET with an argument: EINVAL");

	/* Entry: stock sets, bound = p'U. */
	c = r;
	cm_prctl(&sys, &c, CM_PR_CAP_USERNS, CM_PR_CAP_OP_LOWER, SYS_ADMIN, 0, 0);
	TAP_EQ(unshare_r(&sys, &c), 0, "bpf: unshare -r with pU lowered");
	TAP_EQ(c.pE, FULL41, "bpf: the kernel's pE is full in the namespace");
	TAP_EQ(c.bound, no_admin, "bpf: bound = p'U");
	TAP_EQ(cm_ns_capable(&sys, &c, c.ns, SYS_ADMIN), 0, "bpf: CAP_SYS_ADMIN denied there");
	TAP_EQ(cm_ns_capable(&sys, &c, c.ns, NET_RAW), 1, "bpf: CAP_NET_RAW granted there");
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_CAP_USERNS, CM_BPF_OP_BOUND_IS_SET, SYS_ADMIN, 0, 0), 0,
	       "bpf: BOUND_IS_SET cap_sys_admin: 0");
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_CAP_USERNS, CM_PR_CAP_OP_RAISE, SYS_ADMIN, 0, 0), -EPERM,
	       "bpf: RAISE of a cap outside bound: EPERM (X as the series sees it)");
	/* The kernel's X is full; lsm/capset holds pI to X as the series sees it. */
	TAP_EQ(cm_capset(&sys, &c, c.pE, c.pP, CM_BIT(SYS_ADMIN)), -EPERM,
	       "bpf: capset pI = {sys_admin} outside bound: EPERM (X as the series sees it)");
	TAP_EQ(cm_capset(&sys, &c, c.pE, c.pP, CM_BIT(NET_RAW)), 0,
	       "bpf: capset pI = {net_raw} inside bound");

	/* CAP_SETPCAP outside bound: PR_CAPBSET_DROP asks every LSM; SET_SECUREBITS
	 * and capset ask cap_capable() alone, and the backend's own hooks refuse. */
	c = r;
	cm_prctl(&sys, &c, CM_PR_CAP_USERNS, CM_PR_CAP_OP_LOWER, SETPCAP, 0, 0);
	unshare_r(&sys, &c);
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_CAPBSET_DROP, NET_RAW, 0, 0, 0), -EPERM,
	       "bpf: CAPBSET_DROP without CAP_SETPCAP in bound: EPERM");
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_SET_SECUREBITS, 0x10, 0, 0, 0), -EPERM,
	       "bpf: SET_SECUREBITS without CAP_SETPCAP in bound: EPERM");
	TAP_EQ(cm_capset(&sys, &c, c.pE, c.pP, CM_BIT(SETPCAP)), -EPERM,
	       "bpf: capset pI beyond pI | pP without CAP_SETPCAP in bound: EPERM");
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_CAP_USERNS, CM_BPF_OP_STRICT_SET, CM_BPF_STRICT, 0, 0),
	       -EPERM, "bpf: STRICT_SET without CAP_SETPCAP in bound: EPERM");

	/* Rule 5 through the extension op; rule 3a at the next entry. */
	c = r;
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_SET_SECUREBITS, STRICT, 0, 0, 0), -EPERM,
	       "bpf: the strict securebit is unknown to a stock kernel: EPERM");
	cm_prctl(&sys, &c, CM_PR_CAPBSET_DROP, RAWIO, 0, 0, 0);
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_CAP_USERNS, CM_BPF_OP_STRICT_SET, 3, 0, 0), 0,
	       "bpf: STRICT_SET strict + lock");
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_CAP_USERNS, CM_BPF_OP_STRICT_SET, 2, 0, 0), -EPERM,
	       "bpf: clearing a locked strict bit: EPERM");
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_CAP_USERNS, CM_BPF_OP_STRICT_SET, 4, 0, 0), -EPERM,
	       "bpf: unknown strict bit: EPERM");
	TAP_EQ(c.pU, FULL41, "bpf: CAPBSET_DROP leaves pU alone");
	unshare_r(&sys, &c);
	TAP_EQ(c.pU, FULL41 & ~CM_BIT(RAWIO), "bpf: rule 3a: the strict bit bounds pU by X");
	TAP_EQ(c.uns_strict, 0, "bpf: strict bits reset at entry");

	/* Rule 11: an owner without CAP_SYS_ADMIN in pU (and bound) stays out. */
	owner = r;
	cm_prctl(&sys, &owner, CM_PR_CAP_USERNS, CM_PR_CAP_OP_LOWER, SYS_ADMIN, 0, 0);
	unshare_r(&sys, &owner);
	child = owner;
	TAP_EQ(unshare_r(&sys, &child), 0, "bpf: rule 11: the self-mapping without CAP_SYS_ADMIN");
	TAP_EQ(cm_setns_user(&sys, &owner, child.ns), -EPERM,
	       "bpf: rule 11: the owner does not enter its child without CAP_SYS_ADMIN in pU");
	c = r;
	cm_prctl(&sys, &c, CM_PR_CAP_USERNS, CM_PR_CAP_OP_LOWER, NET_RAW, 0, 0);
	unshare_r(&sys, &c);
	child = c;
	cm_prctl(&sys, &child, CM_PR_CAP_USERNS, CM_PR_CAP_OP_RAISE, NET_RAW, 0, 0);
	unshare_r(&sys, &child);
	TAP_EQ(cm_ns_capable(&sys, &c, child.ns, NET_RAW), 0,
	       "bpf: rule 11: the owner lacks over its child what its pU lacks");
	TAP_EQ(cm_setns_user(&sys, &c, child.ns), 0, "bpf: the owner with CAP_SYS_ADMIN enters");
	TAP_EQ(c.bound, FULL41 & ~CM_BIT(NET_RAW), "bpf: setns applies rule 3 (bound = p'U)");

	/* Rule 6: the mask, CAP_SYS_ADMIN in the initial namespace. */
	TAP_EQ(cm_prctl(&sys, &child, CM_PR_CAP_USERNS, CM_BPF_OP_MASK_LOWER, NET_RAW, 0, 0),
	       -EPERM, "bpf: MASK_LOWER inside a namespace: EPERM");
	c = r;
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_CAP_USERNS, CM_BPF_OP_MASK_LOWER, NET_RAW, 0, 0), 0,
	       "bpf: MASK_LOWER as root");
	TAP_EQ(cm_prctl(&sys, &c, CM_PR_CAP_USERNS, CM_BPF_OP_MASK_IS_SET, NET_RAW, 0, 0), 0,
	       "bpf: MASK_IS_SET after the drop: 0");
	unshare_r(&sys, &c);
	TAP_EQ(c.bound, FULL41 & ~CM_BIT(NET_RAW), "bpf: rule 3b: the mask bounds every entry");

	/* Rule 10: alice lowered pU; a setuid-root exec gains privilege. */
	cm_sys_init(&sys, CM_BPF);
	login(&sys, &c, ALICE);
	cm_prctl(&sys, &c, CM_PR_CAP_USERNS, CM_PR_CAP_OP_LOWER, SYS_ADMIN, 0, 0);
	TAP_EQ(cm_execve(&sys, &c, &suid_root), 0, "bpf: alice execs a setuid-root program");
	TAP_EQ(c.pU, FULL41, "bpf: rule 10: p'U = pU | X as the series sees it");
	cm_cred_init_root(&sys, &c);
	cm_prctl(&sys, &c, CM_PR_CAP_USERNS, CM_PR_CAP_OP_LOWER, SYS_ADMIN, 0, 0);
	cm_prctl(&sys, &c, CM_PR_CAP_USERNS, CM_BPF_OP_STRICT_SET, 3, 0, 0);
	cm_setgid_all(&sys, &c, ALICE);
	cm_setresuid(&sys, &c, ALICE, ALICE, ALICE);
	cm_execve(&sys, &c, &suid_root);
	TAP_EQ(c.pU, no_admin, "bpf: rule 10 (R10): strict: p'U = pU & X");

	/* Rule 12 and the subset test on the sets as the series sees them. */
	cm_cred_init_root(&sys, &r);
	login(&sys, &owner, ALICE);
	c = owner;
	cm_prctl(&sys, &c, CM_PR_CAP_USERNS, CM_PR_CAP_OP_LOWER, NET_RAW, 0, 0);
	tap_ok(!cm_ptrace_attach(&sys, &c, &owner, false),
	       "bpf: rule 12: a restricted tracer does not attach to an unrestricted task");
	tap_ok(cm_ptrace_attach(&sys, &owner, &c, false), "bpf: rule 12: the reverse is allowed");
	c = r;
	cm_prctl(&sys, &c, CM_PR_CAP_USERNS, CM_PR_CAP_OP_LOWER, NET_RAW, 0, 0);
	unshare_r(&sys, &c);
	struct cm_cred joiner = r;
	cm_prctl(&sys, &joiner, CM_PR_CAP_USERNS, CM_PR_CAP_OP_LOWER, SYS_PTRACE, 0, 0);
	cm_setns_user(&sys, &joiner, c.ns);
	cm_prctl(&sys, &c, CM_PR_CAP_USERNS, CM_PR_CAP_OP_CLEAR_ALL, 0, 0, 0);
	tap_ok(!cm_ptrace_attach(&sys, &joiner, &c, false),
	       "bpf: one namespace, the tracee's pP & bound beyond the tracer's, no CAP_SYS_PTRACE: refused");
}

/* Rule 12 (R12) and commoncap's subset test on the patched kernel. */
static void test_ptrace(void)
{
	struct cm_sys sys;
	struct cm_cred r, a, t, in, out;

	boot(&sys, CM_PATCHED, &r, &a);
	t = a;
	cm_prctl(&sys, &t, CM_PR_CAP_USERNS, CM_PR_CAP_OP_LOWER, NET_RAW, 0, 0);
	tap_ok(!cm_ptrace_attach(&sys, &t, &a, false),
	       "rule 12: a tracer without CAP_NET_RAW in pU does not attach to one with it");
	tap_ok(!cm_ptrace_attach(&sys, &t, &a, true), "rule 12: nor open its /proc/PID/mem");
	tap_ok(cm_ptrace_attach(&sys, &a, &t, false), "rule 12: the reverse is allowed");
	tap_ok(cm_ptrace_attach(&sys, &a, &a, false), "equal sets: allowed");
	t = r;
	cm_prctl(&sys, &t, CM_PR_CAP_USERNS, CM_PR_CAP_OP_LOWER, NET_RAW, 0, 0);
	tap_ok(!cm_ptrace_attach(&sys, &t, &a, false),
	       "rule 12: no CAP_SYS_PTRACE bypass (root without CAP_NET_RAW in pU)");
	tap_ok(cm_ptrace_attach(&sys, &r, &a, false), "root attaches to alice (classic)");
	tap_ok(!cm_ptrace_attach(&sys, &a, &r, false),
	       "classic: alice does not attach to a task with more pP (no CAP_SYS_PTRACE)");
	in = r;
	unshare_r(&sys, &in);
	out = r;
	cm_prctl(&sys, &out, CM_PR_CAP_USERNS, CM_PR_CAP_OP_LOWER, NET_RAW, 0, 0);
	tap_ok(!cm_ptrace_attach(&sys, &out, &in, false),
	       "rule 12: across namespaces too (CAP_SYS_PTRACE over the tracee's does not help)");
}

/*
 * Rules 11 and 12 under the strict bit: a login that root made strict,
 * NET_RAW dropped from X and pU left full (pam_cap and pam_capuns), is
 * measured by what its namespaces get (pU & X), not by pU.
 */
static void test_strict_owner_and_tracer(enum cm_flavour flavour, const char *name)
{
	struct cm_sys sys;
	struct cm_cred c, kid, free_task;

	cm_sys_init(&sys, flavour);
	cm_cred_init_root(&sys, &c);
	if (flavour == CM_BPF)
		cm_prctl(&sys, &c, CM_PR_CAP_USERNS, CM_BPF_OP_STRICT_SET, 3, 0, 0);
	else
		cm_prctl(&sys, &c, CM_PR_SET_SECUREBITS, (STRICT | STRICT_LOCKED), 0, 0, 0);
	cm_prctl(&sys, &c, CM_PR_CAPBSET_DROP, NET_RAW, 0, 0, 0);
	cm_setgid_all(&sys, &c, ALICE);
	cm_setresuid(&sys, &c, ALICE, ALICE, ALICE);
	cm_execve(&sys, &c, &plain);
	tap_ok(((c.pU >> NET_RAW) & 1) && !((c.X >> NET_RAW) & 1),
	       "%s: a strict login: NET_RAW in pU, not in X", name);
	kid = c;
	unshare_r(&sys, &kid);
	tap_ok(!((kid.pU >> NET_RAW) & 1), "%s: rule 3a: its namespace lacks NET_RAW", name);
	tap_ok(!cm_ns_capable(&sys, &c, kid.ns, NET_RAW),
	       "%s: rule 11: the strict owner lacks NET_RAW over its child (fd passing)", name);
	tap_ok(cm_ns_capable(&sys, &c, kid.ns, SYS_ADMIN),
	       "%s: rule 11: it keeps what its namespaces get", name);
	login(&sys, &free_task, ALICE);
	tap_ok(!cm_ptrace_attach(&sys, &c, &free_task, false),
	       "%s: rule 12: the strict tracer does not attach to an unrestricted task", name);
	tap_ok(cm_ptrace_attach(&sys, &free_task, &c, false),
	       "%s: rule 12: the unrestricted task attaches to the strict one", name);
	tap_ok(cm_ptrace_attach(&sys, &c, &c, false), "%s: rule 12: a strict twin: allowed", name);
}

/*
 * The exec securebits (8 to 11) of 6.14 kernels (cm_sys.exec_securebits),
 * both ways: where the kernel has them any task may change them without
 * CAP_SETPCAP and entering a user namespace keeps them (rule 3c); where it
 * has not they are unknown bits and entry resets every securebit.  The BPF
 * backend lets a restricted credential do what the kernel lets any task.
 */
static void test_exec_securebits(enum cm_flavour flavour, const char *name)
{
	const unsigned int file = CM_SECBIT(CM_SECURE_EXEC_RESTRICT_FILE);
	const unsigned int file_locked = file | CM_SECBIT(CM_SECURE_EXEC_RESTRICT_FILE + 1);
	const unsigned int interactive = CM_SECBIT(CM_SECURE_EXEC_DENY_INTERACTIVE);
	const unsigned int noroot_keep = CM_SECBIT(CM_SECURE_NOROOT) | CM_SECBIT(CM_SECURE_KEEP_CAPS);

	for (int has = 0; has <= 1; has++) {
		const char *k = has ? ">= 6.14" : "< 6.14";
		struct cm_sys sys;
		struct cm_cred r, a, c;

		boot(&sys, flavour, &r, &a);
		sys.exec_securebits = has;

		c = a;
		TAP_EQ(cm_prctl(&sys, &c, CM_PR_SET_SECUREBITS, file, 0, 0, 0), has ? 0 : -EPERM,
		       "%s %s: alice (no CAP_SETPCAP) sets SECURE_EXEC_RESTRICT_FILE", name, k);
		TAP_EQ(cm_prctl(&sys, &c, CM_PR_SET_SECUREBITS, file | CM_SECBIT(CM_SECURE_NOROOT),
				0, 0, 0),
		       -EPERM, "%s %s: alice, an exec bit with SECURE_NOROOT: EPERM", name, k);
		TAP_EQ(cm_prctl(&sys, &c, CM_PR_SET_SECUREBITS, c.securebits, 0, 0, 0), -EPERM,
		       "%s %s: alice, no change: EPERM (the kernel's legacy)", name, k);
		if (has) {
			TAP_EQ(cm_prctl(&sys, &c, CM_PR_SET_SECUREBITS, file_locked, 0, 0, 0), 0,
			       "%s %s: alice locks it", name, k);
			TAP_EQ(cm_prctl(&sys, &c, CM_PR_SET_SECUREBITS, 0, 0, 0, 0), -EPERM,
			       "%s %s: alice cannot clear it locked", name, k);
			TAP_EQ(cm_prctl(&sys, &c, CM_PR_SET_SECUREBITS, file_locked | interactive, 0,
					0, 0),
			       0, "%s %s: alice adds SECURE_EXEC_DENY_INTERACTIVE", name, k);
			TAP_EQ(unshare_r(&sys, &c), 0, "%s %s: alice's unshare -r", name, k);
			TAP_EQ(c.securebits, file_locked | interactive,
			       "%s %s: rule 3c: the exec bits and their locks stay at entry", name, k);
		}

		/* Root: every other bit is reset at entry; the exec bits stay where known. */
		c = r;
		TAP_EQ(cm_prctl(&sys, &c, CM_PR_SET_SECUREBITS, noroot_keep | file, 0, 0, 0),
		       has ? 0 : -EPERM, "%s %s: root sets SECURE_NOROOT, KEEP_CAPS and an exec bit",
		       name, k);
		if (!has)
			TAP_EQ(cm_prctl(&sys, &c, CM_PR_SET_SECUREBITS, noroot_keep, 0, 0, 0), 0,
			       "%s %s: root sets SECURE_NOROOT and KEEP_CAPS", name, k);
		TAP_EQ(unshare_r(&sys, &c), 0, "%s %s: root's unshare -r", name, k);
		TAP_EQ(c.securebits, has ? file : 0,
		       "%s %s: rule 3c: entry resets the securebits%s", name, k,
		       has ? " but the exec bit" : "");

		/* A namespace entered without CAP_SETPCAP (the BPF backend's kernel pE is full). */
		c = r;
		cm_prctl(&sys, &c, CM_PR_CAP_USERNS, CM_PR_CAP_OP_LOWER, SETPCAP, 0, 0);
		TAP_EQ(unshare_r(&sys, &c), 0, "%s %s: unshare -r without CAP_SETPCAP in pU", name, k);
		TAP_EQ(cm_prctl(&sys, &c, CM_PR_SET_SECUREBITS, CM_SECBIT(CM_SECURE_NOROOT), 0, 0, 0),
		       -EPERM, "%s %s: inside, SECURE_NOROOT: EPERM", name, k);
		TAP_EQ(cm_prctl(&sys, &c, CM_PR_SET_SECUREBITS, interactive, 0, 0, 0),
		       has ? 0 : -EPERM, "%s %s: inside, SECURE_EXEC_DENY_INTERACTIVE", name, k);
	}
}

int main(void)
{
	test_init();
	test_seed_lower();
	test_seed_strict();
	test_seed_mask();
	test_prctl_userns();
	test_prctl_classic();
	test_capset();
	test_exec();
	test_setuid();
	test_namespaces();
	test_umh();
	test_bpf_backend();
	test_ptrace();
	test_strict_owner_and_tracer(CM_PATCHED, "series");
	test_strict_owner_and_tracer(CM_BPF, "bpf");
	test_exec_securebits(CM_PATCHED, "series");
	test_exec_securebits(CM_BPF, "bpf");
	return tap_done();
}
