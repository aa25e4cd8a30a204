/*
 * attr.h - attribute changes done by the supervisor in landlock-only
 * mode (attr.c), for the listener (notif.c).
 */
#ifndef SBX_ATTR_H
#define SBX_ATTR_H

#include <limits.h>
#include <linux/seccomp.h>

#include "cpol.h"
#include "decide.h"

struct sbx_attr_res {
	int err; /* the caller's errno, 0: done */
	int refused; /* refused by the policy: abs and d say why */
	char abs[PATH_MAX];
	struct sbx_path_decision d;
};

/* Is nr one of the calls sbx_attr_emulate does? */
int sbx_attr_call(int nr);

/* Do q's attribute change for the caller when the policy makes its
 * object writable (res->err 0), else refuse (res->err).  Returns 0 when
 * q is not such a call, or asks for a set-uid or set-gid mode: the
 * baseline's errno stands. */
int sbx_attr_emulate(int lfd, const struct seccomp_notif *q,
		     const struct sbx_cpol *v, struct sbx_attr_res *res);

#endif
