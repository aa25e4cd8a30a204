/*
 * guard.h - protected paths that exist at launch, kept and put back at
 * exit where the kernel cannot hold them (guard.c).
 */
#ifndef SBX_GUARD_H
#define SBX_GUARD_H

#include <stddef.h>
#include <sys/types.h>

#include "policy.h"

struct groot;

struct sbx_guard {
	struct groot *v;
	size_t n;
	size_t nodes, bytes; /* kept so far (limits) */
};

/* At launch: keep every existing protect rule of p that writable() says
 * the sandbox could change; warn gets a line for each one that cannot be
 * kept whole (too many entries or bytes, a device or fifo).  0. */
int sbx_guard_note(struct sbx_guard *gd, const struct sbx_policy *p,
		   int (*writable)(const struct sbx_policy *, const char *),
		   void (*warn)(void *ctx, const char *line), void *ctx);

/* At exit, every process of the run gone: put back what changed (what
 * differs moved aside, the kept copy written back); warn gets a line for
 * each path.  Returns how many changed entries are still there. */
int sbx_guard_check(struct sbx_guard *gd,
		    void (*warn)(void *ctx, const char *line), void *ctx);

void sbx_guard_free(struct sbx_guard *gd);

#endif
