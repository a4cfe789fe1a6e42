/* SPDX-License-Identifier: GPL-2.0 */
/* Modes of userns_edit.bpf.c, shared with the test that sets them. */
#ifndef USERNS_EDIT_H
#define USERNS_EDIT_H

enum userns_edit_mode {
	EDIT_NONE,
	EDIT_DROP_SYS_ADMIN,	/* narrow the new cred: the policy of the test */
	EDIT_RAISE_ALL,		/* ask for every capability: must be clamped */
};

#endif
