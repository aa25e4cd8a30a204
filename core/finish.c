/*
 * finish.c - from the merged tiers to the policy a run uses.
 *
 * sbx_policy_finish() runs once, after loading: the project directory is
 * checked and becomes a writable root, /tmp becomes the private one,
 * protect entries become read-only rules, and conf rules that would lift
 * a hide are dropped with a warning.  sbx_policy_for_run() makes the
 * immutable policy of one launch from that: a copy with the kernel mode's
 * own rules, the run's timeout, and the protected paths that are missing
 * right now marked.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy_impl.h"
#include "sb.h"

static int is_system_dir(const char *d)
{
	static const char *const sys[] = {
		"/",	  "/bin",  "/boot", "/dev", "/etc",  "/lib", "/lib32",
		"/lib64", "/proc", "/root", "/run", "/sbin", "/sys", "/usr",
		"/var",	  "/home", "/opt",  "/srv", "/tmp",  "/mnt", "/media",
	};
	for (size_t i = 0; i < sizeof(sys) / sizeof(sys[0]); i++)
		if (strcmp(d, sys[i]) == 0)
			return 1;
	return strncmp(d, "/usr/", 5) == 0 || strncmp(d, "/etc/", 5) == 0 ||
	       strncmp(d, "/proc/", 6) == 0 || strncmp(d, "/sys/", 5) == 0;
}

/* SEC-11, TIME-04: a writable project that holds a home, or a secret
 * hidden under one, would let the command rename the secret's parent out
 * of its rule, or write the startup files; the hide would not follow. */
static int check_project_secrets(const struct sbx_policy *p,
				 struct sbx_err *err)
{
	const char *homes[2] = { p->home, p->home_pw };
	size_t plen = strlen(p->project);

	for (int i = 0; i < 2; i++)
		if (homes[i] && sbx_path_within(homes[i], p->project, plen))
			return sbx_errf(
				err, 0,
				"refusing to make '%s' the writable project: "
				"it holds %s home directory '%s' (run from a "
				"project directory, or force with "
				"--unsafe-project)",
				p->project, i ? "the account's" : "your",
				homes[i]);
	for (size_t i = 0; i < p->nrules; i++) {
		const struct sbx_path_rule *r = &p->rules[i];

		if (r->mode == SBX_HIDE && (r->flags & SBX_RF_HOMEREL) &&
		    sbx_path_within(r->root, p->project, plen))
			return sbx_errf(
				err, 0,
				"refusing to make '%s' the writable project: "
				"it holds the hidden path '%s' (rule %s:%d), "
				"which a command could move out of its rule "
				"(run from a project directory, or force with "
				"--unsafe-project)",
				p->project, r->root,
				r->src.file ? r->src.file : "?", r->src.line);
	}
	return 0;
}

static int check_project(const struct sbx_policy *p, struct sbx_err *err)
{
	if (!p->project)
		return sbx_errf(err, 0, "no project directory");
	if (p->allow_unsafe_project)
		return 0;
	if (is_system_dir(p->project))
		return sbx_errf(
			err, 0,
			"refusing to make '%s' the writable project: "
			"it is a system directory (run from your project, "
			"use --workdir, or force with --unsafe-project)",
			p->project);
	if (p->home && strcmp(p->project, p->home) == 0)
		return sbx_errf(err, 0,
				"refusing to make your home directory '%s' "
				"the writable project (run from a project "
				"directory, or force with --unsafe-project)",
				p->project);
	return check_project_secrets(p, err);
}

/*
 * The review's class 14 (a name planted as a symlink by an earlier run
 * makes every later run and every hook call refuse to start): the
 * refusal says exactly how to repair it, each path one shell word
 * (sb_putsh).  Removing the link never touches its target, and a missing
 * protected path does not stop a run.  Git does not track what is in
 * .git/: `git init` in the work tree makes a default one again (config,
 * hooks, info); elsewhere a file or directory git tracks comes back with
 * git checkout (U-01: the advice was "mkdir" for what may be a file, and
 * git checkout for .git/config).
 */
static int symlinked_protect(const struct sbx_policy *p, const char *path,
			     struct sbx_err *err)
{
	const char *rel = path + strlen(p->project);
	char to[PATH_MAX], shown[PATH_MAX], q[3][PATH_MAX + 64];
	ssize_t n = readlink(path, to, sizeof(to) - 1);
	int in_git;
	struct sb b;

