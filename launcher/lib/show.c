/*
 * show.c - what sbxrun shows about a policy without running anything:
 * the effective rules (--list-paths, --dry-run) and the kernel plan of
 * the backend (--dry-run, --status), as text for the caller to print.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <unistd.h>
#include "api.h"
#include "env.h"
#include "explain.h"
#include "kernel.h"
#include "text.h"

static void show_rule(struct sbx_text *t, const struct sbx_path_rule *r)
{
	char src[600];

	sbx_src_format(src, sizeof(src), r->src);
	sbx_text_add(t, "%-5s %s", sbx_pmode_name(r->mode), r->root);
	if (r->flags & SBX_RF_PROTECT)
		sbx_text_add(t, "  [protected]");
	if (r->flags & SBX_RF_PROJECT)
		sbx_text_add(t, "  [project]");
	if (r->flags & SBX_RF_TMP)
		/* private in full mode only: landlock-only shares the host's (E-01) */
		sbx_text_add(t, "  [/tmp: private in full mode]");
	for (size_t i = 0; i < r->nsuffixes; i++)
		sbx_text_add(t, "%s%s",
			     i ? "," : "  suffixes=", r->suffixes[i]);
	if (r->max_file_bytes)
		sbx_text_add(t, "  max_file_bytes=%llu",
			     (unsigned long long)r->max_file_bytes);
	sbx_text_add(t, "  (%s)\n", src);
}

static int rule_cmp(const void *a, const void *b)
{
	const struct sbx_path_rule *x = a, *y = b;

	return strcmp(x->root, y->root);
}

char *sbx_cli_list_paths(const sbx_t *s)
{
	const struct sbx_policy *p = &s->pol;
	struct sbx_path_rule *v = malloc(p->nrules * sizeof(*v) + 1);
	struct sbx_text t = { 0 };

	if (!v)
		return NULL;
	memcpy(v, p->rules, p->nrules * sizeof(*v));
	qsort(v, p->nrules, sizeof(*v), rule_cmp);
	sbx_text_add(&t, "# profile %s, project %s\n", p->profile, p->project);
	for (size_t i = 0; i < p->nrules; i++)
		show_rule(&t, &v[i]);
	free(v);
	return sbx_text_take(&t);
}

static void show_limits(struct sbx_text *t, const struct sbx_policy *p)
{
	sbx_text_add(t,
		     "\nlimits: timeout=%llus cpu=%llus memory=%llu "
		     "nofile=%llu nproc=%llu fsize=%llu\nfallback: %s\n",
		     (unsigned long long)p->limits.timeout,
		     (unsigned long long)p->limits.cpu,
		     (unsigned long long)p->limits.memory,
		     (unsigned long long)p->limits.nofile,
		     (unsigned long long)p->limits.nproc,
		     (unsigned long long)p->limits.fsize,
		     p->fallback == SBX_FALLBACK_WARN ? "warn" : "deny");
	if (p->redirect_caches)
		sbx_text_add(t, "caches redirected to: %s%s\n", p->cache_dir,
			     sbx_env_cargo_kept(p, environ)
				     ? " (not CARGO_HOME: it holds cargo's "
				       "config)"
				     : "");
}

/* env.keep, one line per source: "env keep: A, B (FILE:LINE)", so
 * --trust can name what an in-repo conf lets through. */
static void show_env_keep(struct sbx_text *t, const struct sbx_policy *p)
{
	const struct sbx_strv *k = &p->env_keep;
	char src[600];

	for (size_t i = 0; i < k->n;) {
		size_t j = i;

		sbx_text_add(t, "env keep: ");
		for (; j < k->n && k->src[j].file == k->src[i].file &&
		       k->src[j].line == k->src[i].line;
		     j++)
			sbx_text_add(t, "%s%s", j > i ? ", " : "", k->v[j]);
		sbx_src_format(src, sizeof(src), k->src[i]);
		sbx_text_add(t, " (%s)\n", src);
		i = j;
	}
}

