/*
 * test_policy.c - the policy engine, tested as data (STYLE 19).
 *
 * Path decisions: the decision table of decide_table.h (scenarios and
 * rows), each row through the one decider over the compiled policy
 * (sbx_cpol_build -> sbx_cpol_view -> sbx_decide), checked against the
 * expected verdict, root and source and against the in-memory reference
 * model (decide_ref.h), and explained by the one explainer.  The same
 * table drives sbxrun --check, libsbx and the shim in tests/shim.
 *
 * Then exec rules, env keep/drop, size / mode / network parsing and the
 * network allow-list, each as a table.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "netallow.h"
#include "cpol.h"
#include "decide.h"
#include "explain.h"
#include "policy.h"
#include "testutil.h"

#include "decide_ref.h"
#include "decide_table.h"

static struct sbx_policy pols[NSCEN];

static int setup_pols(void **state)
{
	struct sbx_err err = { "" };

	(void)state;
	for (int i = 0; i < NSCEN; i++)
		if (dt_build(&pols[i], &scen[i], &err) < 0)
			fail_msg("%s: %s", scen[i].name, err.msg);
	return 0;
}

static int teardown_pols(void **state)
{
	(void)state;
	for (int i = 0; i < NSCEN; i++)
		sbx_policy_free(&pols[i]);
	return 0;
}

static const char *vname(enum sbx_verdict v)
{
	static const char *const n[] = { "allow",  "hidden", "read-only",
					 "suffix", "size",   "not-covered" };

	return (unsigned)v < 6 ? n[v] : "?";
}

static void fmt_src(char *buf, size_t sz, const char *file, int line)
{
	if (line > 0)
		snprintf(buf, sz, "%s:%d", file ? file : "", line);
	else
		snprintf(buf, sz, "%s", file ? file : "");
}

static int check_result(size_t i, const char *engine, enum sbx_verdict got,
			const char *root, const char *src)
{
	const struct row *w = &rows[i];
	int bad = 0;

	if (got != w->want)
		bad = 1;
	else if ((w->root == NULL) != (root == NULL) ||
		 (root && strcmp(root, w->root) != 0))
		bad = 1;
	else if (w->src && (!src || strcmp(src, w->src) != 0))
		bad = 1;
	if (bad)
		print_error("row %zu (%s, %s): %s %s size %lld -> %s root %s "
			    "src %s; want %s root %s src %s\n",
			    i, scen[w->s].name, engine,
			    w->op == W	 ? "write"
			    : w->op == X ? "exec"
					 : "read",
			    w->path, (long long)w->size, vname(got),
			    root ? root : "(none)", src ? src : "(none)",
			    vname(w->want), w->root ? w->root : "(none)",
			    w->src ? w->src : "(any)");
	return bad;
}

/* The rule root as messages write it: "~/..." under the home. */
static void tilde(char *buf, size_t sz, const char *root)
{
	size_t hl = strlen(HOME);

	if (strncmp(root, HOME, hl) == 0 && (!root[hl] || root[hl] == '/'))
		snprintf(buf, sz, "~%s", root + hl);
	else
		snprintf(buf, sz, "%s", root);
}

/* The explanation of row i's decision, as every caller gives it: the
 * shape of explain.h, the deciding rule and its source, the record kind,
 * and the fix where a flag allows the call. */
static int check_text(size_t i, const struct sbx_cpol *v,
		      const struct sbx_path_decision *d, const char *src)
{
	const struct row *w = &rows[i];
	char want[4096], root[1024];
	struct sbx_expl e;
	const char *fix =
		w->want == SBX_DENY_READONLY ? "--allow-write"
		: w->want == SBX_DENY_HIDDEN || w->want == SBX_DENY_NOTCOVERED
			? (w->op == W ? "--allow-write" : "--allow-read")
			: NULL;

	if (d->verdict == SBX_ALLOW) {
		sbx_explain_allowed(v, w->path, w->op, d, e.msg, sizeof(e.msg));
		snprintf(want, sizeof(want), "'%s' can be ", w->path);
		if (strncmp(e.msg, want, strlen(want)) == 0)
			return 0;
		print_error("row %zu: '%s'\n", i, e.msg);
		return 1;
	}
	sbx_explain_path(v, w->path, w->path, w->op, d, 0, &e);
	snprintf(want, sizeof(want),
		 "sbxrun: cannot %s '%s': ", sbx_op_word(w->op), w->path);
	if (strncmp(e.msg, want, strlen(want)) != 0 ||
	    strcmp(e.kind, vname(w->want)) != 0)
		goto bad;
	if (d->rule) {
		tilde(root, sizeof(root), w->root);
		snprintf(want, sizeof(want), "rule %s from %s)", root, src);
		if (!strstr(e.msg, want) || strcmp(e.rule, w->root) != 0 ||
		    strcmp(e.src, src) != 0)
			goto bad;
	}
	/* no flag lifts a protect entry: none is offered (issue 13) */
	if (d->verdict == SBX_DENY_READONLY && d->rule &&
	    (d->rule->flags & SBX_RF_PROTECT)) {
		if (!strstr(e.msg, "; no flag lifts that: "))
			goto bad;
		fix = NULL;
	}
	snprintf(want, sizeof(want), "; to allow: sbxrun %s %s", fix, w->path);
	if (fix ? strcmp(e.msg + strlen(e.msg) - strlen(want), want) != 0
		: strstr(e.msg, "to allow") != NULL)
		goto bad;
	return 0;
bad:
	print_error("row %zu: kind %s rule %s src %s: '%s'\n", i, e.kind,
		    e.rule, e.src, e.msg);
	return 1;
}

/*
 * Every row through the one decider over the compiled policy (what the
 * shim, libsbx, --check and the launcher call), against the expected
 * verdict, root and source, against the in-memory reference model
 * (decide_ref.h), and through the one explainer.
 */
static void test_decide_table(void **state)
{
	void *buf[NSCEN];
	size_t len[NSCEN];
	struct sbx_cpol v[NSCEN];
	struct sbx_err err = { "" };
	const char *why = "";
	int bad = 0;

	(void)state;
	for (int s = 0; s < NSCEN; s++) {
		if (sbx_cpol_build(&pols[s], SBX_KMODE_AUTO, 0, &buf[s],
				   &len[s], &err) < 0)
			fail_msg("%s: cpol_build: %s", scen[s].name, err.msg);
		if (sbx_cpol_view(buf[s], len[s], &v[s], &why) < 0)
			fail_msg("%s: cpol_view: %s", scen[s].name, why);
	}
	for (size_t i = 0; i < DT_NROWS; i++) {
		const struct row *w = &rows[i];
		const struct sbx_path_rule *mr;
		struct sbx_path_decision d =
			sbx_decide(&v[w->s], w->path, w->op, w->size);
		enum sbx_verdict mv =
			ref_decide(&pols[w->s], w->path, w->op, w->size, &mr);
		char src[256] = "", msrc[256] = "";

		if (d.rule)
			fmt_src(src, sizeof(src),
				sbx_cpol_str(&v[w->s], d.rule->src_file),
				(int)d.rule->src_line);
		if (mr)
			fmt_src(msrc, sizeof(msrc), mr->src.file, mr->src.line);
		bad += check_result(
			i, "decide", d.verdict,
			d.rule ? sbx_cpol_str(&v[w->s], d.rule->root) : NULL,
			d.rule ? src : NULL);
		bad += check_result(i, "reference", mv, mr ? mr->root : NULL,
				    mr ? msrc : NULL);
		bad += check_text(i, &v[w->s], &d, src);
	}
	for (int s = 0; s < NSCEN; s++)
		free(buf[s]);
	if (bad)
		fail_msg("%d decision rows failed", bad);
}

static void test_warnings(void **state)
{
	(void)state;
	for (int s = 0; s < NSCEN; s++) {
		if (pols[s].warnings.n == scen[s].nwarn)
			continue;
		for (size_t i = 0; i < pols[s].warnings.n; i++)
			print_error("%s: warning: %s\n", scen[s].name,
				    pols[s].warnings.v[i]);
		fail_msg("%s: %zu warnings, want %zu", scen[s].name,
			 pols[s].warnings.n, scen[s].nwarn);
	}
}