	to[n > 0 ? n : 0] = '\0';
	rel += *rel == '/';
	in_git = strncmp(rel, ".git/", 5) == 0;
	snprintf(shown, sizeof(shown), "%s", path);
	sb_init(&b, q[0], sizeof(q[0]));
	sb_putsh(&b, path);
	sb_init(&b, q[1], sizeof(q[1]));
	sb_putsh(&b, p->project);
	sb_init(&b, q[2], sizeof(q[2]));
	sb_putsh(&b, rel);
	return sbx_errf(err, 0,
			"protected path '%s' is a symbolic link (to '%s'), "
			"perhaps planted by a command run earlier; sbxrun "
			"cannot keep it read-only and runs nothing until it "
			"is removed. To repair: rm %s (removes the link only, "
			"not its target); then, if git %s it, git -C %s %s%s",
			sb_clean(shown), sb_clean(to), q[0],
			in_git ? "needs" : "tracks", q[1],
			in_git ? "init makes a default one again"
			       : "checkout -- ",
			in_git ? "" : q[2]);
}

/*
 * A protected name inside the project is taken as written, never through
 * a symlink: ".vscode -> /tmp" would otherwise turn the rule into "/tmp
 * read-only" (replacing the private /tmp), and a link can be swapped for a
 * real directory by the command while the mount covers the old target.
 * sbxrun cannot keep a link read-only, so it refuses to run.
 */
static int protect_root(struct sbx_policy *p, const char *e, char *out,
			size_t outsz, struct sbx_err *err)
{
	size_t plen = strlen(p->project);
	struct stat st;

	if (sbx_path_norm(e, p->project, p->home, 0, out, outsz) < 0)
		return sbx_errf(err, errno, "bad protected path '%s'", e);
	if (!sbx_path_within(out, p->project, plen))
		return sbx_path_norm(e, p->project, p->home, 1, out, outsz) < 0
			       ? sbx_errf(err, errno, "bad protected path '%s'",
					  e)
			       : 0;
	for (size_t i = plen + 1; i <= strlen(out); i++) {
		char save = out[i];

		if (save != '/' && save != '\0')
			continue;
		out[i] = '\0';
		/* missing (a listing says so: dircache.c): so is the rest,
		 * and no link is on the way */
		if (sbx_dircache_absent(out)) {
			out[i] = save;
			break;
		}
		if (lstat(out, &st) == 0 && S_ISLNK(st.st_mode))
			return symlinked_protect(p, out, err);
		out[i] = save;
	}
	return 0;
}

/* Protect entries become read-only rules (a hide of the same root from
 * the same file stays a hide: merge_same_root). */
static int add_protect(struct sbx_policy *p, struct sbx_err *err)
{
	char root[PATH_MAX];

	for (size_t i = 0; i < p->protect.n; i++) {
		struct sbx_rule pr = { .mode = SBX_RO,
				       .flags = SBX_RF_PROTECT,
				       .src = p->protect.src[i] };
		struct sbx_path_rule *old;

		if (protect_root(p, p->protect.v[i], root, sizeof(root), err) <
		    0)
			return -1;
		/* never turn the project or the private /tmp read-only */
		old = sbx_rule_find(p, root);
		if (old && (old->flags & (SBX_RF_PROJECT | SBX_RF_TMP)))
			continue;
		pr.root = root;
		if (sbx_rule_add_norm(p, root, &pr, err) < 0)
			return -1;
	}
	return 0;
}

/* A writable root (the project, a flag) between hide h and rule r: a
 * read-only protect rule there only narrows what is already visible. */
static int rw_between(const struct sbx_policy *p, const struct sbx_path_rule *h,
		      const struct sbx_path_rule *r)
{
	for (size_t k = 0; k < p->nrules; k++) {
		const struct sbx_path_rule *w = &p->rules[k];

		if (w->mode == SBX_RW && w->rootlen > h->rootlen &&
		    w->rootlen <= r->rootlen &&
		    sbx_path_within(r->root, w->root, w->rootlen) &&
		    (w->flags & (SBX_RF_PROJECT | SBX_RF_FLAG)))
			return 1;
	}
	return 0;
}

/* Is rule r lifting a hide (the test of drop_unhiding)? */
static int lifts(const struct sbx_policy *p, const struct sbx_path_rule *h,
		 const struct sbx_path_rule *r)
{
	return h->mode == SBX_HIDE && h->rootlen < r->rootlen &&
	       sbx_path_within(r->root, h->root, h->rootlen) &&
	       !((r->flags & SBX_RF_PROTECT) && rw_between(p, h, r));
}

