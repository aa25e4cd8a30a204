/*
 * policy.c - the in-memory policy: its life cycle (init, copy, free, the
 * string pool), parsing of modes and sizes, exec rules, warnings, and the
 * decisions.  Path rules are in rules.c, the finishing steps in finish.c.
 * Pure: no printing, no exit(); errors go to struct sbx_err and warnings
 * are collected in p->warnings for the caller to print.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "policy_impl.h"
#include "netallow.h"
#include "sb.h"

/* Grow an array of n elements of size sz to hold one more. */
int sbx_grow(void **v, size_t *cap, size_t n, size_t sz)
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

void sbx_rule_free(struct sbx_path_rule *r)
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
		sbx_rule_free(&p->rules[i]);
	free(p->rules);
	for (size_t i = 0; i < p->nexec; i++)
		exec_free(&p->exec[i]);
	free(p->exec);
	for (size_t i = 0; i < p->nallow; i++) {
		free(p->allow[i].text);
		free(p->allow[i].host);
	}
	free(p->allow);
	sbx_net_presets_free(p);
	strv_free(&p->protect);
	strv_free(&p->unix_sockets);
	strv_free(&p->env_keep);
	strv_free(&p->env_drop);
	strv_free(&p->warnings);
	strv_free(&p->conf_files);
	free(p->profile);
	free(p->project);
	free(p->home);
	free(p->home_pw);
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
	if (sbx_grow((void **)&p->pool, &p->cappool, p->npool, sizeof(char *)) <
	    0)
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

	if (sbx_grow((void **)&v->v, &cap, v->n, sizeof(char *)) < 0)
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
	sbx_strv_add(p, &p->warnings, sb_clean(line), (struct sbx_src){ 0 });
}

/* ------------------------------------------------------------ copying */

static char *dup_or(const char *s, int *bad)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*bad = 1;
	return d;
}

static struct sbx_src src_in(struct sbx_policy *d, struct sbx_src s, int *bad)
{
	if (s.file && !(s.file = sbx_policy_intern(d, s.file)))
		*bad = 1;
	return s;
}

static int strv_copy(struct sbx_policy *d, struct sbx_strv *dv,
		     const struct sbx_strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		if (sbx_strv_add(d, dv, sv->v[i], sv->src[i]) < 0)
			return -1;
	return 0;
}

static int rules_copy(struct sbx_policy *d, const struct sbx_policy *s,
		      int *bad)
{
	for (size_t i = 0; i < s->nrules; i++) {
		const struct sbx_path_rule *r = &s->rules[i];
		struct sbx_path_rule *c;

		if (sbx_grow((void **)&d->rules, &d->caprules, d->nrules,
			     sizeof(*c)) < 0)
			return -1;
		c = &d->rules[d->nrules++];
		*c = *r;
		c->root = dup_or(r->root, bad);
		for (size_t k = 0; k < r->nsuffixes; k++)
			c->suffixes[k] = dup_or(r->suffixes[k], bad);
		c->src = src_in(d, r->src, bad);
	}
	return 0;
}

static int exec_copy(struct sbx_policy *d, const struct sbx_policy *s, int *bad)
{
	for (size_t i = 0; i < s->nexec; i++) {
		const struct sbx_exec_rule *e = &s->exec[i];
		struct sbx_exec_rule *c;

		if (sbx_grow((void **)&d->exec, &d->capexec, d->nexec,
			     sizeof(*c)) < 0)
			return -1;
		c = &d->exec[d->nexec++];
		*c = *e;
		c->program = dup_or(e->program, bad);
		c->reason = dup_or(e->reason, bad);
		for (size_t k = 0; k < e->nargs; k++)
			c->args[k] = dup_or(e->args[k], bad);
		c->src = src_in(d, e->src, bad);
	}
	return 0;
}

static int allow_copy(struct sbx_policy *d, const struct sbx_policy *s,
		      int *bad)
{
	for (size_t i = 0; i < s->nallow; i++) {
		const struct sbx_net_allow *a = &s->allow[i];
		struct sbx_net_allow *c;

		if (sbx_grow((void **)&d->allow, &d->capallow, d->nallow,
			     sizeof(*c)) < 0)
			return -1;
		c = &d->allow[d->nallow++];
		*c = *a;
		c->text = dup_or(a->text, bad);
		c->host = dup_or(a->host, bad);
		c->src = src_in(d, a->src, bad);
		if (a->preset && !(c->preset = sbx_policy_intern(d, a->preset)))
			*bad = 1;
	}
	return 0;
}

/* The pointers of a policy copied by value: until each gets a copy of
 * its own, none may be freed with the copy. */
