/*
 * env.c - the command's environment (env.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"

/* The build profile points the usual cache variables at a per-project
 * directory outside the project (DESIGN §5, "Toolchain caches"). */
static const struct {
	const char *var, *sub;
} cache_vars[] = {
	{ "XDG_CACHE_HOME", "xdg" },	    { "npm_config_cache", "npm" },
	{ "PIP_CACHE_DIR", "pip" },	    { "CARGO_HOME", "cargo" },
	{ "GOCACHE", "go-build" },	    { "GOMODCACHE", "go-mod" },
	{ "GRADLE_USER_HOME", "gradle" },   { "PNPM_STORE_DIR", "pnpm" },
	{ "YARN_CACHE_FOLDER", "yarn" },    { "CCACHE_DIR", "ccache" },
	{ "npm_config_store_dir", "pnpm" },
};
#define NCACHE (sizeof(cache_vars) / sizeof(cache_vars[0]))

/* SBXRUN, SBXRUN_NET, SBXRUN_REPORT, SBXRUN_POLICY, LD_PRELOAD. */
#define NOURS 5

const char *sbx_env_net(enum sbx_net net)
{
	switch (net) {
	case SBX_NET_ON: return "on";
	case SBX_NET_FILTERED: return "filtered";
	case SBX_NET_OFF:
	case SBX_NET_LOOPBACK: break;
	}
	return "off";
}

static int has_name(const char *var, const char *name)
{
	size_t n = strlen(name);

	return strncmp(var, name, n) == 0 && var[n] == '=';
}

/* Set by us, so never inherited. */
static int ours(const char *var, const struct sbx_policy *p)
{
	static const char *const names[] = { "SBXRUN", "SBXRUN_NET",
					     "SBXRUN_REPORT", "SBXRUN_POLICY",
					     "LD_PRELOAD" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (has_name(var, names[i]))
			return 1;
	if (p->redirect_caches && p->cache_dir)
		for (size_t i = 0; i < NCACHE; i++)
			if (has_name(var, cache_vars[i].var))
				return 1;
	return 0;
}

__attribute__((format(printf, 2, 3))) static int set(struct sbx_env *e,
						     const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -1;
	e->own[e->nown++] = s;
	e->v[e->n++] = s;
	e->v[e->n] = NULL;
	return 0;
}

/* The shim first, so its hooks come before any other preload's. */
static int set_preload(struct sbx_env *e, const char *shim, const char *kept)
{
	if (!shim)
		return kept ? set(e, "LD_PRELOAD=%s", kept) : 0;
	if (kept && strstr(kept, shim))
		return set(e, "LD_PRELOAD=%s", kept);
	if (kept && *kept)
		return set(e, "LD_PRELOAD=%s %s", shim, kept);
	return set(e, "LD_PRELOAD=%s", shim);
}

static int set_ours(struct sbx_env *e, const struct sbx_policy *p,
		    const struct sbx_env_vars *x, const char *kept_preload)
{
	if (p->redirect_caches && p->cache_dir)
		for (size_t i = 0; i < NCACHE; i++)
			if (set(e, "%s=%s/%s", cache_vars[i].var, p->cache_dir,
				cache_vars[i].sub) < 0)
				return -1;
	if (set(e, "SBXRUN=1") < 0 ||
	    set(e, "SBXRUN_NET=%s", sbx_env_net(p->net)) < 0 ||
	    (x->report_addr &&
	     set(e, "SBXRUN_REPORT=%s", x->report_addr) < 0) ||
	    (x->policy_file && set(e, "SBXRUN_POLICY=%s", x->policy_file) < 0))
		return -1;
	return set_preload(e, x->shim, kept_preload);
}

int sbx_env_build(struct sbx_env *e, const struct sbx_policy *p,
		  char *const *from, const struct sbx_env_vars *x,
		  struct sbx_err *err)
{
	const char *kept_preload = NULL;
	size_t n = 0;

	memset(e, 0, sizeof(*e));
	while (from && from[n])
		n++;
	e->v = calloc(n + NCACHE + NOURS + 1, sizeof(*e->v));
	e->own = calloc(NCACHE + NOURS, sizeof(*e->own));
	if (!e->v || !e->own)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		if (!strchr(from[i], '=') || !sbx_policy_env_pass(p, from[i]))
			continue;
		if (has_name(from[i], "LD_PRELOAD"))
			kept_preload = from[i] + 11;
		if (!ours(from[i], p))
			e->v[e->n++] = from[i];
	}
	if (set_ours(e, p, x, kept_preload) == 0)
		return 0;
nomem:
	sbx_env_free(e);
	return sbx_errf(err, 0, "out of memory");
}

void sbx_env_free(struct sbx_env *e)
{
	for (size_t i = 0; i < e->nown; i++)
		free(e->own[i]);
	free(e->own);
	free(e->v);
	memset(e, 0, sizeof(*e));
}
