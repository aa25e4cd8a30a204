/*
 * run.c - sbx_run(): environment, compiled policy hand-off, the kernel
 * launch, and collecting output and refusals.  The sbxrun CLI and every
 * libsbx caller go through here: there is no second code path.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "cpol.h"
#include "kernel.h"
#include "record.h"
#include "rundir.h"
#include "startfail.h"

extern char **environ;

#define DEFAULT_MAX_OUTPUT (1u << 20)
#define MAX_ENV 4096

struct collect {
	struct sbx_result *res;
	size_t max_output;
};

/* ------------------------------------------------------------ env */

struct envv {
	char *v[MAX_ENV + 1];
	size_t n;
	char *owned[32];
	size_t nowned;
};

static void env_set(struct envv *e, const char *name, const char *value)
{
	size_t nl = strlen(name);
	char *s;

	if (e->nowned >= sizeof(e->owned) / sizeof(e->owned[0]))
		return;
	if (asprintf(&s, "%s=%s", name, value) < 0)
		return;
	e->owned[e->nowned++] = s;
	for (size_t i = 0; i < e->n; i++)
		if (strncmp(e->v[i], name, nl) == 0 && e->v[i][nl] == '=') {
			e->v[i] = s;
			return;
		}
	if (e->n < MAX_ENV)
		e->v[e->n++] = s;
	e->v[e->n] = NULL;
}

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

/* The environment the command sees: the caller's, scrubbed by the env
 * keep/drop lists, plus the sandbox's own variables. */
static void build_env(struct envv *e, const struct sbx_policy *p,
		      const char *shim, const char *polfile)
{
	char buf[PATH_MAX + 32];

	e->n = 0;
	for (char **ep = environ; ep && *ep && e->n < MAX_ENV; ep++)
		if (strchr(*ep, '=') && sbx_policy_env_pass(p, *ep))
			e->v[e->n++] = *ep;
	e->v[e->n] = NULL;
	env_set(e, "SBXRUN", "1");
	env_set(e, "SBXRUN_NET",
		p->net == SBX_NET_FILTERED ? "filtered"
		: p->net == SBX_NET_ON	   ? "on"
					   : "off");
	if (p->redirect_caches && p->cache_dir)
		for (size_t i = 0;
		     i < sizeof(cache_vars) / sizeof(cache_vars[0]); i++) {
			snprintf(buf, sizeof(buf), "%s/%s", p->cache_dir,
				 cache_vars[i].sub);
			env_set(e, cache_vars[i].var, buf);
		}
	if (shim && polfile) {
		env_set(e, "LD_PRELOAD", shim);
		env_set(e, "SBXRUN_POLICY", polfile);
	}
}

static void env_free(struct envv *e)
{
	for (size_t i = 0; i < e->nowned; i++)
		free(e->owned[i]);
}

/* ------------------------------------------------------------ shim */

/* libsbxshim.so sits next to libsbx (build tree, or lib/sbxrun/ when
 * installed); $SBXRUN_SHIM overrides. */
static int find_shim(char *out, size_t outsz)
{
	const char *env = getenv("SBXRUN_SHIM");
	static const char *const rel[] = { "libsbxshim.so",
					   "sbxrun/libsbxshim.so",
					   "../lib/sbxrun/libsbxshim.so" };
	Dl_info info;
	char dir[PATH_MAX], *slash;

	if (env && env[0] == '/' && access(env, R_OK) == 0)
		return snprintf(out, outsz, "%s", env), 0;
	/* libsbx.so, or the program it is linked into; a static sbxrun
	 * has no loader to ask. */
	if ((!dladdr((void *)sbx_run, &info) || !info.dli_fname ||
	     !strchr(info.dli_fname, '/') || !realpath(info.dli_fname, dir)) &&
	    !realpath("/proc/self/exe", dir))
		return -1;
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		char cand[PATH_MAX + 64];

		snprintf(cand, sizeof(cand), "%s/%s", dir, rel[i]);
		if (access(cand, R_OK) == 0 && outsz >= PATH_MAX)
			return realpath(cand, out) ? 0 : -1;
	}
	return -1;
}

/* ------------------------------------------------------------ results */

