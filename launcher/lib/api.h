/*
 * api.h - what is behind the opaque sbx_t of include/sbx.h.
 */
#ifndef SBX_API_H
#define SBX_API_H

#include "conf.h"
#include "policy.h"
#include "sbx.h"

struct sbx {
	struct sbx_policy pol;
	struct sbx_locs locs;
	enum sbx_kmode mode; /* as requested */
};

/* Copy an error out to a caller's errbuf of include/sbx.h (may be NULL). */
void sbx_err_out(const struct sbx_err *e, char *buf, size_t len);

#endif
