/*
 * seatbelt_put.c - writing the Seatbelt profile from the model seatbelt.c
 * built: the header, the path rules (one rule per kept root and class,
 * its subtree minus the roots inside it that decide otherwise), the
 * traversal directories, the rename guards, the exec rules.  How and
 * why is explained at the top of seatbelt.c.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "seatbelt_int.h"

static int str_cmp(const void *a, const void *b)
{
	return sbx_path_cmp(*(char *const *)a, *(char *const *)b);
}

static const char *const class_ops[2] = {
	"file-read* process-exec file-map-executable",
	"file-write*",
};

/* ------------------------------------------------------------ writing */

static void put_str(struct gen *g, const char *s)
{
	sbx_sbpl_string(g->f, s, strlen(s));
}

static void put_regex(struct gen *g, const char *path, int subtree)
{
	char *re = sbx_sbpl_path_regex(path, subtree);

	if (!re) {
		g->oom = 1;
		return;
	}
	put_str(g, re);
	free(re);
}

static void put_filter(struct gen *g, const char *kind, const char *path)
{
	fprintf(g->f, "(%s ", kind);
	put_str(g, path);
	fputc(')', g->f);
}

/* "; "/root" hide, from "default.conf":19" */
static void node_comment(struct gen *g, const struct node *n)
{
	const struct sbx_path_rule *r = n->rule;

	fputs("; ", g->f);
	put_str(g, n->root);
	fprintf(g->f, " %s", sbx_pmode_name(n->mode));
	if (!r) {
		fprintf(g->f, ": %s\n", n->why);
		return;
	}
	if (r->flags & SBX_RF_PROJECT)
		fputs(", the project", g->f);
	if (r->flags & SBX_RF_TMP)
		fputs(", /tmp (shared with the host: see the NOTE above)",
		      g->f);
	if (r->flags & SBX_RF_PROTECT)
		fputs(", protected", g->f);
	fputs(", from ", g->f);
	put_str(g, r->src.file ? sbx_basename(r->src.file) : "?");
	if (r->src.line > 0)
		fprintf(g->f, ":%d", r->src.line);
	fputc('\n', g->f);
}

/* The policy's rules that have no node: named, with the reason. */
static void skipped_rules(struct gen *g)
{
	for (size_t i = 0; i < g->p->nrules; i++) {
		const struct sbx_path_rule *r = &g->p->rules[i];
		const char *why = NULL;

		if (sbx_path_within(r->root, "/dev", 4))
			why = "devices are the platform section's (above)";
		else if (g->tmpdir[0] && (r->flags & SBX_RF_TMP))
			why = "the policy's /tmp, replaced by the private "
			      "temporary directory";
		if (!why)
			continue;
		fputs("; ", g->f);
		put_str(g, r->root);
		fprintf(g->f, " %s: %s\n", sbx_pmode_name(r->mode), why);
	}
}

static size_t nkids(const struct gen *g, size_t k, int c)
{
	size_t m = 0;

	for (size_t i = k + 1; i < g->nn; i++)
		m += g->n[i].kept[c] && g->n[i].parent[c] == (long)k;
	return m;
}

static size_t ntrav(const struct gen *g, size_t k, int c)
{
	size_t m = 0;

	for (size_t i = 0; c == CL_READ && i < g->nt; i++)
		m += g->t[i].owner == (long)k;
	return m;
}

/* Is path equal to root or below it, ignoring ASCII case? */
static int fold_within(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return 1;
	return strncasecmp(path, root, n) == 0 &&
	       (path[n] == '\0' || path[n] == '/');
}

/*
 * A deny root that is neither above k nor below it, but is so in some
 * case variant ("/a/B" hidden, "/a/b/c" writable): on a case-insensitive
 * volume they are the same place, and the deny must win there too, so k
 * excludes it.  Roots below k are excluded through k's children.
 */
static int case_overlap(const struct gen *g, size_t k, size_t j, int c)
{
	const struct node *a = &g->n[k], *d = &g->n[j];

	return !sbx_sb_allows(d, c) && !sbx_sb_within(a->root, d) &&
	       !sbx_sb_within(d->root, a) &&
	       (fold_within(a->root, d->root) || fold_within(d->root, a->root));
}

static size_t noverlap(const struct gen *g, size_t k, int c)
{
	size_t m = 0;

	for (size_t j = 0; j < g->nn; j++)
		m += case_overlap(g, k, j, c);
	return m;
}