/* The warnings name the rule that was ignored and what hides it. */
static void test_warning_text(void **state)
{
	const struct sbx_strv *w = &pols[S_HIDE_CONF].warnings;
	int same_root = 0, inside = 0;

	(void)state;
	for (size_t i = 0; i < w->n; i++) {
		if (strstr(w->v[i], "user.conf:3: '/sbxt/h' is hidden by "
				    "profile.conf:3"))
			same_root++;
		if (strstr(w->v[i],
			   "user.conf:1: '" HOME "/.ssh/known_hosts' "
			   "is inside hidden '" HOME "/.ssh' (profile.conf:2)"))
			inside++;
	}
	if (same_root != 1 || inside != 1) {
		for (size_t i = 0; i < w->n; i++)
			print_error("warning: %s\n", w->v[i]);
		fail_msg("expected warnings not found");
	}
}

/* Rule flags set by finish: the project, /tmp, protect entries. */
static void test_finish_flags(void **state)
{
	const struct sbx_policy *p = &pols[S_FINISH];
	const struct sbx_path_rule *r;

	(void)state;
	r = sbx_policy_match(p, PROJ "/x");
	assert_non_null(r);
	assert_true(r->flags & SBX_RF_PROJECT);
	assert_int_equal(r->mode, SBX_RW);
	r = sbx_policy_match(p, "/tmp/x");
	assert_non_null(r);
	assert_true(r->flags & SBX_RF_TMP);
	r = sbx_policy_match(p, PROJ "/.git/hooks/x");
	assert_non_null(r);
	assert_true(r->flags & SBX_RF_PROTECT);
	r = sbx_policy_match(&pols[S_HIDE_FLAG], PROJ "/private");
	assert_non_null(r);
	assert_true(r->flags & SBX_RF_FLAG);
}

/* The longest-root search the launcher used to run per path, skipping
 * rules with a flag in skip: the reference for sbx_policy_decider. */
static const struct sbx_path_rule *ref_decider(const struct sbx_policy *p,
					       const char *path, unsigned skip)
{
	const struct sbx_path_rule *best = NULL;

	for (size_t i = 0; i < p->nrules; i++) {
		const struct sbx_path_rule *r = &p->rules[i];

		if ((r->flags & skip) ||
		    !sbx_path_within(path, r->root, r->rootlen))
			continue;
		if (!best || r->rootlen > best->rootlen ||
		    (r->rootlen == best->rootlen && r->mode > best->mode))
			best = r;
	}
	return best;
}

/* The ancestor walk finds the rule the scan finds, indexed or not, for
 * every root, below it, and beside it, with and without skipped flags. */
static void test_decider_walk(void **state)
{
	static const unsigned skips[] = { 0, SBX_RF_PROTECT };
	char path[PATH_MAX];

	(void)state;
	for (size_t s = 0; s < NSCEN; s++) {
		struct sbx_policy *p = &pols[s];

		for (int pass = 0; pass < 2; pass++) {
			if (pass)
				assert_int_equal(sbx_policy_index(p), 0);
			for (size_t i = 0; i < p->nrules; i++) {
				for (int k = 0; k < 3; k++) {
					snprintf(path, sizeof path, "%s%s",
						 p->rules[i].root,
						 k == 0	  ? ""
						 : k == 1 ? "/x/y"
							  : "z");
					for (size_t f = 0; f < 2; f++)
						assert_ptr_equal(
							sbx_policy_decider(
								p, path,
								skips[f]),
							ref_decider(p, path,
								    skips[f]));
				}
			}
		}
	}
}

/* Finish refuses a system directory or $HOME as the project, unless
 * forced, and an empty allow-list with network "filtered". */
static void test_finish_refusals(void **state)
{
	static const struct {
		const char *project;
		int force;
		int ok;
	} rows_p[] = {
		{ "/", 0, 0 },
		{ "/usr", 0, 0 },
		{ "/usr/local", 0, 0 },
		{ "/etc", 0, 0 },
		{ "/etc/foo", 0, 0 },
		{ "/home", 0, 0 },
		{ "/tmp", 0, 0 },
		{ "/proc/1", 0, 0 },
		{ HOME, 0, 0 },
		{ "/", 1, 1 },
		{ HOME, 1, 1 },
		{ HOME "/src/proj", 0, 1 },
		{ "/tmp/proj", 0, 1 },
		{ "/sbxt/p", 0, 1 },
		/* not normalised: still recognised (and no crash) */
		{ "/usr/", 0, 0 },
		{ "/home/", 0, 0 },
		{ "//etc", 0, 0 },
		{ "/sbxt/../usr", 0, 0 },
		{ HOME "/", 0, 0 },
		{ "~", 0, 0 },
		{ "/sbxt/p/", 0, 1 },
		{ "/sbxt/p/./", 0, 1 },
		{ "~/proj", 0, 1 },
	};
	struct sbx_err err = { "" };

	(void)state;
	for (size_t i = 0; i < sizeof(rows_p) / sizeof(rows_p[0]); i++) {
		struct sbx_policy p;
		int r;

		sbx_policy_init(&p);
		p.project = strdup(rows_p[i].project);
		p.home = strdup(HOME);
		p.allow_unsafe_project = rows_p[i].force;
		r = sbx_policy_finish(&p, &err);
		if ((r == 0) != rows_p[i].ok)
			fail_msg("project %s force %d: finish %d (%s)",
				 rows_p[i].project, rows_p[i].force, r,
				 err.msg);
		/* the project rule exists, normalised, and is the project */
		if (r == 0) {
			const struct sbx_path_rule *pr =
				sbx_policy_match(&p, p.project);

			assert_non_null(pr);
			assert_string_equal(pr->root, p.project);
			assert_true(pr->flags & SBX_RF_PROJECT);
			assert_null(strstr(p.project, "//"));
		}
		sbx_policy_free(&p);
	}
	{
		struct sbx_policy p;

		sbx_policy_init(&p);
		assert_int_equal(sbx_policy_finish(&p, &err),
				 -1); /* no project */
		sbx_policy_free(&p);
		sbx_policy_init(&p);
		p.project = strdup(PROJ);
		p.net = SBX_NET_FILTERED;
		assert_int_equal(sbx_policy_finish(&p, &err), -1);
		assert_non_null(strstr(err.msg, "allow-list is empty"));
		sbx_policy_free(&p);
	}
}

/*
 * At equal root length hide > ro > rw.  Two rules for the very same root
 * never survive sbx_policy_add_path (they are merged), so this builds the
 * rule array by hand, in every order, to test the tie-break itself in
 * both engines.
 */
static void test_equal_length_tiebreak(void **state)
{
	static const enum sbx_pmode orders[][3] = {
		{ SBX_RW, SBX_RO, SBX_HIDE },
		{ SBX_HIDE, SBX_RO, SBX_RW },
		{ SBX_RO, SBX_HIDE, SBX_RW },
		{ SBX_RW, SBX_HIDE, SBX_RO },
	};

	(void)state;
	for (size_t o = 0; o < 4; o++) {
		for (size_t n = 2; n <= 3; n++) {
			struct sbx_policy p;
			struct sbx_cpol v;
			struct sbx_err err;
			const struct sbx_cpol_rule *cr;
			enum sbx_pmode best = 0;
			const char *why;
			void *buf;
			size_t len;

			sbx_policy_init(&p);
			p.rules = calloc(n, sizeof(*p.rules));
			p.caprules = n;
			for (size_t i = 0; i < n; i++) {
				p.rules[i].root = strdup("/sbxt/eq");
				p.rules[i].rootlen = 8;
				p.rules[i].mode = orders[o][i];
				p.nrules++;
				if (orders[o][i] > best)
					best = orders[o][i];
			}
			assert_int_equal(
				sbx_policy_match(&p, "/sbxt/eq/f")->mode, best);
			assert_int_equal(
				sbx_cpol_build(&p, 0, 0, &buf, &len, &err), 0);
			assert_int_equal(sbx_cpol_view(buf, len, &v, &why), 0);
			cr = sbx_cpol_match(&v, "/sbxt/eq/f");
			assert_non_null(cr);
			assert_int_equal(cr->mode, best);
			free(buf);
			sbx_policy_free(&p);
		}
	}
}

