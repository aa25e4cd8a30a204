/*
 * explain.h - the one-line explanations of DESIGN 8, for the launcher side
 * (--check, libsbx answers, hook denials).  The shim builds the same
 * shapes without stdio (shim/).
 */
#ifndef SBX_EXPLAIN_H
#define SBX_EXPLAIN_H

#include <stddef.h>
#include <stdint.h>

#include "policy.h"

/* "file:line", "file" or "built-in". */
void sbx_src_format(char *buf, size_t sz, struct sbx_src src);
/* The writable roots, comma-separated. */
void sbx_writable_list(char *buf, size_t sz, const struct sbx_policy *p);
void sbx_explain_path(char *buf, size_t sz, const struct sbx_policy *p,
		      const char *shown, const char *resolved, enum sbx_op op,
		      struct sbx_decision d, int64_t size);

#endif
