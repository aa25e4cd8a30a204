/*
 * seatbelt.c - a Seatbelt (SBPL) profile from the policy.
 *
 * The profile starts from (deny default).  The path rules become allow
 * and deny rules in two classes: reading (file-read*, and exec and
 * executable mappings, which the policy decides as reads) and writing
 * (file-write*).  In each class every rule root decides "allow" or
 * "deny" (rw: both allowed; ro: read; hide: neither).
 *
 * The policy's rule is "the longest root that contains the path
 * decides".  Seatbelt lets the last matching rule decide (what srt and
 * the other generators rely on, and what their macOS tests show), but
 * this generator does not lean on that for the path rules: per class it
 * keeps only the roots whose decision differs from the root above them,
 * and writes each kept root as its subtree MINUS the kept roots directly
 * inside it.  No two of those rules overlap, so each path is decided by
 * exactly one of them (or by the default deny), whatever the precedence;
 * they are still written parents first.  The test's evaluator
 * (tests/unit/sbpl.h) checks every decision against the policy's, under
 * "last match wins", "first match wins" and "deny wins" alike.
 *
 * Case: APFS is case-insensitive by default.  Whether Seatbelt matches
 * the path as typed or as stored is not documented, so every deny (and
 * every exclusion of a deny from an allow) also matches all ASCII case
 * variants, through a regex; allows match the exact path only.  A case
 * variant of a hidden path is therefore never readable (FS-07).  Where
 * two roots are the same place only in another case ("/a/B" hidden,
 * "/a/b/c" readable), the allow excludes the deny too: the deny wins.
 *
 * Three kinds of rule do overlap the path rules and are written after
 * them, so they win as the later rule (and under "deny wins"):
 *  - renames: a protected or hidden path below a writable root would
 *    move out from under its rule if a writable directory above it were
 *    renamed (`mv .git g; edit g/hooks/...; mv g .git`, FS-05); those
 *    directories get (deny file-write-unlink), as on Linux each of them
 *    is a mount point;
 *  - exec rules without arguments: (deny process-exec) by name;
 *  - set-user-ID bits (PERS-01).
 * One kind of allow is carved out of the denies instead of relying on
 * order: the directories on the way to a readable root inside a hidden
 * one get their own metadata (stat, for realpath and getcwd), nothing
 * else, like the empty directories Linux shows there.
 *
 * /dev is taken out of the path rules and given to the platform section
 * (seatbelt_base.c).  With a private temporary directory from the
 * launcher, it replaces the policy's /tmp rule; the host's /tmp then
 * falls under the rule above it (read-only in the shipped profiles).
 *
 * This file builds the model (the roots, which of them each class keeps,
 * the traversal and rename sets); seatbelt_put.c writes it.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "seatbelt_int.h"

const char *const sbx_seatbelt_home_hides[] = {
	"Library/Keychains",
	"Library/Cookies",
	"Library/Safari",
	"Library/Mail",
	"Library/Messages",
	"Library/Application Support/com.apple.TCC",
	"Library/Application Support/Google/Chrome",
	"Library/Application Support/Firefox",
	NULL,
};

static int grow(void **v, size_t *cap, size_t n, size_t sz)
{
	size_t nc = *cap ? *cap * 2 : 16;
	void *nv;

	if (n < *cap)
		return 0;
	nv = realloc(*v, nc * sz);
	if (!nv)
		return -1;
	*v = nv;
	*cap = nc;
	return 0;
}

/* ------------------------------------------------------------ nodes */

static int add_node(struct gen *g, const char *root, enum sbx_pmode mode,
		    unsigned flags, const struct sbx_path_rule *r,
		    const char *why)
{
	struct node *n;

	if (grow((void **)&g->n, &g->capn, g->nn, sizeof(*g->n)) < 0)
		return -1;
	n = &g->n[g->nn];
	memset(n, 0, sizeof(*n));
	n->root = strdup(root);
	if (!n->root)
		return -1;
	n->len = strlen(root);
	n->mode = mode;
	n->flags = flags;
	n->rule = r;
	n->why = why;
	g->nn++;
	return 0;
}

static int has_root(const struct gen *g, const char *root)
{
	for (size_t i = 0; i < g->nn; i++)
		if (strcmp(g->n[i].root, root) == 0)
			return 1;
	return 0;
}

/* The policy's rules, except /dev (the platform's) and, with a private
 * temporary directory, the /tmp rule it replaces. */
