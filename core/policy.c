/*
 * policy.c - building the in-memory policy and answering questions about
 * it.  Pure: no printing, no exit(); errors go to struct sbx_err and
 * warnings are collected in p->warnings for the caller to print.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "policy.h"

static int fail(struct sbx_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int fail(struct sbx_err *err, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -1;
}

int sbx_errf(struct sbx_err *err, int errnum, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err)
		return -1;
	va_start(ap, fmt);
	n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	if (errnum && n >= 0 && (size_t)n < sizeof err->msg)
		snprintf(err->msg + n, sizeof err->msg - (size_t)n, ": %s",
			 strerror(errnum));
	return -1;
}

/* Grow an array of n elements of size sz to hold one more. */
static int grow(void **v, size_t *cap, size_t n, size_t sz)
{
	size_t nc;
	void *nv;

	if (n < *cap)
		return 0;
	nc = *cap ? *cap * 2 : 8;
	nv = realloc(*v, nc * sz);
	if (!nv)
		return -1;
	*v = nv;
	*cap = nc;
	return 0;
}

void sbx_policy_init(struct sbx_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->net = SBX_NET_OFF;
	p->fallback = SBX_FALLBACK_DENY;
	p->kmode = SBX_KMODE_AUTO;
}

static void strv_free(struct sbx_strv *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->v[i]);
	free(v->v);
	free(v->src);
	memset(v, 0, sizeof(*v));
}

static void rule_free(struct sbx_path_rule *r)
{
	free(r->root);
	for (size_t i = 0; i < r->nsuffixes; i++)
		free(r->suffixes[i]);
}

static void exec_free(struct sbx_exec_rule *e)
{
	free(e->program);
	free(e->reason);
	for (size_t i = 0; i < e->nargs; i++)
		free(e->args[i]);
}

void sbx_policy_free(struct sbx_policy *p)
{
	for (size_t i = 0; i < p->nrules; i++)
		rule_free(&p->rules[i]);
	free(p->rules);
	for (size_t i = 0; i < p->nexec; i++)
		exec_free(&p->exec[i]);
	free(p->exec);
	for (size_t i = 0; i < p->nallow; i++) {
		free(p->allow[i].text);
		free(p->allow[i].host);
	}
	free(p->allow);
	strv_free(&p->protect);
	strv_free(&p->unix_sockets);
	strv_free(&p->env_keep);
	strv_free(&p->env_drop);
	strv_free(&p->warnings);
	free(p->profile);
	free(p->project);
	free(p->home);
	free(p->cache_dir);
	for (size_t i = 0; i < p->npool; i++)
		free(p->pool[i]);
	free(p->pool);
	free(p->rix);
	memset(p, 0, sizeof(*p));
}

const char *sbx_policy_intern(struct sbx_policy *p, const char *s)
{
	char *d;

	if (!s)
		return NULL;
	for (size_t i = 0; i < p->npool; i++)
		if (strcmp(p->pool[i], s) == 0)
			return p->pool[i];
	if (grow((void **)&p->pool, &p->cappool, p->npool, sizeof(char *)) < 0)
		return NULL;
	d = strdup(s);
	if (!d)
		return NULL;
	p->pool[p->npool++] = d;
	return d;
}

int sbx_strv_add(struct sbx_policy *p, struct sbx_strv *v, const char *s,
		 struct sbx_src src)
{
	size_t cap = v->cap;
	char *d;

	if (grow((void **)&v->v, &cap, v->n, sizeof(char *)) < 0)
		return -1;
	if (cap != v->cap) {
		struct sbx_src *ns = realloc(v->src, cap * sizeof(*ns));

		if (!ns)
			return -1;
		v->src = ns;
		v->cap = cap;
	}
	d = strdup(s);
	if (!d)
		return -1;
	src.file = sbx_policy_intern(p, src.file);
	v->v[v->n] = d;
	v->src[v->n++] = src;
	return 0;
}