static void add_refusal(struct sbx_result *r, pid_t pid, const char **f)
{
	struct sbx_refusal *x;

	for (size_t i = 0; i < r->nrefusals; i++) {
		x = &r->refusals[i];
		if (!strcmp(x->op, f[SBX_REC_OP]) &&
		    !strcmp(x->target, f[SBX_REC_TARGET]) &&
		    !strcmp(x->kind, f[SBX_REC_KIND])) {
			x->count++;
			return;
		}
	}
	if (r->nrefusals >= 10000)
		return;
	x = realloc(r->refusals, (r->nrefusals + 1) * sizeof(*x));
	if (!x)
		return;
	r->refusals = x;
	x = &r->refusals[r->nrefusals++];
	x->op = strdup(f[SBX_REC_OP]);
	x->target = strdup(f[SBX_REC_TARGET]);
	x->kind = strdup(f[SBX_REC_KIND]);
	x->rule = strdup(f[SBX_REC_RULE]);
	x->source = strdup(f[SBX_REC_SRC]);
	x->process = strdup(f[SBX_REC_COMM]);
	x->message = strdup(f[SBX_REC_MSG]);
	x->pid = (int)pid;
	x->count = 1;
}

static void on_report(void *ctx, pid_t pid, const char *rec, size_t len)
{
	struct collect *c = ctx;
	char buf[SBX_REC_MAX + 1];
	const char *f[SBX_REC_NFIELDS];

	if (len > SBX_REC_MAX)
		return;
	memcpy(buf, rec, len);
	if (sbx_rec_decode(buf, len, f) < 0)
		return;
	add_refusal(c->res, pid, f);
}

/* The launcher's own record: the kernel refused to start the command.
 * pid 0 (no process of the sandbox sent it), process "sbxrun". */
static void on_start_refused(void *ctx, const char **f)
{
	add_refusal(ctx, 0, f);
}

static void append(char **buf, size_t *len, int *trunc, size_t max,
		   const char *data, size_t n)
{
	char *nb;

	if (*len + n > max) {
		*trunc = 1;
		n = max > *len ? max - *len : 0;
	}
	if (n == 0)
		return;
	nb = realloc(*buf, *len + n + 1);
	if (!nb)
		return;
	memcpy(nb + *len, data, n);
	*len += n;
	nb[*len] = '\0';
	*buf = nb;
}

static void on_output(void *ctx, int which, const char *buf, size_t len)
{
	struct collect *c = ctx;
	struct sbx_result *r = c->res;

	if (which == 1)
		append(&r->out, &r->out_len, &r->out_truncated, c->max_output,
		       buf, len);
	else
		append(&r->err, &r->err_len, &r->err_truncated, c->max_output,
		       buf, len);
}

void sbx_result_free(struct sbx_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nrefusals; i++) {
		struct sbx_refusal *x = &r->refusals[i];

		free(x->op);
		free(x->target);
		free(x->kind);
		free(x->rule);
		free(x->source);
		free(x->process);
		free(x->message);
	}
	free(r->refusals);
	for (size_t i = 0; r->warnings && r->warnings[i]; i++)
		free(r->warnings[i]);
	free(r->warnings);
	free(r->out);
	free(r->err);
	free(r);
}

/* ------------------------------------------------------------ running */

static int pick_mode(const sbx_t *s, const struct sbx_features *f,
		     enum sbx_kmode *mode, int *warn, struct sbx_err *err)
{
	*warn = 0;
	if (s->pol.net == SBX_NET_FILTERED) {
		snprintf(err->msg, sizeof(err->msg),
			 "filtered network (an "
			 "allow-list) is not available yet; use --net off, "
			 "loopback or on");
		return SBX_E_KERNEL;
	}
	if (sbx_mode_resolve(s->mode, f, mode, err) == 0) {
		if (*mode == SBX_KMODE_FULL || s->pol.net != SBX_NET_LOOPBACK)
			return SBX_OK;
		/* Even with fallback = warn: dropping Landlock to let the
		 * network through would drop the filesystem boundary too. */
		snprintf(err->msg, sizeof(err->msg),
			 "--net loopback needs a "
			 "private network namespace, which needs user "
			 "namespaces (see sbxrun --status)");
		return SBX_E_KERNEL;
	}
	if (s->pol.fallback != SBX_FALLBACK_WARN)
		return SBX_E_KERNEL;
	*warn = 1;
	*mode = f->userns ? SBX_KMODE_FULL : SBX_KMODE_LANDLOCK;
	fprintf(stderr,
		"sbxrun: warning: %s\nsbxrun: warning: fallback = "
		"warn: running in %s mode with what exists\n",
		err->msg, *mode == SBX_KMODE_FULL ? "full" : "landlock-only");
	return SBX_OK;
}