static void show_policy(struct sbx_text *t, const struct sbx_policy *p)
{
	char src[600];

	sbx_text_add(t, "profile: %s\nproject: %s\n\npaths:\n", p->profile,
		     p->project);
	for (size_t i = 0; i < p->nrules; i++) {
		sbx_text_add(t, "  ");
		show_rule(t, &p->rules[i]);
	}
	sbx_src_format(src, sizeof(src), p->net_src);
	sbx_text_add(t, "\nnetwork: %s (%s)\n", sbx_net_name(p->net), src);
	for (size_t i = 0; i < p->nallow; i++)
		sbx_text_add(t, "  allow %s\n", p->allow[i].text);
	for (size_t i = 0; i < p->unix_sockets.n; i++)
		sbx_text_add(t, "  unix socket %s\n", p->unix_sockets.v[i]);
	if (p->inject != SBX_INJECT_EACH) {
		sbx_src_format(src, sizeof(src), p->inject_src);
		sbx_text_add(t, "\ninject: %s (%s)%s\n",
			     p->inject == SBX_INJECT_TOOL ? "tool"
							  : "shim-only",
			     src,
			     p->inject == SBX_INJECT_SHIM
				     ? ": sbxrun-sh outside a sandbox is "
				       "ADVISORY, no sandbox"
				     : "");
	}
	if (p->env_keep.n) {
		sbx_text_add(t, "\n");
		show_env_keep(t, p);
	}
	sbx_text_add(t, "\nexec deny rules: %zu\n", p->nexec);
	for (size_t i = 0; i < p->nexec; i++)
		sbx_text_add(t, "  %s%s: %s\n", p->exec[i].program,
			     p->exec[i].nargs ? " (with args)" : "",
			     p->exec[i].reason);
	show_limits(t, p);
}

static const char *enf_label(enum sbx_enf e)
{
	switch (e) {
	case SBX_ENF_KERNEL: return "kernel";
	case SBX_ENF_ADVISORY: return "advisory";
	case SBX_ENF_NONE: return "not enforced";
	case SBX_ENF_LAUNCHER: return "launcher";
	case SBX_ENF_PARTIAL: return "partial";
	}
	return "?";
}

static void show_plan(struct sbx_text *t, const struct sbx_policy *p,
		      enum sbx_kmode mode, const struct sbx_features *f)
{
	struct sbx_plan *plan = malloc(sizeof(*plan));

	if (!plan) {
		t->bad = 1;
		return;
	}
	sbx_backend()->plan(p, mode, f, plan);
	sbx_text_add(t, "kernel plan: %s\n", plan->head);
	for (size_t i = 0; i < plan->nrows; i++)
		sbx_text_add(t, "  %-42s %s (%s)\n", plan->rows[i].what,
			     enf_label(plan->rows[i].enf), plan->rows[i].how);
	for (size_t i = 0; i < plan->nnotes; i++)
		sbx_text_add(t, "  note: %s\n", plan->notes[i]);
	free(plan);
}

char *sbx_cli_dry_run(const sbx_t *s)
{
	const struct sbx_backend *b = sbx_backend();
	struct sbx_text t = { 0 };
	struct sbx_features *f = b->probe(0);
	struct sbx_err err;
	enum sbx_kmode mode;

	if (!f)
		return NULL;
	show_policy(&t, &s->pol);
	if (b->resolve(s->mode, f, &mode, &err) < 0) {
		sbx_text_add(&t, "\nkernel plan: none: %s\n", err.msg);
		mode = b->fallback(f);
	}
	sbx_text_add(&t, "\nkernel plan (%s mode):\n", b->mode_name(mode));
	show_plan(&t, &s->pol, mode, f);
	free(f);
	return sbx_text_take(&t);
}

static void show_features(struct sbx_text *t, const struct sbx_features *f)
{
	struct sbx_feature_line v[SBX_MAX_FEATURE_LINES];
	size_t n = sbx_backend()->feature_lines(f, v, SBX_MAX_FEATURE_LINES);

	for (size_t i = 0; i < n; i++)
		sbx_text_add(t, "%s: %s%s%s%s\n", v[i].name,
			     v[i].have ? "yes" : "no",
			     !v[i].detail[0] ? ""
			     : v[i].have     ? " ("
					     : " -- ",
			     v[i].detail,
			     v[i].have && v[i].detail[0] ? ")" : "");
}

/* The mode line of --status: the mode a run here will use, and when it
 * is weaker than full mode, why, what and the fix, or that fallback =
 * deny refuses it.  0 when a run would start. */