void sbx_policy_warn(struct sbx_policy *p, struct sbx_src src, const char *fmt,
		     ...)
{
	char msg[1024], line[1200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (src.file && src.line > 0)
		snprintf(line, sizeof(line), "%s:%d: %s", src.file, src.line,
			 msg);
	else if (src.file)
		snprintf(line, sizeof(line), "%s: %s", src.file, msg);
	else
		snprintf(line, sizeof(line), "%s", msg);
	sbx_strv_add(p, &p->warnings, line, (struct sbx_src){ 0 });
}

/* ------------------------------------------------------------ parsing */

int sbx_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		end++;
		break;
	case 'm':
	case 'M':
		shift = 20;
		end++;
		break;
	case 'g':
	case 'G':
		shift = 30;
		end++;
		break;
	case 't':
	case 'T':
		shift = 40;
		end++;
		break;
	default: break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end != '\0' || (shift && v > (UINT64_MAX >> shift)))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

int sbx_parse_pmode(const char *s, enum sbx_pmode *out)
{
	if (strcmp(s, "rw") == 0)
		*out = SBX_RW;
	else if (strcmp(s, "ro") == 0)
		*out = SBX_RO;
	else if (strcmp(s, "hide") == 0)
		*out = SBX_HIDE;
	else
		return -1;
	return 0;
}

const char *sbx_pmode_name(enum sbx_pmode m)
{
	switch (m) {
	case SBX_RW: return "rw";
	case SBX_RO: return "ro";
	case SBX_HIDE: return "hide";
	}
	return "?";
}

int sbx_parse_net(const char *s, enum sbx_net *out)
{
	if (strcmp(s, "off") == 0)
		*out = SBX_NET_OFF;
	else if (strcmp(s, "loopback") == 0)
		*out = SBX_NET_LOOPBACK;
	else if (strcmp(s, "on") == 0)
		*out = SBX_NET_ON;
	else if (strcmp(s, "filtered") == 0 || strcmp(s, "allow") == 0)
		*out = SBX_NET_FILTERED;
	else
		return -1;
	return 0;
}

const char *sbx_net_name(enum sbx_net n)
{
	switch (n) {
	case SBX_NET_OFF: return "off";
	case SBX_NET_LOOPBACK: return "loopback";
	case SBX_NET_ON: return "on";
	case SBX_NET_FILTERED: return "filtered";
	}
	return "?";
}

/* ------------------------------------------------------------ rules */

struct sbx_path_rule *sbx_policy_last_rule(struct sbx_policy *p)
{
	return p->nrules ? &p->rules[p->nrules - 1] : NULL;
}

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
static void rix_drop(struct sbx_policy *p)
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
		return rix_drop(p);
	for (int k = 0; k < 2; k++) {
		/* rules[who[k]] now holds what was at the other index */
		size_t from = who[1 - k], s;

		s = root_hash(p->rules[who[k]].root) & mask;
		while (p->rix[s] && p->rix[s] != from + 1)
			s = (s + 1) & mask;
		if (!p->rix[s])
			return rix_drop(p);
		slot[k] = s;
	}
	p->rix[slot[0]] = (uint32_t)i + 1;
	p->rix[slot[1]] = (uint32_t)j + 1;
}

static struct sbx_path_rule *find_root(struct sbx_policy *p, const char *root)
{
	size_t mask, s;

	if (rix_sync(p) < 0) {
		for (size_t i = 0; i < p->nrules; i++)
			if (strcmp(p->rules[i].root, root) == 0)
				return &p->rules[i];
		return NULL;
	}
	mask = p->rixcap - 1;
	for (s = root_hash(root) & mask; p->rix[s]; s = (s + 1) & mask) {
		struct sbx_path_rule *r = &p->rules[p->rix[s] - 1];

		if (strcmp(r->root, root) == 0)
			return r;
	}
	return NULL;
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
	rule_free(old);
	memset(old, 0, sizeof(*old));
	return 0;
}

static int add_normalised(struct sbx_policy *p, const char *norm,
			  enum sbx_pmode mode, unsigned flags,
			  struct sbx_src src, struct sbx_err *err);

int sbx_policy_add_path(struct sbx_policy *p, const char *root,
			enum sbx_pmode mode, unsigned flags, struct sbx_src src,
			struct sbx_err *err)
{
	char norm[PATH_MAX];

	if (sbx_path_norm(root, p->project, p->home, 1, norm, sizeof(norm)) < 0)
		return fail(err, "bad path '%s': %s", root, strerror(errno));
	return add_normalised(p, norm, mode, flags, src, err);
}