/* An allow: the subtree minus the (deny) roots kept directly inside,
 * each excluded in every case variant, and minus the deny roots that
 * overlap it in another case. */
static void put_allow(struct gen *g, size_t k, int c)
{
	const struct node *n = &g->n[k];

	fprintf(g->f, "(allow %s", class_ops[c]);
	if (!nkids(g, k, c) && !noverlap(g, k, c)) {
		fputc(' ', g->f);
		put_filter(g, "subpath", n->root);
		fputs(")\n", g->f);
		return;
	}
	fputs("\n  (require-all\n    ", g->f);
	put_filter(g, "subpath", n->root);
	for (size_t i = k + 1; i < g->nn; i++) {
		if (!g->n[i].kept[c] || g->n[i].parent[c] != (long)k)
			continue;
		fputs("\n    (require-not ", g->f);
		put_filter(g, "subpath", g->n[i].root);
		fputs(")\n    (require-not (regex ", g->f);
		put_regex(g, g->n[i].root, 1);
		fputs("))", g->f);
	}
	for (size_t j = 0; j < g->nn; j++) {
		if (!case_overlap(g, k, j, c))
			continue;
		fputs("\n    (require-not (regex ", g->f);
		put_regex(g, g->n[j].root, 1);
		fputs("))", g->f);
	}
	fputs("))\n", g->f);
}

/* A deny: the subtree in every case variant, minus the exact (allow)
 * roots kept directly inside and the traversal directories. */
static void put_deny(struct gen *g, size_t k, int c)
{
	const struct node *n = &g->n[k];

	fprintf(g->f, "(deny %s", class_ops[c]);
	if (!nkids(g, k, c) && !ntrav(g, k, c)) {
		fputc(' ', g->f);
		put_filter(g, "subpath", n->root);
		fputs(" (regex ", g->f);
		put_regex(g, n->root, 1);
		fputs("))\n", g->f);
		return;
	}
	fputs("\n  (require-all\n    (require-any ", g->f);
	put_filter(g, "subpath", n->root);
	fputs(" (regex ", g->f);
	put_regex(g, n->root, 1);
	fputs("))", g->f);
	for (size_t i = k + 1; i < g->nn; i++) {
		if (!g->n[i].kept[c] || g->n[i].parent[c] != (long)k)
			continue;
		fputs("\n    (require-not ", g->f);
		put_filter(g, "subpath", g->n[i].root);
		fputc(')', g->f);
	}
	for (size_t i = 0; c == CL_READ && i < g->nt; i++) {
		if (g->t[i].owner != (long)k)
			continue;
		fputs("\n    (require-not ", g->f);
		put_filter(g, "literal", g->t[i].path);
		fputc(')', g->f);
	}
	fputs("))\n", g->f);
}

static void put_files(struct gen *g)
{
	fputs("\n;; ---------------------------------------------------------"
	      "--- files\n"
	      ";; The policy's path rules, parents first.  Each rule covers "
	      "its root\n"
	      ";; minus the roots inside it that decide differently, so no "
	      "two of\n"
	      ";; them overlap.  Denies match every ASCII case variant too; "
	      "allows\n"
	      ";; only the exact path.\n",
	      g->f);
	skipped_rules(g);
	for (size_t k = 0; k < g->nn; k++) {
		const struct node *n = &g->n[k];

		node_comment(g, n);
		if (n->flags & N_NOEMIT)
			continue;
		if (!n->kept[CL_READ] && !n->kept[CL_WRITE])
			fputs(";   decided as the root above it\n", g->f);
		for (int c = CL_READ; c <= CL_WRITE; c++) {
			if (!n->kept[c])
				continue;
			if (sbx_sb_allows(n, c))
				put_allow(g, k, c);
			else
				put_deny(g, k, c);
		}
	}
}

static void put_traversal(struct gen *g)
{
	char **v;

	if (!g->nt)
		return;
	v = malloc(g->nt * sizeof(*v));
	if (!v) {
		g->oom = 1;
		return;
	}
	for (size_t i = 0; i < g->nt; i++)
		v[i] = g->t[i].path;
	qsort(v, g->nt, sizeof(*v), str_cmp);
	fputs("\n;; Directories on the way to readable roots inside hidden "
	      "ones: their\n"
	      ";; own metadata only (stat, for realpath and getcwd), as the "
	      "empty\n"
	      ";; directories Linux shows there.\n"
	      "(allow file-read-metadata",
	      g->f);
	for (size_t i = 0; i < g->nt; i++) {
		fputs("\n  ", g->f);
		put_filter(g, "literal", v[i]);
	}
	fputs(")\n", g->f);
	free(v);
}

