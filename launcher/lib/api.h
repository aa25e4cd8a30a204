/*
 * api.h - what is behind the opaque sbx_t of include/sbx.h.
 */
#ifndef SBX_API_H
#define SBX_API_H

#include <pthread.h>

#include "conf.h"
#include "cpol.h"
#include "policy.h"
#include "sbx.h"

struct sbx {
	struct sbx_policy pol;
	struct sbx_locs locs;
	enum sbx_kmode mode; /* as requested */
	/* The policy compiled for queries (sbx_check...), made on first use:
	 * queries decide over the compiled form, like the shim (decide.h). */
	pthread_mutex_t qlock;
	void *qbuf;
	size_t qlen;
	struct sbx_cpol qpol; /* valid when qbuf */
};

/* Copy an error out to a caller's errbuf of include/sbx.h (may be NULL). */
void sbx_err_out(const struct sbx_err *e, char *buf, size_t len);

/* libsbxshim.so next to libsbx or the program, or $SBXRUN_SHIM: 0 with
 * its path in out (at least PATH_MAX), or -1 (run.c). */
int sbx_find_shim(char *out, size_t outsz);

/* The compiled policy queries decide over, or NULL when out of memory. */
const struct sbx_cpol *sbx_query_policy(sbx_t *s);

#endif
