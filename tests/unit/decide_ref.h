/*
 * decide_ref.h - a reference model of the path decision over the
 * in-memory policy, for tests only.  The one decider (core/decide.c)
 * works on the compiled policy; this model, written from the policy
 * model of DESIGN 5 over sbx_policy_match, is what the compiled decider
 * is checked against (test_policy's table, test_cpol's sweep, the
 * fuzz_conf differential), so compilation cannot change a decision.
 * A plain query about a path: nothing is known of the object (a suffix
 * rule applies to every write), size < 0 when unknown.
 */
#ifndef SBX_TEST_DECIDE_REF_H
#define SBX_TEST_DECIDE_REF_H

#include <stdint.h>

#include "decide.h"
#include "match.h"
#include "policy.h"

static inline enum sbx_verdict ref_decide(const struct sbx_policy *p,
					  const char *path, enum sbx_op op,
					  int64_t size,
					  const struct sbx_path_rule **rule)
{
	const struct sbx_path_rule *r = sbx_policy_match(p, path);

	if (rule)
		*rule = r;
	if (!r)
		return SBX_DENY_NOTCOVERED;
	if (r->mode == SBX_HIDE)
		return SBX_DENY_HIDDEN;
	if (op == SBX_OP_WRITE && r->mode == SBX_RO)
		return SBX_DENY_READONLY;
	if (op == SBX_OP_WRITE &&
	    !sbx_suffix_ok(path, r->suffixes, r->nsuffixes))
		return SBX_DENY_SUFFIX;
	if (r->max_file_bytes && size >= 0 &&
	    (uint64_t)size > r->max_file_bytes)
		return SBX_DENY_SIZE;
	return SBX_ALLOW;
}

/* The exec deny rule that refuses argv (path: what runs), or NULL. */
static inline const struct sbx_exec_rule *
ref_exec1(const struct sbx_policy *p, const char *path, const char *const *argv)
{
	for (size_t i = 0; i < p->nexec; i++) {
		const struct sbx_exec_rule *e = &p->exec[i];

		if (sbx_exec_match(e->program, (const char *const *)e->args,
				   e->nargs, path, (char *const *)argv))
			return e;
	}
	return NULL;
}

/* Judged by the program it runs too: the loader invoked directly and
 * busybox-style multi-call programs (sbx_exec_runs says where it starts). */
static inline const struct sbx_exec_rule *
ref_exec(const struct sbx_policy *p, const char *path, const char *const *argv)
{
	for (int depth = 0; depth < 4; depth++) {
		const struct sbx_exec_rule *e = ref_exec1(p, path, argv);
		size_t k;

		if (e)
			return e;
		if (!(k = sbx_exec_runs(path, (char *const *)argv)))
			break;
		argv += k;
		path = argv[0];
	}
	return NULL;
}

#endif