static void put_unlink(struct gen *g)
{
	if (!g->nunl)
		return;
	fputs("\n;; Writable directories above protected and hidden roots: "
	      "renaming or\n"
	      ";; removing one would carry what is below out from under its "
	      "rule\n"
	      ";; (FS-05; on Linux each is a mount point).  This overlaps the "
	      "allows\n"
	      ";; above and wins as the later rule.\n"
	      "(deny file-write-unlink",
	      g->f);
	for (size_t i = 0; i < g->nunl; i++) {
		fputs("\n  ", g->f);
		put_filter(g, "literal", g->unl[i]);
		fputs(" (regex ", g->f);
		put_regex(g, g->unl[i], 0);
		fputc(')', g->f);
	}
	fputs(")\n", g->f);
}

/* Exec rules without arguments, by program name; those with arguments
 * need argv, which only the shim sees. */
static void put_exec(struct gen *g)
{
	const struct sbx_policy *p = g->p;

	if (!p->nexec)
		return;
	fputs("\n;; Programs the policy refuses to run.  These overlap the "
	      "readable\n"
	      ";; roots above and win as the later rule.\n",
	      g->f);
	for (size_t i = 0; i < p->nexec; i++) {
		const struct sbx_exec_rule *e = &p->exec[i];
		int never;
		char *re;

		fputs("; ", g->f);
		put_str(g, e->program);
		if (e->nargs) {
			fputs(" with arguments: the shim's (argv is not "
			      "visible here)\n",
			      g->f);
			continue;
		}
		fputs(": ", g->f);
		put_str(g, e->reason ? e->reason : "");
		fputc('\n', g->f);
		re = sbx_sbpl_glob_regex(e->program, &never);
		if (!re) {
			if (never)
				fputs(";   matches no program name\n", g->f);
			else
				g->oom = 1;
			continue;
		}
		fputs("(deny process-exec (regex ", g->f);
		put_str(g, re);
		fputs("))\n", g->f);
		free(re);
	}
}

static void put_header(struct gen *g)
{
	const struct sbx_policy *p = g->p;

	fputs(";; sbxrun Seatbelt profile (SBPL), generated from the policy ",
	      g->f);
	/* a profile given as a file: its name, not where it lies */
	put_str(g, p->profile ? sbx_basename(p->profile) : "default");
	fputs(".\n;; project: ", g->f);
	put_str(g, p->project);
	fputs("\n;; working directory: ", g->f);
	put_str(g, g->workdir);
	fputs("\n;; private temporary directory: ", g->f);
	if (g->tmpdir[0])
		put_str(g, g->tmpdir);
	else
		fputs("none", g->f);
	fputs("\n;; Use: cd to the working directory, then\n"
	      ";;   sandbox-exec -f THIS_FILE COMMAND [ARG...]\n",
	      g->f);
	if (!g->tmpdir[0])
		fputs("; NOTE: no private /tmp: Seatbelt cannot give one, so "
		      "the policy's\n"
		      ";   /tmp rule applies to the host's /tmp, shared with "
		      "everything\n"
		      ";   outside.  Point TMPDIR there (TMPDIR=/tmp); the "
		      "sbxrun launcher\n"
		      ";   will give each run a private directory instead.\n",
		      g->f);
	sbx_sb_network_notes(g->f, p, g->o);
	fputs(";; Not in this profile (the sbxrun launcher's job): the "
	      "environment\n"
	      ";; (sandbox-exec passes yours, secrets included: run under "
	      "env -i with\n"
	      ";; what you mean to keep), limits and the timeout, exec "
	      "rules with\n"
	      ";; arguments, suffix and size rules, explanations of "
	      "refusals.\n"
	      "\n(version 1)\n(deny default)\n\n",
	      g->f);
}

void sbx_sb_put_all(struct gen *g)
{
	put_header(g);
	sbx_sb_platform(g->f);
	fputc('\n', g->f);
	sbx_sb_network(g->f, g->p, g->o, g->tmpdir[0] ? g->tmpdir : NULL);
	put_files(g);
	put_traversal(g);
	put_unlink(g);
	put_exec(g);
	fputs("\n;; Set-user-ID and set-group-ID bits cannot be set "
	      "(PERS-01).\n"
	      "(deny file-write-setugid)\n",
	      g->f);
}
