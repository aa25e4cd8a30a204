/*
 * rules.c - the path rules of a policy: a whole rule added (or merged with
 * the rule already at its root), a root removed, the index that finds a
 * root without a scan, and the rules in tree order.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy_impl.h"

/*
 * The root index.  Conf files may carry hundreds of rules and every add
 * looks its root up first, so a linear scan made building quadratic.
 * The index only caches positions: find_root() still compares the root
 * it lands on, and without memory it falls back to the scan.
 */
static uint64_t root_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static void rix_insert(struct sbx_policy *p, size_t i)
{
	size_t mask = p->rixcap - 1, s = root_hash(p->rules[i].root) & mask;

	while (p->rix[s])
		s = (s + 1) & mask;
	p->rix[s] = (uint32_t)i + 1;
}

/* Forget the index; the next lookup rebuilds it (after a removal, which
 * open addressing cannot do in place). */
void sbx_rules_reindex(struct sbx_policy *p)
{
	p->rixn = 0;
	if (p->rix)
		memset(p->rix, 0, p->rixcap * sizeof(*p->rix));
}

/* Index rules[rixn..nrules), growing (and rebuilding) at half load. */
static int rix_sync(struct sbx_policy *p)
{
	if (p->nrules >= UINT32_MAX)
		return -1;
	if (2 * (p->nrules + 1) > p->rixcap) {
		size_t cap = p->rixcap ? p->rixcap : 64;
		uint32_t *n;

		while (2 * (p->nrules + 1) > cap)
			cap *= 2;
		n = calloc(cap, sizeof(*n));
		if (!n)
			return -1;
		free(p->rix);
		p->rix = n;
		p->rixcap = cap;
		p->rixn = 0;
	}
	for (; p->rixn < p->nrules; p->rixn++)
		rix_insert(p, p->rixn);
	return 0;
}

/* Rules i and j swapped places: point their slots at the new places.
 * Both slots are found before either changes (a root's probe run reaches
 * its slot before any empty one). */
static void rix_swapped(struct sbx_policy *p, size_t i, size_t j)
{
	size_t mask = p->rixcap - 1, who[2] = { i, j }, slot[2];

	if (!p->rixn || i >= p->rixn || j >= p->rixn)
		return sbx_rules_reindex(p);
	for (int k = 0; k < 2; k++) {
		/* rules[who[k]] now holds what was at the other index */
		size_t from = who[1 - k], s;

		s = root_hash(p->rules[who[k]].root) & mask;
		while (p->rix[s] && p->rix[s] != from + 1)
			s = (s + 1) & mask;
		if (!p->rix[s])
			return sbx_rules_reindex(p);
		slot[k] = s;
	}
	p->rix[slot[0]] = (uint32_t)i + 1;
	p->rix[slot[1]] = (uint32_t)j + 1;
}

/* The rule at exactly root: by the index when it covers every rule (p is
 * not changed here), else by a scan.  Roots are unique (an add merges). */
static const struct sbx_path_rule *rule_at(const struct sbx_policy *p,
					   const char *root)
{
	size_t mask, s;

	if (!p->rixcap || p->rixn != p->nrules) {
		for (size_t i = 0; i < p->nrules; i++)
			if (strcmp(p->rules[i].root, root) == 0)
				return &p->rules[i];
		return NULL;
	}
	mask = p->rixcap - 1;
	for (s = root_hash(root) & mask; p->rix[s]; s = (s + 1) & mask) {
		const struct sbx_path_rule *r = &p->rules[p->rix[s] - 1];

		if (strcmp(r->root, root) == 0)
			return r;
	}
	return NULL;
}

struct sbx_path_rule *sbx_rule_find(struct sbx_policy *p, const char *root)
{
	(void)rix_sync(p); /* on failure rule_at scans */
	return (struct sbx_path_rule *)rule_at(p, root);
}

/*
 * A rule for a root that already has one replaces it when it comes from a
 * later tier (a different file): later tiers override.  Within one file
 * the stronger mode wins (hide > ro > rw).  A hidden root is only lifted
 * by a command-line flag.  Returns 1 when the new rule was dropped.
 */
