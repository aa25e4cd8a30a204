/*
 * env.c - the command's environment (env.h).
 */
#include <stdarg.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"

/* redirect_caches (on in the default and build profiles, --caches)
 * points the usual cache variables at a per-project directory outside
 * the project (DESIGN §5, "Toolchain caches"): the host's caches stay
 * read-only, so a sandboxed step cannot poison what runs outside later,
 * and the sandbox's own cache lasts from one run of the project to the
 * next.  CARGO_HOME is the exception: it holds cargo's configuration too
 * (config.toml: mirrors, registries, vendored sources), so it is moved
 * only when the host's has none (cargo_safe). */
static const struct {
	const char *var, *sub;
} cache_vars[] = {
	{ "XDG_CACHE_HOME", "xdg" },
	{ "npm_config_cache", "npm" },
	{ "PIP_CACHE_DIR", "pip" },
	{ "CARGO_HOME", "cargo" },
	{ "GOCACHE", "go-build" },
	{ "GOMODCACHE", "go-mod" },
	{ "GRADLE_USER_HOME", "gradle" },
	{ "PNPM_STORE_DIR", "pnpm" },
	{ "YARN_CACHE_FOLDER", "yarn" },
	{ "CCACHE_DIR", "ccache" },
	/* pnpm 9 takes its store from PNPM_HOME (DIR/store);
	 * npm_config_store_dir would make npm warn on every run */
	{ "PNPM_HOME", "pnpm" },
};
#define NCACHE (sizeof(cache_vars) / sizeof(cache_vars[0]))

/* No internet (network off or loopback): package managers' retries
 * cannot succeed, only delay the error.  npm waited 10 + 60 s before
 * saying EAI_AGAIN (fetch-retries 2, backoff up to 60 s): the first npm
 * install of a new user failed after 70 silent seconds.  Set unless the
 * caller set them. */
static const char *const noretry_vars[] = {
	"npm_config_fetch_retries=0", /* npm, pnpm */
	"PIP_RETRIES=0",
	"CARGO_NET_RETRY=0",
};
#define NNORETRY (sizeof(noretry_vars) / sizeof(noretry_vars[0]))

/* SBXRUN, SBXRUN_NET, SBXRUN_REPORT, SBXRUN_POLICY, LD_PRELOAD. */
#define NOURS 5

/*
 * network = filtered: what makes the command's tools use the proxy
 * without configuration, and why each name:
 *   http_proxy, HTTP_PROXY     curl (lower case only, for http://), git,
 *                              pip (requests), python urllib, Go, cargo
 *   https_proxy, HTTPS_PROXY   the same for https:// (a CONNECT tunnel)
 *   all_proxy, ALL_PROXY       SOCKS5 with names resolved by the proxy,
 *                              for libcurl and tools that only know SOCKS
 *   no_proxy, NO_PROXY         full mode: the sandbox's own loopback goes
 *                              direct (landlock-only: not set, the host's
 *                              loopback is decided by the proxy)
 *   npm_config_proxy, npm_config_https_proxy, npm_config_noproxy
 *                              npm and pnpm; environment beats a
 *                              project's .npmrc
 *   YARN_HTTP_PROXY, YARN_HTTPS_PROXY   yarn 2+
 *   CARGO_HTTP_PROXY           cargo; beats a project's .cargo/config
 *   PIP_PROXY                  pip, over a pip.conf's proxy
 *   NODE_USE_ENV_PROXY=1       node's own fetch/http (node 24, 22.21)
 *   SBXRUN_PROXY               for agents and scripts that ask
 * The HTTP URL serves https too: clients CONNECT through it.  Inherited
 * variables of these names are dropped: they would point elsewhere.
 */