static int add_normalised(struct sbx_policy *p, const char *norm,
			  enum sbx_pmode mode, unsigned flags,
			  struct sbx_src src, struct sbx_err *err)
{
	struct sbx_path_rule *r;

	src.file = sbx_policy_intern(p, src.file);
	r = find_root(p, norm);
	if (r && merge_same_root(p, r, mode, flags, src))
		return 0;
	if (!r) {
		if (grow((void **)&p->rules, &p->caprules, p->nrules,
			 sizeof(*r)) < 0)
			return fail(err, "out of memory");
		r = &p->rules[p->nrules++];
		memset(r, 0, sizeof(*r));
	} else if (r != &p->rules[p->nrules - 1]) {
		/* keep "last added" meaning the rule just set */
		struct sbx_path_rule tmp = p->rules[p->nrules - 1];
		size_t at = (size_t)(r - p->rules);

		p->rules[p->nrules - 1] = *r;
		*r = tmp;
		r = &p->rules[p->nrules - 1];
		r->root = strdup(norm);
		if (!r->root) {
			rix_drop(p);
			return fail(err, "out of memory");
		}
		rix_swapped(p, at, p->nrules - 1);
	}
	if (!r->root)
		r->root = strdup(norm);
	if (!r->root)
		return fail(err, "out of memory");
	r->rootlen = strlen(norm);
	r->mode = mode;
	/* Everything hidden is treated as a secret in explanations. */
	r->flags = flags | (mode == SBX_HIDE ? SBX_RF_SECRET : 0);
	r->src = src;
	return 0;
}

int sbx_policy_remove_path(struct sbx_policy *p, const char *root)
{
	char norm[PATH_MAX];
	struct sbx_path_rule *r;

	if (sbx_path_norm(root, p->project, p->home, 1, norm, sizeof(norm)) < 0)
		return -1;
	r = find_root(p, norm);
	if (!r)
		return -1;
	rule_free(r);
	*r = p->rules[--p->nrules];
	rix_drop(p);
	return 0;
}

int sbx_policy_add_exec(struct sbx_policy *p, const char *program,
			const char *const *args, size_t nargs,
			const char *reason, struct sbx_src src,
			struct sbx_err *err)
{
	struct sbx_exec_rule *e;

	if (nargs > SBX_MAX_EXEC_ARGS)
		return fail(err, "at most %d args patterns per exec rule",
			    SBX_MAX_EXEC_ARGS);
	if (grow((void **)&p->exec, &p->capexec, p->nexec, sizeof(*e)) < 0)
		return fail(err, "out of memory");
	e = &p->exec[p->nexec];
	memset(e, 0, sizeof(*e));
	e->program = strdup(program);
	e->reason = strdup(reason ? reason : "denied by the sandbox policy");
	for (size_t i = 0; i < nargs; i++)
		e->args[e->nargs++] = strdup(args[i]);
	e->src = src;
	e->src.file = sbx_policy_intern(p, src.file);
	p->nexec++;
	return 0;
}

/* ------------------------------------------------------------ finishing */

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

static int check_project(const struct sbx_policy *p, struct sbx_err *err)
{
	if (!p->project)
		return fail(err, "no project directory");
	if (p->allow_unsafe_project)
		return 0;
	if (is_system_dir(p->project))
		return fail(err,
			    "refusing to make '%s' the writable project: "
			    "it is a system directory (run from your project, "
			    "use --workdir, or force with --unsafe-project)",
			    p->project);
	if (p->home && strcmp(p->project, p->home) == 0)
		return fail(err,
			    "refusing to make your home directory '%s' "
			    "the writable project (run from a project "
			    "directory, or force with --unsafe-project)",
			    p->project);
	return 0;
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
		return fail(err, "bad protected path '%s': %s", e,
			    strerror(errno));
	if (!sbx_path_within(out, p->project, plen))
		return sbx_path_norm(e, p->project, p->home, 1, out, outsz) < 0
			       ? fail(err, "bad protected path '%s': %s", e,
				      strerror(errno))
			       : 0;
	for (size_t i = plen + 1; i <= strlen(out); i++) {
		char save = out[i];

		if (save != '/' && save != '\0')
			continue;
		out[i] = '\0';
		if (lstat(out, &st) == 0 && S_ISLNK(st.st_mode))
			return fail(
				err,
				"protected path '%s' is a symbolic link; "
				"sbxrun cannot keep it read-only (replace it "
				"with a real file or directory, or remove it)",
				out);
		out[i] = save;
	}
	return 0;
}