struct run_ctx {
	int had_git; /* <project>/.git existed at launch */
	sbx_t *s;
	struct sbx_policy pol; /* shallow copy with its own rules array */
	const struct sbx_run_req *req;
	struct sbx_features feat;
	enum sbx_kmode mode;
	int warn;
	char shim[PATH_MAX];
	int have_shim;
	struct sbx_rundir rd;
};

/*
 * A protected path that does not exist yet cannot be covered by a mount
 * (that would leave a stub on the host), and the shim must not refuse to
 * create it either (git init makes .git/hooks).  Mark it, and after the
 * run say loudly if it appeared (THREATS LCH-07, PER-03).
 */
/*
 * Landlock-only mode has no private /dev: the user's other terminals
 * (/dev/pts/N: keystrokes) and the host's POSIX shared memory (/dev/shm)
 * would be readable through "/".  Hide both; Landlock still grants the
 * terminal the command was given on fds 0-2.
 */
static const char *const ll_hidden[] = { "/dev/pts", "/dev/shm" };
#define NLL_HIDDEN (sizeof(ll_hidden) / sizeof(ll_hidden[0]))

static void add_ll_hidden(struct sbx_path_rule *r, size_t *n)
{
	for (size_t i = 0; i < NLL_HIDDEN; i++) {
		memset(&r[*n], 0, sizeof(r[*n]));
		r[*n].root = (char *)ll_hidden[i];
		r[*n].rootlen = strlen(ll_hidden[i]);
		r[*n].mode = SBX_HIDE;
		r[*n].src.file = "landlock-only mode (no private /dev)";
		(*n)++;
	}
}

static int mark_absent(struct run_ctx *c)
{
	struct stat st;
	struct sbx_path_rule *r =
		malloc((c->pol.nrules + NLL_HIDDEN + 1) * sizeof(*r));

	if (!r)
		return -1;
	memcpy(r, c->pol.rules, c->pol.nrules * sizeof(*r));
	if (c->mode == SBX_KMODE_LANDLOCK)
		add_ll_hidden(r, &c->pol.nrules);
	for (size_t i = 0; i < c->pol.nrules; i++)
		if ((r[i].flags & SBX_RF_PROTECT) && lstat(r[i].root, &st) < 0)
			r[i].flags |= SBX_RF_ABSENT;
	c->pol.rules = r;
	return 0;
}

/* Could the sandbox itself have created path?  Only then is a protected
 * path that appeared worth a warning (the launcher makes its own). */
static int sandbox_writable(const struct sbx_policy *p, const char *path)
{
	const struct sbx_path_rule *best = NULL;

	for (size_t i = 0; i < p->nrules; i++) {
		const struct sbx_path_rule *r = &p->rules[i];

		if ((r->flags & SBX_RF_PROTECT) ||
		    !sbx_path_within(path, r->root, r->rootlen))
			continue;
		if (!best || r->rootlen > best->rootlen ||
		    (r->rootlen == best->rootlen && r->mode > best->mode))
			best = r;
	}
	return best && best->mode == SBX_RW;
}

static void add_warning(struct sbx_result *res, size_t *n, char *w)
{
	char **nw = realloc(res->warnings, (*n + 2) * sizeof(*nw));

	if (!nw || !w) {
		free(w);
		return;
	}
	res->warnings = nw;
	nw[*n] = w;
	nw[++*n] = NULL;
}

static void report_created(const struct run_ctx *c, struct sbx_result *res)
{
	struct stat st;
	size_t n = 0;
	char g[PATH_MAX + 8], *w;

	/* A gitfile written where there was no .git points the next git run
	 * outside the sandbox at a repository of the command's choosing. */
	snprintf(g, sizeof(g), "%s/.git", c->pol.project);
	if (!c->had_git && lstat(g, &st) == 0 && !S_ISDIR(st.st_mode) &&
	    asprintf(&w,
		     "'%s' was created during the run as a file: it "
		     "redirects git to another repository (and its hooks and "
		     "config): review it before running git outside",
		     g) >= 0)
		add_warning(res, &n, w);

	for (size_t i = 0; i < c->pol.nrules; i++) {
		const struct sbx_path_rule *r = &c->pol.rules[i];

		if (!(r->flags & SBX_RF_ABSENT) || lstat(r->root, &st) < 0 ||
		    !sandbox_writable(&c->pol, r->root))
			continue;
		if (asprintf(&w,
			     "'%s' was created during the run; it is "
			     "protected because it can run code outside the "
			     "sandbox later: review it before using it outside",
			     r->root) >= 0)
			add_warning(res, &n, w);
	}
}