static const char *const http_names[] = {
	"http_proxy",	   "HTTP_PROXY",       "https_proxy",
	"HTTPS_PROXY",	   "npm_config_proxy", "npm_config_https_proxy",
	"YARN_HTTP_PROXY", "YARN_HTTPS_PROXY", "CARGO_HTTP_PROXY",
	"PIP_PROXY",	   "SBXRUN_PROXY",
};
static const char *const socks_names[] = { "all_proxy", "ALL_PROXY" };
static const char *const noproxy_names[] = { "no_proxy", "NO_PROXY",
					     "npm_config_noproxy" };
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define NPROXY \
	(NELEM(http_names) + NELEM(socks_names) + NELEM(noproxy_names) + 1)

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

/* ------------------------------------------------------------ values */

static int tokchar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* The userinfo of each URL in v: "user:password@" with a password, or a
 * user alone as long as a token ("https://TOKEN@host", a Sentry DSN). */
static int url_credentials(const char *v)
{
	for (const char *s = strstr(v, "://"); s; s = strstr(s + 1, "://")) {
		const char *u = s + 3, *end = u + strcspn(u, "/?#@ \t\n,;\"'");
		const char *colon;
		size_t ulen;

		if (*end != '@')
			continue;
		colon = memchr(u, ':', (size_t)(end - u));
		if (colon && colon + 1 < end)
			return 1;
		ulen = (size_t)((colon ? colon : end) - u);
		if (!colon && ulen >= 20)
			return 1;
	}
	return 0;
}

/* Well-known token shapes: a prefix at the start of a word, then at least
 * min token characters (AWS key ids: exactly 16 upper-case ones). */
static int token_prefix(const char *v)
{
	static const struct {
		const char *pre;
		size_t min;
	} pre[] = {
		{ "ghp_", 20 },	   { "gho_", 20 },  { "ghu_", 20 },
		{ "ghs_", 20 },	   { "ghr_", 20 },  { "github_pat_", 20 },
		{ "glpat-", 16 },  { "sk-", 20 },   { "xoxb-", 10 },
		{ "xoxp-", 10 },   { "xoxa-", 10 }, { "xoxr-", 10 },
		{ "xoxs-", 10 },   { "xoxe-", 10 }, { "npm_", 30 },
		{ "pypi-", 30 },   { "hf_", 30 },   { "AIza", 30 },
		{ "dop_v1_", 30 }, { "glsa_", 20 }, { "sq0atp-", 20 },
		{ "AKIA", 16 },	   { "ASIA", 16 },
	};

	for (const char *w = v; *w; w++) {
		if (w != v && tokchar(w[-1]))
			continue;
		for (size_t i = 0; i < NELEM(pre); i++) {
			size_t pl, n = 0;

			/* the first byte first: ~40 words of every value */
			if (*w != pre[i].pre[0])
				continue;
			pl = strlen(pre[i].pre);
			if (strncmp(w, pre[i].pre, pl) != 0)
				continue;
			while (tokchar(w[pl + n]))
				n++;
			if (pre[i].pre[0] == 'A' && pre[i].pre[1] != 'I')
				n = strspn(w + pl, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
						   "0123456789");
			if (n >= pre[i].min)
				return 1;
		}
	}
	return 0;
}

int sbx_env_secret_value(const char *value)
{
	return url_credentials(value) || token_prefix(value);
}

static int has_name(const char *var, const char *name)
{
	size_t n = strlen(name);

	return strncmp(var, name, n) == 0 && var[n] == '=';
}

static int proxy_var(const char *var)
{
	for (size_t i = 0; i < NELEM(http_names); i++)
		if (has_name(var, http_names[i]))
			return 1;
	for (size_t i = 0; i < NELEM(socks_names); i++)
		if (has_name(var, socks_names[i]))
			return 1;
	for (size_t i = 0; i < NELEM(noproxy_names); i++)
		if (has_name(var, noproxy_names[i]))
			return 1;
	return has_name(var, "NODE_USE_ENV_PROXY");
}

/* Does moving CARGO_HOME change only where cargo caches?  Yes when the
 * caller's CARGO_HOME (or ~/.cargo) holds no config, or when it is
 * ~/.cargo and the project is under the home directory: cargo reads the
 * .cargo/config.toml of every directory above the project anyway. */
