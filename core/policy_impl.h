/*
 * policy_impl.h - what the engine's own files (policy.c, rules.c,
 * finish.c) share.  Nothing outside core/ includes it.
 */
#ifndef SBX_POLICY_IMPL_H
#define SBX_POLICY_IMPL_H

#include <stddef.h>

#include "policy.h"

/* Grow an array of n elements of size sz to hold one more. */
int sbx_grow(void **v, size_t *cap, size_t n, size_t sz);
void sbx_rule_free(struct sbx_path_rule *r);
/* The rule rooted at the normalised root, or NULL. */
struct sbx_path_rule *sbx_rule_find(struct sbx_policy *p, const char *root);
/* sbx_policy_add_rule() for a root already normalised (in->root is
 * ignored). */
int sbx_rule_add_norm(struct sbx_policy *p, const char *norm,
		      const struct sbx_rule *in, struct sbx_err *err);
/* Rules were removed: the root index is rebuilt on its next use. */
void sbx_rules_reindex(struct sbx_policy *p);

#endif