static int write_policy(const struct sbx_policy *pol, enum sbx_kmode mode,
			struct sbx_rundir *rd, struct sbx_err *err)
{
	void *buf;
	size_t len;
	unsigned flags = mode == SBX_KMODE_LANDLOCK ? SBX_CPOL_F_SHIM_PROTECT
						    : 0;
	int r;

	if (sbx_cpol_build(pol, mode, flags, &buf, &len, err) < 0)
		return -1;
	r = sbx_rundir_put(rd, buf, len, err);
	free(buf);
	return r;
}

static char *const *command_argv(const struct sbx_run_req *req, char *shellv[4])
{
	if (!req->shell)
		return req->argv;
	shellv[0] = (char *)"/bin/sh";
	shellv[1] = (char *)"-c";
	shellv[2] = (char *)req->shell;
	shellv[3] = NULL;
	return shellv;
}

static void fill_layers(struct sbx_result *r, enum sbx_kmode mode,
			const struct sbx_features *f, const sbx_t *s)
{
	snprintf(r->mode, sizeof(r->mode), "%s",
		 mode == SBX_KMODE_FULL ? "full" : "landlock-only");
	snprintf(r->layers, sizeof(r->layers), "%s%s%s%s",
		 mode == SBX_KMODE_FULL ? "userns,mntns,pidns,ipcns," : "",
		 mode == SBX_KMODE_FULL && s->pol.net == SBX_NET_LOOPBACK
			 ? "netns,"
			 : "",
		 f->landlock_abi ? "landlock," : "", "seccomp,rlimits");
}

static int do_launch(struct run_ctx *c, struct sbx_result *res,
		     struct sbx_err *err)
{
	struct sbx_policy pol = c->pol; /* shallow: per-run timeout */
	struct collect col = { res, c->req->max_output ? c->req->max_output
						       : DEFAULT_MAX_OUTPUT };
	struct envv *env = calloc(1, sizeof(*env));
	char *shellv[4];
	struct sbx_launch l = { 0 };
	struct sbx_exit x = { 0 };
	int r;

	if (!env)
		return snprintf(err->msg, sizeof(err->msg), "out of memory"),
		       -1;
	if (c->req->timeout > 0)
		pol.limits.timeout = (uint64_t)(c->req->timeout + 0.999);
	build_env(env, &pol, c->have_shim ? c->shim : NULL, c->rd.path);
	l.pol = &pol;
	l.mode = c->mode;
	l.feat = &c->feat;
	l.warn_missing = c->warn;
	l.argv = command_argv(c->req, shellv);
	l.envp = env->v;
	l.workdir = c->req->workdir ? c->req->workdir : pol.project;
	l.policy_file = c->rd.path;
	l.shim_path = c->have_shim ? c->shim : NULL;
	l.fd_in = c->req->capture ? -2 : -1;
	l.fd_out = l.fd_err = c->req->capture ? -2 : -1;
	l.stdin_data = c->req->stdin_data;
	l.stdin_len = c->req->stdin_len;
	l.keep_tty = c->req->interactive;
	l.report_fd = -1;
	l.on_report = on_report;
	l.report_ctx = &col;
	l.on_output = on_output;
	l.output_ctx = &col;
	r = sbx_launch(&l, &x, err);
	if (r == 0) {
		res->exit_code = x.code;
		res->status = x.sig ? -1 : x.status;
		res->signal = x.sig;
		res->timed_out = x.timed_out;
		res->exec_errno = x.exec_errno;
		res->duration = (double)x.duration_ns / 1e9;
		if (x.exec_errno)
			sbx_explain_start(&pol, c->mode, l.argv, l.envp,
					  l.workdir, x.exec_errno,
					  on_start_refused, res);
	}
	env_free(env);
	free(env);
	return r;
}

/* Pick the mode, write its policy, run.  SBX_LAUNCH_NO_USERNS when full
 * mode could not make its namespaces (nothing ran). */
static int launch_in_mode(struct run_ctx *c, struct sbx_result *res,
			  struct sbx_err *err)
{
	int rc = pick_mode(c->s, &c->feat, &c->mode, &c->warn, err);