/* Removing a rule and re-adding it. */
static void test_remove_path(void **state)
{
	struct sbx_policy p;
	struct sbx_err err;

	(void)state;
	sbx_policy_init(&p);
	p.project = strdup(PROJ);
	p.home = strdup(HOME);
	assert_int_equal(sbx_policy_add_path(&p, "/", SBX_RO, 0,
					     (struct sbx_src){ "a", 1 }, &err),
			 0);
	assert_int_equal(sbx_policy_add_path(&p, "~/x", SBX_RW, 0,
					     (struct sbx_src){ "a", 2 }, &err),
			 0);
	assert_int_equal(sbx_policy_add_path(&p, "/sbxt/y", SBX_HIDE, 0,
					     (struct sbx_src){ "a", 3 }, &err),
			 0);
	assert_int_equal(p.nrules, 3);
	assert_int_equal(sbx_policy_remove_path(&p, HOME "/x/"), 0);
	assert_int_equal(p.nrules, 2);
	assert_int_equal(sbx_policy_remove_path(&p, HOME "/x"), -1);
	assert_string_equal(sbx_policy_match(&p, HOME "/x/f")->root, "/");
	assert_string_equal(sbx_policy_match(&p, "/sbxt/y/f")->root, "/sbxt/y");
	/* relative roots need a project; "~" needs a home */
	free(p.project);
	p.project = NULL;
	assert_int_equal(sbx_policy_add_path(&p, "rel", SBX_RW, 0,
					     (struct sbx_src){ "a", 4 }, &err),
			 -1);
	assert_non_null(strstr(err.msg, "bad path 'rel'"));
	sbx_policy_free(&p);
}

/*
 * Many rules: the root index must keep "one rule per root" and "a later
 * tier replaces" through re-adds (which move the rule to the end),
 * removals and growth, as the linear scan did.
 */
static void test_many_rules(void **state)
{
	enum { N = 700 };
	struct sbx_policy p;
	struct sbx_err err;
	char root[64];
	const struct sbx_path_rule **v;

	(void)state;
	sbx_policy_init(&p);
	p.project = strdup(PROJ);
	p.home = strdup(HOME);
	for (int i = 0; i < N; i++) {
		snprintf(root, sizeof(root), "/sbxt/many/d%04d", i);
		assert_int_equal(
			sbx_policy_add_path(&p, root, SBX_RO, 0,
					    (struct sbx_src){ "a.conf", i + 1 },
					    &err),
			0);
	}
	for (int i = 0; i < N; i += 3) { /* a later tier: replaced */
		snprintf(root, sizeof(root), "/sbxt/many/d%04d", i);
		assert_int_equal(
			sbx_policy_add_path(&p, root, SBX_RW, 0,
					    (struct sbx_src){ "b.conf", i + 1 },
					    &err),
			0);
		assert_string_equal(p.rules[p.nrules - 1].root, root);
	}
	for (int i = 1; i < N; i += 7) { /* removed, some re-added */
		snprintf(root, sizeof(root), "/sbxt/many/d%04d", i);
		assert_int_equal(sbx_policy_remove_path(&p, root), 0);
		assert_int_equal(sbx_policy_remove_path(&p, root), -1);
		if (i % 2)
			assert_int_equal(
				sbx_policy_add_path(
					&p, root, SBX_HIDE, 0,
					(struct sbx_src){ "c.conf", i }, &err),
				0);
	}
	v = sbx_policy_sorted(&p);
	assert_non_null(v);
	for (size_t i = 1; i < p.nrules; i++) /* one rule per root */
		assert_true(sbx_path_cmp(v[i - 1]->root, v[i]->root) < 0);
	free(v);
	for (int i = 0; i < N; i++) {
		const struct sbx_path_rule *r;
		enum sbx_pmode want = i % 3 == 0 ? SBX_RW : SBX_RO;

		snprintf(root, sizeof(root), "/sbxt/many/d%04d/f", i);
		r = sbx_policy_match(&p, root);
		if (i % 7 == 1)
			want = i % 2 ? SBX_HIDE : 0;
		if (!want) {
			assert_null(r);
			continue;
		}
		assert_non_null(r);
		assert_int_equal(r->mode, want);
	}
	sbx_policy_free(&p);
}

/* ------------------------------------------------------------ whole rules */

/* One call carries root, mode, suffixes, size and source; a later tier
 * replaces all of it, a weaker rule of the same file is dropped whole, a
 * conf rule under a hide too (with a warning), and bad suffixes are
 * refused by the engine itself. */
static void test_add_rule(void **state)
{
	static const char *const md[] = { ".md", ".txt" };
	static const char *const bad[] = { "a/b" };
	struct sbx_policy p;
	struct sbx_err err;
	struct sbx_rule r = { .root = "~/notes",
			      .mode = SBX_RO,
			      .suffixes = md,
			      .nsuffixes = 2,
			      .max_file_bytes = 1000,
			      .src = { "a.conf", 5 } };
	const struct sbx_path_rule *got;

	(void)state;
	sbx_policy_init(&p);
	p.project = strdup(PROJ);
	p.home = strdup(HOME);
	assert_int_equal(sbx_policy_add_rule(&p, &r, &err), 0);
	got = sbx_policy_match(&p, HOME "/notes/x.md");
	assert_non_null(got);
	assert_string_equal(got->root, HOME "/notes");
	assert_int_equal(got->nsuffixes, 2);
	assert_string_equal(got->suffixes[1], ".txt");
	assert_int_equal(got->max_file_bytes, 1000);
	assert_string_equal(got->src.file, "a.conf");
	assert_int_equal(got->src.line, 5);

	/* same file, weaker mode: dropped, the first one stays whole; the
	 * same mode again: replaced whole */
	r.mode = SBX_RW;
	r.nsuffixes = 0;
	r.src.line = 6;
	assert_int_equal(sbx_policy_add_rule(&p, &r, &err), 0);
	assert_int_equal(sbx_policy_match(&p, HOME "/notes")->nsuffixes, 2);
	assert_int_equal(sbx_policy_match(&p, HOME "/notes")->mode, SBX_RO);
	r.mode = SBX_RO;
	r.max_file_bytes = 0;
	r.src.line = 7;
	assert_int_equal(sbx_policy_add_rule(&p, &r, &err), 0);
	got = sbx_policy_match(&p, HOME "/notes");
	assert_int_equal(got->mode, SBX_RO);
	assert_int_equal(got->nsuffixes, 0);
	assert_int_equal(got->max_file_bytes, 0);

	/* a later tier replaces it, suffixes and all */
	r.mode = SBX_RW;
	r.nsuffixes = 1;
	r.src = (struct sbx_src){ "b.conf", 1 };
	assert_int_equal(sbx_policy_add_rule(&p, &r, &err), 0);
	got = sbx_policy_match(&p, HOME "/notes");
	assert_int_equal(got->mode, SBX_RW);
	assert_int_equal(got->nsuffixes, 1);
	assert_int_equal(p.nrules, 1);

	/* a hide is not lifted by a conf rule, and says so */
	r.root = "/sbxt/secret";
	r.mode = SBX_HIDE;
	r.nsuffixes = 0;
	assert_int_equal(sbx_policy_add_rule(&p, &r, &err), 0);
	assert_true(sbx_policy_match(&p, "/sbxt/secret")->flags &
		    SBX_RF_SECRET);
	r.mode = SBX_RW;
	r.src = (struct sbx_src){ "c.conf", 2 };
	assert_int_equal(sbx_policy_add_rule(&p, &r, &err), 0);
	assert_int_equal(sbx_policy_match(&p, "/sbxt/secret")->mode, SBX_HIDE);
	assert_int_equal(p.warnings.n, 1);

	/* the engine refuses bad suffixes and too many of them */
	r.root = "/sbxt/other";
	r.suffixes = bad;
	r.nsuffixes = 1;
	assert_int_equal(sbx_policy_add_rule(&p, &r, &err), -1);
	assert_string_equal(err.msg, "bad suffix 'a/b'");
	r.suffixes = md;
	r.nsuffixes = SBX_MAX_SUFFIXES + 1;
	assert_int_equal(sbx_policy_add_rule(&p, &r, &err), -1);
	assert_null(sbx_policy_match(&p, "/sbxt/other"));
	sbx_policy_free(&p);
}