static int add_protect(struct sbx_policy *p, struct sbx_err *err)
{
	char root[PATH_MAX];

	for (size_t i = 0; i < p->protect.n; i++) {
		struct sbx_path_rule *r, *old;

		if (protect_root(p, p->protect.v[i], root, sizeof(root), err) <
		    0)
			return -1;
		/* never turn the project or the private /tmp read-only */
		old = find_root(p, root);
		if (old && (old->flags & (SBX_RF_PROJECT | SBX_RF_TMP)))
			continue;
		if (add_normalised(p, root, SBX_RO, SBX_RF_PROTECT,
				   p->protect.src[i], err) < 0)
			return -1;
		r = sbx_policy_last_rule(p);
		/* A hide of the same root stays a hide. */
		if (r && r->mode == SBX_RO)
			r->flags |= SBX_RF_PROTECT;
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
		sbx_policy_warn(p, r->src,
				"'%s' is inside hidden '%s' "
				"(%s:%d); ignored (a command-line flag can "
				"lift a hide)",
				r->root, h->root,
				h->src.file ? h->src.file : "?", h->src.line);
		rule_free(r);
		*r = p->rules[--p->nrules];
		if (cand)
			cand[i] = cand[p->nrules];
		i--;
		removed = 1;
	}
	free(cand);
	if (removed)
		rix_drop(p);
}

/* The project directory is compared as a normalised root everywhere
 * (system directories, $HOME, rule roots): "/home/" or "/x/../usr" must
 * not slip past check_project(). */
static int norm_project(struct sbx_policy *p, struct sbx_err *err)
{
	char norm[PATH_MAX];
	char *d;

	if (!p->project)
		return fail(err, "no project directory");
	if (sbx_path_norm(p->project, "/", p->home, 1, norm, sizeof(norm)) < 0)
		return fail(err, "bad project directory '%s': %s", p->project,
			    strerror(errno));
	if (strcmp(norm, p->project) == 0)
		return 0;
	d = strdup(norm);
	if (!d)
		return fail(err, "out of memory");
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
		return fail(err, "bad path '%s': %s", root, strerror(errno));
	r = find_root(p, norm);
	if (!r) {
		if (sbx_policy_add_path(p, norm, SBX_RW, flag, bi, err) < 0)
			return -1;
		r = find_root(p, norm);
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
	    sbx_policy_add_path(p, p->cache_dir, SBX_RW, 0,
				(struct sbx_src){ "build profile cache", 0 },
				err) < 0)
		return -1;
	if (add_protect(p, err) < 0)
		return -1;
	drop_unhiding(p);
	if (p->net == SBX_NET_FILTERED && p->nallow == 0)
		return fail(err, "network allow-list is empty: use "
				 "network.mode = \"off\" or add entries");
	return 0;
}

/* ------------------------------------------------------------ decisions */

const struct sbx_path_rule *sbx_policy_match(const struct sbx_policy *p,
					     const char *path)
{
	const struct sbx_path_rule *best = NULL;

	for (size_t i = 0; i < p->nrules; i++) {
		const struct sbx_path_rule *r = &p->rules[i];

		if (!sbx_path_within(path, r->root, r->rootlen))
			continue;
		if (!best || r->rootlen > best->rootlen ||
		    (r->rootlen == best->rootlen && r->mode > best->mode))
			best = r;
	}
	return best;
}

static int any_glob(const struct sbx_strv *v, const char *name)
{
	for (size_t i = 0; i < v->n; i++)
		if (sbx_glob(v->v[i], name))
			return 1;
	return 0;
}

int sbx_policy_env_pass(const struct sbx_policy *p, const char *var)
{
	char name[256];
	size_t n = strcspn(var, "=");

	if (n >= sizeof(name))
		return 0;
	memcpy(name, var, n);
	name[n] = '\0';
	if (any_glob(&p->env_keep, name))
		return 1;
	return !any_glob(&p->env_drop, name);
}