static int merge_same_root(struct sbx_policy *p, struct sbx_path_rule *old,
			   enum sbx_pmode mode, unsigned flags,
			   struct sbx_src src)
{
	if (old->mode == SBX_HIDE && mode != SBX_HIDE &&
	    !(flags & SBX_RF_FLAG)) {
		sbx_policy_warn(p, src,
				"'%s' is hidden by %s:%d; a conf file "
				"cannot lift that (use --allow-read or "
				"--allow-write)",
				old->root, old->src.file ? old->src.file : "?",
				old->src.line);
		return 1;
	}
	if (old->src.file == src.file && mode < old->mode)
		return 1;
	sbx_rule_free(old);
	memset(old, 0, sizeof(*old));
	return 0;
}

/* Fill r (new, or emptied by merge_same_root) from in, at root norm. */
static int set_rule(struct sbx_path_rule *r, const char *norm,
		    const struct sbx_rule *in, struct sbx_src src)
{
	int hidden_secret = in->mode == SBX_HIDE && !(in->flags & SBX_RF_KMODE);

	if (!r->root)
		r->root = strdup(norm);
	if (!r->root)
		return -1;
	r->rootlen = strlen(norm);
	r->mode = in->mode;
	/* Everything hidden is treated as a secret in explanations, but
	 * for what the kernel mode hides for its own reasons. */
	r->flags = in->flags | (hidden_secret ? SBX_RF_SECRET : 0);
	r->src = src;
	r->max_file_bytes = in->max_file_bytes;
	for (size_t i = 0; i < in->nsuffixes; i++) {
		r->suffixes[i] = strdup(in->suffixes[i]);
		if (!r->suffixes[i])
			return -1;
		r->nsuffixes++;
	}
	return 0;
}

/*
 * Add in at root norm, or merge it with the rule already there.  A rule
 * that replaces another moves to the end, as if it had been added first
 * now: the order of the rules is the order in which they were last set
 * (--dry-run shows them so).
 */
int sbx_rule_add_norm(struct sbx_policy *p, const char *norm,
		      const struct sbx_rule *in, struct sbx_err *err)
{
	struct sbx_src src = in->src;
	struct sbx_path_rule *r;

	src.file = sbx_policy_intern(p, src.file);
	r = sbx_rule_find(p, norm);
	if (r && merge_same_root(p, r, in->mode, in->flags, src))
		return 0;
	if (!r) {
		if (sbx_grow((void **)&p->rules, &p->caprules, p->nrules,
			     sizeof(*r)) < 0)
			return sbx_errf(err, 0, "out of memory");
		r = &p->rules[p->nrules++];
		memset(r, 0, sizeof(*r));
	} else if (r != &p->rules[p->nrules - 1]) {
		struct sbx_path_rule tmp = p->rules[p->nrules - 1];
		size_t at = (size_t)(r - p->rules);

		p->rules[p->nrules - 1] = *r;
		*r = tmp;
		r = &p->rules[p->nrules - 1];
		r->root = strdup(norm);
		if (!r->root) {
			sbx_rules_reindex(p);
			return sbx_errf(err, 0, "out of memory");
		}
		rix_swapped(p, at, p->nrules - 1);
	}
	if (set_rule(r, norm, in, src) < 0)
		return sbx_errf(err, 0, "out of memory");
	return 0;
}

/* What the engine refuses in any rule, whoever states it. */
static int check_rule(const struct sbx_rule *r, struct sbx_err *err)
{
	if (r->mode != SBX_RW && r->mode != SBX_RO && r->mode != SBX_HIDE)
		return sbx_errf(err, 0, "bad mode for '%s'", r->root);
	if (r->nsuffixes > SBX_MAX_SUFFIXES)
		return sbx_errf(err, 0, "at most %d suffixes per path",
				SBX_MAX_SUFFIXES);
	for (size_t i = 0; i < r->nsuffixes; i++)
		if (!r->suffixes[i][0] || strchr(r->suffixes[i], '/'))
			return sbx_errf(err, 0, "bad suffix '%s'",
					r->suffixes[i]);
	return 0;
}