static int policy_nodes(struct gen *g)
{
	for (size_t i = 0; i < g->p->nrules; i++) {
		const struct sbx_path_rule *r = &g->p->rules[i];

		if (sbx_path_within(r->root, "/dev", 4))
			continue;
		if (g->tmpdir[0] && (r->flags & SBX_RF_TMP))
			continue;
		if (add_node(g, r->root, r->mode, 0, r, NULL) < 0)
			return -1;
	}
	return 0;
}

/* The generator's own roots, each only where the policy has none. */
static int made_nodes(struct gen *g)
{
	char path[PATH_MAX];

	if (add_node(g, "/dev", SBX_HIDE, N_NOEMIT, NULL,
		     "devices: the platform section") < 0)
		return -1;
	if (g->tmpdir[0] && !has_root(g, g->tmpdir) &&
	    add_node(g, g->tmpdir, SBX_RW, 0, NULL,
		     "the private temporary directory") < 0)
		return -1;
	if (!g->p->home || g->p->home[0] != '/')
		return 0;
	for (size_t i = 0; sbx_seatbelt_home_hides[i]; i++) {
		int n = snprintf(path, sizeof(path), "%s/%s",
				 strcmp(g->p->home, "/") ? g->p->home : "",
				 sbx_seatbelt_home_hides[i]);

		if (n < 0 || (size_t)n >= sizeof(path) || has_root(g, path))
			continue;
		if (add_node(g, path, SBX_HIDE, 0, NULL,
			     "a macOS secret, hidden by the generator") < 0)
			return -1;
	}
	return 0;
}

/* Tree order (parents first, see sbx_path_cmp); at an equal root the
 * rule that decides there first. */
static int node_cmp(const void *a, const void *b)
{
	const struct node *x = a, *y = b;
	int c = sbx_path_cmp(x->root, y->root);

	if (c)
		return c;
	return (int)y->mode - (int)x->mode;
}

/* Per class, keep the roots whose decision differs from the kept root
 * above them; the others add nothing. */
static int classify(struct gen *g, int c)
{
	long *st = malloc((g->nn + 1) * sizeof(*st));
	long top = -1;

	if (!st)
		return -1;
	for (size_t i = 0; i < g->nn; i++) {
		struct node *n = &g->n[i];
		int above;

		while (top >= 0 && !sbx_sb_within(n->root, &g->n[st[top]]))
			top--;
		above = top >= 0 && sbx_sb_allows(&g->n[st[top]], c);
		n->kept[c] = sbx_sb_allows(n, c) != above;
		n->parent[c] = top >= 0 ? st[top] : -1;
		if (n->kept[c])
			st[++top] = (long)i;
	}
	free(st);
	return 0;
}

/* The kept node that decides path in class c, or -1 (default deny). */
long sbx_sb_decider(const struct gen *g, int c, const char *path)
{
	long best = -1;

	for (size_t i = 0; i < g->nn; i++)
		if (g->n[i].kept[c] && sbx_sb_within(path, &g->n[i]) &&
		    (best < 0 || g->n[i].len > g->n[best].len))
			best = (long)i;
	return best;
}

static int decides_allow(const struct gen *g, int c, const char *path)
{
	long d = sbx_sb_decider(g, c, path);

	return d >= 0 && sbx_sb_allows(&g->n[d], c);
}

/* Call fn for every proper ancestor directory of root, "/" included. */
static int each_ancestor(struct gen *g, const char *root,
			 int (*fn)(struct gen *g, const char *dir))
{
	char dir[PATH_MAX];
	size_t len = strlen(root);

	if (len >= sizeof(dir) || strcmp(root, "/") == 0)
		return 0;
	memcpy(dir, root, len + 1);
	while (len > 1) {
		while (len > 1 && dir[len - 1] != '/')
			len--;
		if (len > 1)
			len--;
		dir[len] = '\0';
		if (fn(g, dir) < 0)
			return -1;
	}
	return 0;
}

static int add_trav(struct gen *g, const char *dir)
{
	long d = sbx_sb_decider(g, CL_READ, dir);

	if (d >= 0 && sbx_sb_allows(&g->n[d], CL_READ))
		return 0;
	for (size_t i = 0; i < g->nt; i++)
		if (strcmp(g->t[i].path, dir) == 0)
			return 0;
	if (grow((void **)&g->t, &g->capt, g->nt, sizeof(*g->t)) < 0)
		return -1;
	g->t[g->nt].path = strdup(dir);
	if (!g->t[g->nt].path)
		return -1;
	g->t[g->nt++].owner = d >= 0 && !(g->n[d].flags & N_NOEMIT) ? d : -1;
	return 0;
}