static int cargo_safe(const struct sbx_policy *p, char *const *from)
{
	static const char *const conf[] = { "config.toml", "config" };
	const char *home = NULL;
	char path[4096];
	size_t hl = p->home ? strlen(p->home) : 0;

	for (size_t i = 0; from && from[i]; i++)
		if (!strncmp(from[i], "CARGO_HOME=", 11))
			home = from[i] + 11;
	if (!(home && *home) && hl > 1 && p->project &&
	    !strncmp(p->project, p->home, hl) && p->project[hl] == '/')
		return 1;
	for (size_t i = 0; i < NELEM(conf); i++) {
		if (home && *home)
			snprintf(path, sizeof(path), "%s/%s", home, conf[i]);
		else if (p->home)
			snprintf(path, sizeof(path), "%s/.cargo/%s", p->home,
				 conf[i]);
		else
			return 0;
		if (access(path, F_OK) == 0)
			return 0;
	}
	return 1;
}

int sbx_env_cargo_kept(const struct sbx_policy *p, char *const *from)
{
	return p->redirect_caches && p->cache_dir && !cargo_safe(p, from);
}

/* A cache variable this run sets (skip_cargo: CARGO_HOME is left). */
static int cache_var(const char *var, const struct sbx_policy *p,
		     int skip_cargo)
{
	if (!p->redirect_caches || !p->cache_dir)
		return 0;
	for (size_t i = 0; i < NCACHE; i++)
		if (has_name(var, cache_vars[i].var))
			return !(skip_cargo && has_name(var, "CARGO_HOME"));
	return 0;
}