/* The policy of one run: a deep copy (freeing the loaded one leaves it
 * whole, changing it leaves the loaded one alone), the kernel mode's own
 * hides (not secrets), the run's timeout, and protected paths that are
 * missing now marked absent. */
static void test_policy_for_run(void **state)
{
	static const struct sbx_rule extra[] = {
		{ .root = "/sbxt/dev/pts",
		  .mode = SBX_HIDE,
		  .flags = SBX_RF_KMODE,
		  .src = { "landlock-only mode (no private /dev)", 0 } },
	};
	const struct sbx_run_adj adj = { extra, 1, 42 };
	struct sbx_policy p, run;
	struct sbx_err err;
	const struct sbx_path_rule *r;
	char tmp[PATH_MAX], there[PATH_MAX + 16], gone[PATH_MAX + 16];

	(void)state;
	assert_int_equal(tu_tmpdir("forrun", tmp, sizeof(tmp)), 0);
	snprintf(there, sizeof(there), "%s/there", tmp);
	snprintf(gone, sizeof(gone), "%s/gone", tmp);
	assert_int_equal(mkdir(there, 0700), 0);
	sbx_policy_init(&p);
	p.project = strdup(tmp);
	p.home = strdup(HOME);
	p.limits.timeout = 600;
	assert_int_equal(sbx_policy_add_path(&p, "/sbxt", SBX_RO, 0,
					     (struct sbx_src){ "a.conf", 1 },
					     &err),
			 0);
	sbx_strv_add(&p, &p.protect, "there", (struct sbx_src){ "a.conf", 2 });
	sbx_strv_add(&p, &p.protect, "gone", (struct sbx_src){ "a.conf", 3 });
	/* a preset and an entry that came from it: the copy must own both */
	{
		const char *ents[] = { "registry.example.org:443" };

		assert_int_equal(sbx_net_preset_define(
					 &p, "reg", ents, 1,
					 (struct sbx_src){ "a.conf", 4 }, &err),
				 0);
		assert_int_equal(sbx_policy_add_allow(
					 &p, "@reg",
					 (struct sbx_src){ "a.conf", 5 }, &err),
				 0);
	}
	p.allow_unsafe_project = 1;
	assert_int_equal(sbx_policy_finish(&p, &err), 0);

	assert_int_equal(sbx_policy_for_run(&run, &p, &adj, &err), 0);
	assert_int_equal(run.limits.timeout, 42);
	assert_int_equal(p.limits.timeout, 600);
	assert_int_equal(run.nrules, p.nrules + 1);
	r = sbx_policy_match(&run, "/sbxt/dev/pts/3");
	assert_int_equal(r->mode, SBX_HIDE);
	assert_false(r->flags & SBX_RF_SECRET);
	assert_string_equal(r->src.file,
			    "landlock-only mode (no private /dev)");
	assert_int_equal(sbx_policy_match(&p, "/sbxt/dev/pts/3")->mode, SBX_RO);
	assert_false(sbx_policy_match(&run, there)->flags & SBX_RF_ABSENT);
	assert_true(sbx_policy_match(&run, gone)->flags & SBX_RF_ABSENT);
	assert_false(sbx_policy_match(&p, gone)->flags & SBX_RF_ABSENT);

	/* nothing shared: the loaded policy goes, the run's stays whole */
	sbx_policy_free(&p);
	r = sbx_policy_match(&run, gone);
	assert_non_null(r);
	assert_string_equal(r->src.file, "a.conf");
	assert_string_equal(run.project, tmp);
	assert_int_equal(run.nallow, 1);
	assert_string_equal(run.allow[0].host, "registry.example.org");
	assert_string_equal(run.allow[0].preset, "reg");
	sbx_policy_free(&run);
	rmdir(there);
	tu_rmrf(tmp);
}

/* ------------------------------------------------------------ exec */

struct xrow {
	const char *path; /* resolved program path, or NULL */
	const char *argv[8];
	const char *want; /* program pattern of the deciding rule, or NULL */
};

static const struct xrow xrows[] = {
	{ NULL, { "sudo", "ls" }, "sudo" },
	{ "/usr/bin/sudo", { "sudo", "-i" }, "sudo" },
	{ "/usr/local/bin/sudo", { "/usr/local/bin/sudo" }, "sudo" },
	{ "/usr/bin/sudo", { "ls" }, "sudo" }, /* the resolved path counts */
	{ "/bin/ls", { "sudo" }, "sudo" }, /* and so does argv[0] */
	{ NULL, { "sudoedit", "/etc/x" }, NULL },
	{ NULL, { "su", "-" }, "su" },
	{ NULL, { "sum", "f" }, NULL },
	{ NULL, { "doas", "sh" }, "doas" },
	{ NULL, { "pkexec", "sh" }, "pkexec" },
	{ NULL, { "systemctl", "--user", "status" }, "systemctl" },
	{ NULL, { "ssh", "host" }, "ssh" },
	{ NULL, { "ssh-keygen", "-t", "ed25519" }, NULL },
	{ NULL, { "scp", "a", "b:" }, "scp" },
	/* rm: args [ "-*[rR]*", "/" ] and [ "-*[rR]*", "/" "*" ] */
	{ "/usr/bin/rm", { "rm", "-rf", "/" }, "rm" },
	{ "/usr/bin/rm",
	  { "rm", "-r", "-f", "/" },
	  "rm" }, /* "-r" alone carries the r */
	{ "/usr/bin/rm", { "rm", "-f", "-r", "/" }, "rm" },
	{ "/usr/bin/rm", { "rm", "-fr", "/" }, "rm" },
	{ "/usr/bin/rm", { "rm", "-Rf", "/" }, "rm" },
	{ "/usr/bin/rm", { "rm", "--recursive", "/" }, "rm" },
	{ "/usr/bin/rm", { "rm", "-rf", "--", "/" }, "rm" },
	{ "/usr/bin/rm", { "rm", "-rf", "//" }, "rm" },
	{ "/usr/bin/rm", { "rm", "-rf", "/*" }, "rm" }, /* unexpanded */
	{ "/usr/bin/rm",
	  { "rm", "-rf", "/bin", "/boot", "/dev" },
	  NULL }, /* expanded: not guessed (read-only anyway) */
	{ "/bin/rm", { "/bin/rm", "-rf", "/" }, "rm" },
	{ "/usr/bin/rm", { "rm", "-rf", "build" }, NULL },
	{ "/usr/bin/rm", { "rm", "-rf", "./build" }, NULL },
	{ "/usr/bin/rm", { "rm", "-rf", "." }, NULL },
	{ "/usr/bin/rm", { "rm", "-rf", "../.." }, NULL },
	{ "/usr/bin/rm",
	  { "rm", "-f", "/tmp/x" },
	  NULL }, /* no r: not recursive */
	{ "/usr/bin/rm", { "rm", "/" }, NULL },
	{ "/usr/bin/rm", { "rm", "-r" }, NULL },
	/* Only "/" itself is catastrophic: other absolute paths pass. */
	{ "/usr/bin/rm", { "rm", "-rf", "/tmp/build" }, NULL },
	{ "/usr/bin/rm", { "rm", "-rf", PROJ "/build" }, NULL },
	{ "/usr/bin/rm", { "rm", "--force", "/tmp/x" }, NULL },
	/* a multi-call program is judged by its applet; a shell is not
	 * looked through (the shim sees the inner exec) */
	{ "/bin/busybox", { "busybox", "rm", "-rf", "/" }, "rm" },
	{ "/bin/sh", { "sh", "-c", "rm -rf /" }, NULL },
	/* mkfs* */
	{ "/sbin/mkfs.ext4", { "mkfs.ext4", "/dev/sda1" }, "mkfs*" },
	{ NULL, { "mkfs", "-t", "xfs", "/dev/sdb" }, "mkfs*" },
	{ "/usr/sbin/mkfs.xfs", { "/usr/sbin/mkfs.xfs" }, "mkfs*" },
	{ NULL, { "mke2fs", "/dev/sda1" }, "mke2fs" },
	/* dd of=/dev/... */
	{ "/bin/dd", { "dd", "if=/dev/zero", "of=/dev/sda", "bs=1M" }, "dd" },
	{ "/bin/dd", { "dd", "of=/dev/nvme0n1" }, "dd" },
	{ "/bin/dd", { "dd", "if=/dev/sda", "of=disk.img" }, NULL },
	{ "/bin/dd", { "dd", "of=./dev/sda" }, NULL },
	{ "/bin/dd", { "dd", "if=/dev/zero", "of=/dev/null", "count=1" }, NULL },
	/* ordinary programs */
	{ "/usr/bin/make", { "make", "-j8" }, NULL },
	{ "/usr/bin/git", { "git", "commit", "-m", "rm -rf /" }, NULL },
	{ NULL, { "" }, NULL },
};