	if (rc != SBX_OK)
		return rc;
	if (c->pol.rules != c->s->pol.rules)
		free(c->pol.rules);
	c->pol = c->s->pol;
	if (mark_absent(c) < 0) {
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		return SBX_E_NOMEM;
	}
	if (sbx_rundir_create(&c->rd, c->s->pol.home, err) < 0)
		return SBX_E_RUN;
	rc = write_policy(&c->pol, c->mode, &c->rd, err);
	if (rc == 0)
		rc = do_launch(c, res, err);
	sbx_rundir_release(&c->rd);
	if (rc == SBX_LAUNCH_NO_USERNS && c->mode == SBX_KMODE_FULL)
		return rc;
	return rc < 0 ? SBX_E_RUN : SBX_OK;
}

/*
 * One launch at a time per process.  The supervisor changes process-wide
 * state (child subreaper, dumpable, SIGCHLD disposition), landlock-only
 * mode kills the descendants it finds after the command, and the raw
 * clone() of full mode skips libc's fork handlers: overlapping launches
 * from several threads would kill or hang each other.  Serializing keeps
 * sbx_run() safe to call from any thread.
 */
static pthread_mutex_t run_lock = PTHREAD_MUTEX_INITIALIZER;

static int run_locked(sbx_t *s, const struct sbx_run_req *req,
		      struct sbx_result **out, char *errbuf, size_t errlen);

int sbx_run(sbx_t *s, const struct sbx_run_req *req, struct sbx_result **out,
	    char *errbuf, size_t errlen)
{
	int rc;

	pthread_mutex_lock(&run_lock);
	rc = run_locked(s, req, out, errbuf, errlen);
	pthread_mutex_unlock(&run_lock);
	return rc;
}

static int run_locked(sbx_t *s, const struct sbx_run_req *req,
		      struct sbx_result **out, char *errbuf, size_t errlen)
{
	struct sbx_err err = { "" };
	struct run_ctx *c = calloc(1, sizeof(*c));
	struct sbx_result *res = calloc(1, sizeof(*res));
	int rc;

	*out = NULL;
	if (!c || !res) {
		rc = SBX_E_NOMEM;
		snprintf(err.msg, sizeof(err.msg), "out of memory");
		goto fail;
	}
	if (!s || !req || (!req->shell && (!req->argv || !req->argv[0]))) {
		rc = SBX_E_ARG;
		snprintf(err.msg, sizeof(err.msg), "no command to run");
		goto fail;
	}
	c->s = s;
	c->req = req;
	c->pol = s->pol;
	{
		char g[PATH_MAX + 8];
		struct stat gst;

		snprintf(g, sizeof(g), "%s/.git", s->pol.project);
		c->had_git = lstat(g, &gst) == 0;
	}
	c->have_shim = find_shim(c->shim, sizeof(c->shim)) == 0;
	if (!c->have_shim)
		fprintf(stderr,
			"sbxrun: warning: libsbxshim.so not found next "
			"to sbxrun or libsbx (set SBXRUN_SHIM=/path/to/it): "
			"refusals are not explained and the exec, suffix and "
			"size rules are NOT enforced; the kernel layers are\n");
	if (s->pol.redirect_caches && s->pol.cache_dir &&
	    sbx_mkdirs(s->pol.cache_dir, 0700) < 0) {
		rc = SBX_E_RUN;
		snprintf(err.msg, sizeof(err.msg),
			 "cannot create the cache "
			 "directory %s: %s",
			 s->pol.cache_dir, strerror(errno));
		goto fail;
	}
	sbx_features_probe(&c->feat, 1);
	rc = launch_in_mode(c, res, &err);
	if (rc == SBX_LAUNCH_NO_USERNS && c->feat.userns_assumed) {
		/* The quick probe assumed user namespaces and the kernel
		 * refused them: find out why, and decide the mode again.  If
		 * the trial works after all, the launch's own error stands:
		 * no silent change of mode for a failure we cannot explain. */
		sbx_features_probe(&c->feat, 0);
		if (!c->feat.userns)
			rc = launch_in_mode(c, res, &err);
	}
	if (rc == SBX_LAUNCH_NO_USERNS)
		rc = SBX_E_KERNEL;
	if (rc != SBX_OK)
		goto fail;
	fill_layers(res, c->mode, &c->feat, s);
	report_created(c, res);
	free(c->pol.rules);
	free(c);
	*out = res;
	return SBX_OK;
fail:
	if (errbuf && errlen)
		snprintf(errbuf, errlen, "%s", err.msg);
	if (c && c->pol.rules && (!s || c->pol.rules != s->pol.rules))
		free(c->pol.rules);
	free(c);
	sbx_result_free(res);
	return rc;
}
