/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Operation sequences for the differential runner: a seeded generator, the
 * model side of every operation, and a text encoding that survives execve()
 * (the runner passes the sequence to its next image in argv).
 */
#ifndef CAPUNS_DIFF_SEQ_H
#define CAPUNS_DIFF_SEQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capmodel.h"

#define SEQ_MAX_OPS 48	/* 40 generated + a login prefix */
#define SEQ_MAX_HELD 4	/* namespace fds one task keeps */
#define SEQ_MAX_DEPTH 8 /* generated nesting depth */

enum seq_kind {
	OP_FORK,	  /* fork; the child goes on, the parent waits */
	OP_EXEC_PLAIN,	  /* execve of a root-owned, non-setuid binary */
	OP_EXEC_SUID,	  /* execve of a setuid-root binary */
	OP_EXEC_FCAPS,	  /* execve of a binary with file caps a[0]=fP a[1]=fI a[2]=fE */
	OP_CAPSET,	  /* capset(a[0]=pE, a[1]=pP, a[2]=pI) */
	OP_PRCTL,	  /* prctl(a[0], a[1], a[2], a[3], a[4]) */
	OP_UNSHARE,	  /* unshare(CLONE_NEWUSER), a helper in the parent writes 0->euid */
	OP_UNSHARE_BARE,  /* unshare(CLONE_NEWUSER), no id maps */
	OP_HOLD_CHILD,	  /* keep an fd on a new child namespace made by a forked child */
	OP_HOLD_SELF,	  /* keep an fd on the current namespace */
	OP_SETNS,	  /* setns(held[a[0]], CLONE_NEWUSER) */
	OP_SETRESUID,	  /* setresuid(a[0], a[1], a[2]), ids as seen in the namespace */
	OP_SETUID,	  /* setuid(a[0]) */
	OP_SETGID,	  /* setresgid(a[0], a[0], a[0]) + setgroups(0) */
	OP_MASK,	  /* write a[0] to kernel.cap_userns_mask */
	OP__COUNT
};

struct seq_op {
	uint8_t kind;
	uint64_t a[5];
};

struct seq {
	uint64_t seed;
	int n;
	struct seq_op op[SEQ_MAX_OPS];
};

struct seq_opts {
	enum cm_flavour flavour;
	bool fcaps; /* file capabilities can be set in the guest */
	bool mask;  /* sequences may drop bits of the global mask */
	cm_caps start_mask;
	bool setid_by_euid; /* the kernel's exec, see cm_sys */
	bool exec_securebits; /* the kernel's securebits 8 to 11, see cm_sys */
};

/* The model side of one executing task. */
struct seq_state {
	struct cm_sys sys;
	struct cm_cred cred;
	int nheld;
	int held[SEQ_MAX_HELD]; /* model namespace indices */
};

uint64_t seq_rand(uint64_t *s);
void seq_generate(struct seq *q, uint64_t seed, const struct seq_opts *o);
void seq_state_init(struct seq_state *st, const struct seq_opts *o);
/* Apply one op to the model; returns what the real call sequence returns. */
long seq_apply(struct seq_state *st, const struct seq_op *op);
const char *seq_kind_name(int kind);
char *seq_format_op(const struct seq_op *op, char *buf, size_t len);
/* argv encoding: "k:a0,a1,a2,a3,a4;..." in hex. */
char *seq_encode(const struct seq *q, char *buf, size_t len);
int seq_decode(struct seq *q, const char *s);

#endif