static int may_lift(const struct sbx_path_rule *r)
{
	return r->mode != SBX_HIDE &&
	       !(r->flags & (SBX_RF_FLAG | SBX_RF_PROJECT | SBX_RF_TMP));
}

static int lifts_rw(const struct sbx_path_rule *w)
{
	return w->mode == SBX_RW && (w->flags & (SBX_RF_PROJECT | SBX_RF_FLAG));
}

/*
 * Which rules lift a hide, for every rule at once (cand[i] for
 * p->rules[i]).  Rule r lifts when some hide lies strictly above it,
 * unless r is a protect rule and a project or flag rw root w lies between
 * (below the hide, at or above r).  The deepest hide above r is the
 * hardest one to put a w under, so it alone decides.  Walking the roots
 * in tree order with a stack of ancestors finds the deepest hide and the
 * deepest w above every rule in O(n log n); asking every pair was O(n²)
 * and made a long conf slow to start.  Equal roots form one group: w may
 * sit at r's own root, a hide may not.
 */
struct anc {
	const char *root;
	size_t len;
	size_t hide, rw; /* root length of the deepest hide / w at or
				 * above this group, 0: none */
};

static int lifted_all(const struct sbx_policy *p, unsigned char *cand)
{
	const struct sbx_path_rule **v = sbx_policy_sorted(p);
	struct anc *st = malloc((p->nrules + 1) * sizeof(*st));
	size_t n = 0, i = 0, j, k;

	if (!v || !st) {
		free(v);
		free(st);
		return p->nrules ? -1 : 0;
	}
	while (i < p->nrules) {
		const struct sbx_path_rule *g = v[i];
		size_t hide = 0, rw = 0;

		while (n &&
		       !sbx_path_within(g->root, st[n - 1].root, st[n - 1].len))
			n--;
		if (n) {
			hide = st[n - 1].hide;
			rw = st[n - 1].rw;
		}
		for (j = i; j < p->nrules && strcmp(v[j]->root, g->root) == 0;
		     j++)
			if (lifts_rw(v[j]))
				rw = g->rootlen;
		for (k = i; k < j; k++)
			cand[v[k] - p->rules] =
				may_lift(v[k]) && hide &&
				(!(v[k]->flags & SBX_RF_PROTECT) || rw <= hide);
		for (k = i; k < j; k++)
			if (v[k]->mode == SBX_HIDE)
				hide = g->rootlen;
		st[n++] = (struct anc){ g->root, g->rootlen, hide, rw };
		i = j;
	}
	free(v);
	free(st);
	return 0;
}

/*
 * Conf rules under a hidden root would lift the hide: drop them.  The
 * table from lifted_all() only picks the candidates; each one still gets
 * the exact pairwise test, which also names the hide in the warning.
 * Without memory every rule is a candidate.  Whether a rule lifts never
 * depends on a dropped one (hides and project/flag roots stay), so the
 * table holds while rules move.
 */
static void drop_unhiding(struct sbx_policy *p)
{
	unsigned char *cand = calloc(p->nrules + 1, 1);
	int removed = 0;

	if (cand && lifted_all(p, cand) < 0) {
		free(cand);
		cand = NULL;
	}
	for (size_t i = 0; i < p->nrules; i++) {
		struct sbx_path_rule *r = &p->rules[i];
		const struct sbx_path_rule *h = NULL;

		if (!may_lift(r) || (cand && !cand[i]))
			continue;
		for (size_t j = 0; j < p->nrules && !h; j++)
			if (lifts(p, &p->rules[j], r))
				h = &p->rules[j];
		if (!h)
			continue;
		/* sbxrun's own rules (its conf and state directories,
		 * read-only) inside a profile's hide: the hide is what the
		 * profile asked for, nothing to warn about on every run;
		 * nor the protect list, which names every project's entry
		 * points (strict hides ~, where projects live: 70 lines a
		 * run, review U-05) */
		if (r->src.file && strcmp(r->src.file, "built-in") != 0 &&
		    !(r->flags & SBX_RF_PROTECT))
			sbx_policy_warn(
				p, r->src,
				"'%s' is inside hidden '%s' "
				"(%s:%d); ignored (a command-line flag can "
				"lift a hide)",
				r->root, h->root,
				h->src.file ? h->src.file : "?", h->src.line);
		sbx_rule_free(r);
		*r = p->rules[--p->nrules];
		if (cand)
			cand[i] = cand[p->nrules];
		i--;
		removed = 1;
	}
	free(cand);
	if (removed)
		sbx_rules_reindex(p);
}