static int show_mode(struct sbx_text *t, const sbx_t *s, enum sbx_kmode asked,
		     const struct sbx_features *f, enum sbx_kmode *mode)
{
	const struct sbx_backend *b = sbx_backend();
	struct sbx_err err;
	char why[sizeof err.msg];

	if (b->resolve(asked, f, mode, &err) < 0 ||
	    (s && b->check(&s->pol, *mode, &err) < 0)) {
		sbx_text_add(t, "mode: none: %s\n", err.msg);
		return -1;
	}
	if (!b->weaker(s ? &s->pol : NULL, asked, *mode, f, why, sizeof why)) {
		sbx_text_add(t, "mode: %s\n", b->mode_name(*mode));
		return 0;
	}
	if (s && s->pol.fallback != SBX_FALLBACK_WARN) {
		sbx_text_add(t,
			     "mode: none: fallback = \"deny\" refuses a "
			     "sandbox weaker than full mode: %s\n",
			     why);
		return -1;
	}
	sbx_text_add(t,
		     "mode: %s, weaker than full mode (fallback = warn): %s\n",
		     b->mode_name(*mode), why);
	return 0;
}

int sbx_cli_status(const struct sbx_opts *o, char **text)
{
	const struct sbx_backend *b = sbx_backend();
	struct sbx_text t = { 0 };
	struct sbx_features *f = b->probe(0);
	enum sbx_kmode mode, asked;
	sbx_t *s = NULL;
	int ok;

	*text = NULL;
	if (!f)
		return -1;
	if (sbx_open(&s, o, NULL, 0) != SBX_OK)
		s = NULL;
	asked = s ? s->mode : o ? (enum sbx_kmode)o->mode : SBX_KMODE_AUTO;
	sbx_text_add(&t, "sbxrun %s\n", sbx_version());
	show_features(&t, f);
	ok = show_mode(&t, s, asked, f, &mode) == 0;
	if (ok && s) {
		sbx_text_add(&t, "\n");
		show_plan(&t, &s->pol, mode, f);
	}
	if (s)
		sbx_close(s);
	free(f);
	*text = sbx_text_take(&t);
	return ok ? 0 : -1;
}

/* A write refused as read-only, and who holds it in the mode a run here
 * gets (review W-17): the policy's verdict alone said "read-only" for a
 * protected path that is missing (nothing can be mounted on a name
 * without an inode: the command may create it) and, in landlock-only
 * mode, for a read-only hole in a writable tree (only the shim holds it:
 * a static program or a raw system call is not refused). */
int sbx_cli_check_hold(sbx_t *s, const char *path, char *buf, size_t sz)
{
	const struct sbx_backend *b = sbx_backend();
	struct sbx_features *f = b->probe(0);
	struct sbx_path_decision d;
	enum sbx_kmode mode = SBX_KMODE_FULL;
	struct sbx_err err;
	struct sbx_cpol v;
	char abs[PATH_MAX];
	const char *why;
	void *cb = NULL;
	size_t cl;
	struct stat st;
	int r = SBX_HOLD_KERNEL;

	if (f && b->resolve(s->mode, f, &mode, &err) < 0)
		mode = b->fallback(f);
	free(f);
	if (sbx_resolve(s, path, abs, sizeof(abs)) != SBX_OK ||
	    sbx_cpol_build(&s->pol, mode, b->cpol_flags(mode), &cb, &cl, &err) <
		    0)
		return SBX_HOLD_KERNEL;
	if (sbx_cpol_view(cb, cl, &v, &why) == 0) {
		d = sbx_decide(&v, abs, SBX_OP_WRITE, -1);
		if (d.verdict != SBX_DENY_READONLY || !d.rule)
			r = SBX_HOLD_KERNEL;
		else if ((d.rule->flags & SBX_RF_PROTECT) &&
			 lstat(sbx_cpol_str(&v, d.rule->root), &st) < 0)
			r = SBX_HOLD_ABSENT;
		else if (d.app)
			r = SBX_HOLD_SHIM;
	}
	free(cb);
	snprintf(buf, sz, "%s",
		 r == SBX_HOLD_ABSENT
			 ? "protected, but missing now: no run can hold a "
			   "missing name read-only, so the command can create "
			   "it; sbxrun moves what it created aside at exit "
			   "and warns"
		 : r == SBX_HOLD_SHIM
			 ? "in landlock-only mode only sbxrun's shim refuses "
			   "this write: a static program or a raw system call "
			   "can write it during the run, and sbxrun sets it "
			   "aside at exit and warns (full mode holds it in "
			   "the kernel)"
			 : "");
	return r;
}