static int add_unlink(struct gen *g, const char *dir)
{
	if (!decides_allow(g, CL_WRITE, dir))
		return 0;
	for (size_t i = 0; i < g->nunl; i++)
		if (strcmp(g->unl[i], dir) == 0)
			return 0;
	if (grow((void **)&g->unl, &g->capunl, g->nunl, sizeof(*g->unl)) < 0)
		return -1;
	g->unl[g->nunl] = strdup(dir);
	return g->unl[g->nunl++] ? 0 : -1;
}

static int str_cmp(const void *a, const void *b)
{
	return sbx_path_cmp(*(char *const *)a, *(char *const *)b);
}

/* Traversal directories (above readable roots in hidden ones) and the
 * writable directories above every write-denied root. */
static int derive(struct gen *g)
{
	for (size_t i = 0; i < g->nn; i++) {
		const struct node *n = &g->n[i];

		if (n->kept[CL_READ] && sbx_sb_allows(n, CL_READ) &&
		    each_ancestor(g, n->root, add_trav) < 0)
			return -1;
		if (n->kept[CL_WRITE] && !sbx_sb_allows(n, CL_WRITE) &&
		    each_ancestor(g, n->root, add_unlink) < 0)
			return -1;
	}
	if (g->nunl)
		qsort(g->unl, g->nunl, sizeof(*g->unl), str_cmp);
	return 0;
}

/* ------------------------------------------------------------ entry */

static int check_opts(struct gen *g)
{
	const struct sbx_policy *p = g->p;
	const struct sbx_seatbelt_opts *o = g->o;
	const char *wd = o->workdir ? o->workdir : p->project;

	if (!p->project || p->project[0] != '/')
		return sbx_errf(g->err, 0,
				"seatbelt: the policy has no "
				"project directory");
	if (o->proxy_port > 65535)
		return sbx_errf(g->err, 0, "seatbelt: bad proxy port %u",
				o->proxy_port);
	if (sbx_path_norm(wd, p->project, p->home, 0, g->workdir,
			  sizeof(g->workdir)) < 0)
		return sbx_errf(g->err, errno, "seatbelt: working directory");
	if (!o->tmpdir)
		return 0;
	if (o->tmpdir[0] != '/' ||
	    sbx_path_norm(o->tmpdir, "/", NULL, 0, g->tmpdir,
			  sizeof(g->tmpdir)) < 0 ||
	    strcmp(g->tmpdir, "/") == 0)
		return sbx_errf(g->err, 0,
				"seatbelt: the private temporary directory "
				"must be an absolute path below /");
	return 0;
}

static void gen_free(struct gen *g)
{
	for (size_t i = 0; i < g->nn; i++)
		free(g->n[i].root);
	free(g->n);
	for (size_t i = 0; i < g->nt; i++)
		free(g->t[i].path);
	free(g->t);
	for (size_t i = 0; i < g->nunl; i++)
		free(g->unl[i]);
	free(g->unl);
}

static int build(struct gen *g)
{
	if (policy_nodes(g) < 0 || made_nodes(g) < 0)
		return sbx_errf(g->err, 0, "seatbelt: out of memory");
	qsort(g->n, g->nn, sizeof(*g->n), node_cmp);
	if (classify(g, CL_READ) < 0 || classify(g, CL_WRITE) < 0 ||
	    derive(g) < 0)
		return sbx_errf(g->err, 0, "seatbelt: out of memory");
	if (!decides_allow(g, CL_READ, g->workdir))
		return sbx_errf(g->err, 0,
				"seatbelt: the working directory '%s' is "
				"not readable under the policy",
				g->workdir);
	return 0;
}

int sbx_seatbelt_profile(const struct sbx_policy *p,
			 const struct sbx_seatbelt_opts *o, char **out,
			 size_t *len, struct sbx_err *err)
{
	static const struct sbx_seatbelt_opts none = { 0 };
	struct gen g;
	char *buf = NULL;
	size_t n = 0;
	int bad;

	*out = NULL;
	*len = 0;
	memset(&g, 0, sizeof(g));
	g.p = p;
	g.o = o ? o : &none;
	g.err = err;
	if (check_opts(&g) < 0 || build(&g) < 0) {
		gen_free(&g);
		return -1;
	}
	g.f = open_memstream(&buf, &n);
	if (!g.f) {
		gen_free(&g);
		return sbx_errf(err, errno, "seatbelt");
	}
	sbx_sb_put_all(&g);
	bad = ferror(g.f) || g.oom;
	if (fclose(g.f) != 0 || bad) {
		free(buf);
		gen_free(&g);
		return sbx_errf(err, 0, "seatbelt: out of memory");
	}
	gen_free(&g);
	*out = buf;
	*len = n;
	return 0;
}