/* Set by us, so never inherited. */
static int ours(const char *var, const struct sbx_policy *p, int skip_cargo)
{
	static const char *const names[] = { "SBXRUN", "SBXRUN_NET",
					     "SBXRUN_REPORT", "SBXRUN_POLICY",
					     "LD_PRELOAD" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (has_name(var, names[i]))
			return 1;
	if (cache_var(var, p, skip_cargo))
		return 1;
	if (p->net == SBX_NET_FILTERED)
		return proxy_var(var);
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

static int set_proxy(struct sbx_env *e, const struct sbx_env_vars *x)
{
	const char *at = x->proxy_secret && *x->proxy_secret ? "@" : "";
	const char *cred = *at ? x->proxy_secret : "";
	int v6 = strchr(x->proxy_addr, ':') != NULL;
	char host[80];

	snprintf(host, sizeof(host), v6 ? "[%s]" : "%s", x->proxy_addr);
	for (size_t i = 0; i < NELEM(http_names); i++)
		if (set(e, "%s=http://%s%s%s:%u", http_names[i], cred, at, host,
			x->proxy_port) < 0)
			return -1;
	for (size_t i = 0; i < NELEM(socks_names); i++)
		if (set(e, "%s=socks5h://%s%s%s:%u", socks_names[i], cred, at,
			host, x->proxy_port) < 0)
			return -1;
	if (x->proxy_direct_loopback)
		for (size_t i = 0; i < NELEM(noproxy_names); i++)
			if (set(e, "%s=localhost,127.0.0.1,::1",
				noproxy_names[i]) < 0)
				return -1;
	return set(e, "NODE_USE_ENV_PROXY=1");
}

/* Does e already hold the variable NAME=... names (passed from the
 * caller)? */
static int inherited(const struct sbx_env *e, const char *nameval)
{
	size_t n = (size_t)(strchr(nameval, '=') - nameval);

	for (size_t i = 0; i < e->n; i++)
		if (!strncmp(e->v[i], nameval, n) && e->v[i][n] == '=')
			return 1;
	return 0;
}

static int set_ours(struct sbx_env *e, const struct sbx_policy *p,
		    const struct sbx_env_vars *x, const char *kept_preload,
		    int skip_cargo)
{
	if (p->redirect_caches && p->cache_dir)
		for (size_t i = 0; i < NCACHE; i++)
			if (!(skip_cargo &&
			      !strcmp(cache_vars[i].var, "CARGO_HOME")) &&
			    set(e, "%s=%s/%s", cache_vars[i].var, p->cache_dir,
				cache_vars[i].sub) < 0)
				return -1;
	if (set(e, "SBXRUN=%s", x->advisory ? "advisory" : "1") < 0 ||
	    set(e, "SBXRUN_NET=%s", x->advisory ? "on" : sbx_env_net(p->net)) <
		    0 ||
	    (x->report_addr &&
	     set(e, "SBXRUN_REPORT=%s", x->report_addr) < 0) ||
	    (x->policy_file && set(e, "SBXRUN_POLICY=%s", x->policy_file) < 0))
		return -1;
	if (p->net == SBX_NET_FILTERED && x->proxy_addr && set_proxy(e, x) < 0)
		return -1;
	if (!x->advisory &&
	    (p->net == SBX_NET_OFF || p->net == SBX_NET_LOOPBACK))
		for (size_t i = 0; i < NNORETRY; i++)
			if (!inherited(e, noretry_vars[i]) &&
			    set(e, "%s", noretry_vars[i]) < 0)
				return -1;
	return set_preload(e, x->shim, kept_preload);
}

/* SEC-12: the name of a variable withheld, for the report (never the
 * value). */
static int withhold(struct sbx_env *e, const char *var, const char *eq)
{
	char *name;

	if (e->nwithheld == SBX_ENV_MAX_WITHHELD)
		return 0;
	if (!e->withheld &&
	    (!(e->withheld = calloc(SBX_ENV_MAX_WITHHELD + 1, sizeof(char *))) ||
	     !(e->by_value = calloc(SBX_ENV_MAX_WITHHELD + 1, sizeof(char *)))))
		return -1;
	if (!(name = strndup(var, (size_t)(eq - var))))
		return -1;
	e->withheld[e->nwithheld++] = name;
	return 0;
}

int sbx_env_build(struct sbx_env *e, const struct sbx_policy *p,
		  char *const *from, const struct sbx_env_vars *x,
		  struct sbx_err *err)
{
	const char *kept_preload = NULL;
	size_t n = 0;
	int skip_cargo = sbx_env_cargo_kept(p, from);

	memset(e, 0, sizeof(*e));
	while (from && from[n])
		n++;
	e->v = calloc(n + NCACHE + NOURS + NPROXY + NNORETRY + 1,
		      sizeof(*e->v));
	e->own = calloc(NCACHE + NOURS + NPROXY + NNORETRY, sizeof(*e->own));
	if (!e->v || !e->own)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(from[i], '=');

		if (!eq)
			continue;
		if (!sbx_policy_env_pass(p, from[i])) {
			if (!ours(from[i], p, skip_cargo) &&
			    withhold(e, from[i], eq) < 0)
				goto nomem;
			continue;
		}
		if (!sbx_policy_env_kept(p, from[i]) &&
		    !ours(from[i], p, skip_cargo) &&
		    sbx_env_secret_value(eq + 1)) {
			size_t had = e->nwithheld;

			if (withhold(e, from[i], eq) < 0)
				goto nomem;
			if (e->nwithheld > had)
				e->by_value[e->nby_value++] =
					e->withheld[e->nwithheld - 1];
			continue;
		}
		if (has_name(from[i], "LD_PRELOAD"))
			kept_preload = from[i] + 11;
		if (!ours(from[i], p, skip_cargo))
			e->v[e->n++] = from[i];
	}
	if (set_ours(e, p, x, kept_preload, skip_cargo) == 0)
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
	for (size_t i = 0; i < e->nwithheld; i++)
		free(e->withheld[i]);
	free(e->withheld);
	free(e->by_value);
	free(e->v);
	memset(e, 0, sizeof(*e));
}