/* The project directory is compared as a normalised root everywhere
 * (system directories, $HOME, rule roots): "/home/" or "/x/../usr" must
 * not slip past check_project(). */
static int norm_project(struct sbx_policy *p, struct sbx_err *err)
{
	char norm[PATH_MAX];
	char *d;

	if (!p->project)
		return sbx_errf(err, 0, "no project directory");
	if (sbx_path_norm(p->project, "/", p->home, 1, norm, sizeof(norm)) < 0)
		return sbx_errf(err, errno, "bad project directory '%s'",
				p->project);
	if (strcmp(norm, p->project) == 0)
		return 0;
	d = strdup(norm);
	if (!d)
		return sbx_errf(err, 0, "out of memory");
	free(p->project);
	p->project = d;
	return 0;
}

/* A built-in writable root (the project, /tmp) unless a rule for it
 * exists already; either way the rule gets flag.  The root is looked up
 * normalised: /tmp may be a symlink. */
static int builtin_root(struct sbx_policy *p, const char *root, unsigned flag,
			struct sbx_err *err)
{
	struct sbx_src bi = { "built-in", 0 };
	struct sbx_path_rule *r;
	char norm[PATH_MAX];

	if (sbx_path_norm(root, p->project, p->home, 1, norm, sizeof(norm)) < 0)
		return sbx_errf(err, errno, "bad path '%s'", root);
	r = sbx_rule_find(p, norm);
	if (!r) {
		if (sbx_policy_add_path(p, norm, SBX_RW, flag, bi, err) < 0)
			return -1;
		r = sbx_rule_find(p, norm);
	}
	if (r)
		r->flags |= flag;
	return 0;
}

int sbx_policy_finish(struct sbx_policy *p, struct sbx_err *err)
{
	if (norm_project(p, err) < 0 || check_project(p, err) < 0)
		return -1;
	if (builtin_root(p, p->project, SBX_RF_PROJECT, err) < 0 ||
	    builtin_root(p, "/tmp", SBX_RF_TMP, err) < 0)
		return -1;
	if (p->redirect_caches && p->cache_dir &&
	    sbx_policy_add_path(p, p->cache_dir, SBX_RW, SBX_RF_CACHE,
				(struct sbx_src){ "the project's sandbox cache",
						  0 },
				err) < 0)
		return -1;
	if (add_protect(p, err) < 0)
		return -1;
	drop_unhiding(p);
	if (p->net == SBX_NET_FILTERED && p->nallow == 0)
		return sbx_errf(err, 0,
				"network allow-list is empty: use "
				"network.mode = \"off\" or add entries");
	return 0;
}

/* ------------------------------------------------------------ one run */

int sbx_policy_for_run(struct sbx_policy *out, const struct sbx_policy *p,
		       const struct sbx_run_adj *adj, struct sbx_err *err)
{
	struct stat st;
	int dc;

	if (sbx_policy_copy(out, p, err) < 0)
		return -1;
	if (adj && adj->timeout)
		out->limits.timeout = adj->timeout;
	for (size_t i = 0; adj && i < adj->nextra; i++)
		if (sbx_policy_add_rule(out, &adj->extra[i], err) < 0) {
			sbx_policy_free(out);
			return -1;
		}
	/* A protected path that does not exist yet cannot be covered by a
	 * mount (that would leave a stub on the host), and the shim must not
	 * refuse to create it either (git init makes .git/hooks).  Marked
	 * here; the run says loudly if it appeared (THREATS LCH-07, PER-03). */
	/* (one listing per directory, not one lstat per name: dircache.c) */
	dc = sbx_dircache_begin();
	for (size_t i = 0; i < out->nrules; i++)
		if ((out->rules[i].flags & SBX_RF_PROTECT) &&
		    (sbx_dircache_absent(out->rules[i].root) ||
		     lstat(out->rules[i].root, &st) < 0))
			out->rules[i].flags |= SBX_RF_ABSENT;
	/* A hidden path that is not there (~/.npmrc of someone without
	 * npm credentials): a program looking for it finds nothing, as it
	 * would outside, and nothing is said (issue 13). */
	for (size_t i = 0; i < out->nrules; i++) {
		int e;

		if (out->rules[i].mode != SBX_HIDE)
			continue;
		e = sbx_dircache_absent(out->rules[i].root);
		if (e == 0 && lstat(out->rules[i].root, &st) < 0)
			e = errno;
		if (e == ENOENT)
			out->rules[i].flags |= SBX_RF_GONE;
	}
	sbx_dircache_end(dc);
	return 0;
}