static void forget_pointers(struct sbx_policy *d)
{
	d->rules = NULL;
	d->nrules = d->caprules = 0;
	d->exec = NULL;
	d->nexec = d->capexec = 0;
	d->allow = NULL;
	d->nallow = d->capallow = 0;
	memset(&d->protect, 0, sizeof(d->protect));
	memset(&d->unix_sockets, 0, sizeof(d->unix_sockets));
	memset(&d->env_keep, 0, sizeof(d->env_keep));
	memset(&d->env_drop, 0, sizeof(d->env_drop));
	memset(&d->warnings, 0, sizeof(d->warnings));
	memset(&d->conf_files, 0, sizeof(d->conf_files));
	d->profile = d->project = d->home = d->cache_dir = NULL;
	d->home_pw = NULL;
	d->pool = NULL;
	d->npool = d->cappool = 0;
	d->rix = NULL;
	d->rixcap = d->rixn = 0;
	/* Presets are expanded into allow entries while loading: the copy
	 * (a run's policy) needs none of them. */
	d->presets = NULL;
	d->npresets = 0;
}

/* Everything by value first, then each pointer replaced by a copy: a new
 * scalar field needs nothing here, a new pointer field does. */
int sbx_policy_copy(struct sbx_policy *d, const struct sbx_policy *s,
		    struct sbx_err *err)
{
	int bad = 0;

	*d = *s;
	forget_pointers(d);
	d->profile = dup_or(s->profile, &bad);
	d->project = dup_or(s->project, &bad);
	d->home = dup_or(s->home, &bad);
	d->home_pw = dup_or(s->home_pw, &bad);
	d->cache_dir = dup_or(s->cache_dir, &bad);
	d->net_src = src_in(d, s->net_src, &bad);
	d->inject_src = src_in(d, s->inject_src, &bad);
	if (rules_copy(d, s, &bad) < 0 || exec_copy(d, s, &bad) < 0 ||
	    allow_copy(d, s, &bad) < 0 ||
	    strv_copy(d, &d->protect, &s->protect) < 0 ||
	    strv_copy(d, &d->unix_sockets, &s->unix_sockets) < 0 ||
	    strv_copy(d, &d->env_keep, &s->env_keep) < 0 ||
	    strv_copy(d, &d->env_drop, &s->env_drop) < 0 ||
	    strv_copy(d, &d->warnings, &s->warnings) < 0 ||
	    strv_copy(d, &d->conf_files, &s->conf_files) < 0 || bad) {
		sbx_policy_free(d);
		return sbx_errf(err, 0, "out of memory");
	}
	return 0;
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

int sbx_policy_add_exec(struct sbx_policy *p, const char *program,
			const char *const *args, size_t nargs,
			const char *reason, struct sbx_src src,
			struct sbx_err *err)
{
	struct sbx_exec_rule *e;

	if (nargs > SBX_MAX_EXEC_ARGS)
		return sbx_errf(err, 0,
				"at most %d args patterns per exec rule",
				SBX_MAX_EXEC_ARGS);
	if (sbx_grow((void **)&p->exec, &p->capexec, p->nexec, sizeof(*e)) < 0)
		return sbx_errf(err, 0, "out of memory");
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
	for (size_t i = 0; i < v->n; i++) {
		const char *g = v->v[i];

		/* a pattern that starts with a plain byte other than the
		 * name's cannot match (half of a profile's drop list: every
		 * variable was matched against all ~70) */
		if (g[0] != '*' && g[0] != '?' && g[0] != '[' &&
		    g[0] != name[0])
			continue;
		if (sbx_glob(g, name))
			return 1;
	}
	return 0;
}

/* The name of NAME=value, and the same in upper case (SEC-12: drop
 * patterns hold for "github_token" as for "GITHUB_TOKEN"). */
static int env_name(const char *var, char name[256], char upper[256])
{
	size_t n = strcspn(var, "=");

	if (n >= 256)
		return -1;
	memcpy(name, var, n);
	name[n] = '\0';
	for (size_t i = 0; i <= n; i++)
		upper[i] = (char)(name[i] >= 'a' && name[i] <= 'z'
					  ? name[i] - 'a' + 'A'
					  : name[i]);
	return 0;
}

int sbx_policy_env_pass(const struct sbx_policy *p, const char *var)
{
	char name[256], upper[256];

	if (env_name(var, name, upper) < 0)
		return 0;
	if (any_glob(&p->env_keep, name))
		return 1;
	/* most names are upper case already: one pass over the drop list */
	return !any_glob(&p->env_drop, name) &&
	       (strcmp(name, upper) == 0 || !any_glob(&p->env_drop, upper));
}

int sbx_policy_env_kept(const struct sbx_policy *p, const char *var)
{
	char name[256], upper[256];

	return env_name(var, name, upper) == 0 && any_glob(&p->env_keep, name);
}