int sbx_policy_add_rule_norm(struct sbx_policy *p, const struct sbx_rule *r,
			     const char *norm, struct sbx_err *err)
{
	char buf[PATH_MAX], pw[PATH_MAX];
	struct sbx_rule in;

	if (check_rule(r, err) < 0)
		return -1;
	if (!norm) {
		if (sbx_path_norm(r->root, p->project, p->home, 1, buf,
				  sizeof(buf)) < 0)
			return sbx_errf(err, errno, "bad path '%s'", r->root);
		norm = buf;
	}
	if (r->root[0] != '~')
		return sbx_rule_add_norm(p, norm, r, err);
	in = *r;
	in.flags |= SBX_RF_HOMEREL;
	if (sbx_rule_add_norm(p, norm, &in, err) < 0)
		return -1;
	/* SEC-11: what is hidden or read-only under $HOME is so under the
	 * account's home as well (never what is writable). */
	if (!p->home_pw || r->mode == SBX_RW)
		return 0;
	if (sbx_path_norm(r->root, p->project, p->home_pw, 1, pw, sizeof(pw)) <
	    0)
		return sbx_errf(err, errno, "bad path '%s'", r->root);
	return sbx_rule_add_norm(p, pw, &in, err);
}

int sbx_policy_add_rule(struct sbx_policy *p, const struct sbx_rule *r,
			struct sbx_err *err)
{
	return sbx_policy_add_rule_norm(p, r, NULL, err);
}

int sbx_policy_add_path(struct sbx_policy *p, const char *root,
			enum sbx_pmode mode, unsigned flags, struct sbx_src src,
			struct sbx_err *err)
{
	struct sbx_rule r = {
		.root = root, .mode = mode, .flags = flags, .src = src
	};

	return sbx_policy_add_rule(p, &r, err);
}

int sbx_policy_remove_path(struct sbx_policy *p, const char *root)
{
	char norm[PATH_MAX];
	struct sbx_path_rule *r;

	if (sbx_path_norm(root, p->project, p->home, 1, norm, sizeof(norm)) < 0)
		return -1;
	r = sbx_rule_find(p, norm);
	if (!r)
		return -1;
	sbx_rule_free(r);
	*r = p->rules[--p->nrules];
	sbx_rules_reindex(p);
	return 0;
}

int sbx_policy_index(struct sbx_policy *p)
{
	return rix_sync(p);
}

const struct sbx_path_rule *sbx_policy_decider(const struct sbx_policy *p,
					       const char *path, unsigned skip)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);

	if (path[0] != '/' || n >= sizeof buf)
		return NULL;
	memcpy(buf, path, n + 1);
	for (;;) {
		const struct sbx_path_rule *r = rule_at(p, buf);
		char *slash;

		if (r && !(r->flags & skip))
			return r;
		if (n == 1)
			return NULL;
		slash = strrchr(buf, '/');
		n = slash == buf ? 1 : (size_t)(slash - buf);
		buf[n] = '\0';
		if (n == 1)
			buf[0] = '/';
	}
}

/*
 * Rule order for sbx_policy_sorted(): tree order of the roots, then the
 * rule that decides at an equal root (stronger mode, then earlier; the
 * pointers are into one array).
 */
static int sorted_cmp(const void *a, const void *b)
{
	const struct sbx_path_rule *x = *(const struct sbx_path_rule *const *)a;
	const struct sbx_path_rule *y = *(const struct sbx_path_rule *const *)b;
	int c = sbx_path_cmp(x->root, y->root);

	if (c)
		return c;
	if (x->mode != y->mode)
		return x->mode > y->mode ? -1 : 1;
	return x < y ? -1 : x > y;
}

const struct sbx_path_rule **sbx_policy_sorted(const struct sbx_policy *p)
{
	const struct sbx_path_rule **v;

	if (!p->nrules)
		return NULL;
	v = malloc(p->nrules * sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < p->nrules; i++)
		v[i] = &p->rules[i];
	qsort(v, p->nrules, sizeof(*v), sorted_cmp);
	return v;
}