static void load_profile(struct sbx_policy *p, const char *name)
{
	struct sbx_err err = { "" };

	if (sbx_conf_load_file(p, tu_profile(name), &err) < 0)
		fail_msg("loading profile %s: %s", name, err.msg);
}

static void test_exec_table(void **state)
{
	struct sbx_policy p;
	struct sbx_cpol v;
	struct sbx_err err;
	const char *why;
	void *buf;
	size_t len;
	int bad = 0;

	(void)state;
	sbx_policy_init(&p);
	p.project = strdup(PROJ);
	p.home = strdup(HOME);
	load_profile(&p, "default");
	assert_int_equal(sbx_cpol_build(&p, 0, 0, &buf, &len, &err), 0);
	assert_int_equal(sbx_cpol_view(buf, len, &v, &why), 0);
	for (size_t i = 0; i < sizeof(xrows) / sizeof(xrows[0]); i++) {
		const struct xrow *x = &xrows[i];
		const struct sbx_exec_rule *e = ref_exec(&p, x->path, x->argv);
		const struct sbx_cpol_exec *ce =
			sbx_decide_exec(&v, x->path, (char *const *)x->argv);
		const char *got = e ? e->program : NULL;
		const char *cgot = ce ? sbx_cpol_str(&v, ce->program) : NULL;

		if ((got == NULL) != (x->want == NULL) ||
		    (got && strcmp(got, x->want) != 0) ||
		    (cgot == NULL) != (x->want == NULL) ||
		    (cgot && strcmp(cgot, x->want) != 0)) {
			print_error("exec row %zu: %s %s %s ...: reference "
				    "%s, decide %s, want %s\n",
				    i, x->path ? x->path : "(no path)",
				    x->argv[0], x->argv[1] ? x->argv[1] : "",
				    got ? got : "allowed",
				    cgot ? cgot : "allowed",
				    x->want ? x->want : "allowed");
			bad++;
		}
		/* the reason is carried into the compiled policy */
		if (e && ce &&
		    strcmp(e->reason, sbx_cpol_str(&v, ce->reason)) != 0)
			bad++;
	}
	free(buf);
	sbx_policy_free(&p);
	if (bad)
		fail_msg("%d exec rows failed", bad);
}

/* A program pattern with a '/' matches the full path only. */
/* The reason of the exec rule the one decider picks for argv, or NULL. */
static const char *xdecide(const struct sbx_policy *p, const char *path,
			   const char *const *argv)
{
	static char reason[256];
	struct sbx_err err;
	struct sbx_cpol v;
	const struct sbx_cpol_exec *x;
	const char *why;
	void *buf;
	size_t len;

	assert_int_equal(sbx_cpol_build(p, 0, 0, &buf, &len, &err), 0);
	assert_int_equal(sbx_cpol_view(buf, len, &v, &why), 0);
	x = sbx_decide_exec(&v, path, (char *const *)argv);
	if (x)
		snprintf(reason, sizeof(reason), "%s",
			 sbx_cpol_str(&v, x->reason));
	free(buf);
	return x ? reason : NULL;
}

static void test_exec_full_path_rule(void **state)
{
	struct sbx_policy p;
	struct sbx_err err;
	const char *args[] = { "--delete*" };
	const char *a1[] = { "tool", "x", NULL };
	const char *a2[] = { "/opt/evil/tool", "x", NULL };
	const char *a3[] = { "rsync", "-a", "--delete-after", "src", NULL };
	const char *a4[] = { "rsync", "-a", "src", NULL };
	const char *a5[] = { NULL };

	(void)state;
	sbx_policy_init(&p);
	assert_int_equal(sbx_policy_add_exec(&p, "/opt/evil/*", NULL, 0, NULL,
					     (struct sbx_src){ "t", 1 }, &err),
			 0);
	assert_int_equal(sbx_policy_add_exec(&p, "rsync", args, 1, "no",
					     (struct sbx_src){ "t", 2 }, &err),
			 0);
	assert_null(xdecide(&p, "/usr/bin/tool", a1));
	assert_non_null(xdecide(&p, "/opt/evil/tool", a1));
	assert_non_null(xdecide(&p, NULL, a2));
	assert_string_equal(
		xdecide(&p, NULL, a2),
		"denied by the sandbox policy"); /* default reason */
	assert_non_null(xdecide(&p, "/usr/bin/rsync", a3));
	assert_null(xdecide(&p, "/usr/bin/rsync", a4));
	/* an empty argv: only the path can match, args cannot */
	assert_null(xdecide(&p, "/usr/bin/rsync", a5));
	assert_non_null(xdecide(&p, "/opt/evil/x", a5));
	assert_null(xdecide(&p, NULL, NULL));
	/* too many args patterns */
	{
		const char *many[SBX_MAX_EXEC_ARGS + 1];

		for (size_t i = 0; i <= SBX_MAX_EXEC_ARGS; i++)
			many[i] = "x";
		assert_int_equal(sbx_policy_add_exec(
					 &p, "p", many, SBX_MAX_EXEC_ARGS + 1,
					 "r", (struct sbx_src){ "t", 3 }, &err),
				 -1);
		assert_int_equal(sbx_policy_add_exec(
					 &p, "p", many, SBX_MAX_EXEC_ARGS, "r",
					 (struct sbx_src){ "t", 4 }, &err),
				 0);
	}
	sbx_policy_free(&p);
}

/* ------------------------------------------------------------ glob */

