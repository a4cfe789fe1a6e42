/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The rules of the series that the BPF backend states the same way
 * (bpf.c calls them with the sets as the series sees them).
 */
#ifndef CAPMODEL_SERIES_H
#define CAPMODEL_SERIES_H

#include "internal.h"

long cm_series_prctl_cap_userns(struct cm_sys *sys, struct cm_cred *c, uint64_t op,
				uint64_t cap, uint64_t a4, uint64_t a5);
cm_caps cm_series_userns_entry_set(const struct cm_sys *sys, const struct cm_cred *c);
cm_caps cm_series_setuid_exec_userns(cm_caps pU, cm_caps x, bool strict);
bool cm_series_owner_may_use(const struct cm_sys *sys, const struct cm_cred *c, int cap);
bool cm_series_idmap_is_self(const struct cm_ns *n, const struct cm_cred *writer);
bool cm_series_userns_may_control(const struct cm_sys *sys, const struct cm_cred *tracer,
				  const struct cm_cred *tracee);

#endif /* CAPMODEL_SERIES_H */
