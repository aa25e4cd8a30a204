/*
 * nest.h - sbxrun inside sbxrun: a sandbox started from inside another
 * is never wider than it.  The kernel layers stack (Landlock domains,
 * seccomp filters, the outer mounts), so a wider rule would fail anyway;
 * checking the outer sandbox's compiled policy first turns that into one
 * clear error before anything runs.
 */
#ifndef SBX_NEST_H
#define SBX_NEST_H

#include "cpol.h"
#include "err.h"
#include "policy.h"

/* Every path p grants is granted by v too: 0, or -1 with err saying
 * "<outer> hides|does not allow ... '<root>' ...; to allow: <fix>
 * --allow-...". */
int sbx_nest_within(const struct sbx_cpol *v, const struct sbx_policy *p,
		    const char *outer, const char *fix, struct sbx_err *err);

/* The first rule of p that grants more than the sandbox this process
 * runs in (its compiled policy, SBXRUN_POLICY) allows: -1 with err
 * naming it; 0 when p is no wider, or when not inside a sandbox. */
int sbx_nest_check(const struct sbx_policy *p, struct sbx_err *err);

#endif