static void test_glob_table(void **state)
{
	static const struct {
		const char *pat, *s;
		int want;
	} g[] = {
		{ "*", "", 1 },
		{ "*", "abc", 1 },
		{ "*", "a/b", 1 },
		{ "", "", 1 },
		{ "", "a", 0 },
		{ "a", "", 0 },
		{ "?", "a", 1 },
		{ "?", "", 0 },
		{ "??", "a", 0 },
		{ "a*c", "abbbc", 1 },
		{ "a*c", "abbb", 0 },
		{ "*TOKEN*", "GITHUB_TOKEN", 1 },
		{ "*TOKEN*", "TOKE", 0 },
		{ "*_KEY", "MY_KEY", 1 },
		{ "*_KEY", "MY_KEYS", 0 },
		{ "[abc]x", "bx", 1 },
		{ "[abc]x", "dx", 0 },
		{ "[a-c]", "b", 1 },
		{ "[a-c]", "d", 0 },
		{ "[!a-c]", "d", 1 },
		{ "[!a-c]", "a", 0 },
		{ "[^a]", "b", 1 },
		{ "[]]", "]", 1 },
		{ "[]a]", "a", 1 },
		{ "[a-]", "-", 1 },
		{ "-*[rR]*", "-rf", 1 },
		{ "-*[rR]*", "-f", 0 },
		{ "-*[rR]*", "--force", 1 },
		{ "/*", "/", 1 },
		{ "/*", "/a/b", 1 },
		{ "/*", "a", 0 },
		{ "mkfs*", "mkfs.ext4", 1 },
		{ "*.*", "a.b", 1 },
		{ "a**b", "ab", 1 },
		{ "*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 0 },
		/* unterminated brackets never read past the pattern */
		{ "[", "[", 0 },
		{ "[a", "a", 1 },
		{ "[!", "x", 0 },
		{ "[^", "x", 0 },
		{ "[!", "", 0 },
		{ "x[!", "xy", 0 },
		{ "*[!", "abc", 0 },
		{ "[a-", "a", 1 },
		{ "[a-", "-", 1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
		/* copy into exact-size heap buffers so ASan sees any read
		 * past the terminator */
		char *pat = strdup(g[i].pat), *s = strdup(g[i].s);

		if (sbx_glob(pat, s) != g[i].want)
			fail_msg("glob row %zu: '%s' vs '%s' != %d", i,
				 g[i].pat, g[i].s, g[i].want);
		free(pat);
		free(s);
	}
}

static void test_suffix_basename(void **state)
{
	char *sfx[] = { ".md", ".TXT" };

	(void)state;
	assert_string_equal(sbx_basename("/a/b/c"), "c");
	assert_string_equal(sbx_basename("c"), "c");
	assert_string_equal(sbx_basename("/a/"), "");
	assert_true(sbx_suffix_ok("/x/y", sfx, 0));
	assert_true(sbx_suffix_ok("/x/a.md", sfx, 2));
	assert_true(sbx_suffix_ok("/x/a.txt", sfx, 2));
	assert_false(
		sbx_suffix_ok("/x.md/a", sfx, 2)); /* the name, not the path */
	assert_false(sbx_suffix_ok("/x/a.mdx", sfx, 2));
	assert_false(sbx_suffix_ok("/x/", sfx, 2));
}

/* ------------------------------------------------------------ env */

struct erow {
	const char *var;
	int pass;
};

static const struct erow env_default[] = {
	{ "GITHUB_TOKEN", 0 },
	{ "GITHUB_TOKEN=ghp_x", 0 },
	{ "GH_TOKEN", 0 },
	{ "PATH", 1 },
	{ "PATH=/usr/bin:/bin", 1 },
	{ "HOME", 1 },
	{ "LANG", 1 },
	{ "LC_ALL", 1 },
	{ "TERM", 1 },
	{ "USER", 1 },
	{ "AWS_SECRET_ACCESS_KEY", 0 },
	{ "AWS_REGION", 0 },
	{ "MY_API_KEY", 0 },
	{ "OPENAI_API_KEY", 0 },
	{ "STRIPE_KEY", 0 },
	{ "DB_PASSWORD", 0 },
	{ "MYSQL_PWD", 0 },
	{ "SSH_AUTH_SOCK", 0 },
	{ "XDG_RUNTIME_DIR", 0 },
	{ "DISPLAY", 0 },
	{ "LD_PRELOAD", 0 },
	{ "LD_LIBRARY_PATH", 0 },
	{ "SBXRUN_POLICY", 0 },
	{ "DOCKER_HOST", 0 },
	{ "KUBECONFIG", 0 },
	{ "VAULT_ADDR", 0 },
	{ "CC", 1 },
	{ "CFLAGS", 1 },
	{ "GOPATH", 1 },
	{ "KEYBOARD", 1 },
	{ "GIT_AUTHOR_NAME", 1 },
	{ "TERM_PROGRAM", 1 },
	{ "CI", 1 },
	{ "npm_config_cache", 1 },
	/* lower and mixed case: dropped by the upper-cased name */
	{ "my_api_key", 0 },
	{ "Openai_Api_Key", 0 },
	{ "db_password", 0 },
	{ "=weird", 1 },
};

/* strict extends default, and lists add up across files: default's keep
 * list (HOME, USER, EDITOR, ...) still passes under strict's drop "*".
 * Documented, see report. */
static const struct erow env_strict[] = {
	{ "PATH", 1 },	       { "LANG", 1 },	      { "LC_CTYPE", 1 },
	{ "TERM", 1 },	       { "TZ", 1 },	      { "HOME", 1 },
	{ "USER", 1 },	       { "EDITOR", 1 },	      { "CC", 0 },
	{ "CFLAGS", 0 },       { "GITHUB_TOKEN", 0 }, { "MYSQL_PWD", 0 },
	{ "TERM_PROGRAM", 0 },
};

static void check_env(const struct sbx_policy *p, const struct erow *rows_e,
		      size_t n, const char *name)
{
	int bad = 0;

	for (size_t i = 0; i < n; i++)
		if (sbx_policy_env_pass(p, rows_e[i].var) != rows_e[i].pass) {
			print_error("%s: env %s: want %s\n", name,
				    rows_e[i].var,
				    rows_e[i].pass ? "pass" : "drop");
			bad++;
		}
	if (bad)
		fail_msg("%d env rows failed (%s)", bad, name);
}

static void test_env(void **state)
{
	struct sbx_policy p;
	struct sbx_err err;
	char longname[300];

	(void)state;
	sbx_policy_init(&p);
	p.project = strdup(PROJ);
	p.home = strdup(HOME);
	load_profile(&p, "default");
	check_env(&p, env_default, sizeof(env_default) / sizeof(env_default[0]),
		  "default");
	/* a name too long to copy is dropped, never truncated-and-kept */
	memset(longname, 'A', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(sbx_policy_env_pass(&p, longname), 0);
	memset(longname, 'A', 255);
	longname[255] = '\0';
	assert_int_equal(sbx_policy_env_pass(&p, longname), 1);
	/* the strict profile on top: drop "*", keep a short list */
	load_profile(&p, "strict");
	check_env(&p, env_strict, sizeof(env_strict) / sizeof(env_strict[0]),
		  "strict");
	sbx_policy_free(&p);

	/* keep wins over drop, whatever the order they are written in */
	sbx_policy_init(&p);
	assert_int_equal(
		sbx_conf_load_string(
			&p,
			"env = { drop = [ \"*TOKEN*\", \"*\" ]; keep = [ \"MY_TOKEN\" ]; };",
			"keep.conf", &err),
		0);
	assert_int_equal(sbx_policy_env_pass(&p, "MY_TOKEN=1"), 1);
	assert_int_equal(sbx_policy_env_pass(&p, "YOUR_TOKEN=1"), 0);
	assert_int_equal(sbx_policy_env_pass(&p, "PATH"), 0);
	/* an override adds to keep */
	assert_int_equal(sbx_conf_override(&p, "env-keep=PATH", &err), 0);
	assert_int_equal(sbx_policy_env_pass(&p, "PATH=/bin"), 1);
	sbx_policy_free(&p);

	/* empty lists: everything passes */
	sbx_policy_init(&p);
	assert_int_equal(sbx_policy_env_pass(&p, "GITHUB_TOKEN"), 1);
	sbx_policy_free(&p);
}

/* ------------------------------------------------------------ parsing */

static void test_parse_size(void **state)
{
	static const struct {
		const char *s;
		int ok;
		uint64_t v;
	} t[] = {
		{ "0", 1, 0 },
		{ "100", 1, 100 },
		{ "100B", 1, 100 },
		{ "100b", 1, 100 },
		{ "512K", 1, 512ull << 10 },
		{ "512k", 1, 512ull << 10 },
		{ "1M", 1, 1ull << 20 },
		{ "8G", 1, 8ull << 30 },
		{ "8GB", 1, 8ull << 30 },
		{ "8gb", 1, 8ull << 30 },
		{ "2T", 1, 2ull << 40 },
		{ "16G", 1, 16ull << 30 },
		{ "18446744073709551615", 1, UINT64_MAX },
		{ "16777215T", 1, 16777215ull << 40 },
		{ "17179869183G", 1, 17179869183ull << 30 },
		{ "007", 1, 7 },
		/* overflow */
		{ "18446744073709551616", 0, 0 },
		{ "99999999999999999999999", 0, 0 },
		{ "16777216T", 0, 0 },
		{ "17179869184G", 0, 0 },
		{ "18014398509481984K", 0, 0 },
		/* malformed */
		{ "", 0, 0 },
		{ "G", 0, 0 },
		{ "-1", 0, 0 },
		{ "+1", 0, 0 },
		{ " 1", 0, 0 },
		{ "1 ", 0, 0 },
		{ "1 G", 0, 0 },
		{ "1.5G", 0, 0 },
		{ "0x10", 0, 0 },
		{ "1KK", 0, 0 },
		{ "1P", 0, 0 },
		{ "1BB", 0, 0 },
		{ "1KiB", 0, 0 },
		{ "1e3", 0, 0 },
		{ "1G\n", 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint64_t v = 12345;
		int r = sbx_parse_size(t[i].s, &v);

		if ((r == 0) != t[i].ok || (t[i].ok && v != t[i].v))
			fail_msg("size '%s': r=%d v=%llu, want ok=%d v=%llu",
				 t[i].s, r, (unsigned long long)v, t[i].ok,
				 (unsigned long long)t[i].v);
		if (!t[i].ok && v != 12345)
			fail_msg("size '%s': output written on error", t[i].s);
	}
	assert_int_equal(sbx_parse_size(NULL, &(uint64_t){ 0 }), -1);
}

static void test_parse_modes(void **state)
{
	enum sbx_pmode m;
	enum sbx_net n;

	(void)state;
	assert_int_equal(sbx_parse_pmode("rw", &m), 0);
	assert_int_equal(m, SBX_RW);
	assert_int_equal(sbx_parse_pmode("ro", &m), 0);
	assert_int_equal(m, SBX_RO);
	assert_int_equal(sbx_parse_pmode("hide", &m), 0);
	assert_int_equal(m, SBX_HIDE);
	assert_int_equal(sbx_parse_pmode("RW", &m), -1);
	assert_int_equal(sbx_parse_pmode("rw ", &m), -1);
	assert_int_equal(sbx_parse_pmode("", &m), -1);
	assert_int_equal(sbx_parse_pmode("hidden", &m), -1);
	assert_string_equal(sbx_pmode_name(SBX_RW), "rw");
	assert_string_equal(sbx_pmode_name(SBX_RO), "ro");
	assert_string_equal(sbx_pmode_name(SBX_HIDE), "hide");
	assert_string_equal(sbx_pmode_name((enum sbx_pmode)0), "?");

	assert_int_equal(sbx_parse_net("off", &n), 0);
	assert_int_equal(n, SBX_NET_OFF);
	assert_int_equal(sbx_parse_net("loopback", &n), 0);
	assert_int_equal(n, SBX_NET_LOOPBACK);
	assert_int_equal(sbx_parse_net("on", &n), 0);
	assert_int_equal(n, SBX_NET_ON);
	assert_int_equal(sbx_parse_net("filtered", &n), 0);
	assert_int_equal(n, SBX_NET_FILTERED);
	assert_int_equal(sbx_parse_net("allow", &n), 0);
	assert_int_equal(n, SBX_NET_FILTERED);
	assert_int_equal(sbx_parse_net("Off", &n), -1);
	assert_int_equal(sbx_parse_net("", &n), -1);
	assert_string_equal(sbx_net_name(SBX_NET_LOOPBACK), "loopback");
	assert_string_equal(sbx_net_name(SBX_NET_FILTERED), "filtered");
}

/* ------------------------------------------------------------ net allow */

struct arow {
	const char *entry;
	int ok;
	const char *host;
	uint16_t port;
	int is_cidr, prefix;
};

static const struct arow arows[] = {
	{ "registry.npmjs.org", 1, "registry.npmjs.org", 0, 0, 0 },
	{ "*.github.com", 1, "*.github.com", 0, 0, 0 },
	{ "*.github.com:443", 1, "*.github.com", 443, 0, 0 },
	{ "example.com:80", 1, "example.com", 80, 0, 0 },
	{ "localhost", 1, "localhost", 0, 0, 0 },
	{ "a-b_c.Example.COM", 1, "a-b_c.Example.COM", 0, 0, 0 },
	{ "x.y:65535", 1, "x.y", 65535, 0, 0 },
	{ "x.y:1", 1, "x.y", 1, 0, 0 },
	{ "10.0.0.0/8", 1, "10.0.0.0", 0, 1, 8 },
	{ "10.0.0.0/8:443", 1, "10.0.0.0", 443, 1, 8 },
	{ "192.168.1.1", 1, "192.168.1.1", 0, 1, 32 },
	{ "192.168.1.1:8080", 1, "192.168.1.1", 8080, 1, 32 },
	{ "0.0.0.0/0", 1, "0.0.0.0", 0, 1,
	  0 }, /* see report: proxy must still filter */
	{ "169.253.255.255", 1, "169.253.255.255", 0, 1, 32 },
	{ "169.255.0.1", 1, "169.255.0.1", 0, 1, 32 },
	{ "[::1]", 1, "::1", 0, 1, 128 },
	{ "[::1]:443", 1, "::1", 443, 1, 128 },
	{ "::1", 1, "::1", 0, 1, 128 },
	{ "2001:db8::1", 1, "2001:db8::1", 0, 1, 128 },
	{ "[2001:db8::/32]:443", 1, "2001:db8::", 443, 1, 32 },
	{ "2001:db8::/32", 1, "2001:db8::", 0, 1, 32 },
	{ "fec0::1", 1, "fec0::1", 0, 1, 128 }, /* site-local, not link-local */
	/* link-local and metadata: never */
	{ "169.254.169.254", 0, NULL, 0, 0, 0 },
	{ "169.254.169.254:80", 0, NULL, 0, 0, 0 },
	{ "169.254.0.1", 0, NULL, 0, 0, 0 },
	{ "169.254.0.0/16", 0, NULL, 0, 0, 0 },
	{ "169.254.169.0/24:80", 0, NULL, 0, 0, 0 },
	{ "fe80::1", 0, NULL, 0, 0, 0 },
	{ "[fe80::1]", 0, NULL, 0, 0, 0 },
	{ "[fe80::1]:443", 0, NULL, 0, 0, 0 },
	{ "[fe80::/10]:443", 0, NULL, 0, 0, 0 },
	{ "febf::1", 0, NULL, 0, 0, 0 },
	{ "fd00:ec2::254", 0, NULL, 0, 0, 0 },
	{ "[fd00:ec2::254]:80", 0, NULL, 0, 0, 0 },
	/* the same addresses written as IPv4-mapped IPv6 (THREATS NET-07) */
	{ "::ffff:169.254.169.254", 0, NULL, 0, 0, 0 },
	{ "[::ffff:a9fe:a9fe]:80", 0, NULL, 0, 0, 0 },
	{ "::ffff:169.254.0.0/112", 0, NULL, 0, 0, 0 },
	{ "::ffff:10.0.0.1", 1, "::ffff:10.0.0.1", 0, 1, 128 },
	/* malformed */
	{ "", 0, NULL, 0, 0, 0 },
	{ "host:0", 0, NULL, 0, 0, 0 },
	{ "host:65536", 0, NULL, 0, 0, 0 },
	{ "host:", 0, NULL, 0, 0, 0 },
	{ "host:abc", 0, NULL, 0, 0, 0 },
	{ "host:-1", 0, NULL, 0, 0, 0 },
	{ "host:+80", 0, NULL, 0, 0, 0 },
	{ "host:80x", 0, NULL, 0, 0, 0 },
	{ ":80", 0, NULL, 0, 0, 0 },
	{ "*", 0, NULL, 0, 0, 0 },
	{ "*.", 0, NULL, 0, 0, 0 },
	{ "*x.com", 0, NULL, 0, 0, 0 },
	{ "a.*.com", 0, NULL, 0, 0, 0 },
	{ "a..b", 0, NULL, 0, 0, 0 },
	{ ".a.b", 0, NULL, 0, 0, 0 },
	{ "a.b.", 0, NULL, 0, 0, 0 },
	{ "exa mple.com", 0, NULL, 0, 0, 0 },
	{ "http://x.com", 0, NULL, 0, 0, 0 },
	{ "x.com/path", 0, NULL, 0, 0, 0 },
	{ "user@x.com", 0, NULL, 0, 0, 0 },
	{ "10.0.0.0/33", 0, NULL, 0, 0, 0 },
	{ "10.0.0.0/", 0, NULL, 0, 0, 0 },
	{ "10.0.0.0/-1", 0, NULL, 0, 0, 0 },
	{ "10.0.0.0/8x", 0, NULL, 0, 0, 0 },
	{ "::1/129", 0, NULL, 0, 0, 0 },
	{ "[::1", 0, NULL, 0, 0, 0 },
	{ "[::1]x", 0, NULL, 0, 0, 0 },
	{ "[::1]:", 0, NULL, 0, 0, 0 },
	{ "[]", 0, NULL, 0, 0, 0 },
	{ "[example.com]", 1, "example.com", 0, 0,
	  0 }, /* brackets are just tolerated */
	{ "x\n.com", 0, NULL, 0, 0, 0 },
	{ "\xff.com", 0, NULL, 0, 0, 0 },
};

static void test_net_allow(void **state)
{
	struct sbx_policy p;
	struct sbx_err err;
	size_t nok = 0;
	int bad = 0;

	(void)state;
	sbx_policy_init(&p);
	for (size_t i = 0; i < sizeof(arows) / sizeof(arows[0]); i++) {
		const struct arow *a = &arows[i];
		int r;

		err.msg[0] = '\0';
		r = sbx_policy_add_allow(
			&p, a->entry,
			(struct sbx_src){ "net.conf", (int)i + 1 }, &err);
		if ((r == 0) != a->ok) {
			print_error("allow row %zu '%s': %d (%s), want %s\n", i,
				    a->entry, r, err.msg,
				    a->ok ? "ok" : "error");
			bad++;
			if (r == 0)
				nok++;
			continue;
		}
		if (!a->ok) {
			if (strncmp(err.msg, "bad network allow entry '", 25) !=
			    0) {
				print_error("allow row %zu: message '%s'\n", i,
					    err.msg);
				bad++;
			}
			continue;
		}
		{
			const struct sbx_net_allow *e = &p.allow[nok++];

			if (strcmp(e->text, a->entry) != 0 ||
			    strcmp(e->host, a->host) != 0 ||
			    e->port != a->port || e->is_cidr != a->is_cidr ||
			    (a->is_cidr && e->prefix != a->prefix) ||
			    e->src.line != (int)i + 1) {
				print_error(
					"allow row %zu '%s': host '%s' port %u "
					"cidr %d/%d\n",
					i, a->entry, e->host, e->port,
					e->is_cidr, e->prefix);
				bad++;
			}
		}
	}
	assert_int_equal(p.nallow, nok);
	/* 63-octet labels are fine, 64 are not */
	{
		char lab[80];

		memset(lab, 'a', 64);
		strcpy(lab + 64, ".com");
		assert_int_equal(sbx_policy_add_allow(
					 &p, lab, (struct sbx_src){ 0 }, &err),
				 -1);
		assert_int_equal(sbx_policy_add_allow(&p, lab + 1,
						      (struct sbx_src){ 0 },
						      &err),
				 0);
	}
	/* a 254-character name is too long */
	{
		char big[300];

		for (size_t i = 0; i < 254; i++)
			big[i] = (i % 4 == 3) ? '.' : 'a';
		big[254] = '\0';
		big[253] = 'a';
		assert_int_equal(sbx_policy_add_allow(
					 &p, big, (struct sbx_src){ 0 }, &err),
				 -1);
		big[253] = '\0';
		assert_int_equal(sbx_policy_add_allow(
					 &p, big, (struct sbx_src){ 0 }, &err),
				 0);
	}
	/* NULL err is allowed */
	assert_int_equal(sbx_policy_add_allow(&p, "bad entry",
					      (struct sbx_src){ 0 }, NULL),
			 -1);
	sbx_policy_free(&p);
	if (bad)
		fail_msg("%d allow rows failed", bad);
}

/* net=allow:... through the override, and finish with filtered. */
static void test_net_override(void **state)
{
	struct sbx_policy p;
	struct sbx_err err;

	(void)state;
	sbx_policy_init(&p);
	p.project = strdup(PROJ);
	assert_int_equal(
		sbx_conf_override(&p, "net=allow:a.com,*.b.org:443", &err), 0);
	assert_int_equal(p.net, SBX_NET_FILTERED);
	assert_int_equal(p.nallow, 2);
	assert_string_equal(p.allow[1].host, "*.b.org");
	assert_int_equal(p.allow[1].port, 443);
	assert_int_equal(
		sbx_conf_override(&p, "net=allow:169.254.169.254", &err), -1);
	assert_int_equal(sbx_conf_override(&p, "net=filtered", &err), -1);
	assert_int_equal(sbx_conf_override(&p, "net=bogus", &err), -1);
	assert_int_equal(sbx_conf_override(&p, "net=", &err), -1);
	assert_int_equal(sbx_policy_finish(&p, &err), 0);
	assert_int_equal(sbx_conf_override(&p, "net=loopback", &err), 0);
	assert_int_equal(p.net, SBX_NET_LOOPBACK);
	assert_string_equal(p.net_src.file, "--net");
	assert_int_equal(sbx_conf_override(&p, "timeout=30", &err), 0);
	assert_int_equal(p.limits.timeout, 30);
	assert_int_equal(sbx_conf_override(&p, "timeout=-1", &err), -1);
	assert_int_equal(sbx_conf_override(&p, "timeout=3s", &err), -1);
	assert_int_equal(sbx_conf_override(&p, "timeout", &err), -1);
	assert_int_equal(sbx_conf_override(&p, "bogus=1", &err), -1);
	assert_non_null(strstr(err.msg, "unknown override"));
	assert_int_equal(sbx_conf_override(&p, "allow-readx=/a", &err), -1);
	sbx_policy_free(&p);
}

/* Interning returns one pointer per distinct string (the same-file test
 * in merge_same_root relies on it). */
static void test_intern(void **state)
{
	struct sbx_policy p;
	const char *a, *b, *c;
	char buf[16];

	(void)state;
	sbx_policy_init(&p);
	strcpy(buf, "x.conf");
	a = sbx_policy_intern(&p, buf);
	strcpy(buf, "y.conf");
	b = sbx_policy_intern(&p, buf);
	strcpy(buf, "x.conf");
	c = sbx_policy_intern(&p, buf);
	assert_ptr_equal(a, c);
	assert_ptr_not_equal(a, b);
	assert_null(sbx_policy_intern(&p, NULL));
	for (int i = 0; i < 100; i++) {
		snprintf(buf, sizeof(buf), "f%d", i);
		assert_non_null(sbx_policy_intern(&p, buf));
	}
	assert_ptr_equal(sbx_policy_intern(&p, "x.conf"), a);
	sbx_policy_free(&p);
}

int main(void)
{
	const struct CMUnitTest table[] = {
		cmocka_unit_test(test_decide_table),
		cmocka_unit_test(test_warnings),
		cmocka_unit_test(test_warning_text),
		cmocka_unit_test(test_finish_flags),
		cmocka_unit_test(test_decider_walk),
	};
	const struct CMUnitTest other[] = {
		cmocka_unit_test(test_finish_refusals),
		cmocka_unit_test(test_equal_length_tiebreak),
		cmocka_unit_test(test_remove_path),
		cmocka_unit_test(test_many_rules),
		cmocka_unit_test(test_add_rule),
		cmocka_unit_test(test_policy_for_run),
		cmocka_unit_test(test_exec_table),
		cmocka_unit_test(test_exec_full_path_rule),
		cmocka_unit_test(test_glob_table),
		cmocka_unit_test(test_suffix_basename),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_parse_modes),
		cmocka_unit_test(test_net_allow),
		cmocka_unit_test(test_net_override),
		cmocka_unit_test(test_intern),
	};
	int fails = 0;

	fails += cmocka_run_group_tests_name("policy_decisions", table,
					     setup_pols, teardown_pols);
	fails += cmocka_run_group_tests_name("policy_parts", other, NULL, NULL);
	return fails ? 1 : 0;
}
