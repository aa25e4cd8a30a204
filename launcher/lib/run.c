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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "cpol.h"
#include "selfcheck.h"
#include "env.h"
#include "gitrepo.h"
#include "guard.h"
#include "journal.h"
#include "links.h"
#include "perdir.h"
#include "plant.h"
#include "kernel.h"
#include "nest.h"
#include "record.h"
#include "rundir.h"
#include "sb.h"
#include "startfail.h"

extern char **environ;

#define DEFAULT_MAX_OUTPUT (1u << 20)

struct collect {
	struct sbx_result *res;
	size_t max_output;
	unsigned long dropped; /* records over their quota (RPT-01) */
};

/* ------------------------------------------------------------ shim */

/* libsbxshim.so sits next to libsbx (build tree, or lib/sbxrun/ when
 * installed); $SBXRUN_SHIM overrides. */
int sbx_find_shim(char *out, size_t outsz)
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

/*
 * RPT-01: the report cannot be flooded out.  Each sending process keeps
 * at most RPT_PER_SENDER distinct entries, and all of them at most
 * RPT_MAX; but the first RPT_FIRST_PER_KIND entries of each kind
 * (hidden, read-only, exec-denied, ...) are always kept, whoever floods.
 * What was not kept is counted, and the run says so.
 */
#define RPT_MAX 10000
#define RPT_PER_SENDER 200
#define RPT_FIRST_PER_KIND 32

/* 1: keep a new entry of kind from pid; 0: over quota. */
static int rpt_admit(const struct sbx_result *r, pid_t pid, const char *kind)
{
	size_t of_kind = 0, of_pid = 0;

	for (size_t i = 0; i < r->nrefusals; i++) {
		of_kind += !strcmp(r->refusals[i].kind, kind);
		of_pid += pid > 0 && r->refusals[i].pid == (int)pid;
	}
	if (of_kind < RPT_FIRST_PER_KIND)
		return 1;
	return of_pid < RPT_PER_SENDER && r->nrefusals < RPT_MAX;
}

static void add_refusal(struct collect *c, pid_t pid, const char **f)
{
	struct sbx_result *r = c->res;
	struct sbx_refusal *x;

	for (size_t i = 0; i < r->nrefusals; i++) {
		x = &r->refusals[i];
		/* one entry per distinct refusal; a hidden path is one
		 * whatever was tried on it */
		if ((!strcmp(x->op, f[SBX_REC_OP]) ||
		     !strcmp(x->kind, "hidden")) &&
		    !strcmp(x->target, f[SBX_REC_TARGET]) &&
		    !strcmp(x->kind, f[SBX_REC_KIND])) {
			x->count++;
			return;
		}
	}
	if (!rpt_admit(r, pid, f[SBX_REC_KIND])) {
		c->dropped++;
		return;
	}
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
	add_refusal(c, pid, f);
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

static void free_strv(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
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
	free_strv(r->warnings);
	free_strv(r->env_withheld);
	free(r->out);
	free(r->err);
	free(r);
}

/* ------------------------------------------------------------ running */

struct run_ctx {
	const struct sbx_backend *b;
	int had_git; /* <project>/.git existed at launch */
	struct timespec t0; /* launch, on the clock of file times */
	sbx_t *s;
	struct sbx_policy pol; /* this run's own (sbx_policy_for_run) */
	int no_caches; /* the cache directory could not be made */
	int have_pol;
	const struct sbx_run_req *req;
	struct sbx_features *feat;
	enum sbx_kmode mode;
	int warn;
	char shim[PATH_MAX];
	int have_shim;
	struct sbx_rundir rd;
	struct sbx_result *res;
	void *cpol; /* this launch's compiled policy */
	size_t cpol_len;
	struct sbx_proxy_ep proxy; /* network = filtered */
	struct sbx_plants plants; /* absent protected paths (plant.c) */
	int perdir_failed; /* new per-directory names not moved (perdir.c) */
	struct sbx_guard guard; /* existing ones the shim alone holds */
	struct sbx_journal journal; /* the plants, written down (journal.c) */
	struct sbx_exit settle; /* the launch's, until settle() */
};

/* What is left of the launch ends before sbx_run() returns (kernel.h's
 * settle): called after the exit repair, which it overlaps. */
static void settle(struct run_ctx *c)
{
	if (c->settle.settle_fd >= 0)
		c->b->settle(&c->settle);
}

/* A warning: to the caller at once (on_warning), and into the result.
 * The library never prints. */
__attribute__((format(printf, 2, 3))) static void run_warn(struct run_ctx *c,
							   const char *fmt, ...)
{
	struct sbx_result *r = c->res;
	size_t n = 0;
	char *w, **nw;
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vasprintf(&w, fmt, ap);
	va_end(ap);
	if (k < 0)
		return;
	sb_clean(w); /* names the sandbox chose (W-05) */
	if (c->req->on_warning)
		c->req->on_warning(c->req->warning_ctx, w);
	while (r->warnings && r->warnings[n])
		n++;
	nw = realloc(r->warnings, (n + 2) * sizeof(*nw));
	if (!nw) {
		free(w);
		return;
	}
	r->warnings = nw;
	nw[n] = w;
	nw[n + 1] = NULL;
}

/* The backend's warnings while it runs (a layer the kernel could not
 * apply, under fallback = warn). */
static void on_warning(void *ctx, const char *msg)
{
	run_warn(ctx, "%s", msg);
}

/*
 * The mode to run in: the one asked for, or under auto the strongest that
 * works here.  A run weaker than the strongest sandbox (auto without user
 * namespaces, no Landlock, no seccomp) runs only under fallback = warn,
 * and says so before the command starts: why, what is weaker, the fix.
 * fallback = deny refuses it.  A mode named with --mode is never swapped
 * for another, and with no filesystem boundary at all nothing runs.
 */
static int pick_mode(struct run_ctx *c, struct sbx_err *err)
{
	const struct sbx_policy *p = &c->s->pol;
	char why[sizeof err->msg];

	c->warn = 0;
	if (c->b->resolve(c->s->mode, c->feat, &c->mode, err) < 0 ||
	    c->b->check(p, c->mode, err) < 0)
		return SBX_E_KERNEL;
	if (!c->b->weaker(p, c->s->mode, c->mode, c->feat, why, sizeof why))
		return SBX_OK;
	if (p->fallback != SBX_FALLBACK_WARN) {
		sbx_errf(err, 0,
			 "fallback = \"deny\" refuses a sandbox weaker than "
			 "full mode: %s",
			 why);
		return SBX_E_KERNEL;
	}
	c->warn = 1;
	run_warn(c, "weaker sandbox (fallback = warn): %s", why);
	return SBX_OK;
}

/*
 * --allow-write of a path that does not exist: neither a mount nor
 * Landlock can grant a name without an inode, so the printed fix would
 * fail when followed.  The person asked for it on the command line: make
 * it (an empty file, or a directory when written with a trailing '/',
 * with the directories above it) and say so.
 */
static void make_flag_roots(struct run_ctx *c)
{
	const struct sbx_policy *p = &c->s->pol;
	struct stat st;

	for (size_t i = 0; i < p->nrules; i++) {
		const struct sbx_path_rule *r = &p->rules[i];
		int dir = (r->flags & SBX_RF_MKDIR) != 0;

		/* never through a link (N-11): the walk opens each
		 * component with O_NOFOLLOW */
		if (!(r->flags & SBX_RF_FLAG) || r->mode != SBX_RW ||
		    lstat(r->root, &st) == 0 || errno != ENOENT ||
		    sbx_mkpath_nofollow(r->root, dir) < 0)
			continue;
		run_warn(c,
			 "'%s' did not exist: made it %s so that "
			 "--allow-write can grant it",
			 r->root,
			 dir ? "as a directory"
			     : "as an empty file (end the "
			       "path with '/' for a "
			       "directory)");
	}
}

/* The run's own policy, for the mode just picked. */
static int run_policy(struct run_ctx *c, struct sbx_err *err)
{
	struct sbx_run_adj adj = { 0 };

	adj.nextra = c->b->mode_rules(c->mode, &adj.extra);
	if (c->req->timeout > 0)
		adj.timeout = (uint64_t)(c->req->timeout + 0.999);
	if (c->have_pol)
		sbx_policy_free(&c->pol);
	c->have_pol = sbx_policy_for_run(&c->pol, &c->s->pol, &adj, err) == 0;
	if (c->have_pol && c->no_caches)
		c->pol.redirect_caches = 0;
	return c->have_pol ? 0 : -1;
}

/* The mode the sandbox has at path (its longest non-protect rule), or
 * -1 when no rule covers it. */
static int sandbox_mode(const struct sbx_policy *p, const char *path)
{
	/* Asked for every absent protected path (sbx_plants_note): the
	 * ancestors looked up in the root index (sbx_policy_index before
	 * those) instead of a scan of every rule per path. */
	const struct sbx_path_rule *best =
		sbx_policy_decider(p, path, SBX_RF_PROTECT);

	return best ? (int)best->mode : -1;
}

static int sandbox_writable(const struct sbx_policy *p, const char *path)
{
	return sandbox_mode(p, path) == SBX_RW;
}

/* The store of compiled policies must be out of the sandbox's reach,
 * not below a writable root, and within the shim's: not below a hidden
 * one (strict hides ~, and ~/.cache/sbxrun/run with it: the shim could
 * not load its policy and refused every exec, review U-05).  rundir.c
 * tries the next place. */
static int state_writable(void *ctx, const char *path)
{
	const sbx_t *s = ctx;
	int m = sandbox_mode(&s->pol, path);

	return m == SBX_RW || m == SBX_HIDE;
}

/* GIT-02: a repository made or changed below the project. */
static void warn_line(void *ctx, const char *line);

static void report_repo(void *ctx, const char *path, const char *what)
{
	struct run_ctx *c = ctx;

	if (!strcmp(what, "planted")) { /* perdir.c, N-38 */
		c->perdir_failed +=
			sbx_perdir_planted(&c->pol, path, warn_line, c) < 0;
		return;
	}
	run_warn(ctx,
		 "'%s' was %s during the run: git run there outside the "
		 "sandbox would use its hooks and config: review them "
		 "before running git in it outside",
		 path, what);
}

/* Directories looked at, at most, for repositories made in the run. */
#define NEW_REPO_SCAN_DIRS 5000

/* A warning line built elsewhere (plant.c, guard.c). */
static void warn_line(void *ctx, const char *line)
{
	run_warn(ctx, "%s", line);
}

/* Returns how many protected entries the run changed are still there. */
static int report_created(struct run_ctx *c)
{
	struct stat st;
	char g[PATH_MAX + 8];
	int failed = sbx_guard_check(&c->guard, warn_line, c);

	failed += sbx_plants_check(&c->plants, warn_line, c);

	/* A gitfile written where there was no .git points the next git run
	 * outside the sandbox at a repository of the command's choosing. */
	snprintf(g, sizeof(g), "%s/.git", c->pol.project);
	if (!c->had_git && lstat(g, &st) == 0 && !S_ISDIR(st.st_mode))
		run_warn(c,
			 "'%s' was created during the run as a file: it "
			 "redirects git to another repository (and its hooks "
			 "and config): review it before running git outside",
			 g);
	for (size_t i = 0; i < c->pol.nrules; i++) {
		const struct sbx_path_rule *r = &c->pol.rules[i];

		/* a watched one was moved aside or said already: no lstat
		 * (about 70 of them, on the way out the user waits for) */
		if (!(r->flags & SBX_RF_ABSENT) ||
		    sbx_plants_watched(&c->plants, r->root) ||
		    lstat(r->root, &st) < 0 ||
		    !sandbox_writable(&c->pol, r->root))
			continue;
		run_warn(c,
			 "'%s' was created during the run; it is "
			 "protected because it can run code outside the "
			 "sandbox later: review it before using it outside",
			 r->root);
	}
	if (sbx_git_new_repos(c->pol.project, &c->t0, NEW_REPO_SCAN_DIRS,
			      report_repo, c))
		run_warn(c,
			 "the project has more than %d directories: only "
			 "those were searched for git repositories created "
			 "during the run",
			 NEW_REPO_SCAN_DIRS);
	return failed + c->perdir_failed;
}

/* The compiled policy: for the shim (the run directory) and for the
 * filtering proxy, which decides over the same bytes. */
static int write_policy(struct run_ctx *c, struct sbx_rundir *rd,
			struct sbx_err *err)
{
	struct sbx_cpol v;
	const char *why;

	free(c->cpol);
	c->cpol = NULL;
	if (sbx_cpol_build(&c->pol, c->mode, c->b->cpol_flags(c->mode),
			   &c->cpol, &c->cpol_len, err) < 0)
		return -1;
	if (sbx_cpol_view(c->cpol, c->cpol_len, &v, &why) < 0)
		return sbx_errf(err, 0, "compiled policy: %s", why);
	if (sbx_selfcheck(&c->s->pol, &v, c->have_shim ? c->shim : NULL,
			  c->s->locs.config_dir, err) < 0)
		return -1;
	return sbx_rundir_put(rd, c->cpol, c->cpol_len, err);
}

/* network = filtered: where the command reaches the proxy. */
static int open_proxy(struct run_ctx *c, struct sbx_launch *l,
		      struct sbx_env_vars *vars, struct sbx_err *err)
{
	if (c->pol.net != SBX_NET_FILTERED)
		return 0;
	if (c->b->proxy_open(c->mode, &c->proxy, err) < 0)
		return -1;
	vars->proxy_addr = c->proxy.addr;
	vars->proxy_port = c->proxy.port;
	vars->proxy_secret = c->proxy.secret;
	vars->proxy_direct_loopback = c->mode == SBX_KMODE_FULL;
	l->proxy = &c->proxy;
	l->cpol = c->cpol;
	l->cpol_len = c->cpol_len;
	return 0;
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

static void fill_layers(struct sbx_result *r, const struct run_ctx *c)
{
	snprintf(r->mode, sizeof(r->mode), "%s", c->b->mode_name(c->mode));
	c->b->layers(&c->pol, c->mode, c->feat, r->layers, sizeof(r->layers));
}

/* The shim's table of lines said in this run (shim/explain.c): in
 * landlock-only mode it is in the host's /tmp. */
static void forget_seen(const char *report)
{
	char path[200];
	size_t n, pre = sizeof("/tmp/.sbxrun-seen-") - 1;

	if (report[0] != '@')
		return;
	n = (size_t)snprintf(path, sizeof(path), "/tmp/.sbxrun-seen-%s",
			     report + 1);
	if (n >= sizeof(path))
		return;
	for (size_t i = pre; i < n; i++)
		if (!((path[i] >= 'a' && path[i] <= 'z') ||
		      (path[i] >= '0' && path[i] <= '9') || path[i] == '-'))
			path[i] = '_';
	unlink(path);
}

static int do_launch(struct run_ctx *c, struct sbx_result *res,
		     struct sbx_err *err)
{
	const struct sbx_policy *pol = &c->pol;
	struct collect col = { res,
			       c->req->max_output ? c->req->max_output
						  : DEFAULT_MAX_OUTPUT,
			       0 };
	struct sbx_env_vars vars = { .shim = c->have_shim ? c->shim : NULL,
				     .policy_file = c->rd.path };
	struct sbx_env env;
	char *shellv[4], report[128];
	struct sbx_launch l = { 0 };
	struct sbx_exit x = { .settle_fd = -1 };
	int r;

	c->b->report_addr(report, sizeof(report));
	vars.report_addr = report;
	c->proxy.fd = -1;
	if (open_proxy(c, &l, &vars, err) < 0)
		return -1;
	if (sbx_env_build(&env, pol, environ, &vars, err) < 0) {
		if (c->proxy.fd >= 0)
			close(c->proxy.fd);
		return -1;
	}
	/* SEC-12: a variable withheld for its value alone is a surprise
	 * (its name is innocent): say so, and how to pass it */
	for (size_t i = 0; i < env.nby_value; i++)
		run_warn(c,
			 "%s withheld from the command: its value holds a "
			 "credential (a URL with a password, or a token); to "
			 "pass it: sbxrun --env-keep %s",
			 env.by_value[i], env.by_value[i]);
	/* the names withheld go into the result (SEC-12) */
	free_strv(res->env_withheld);
	res->env_withheld = env.withheld;
	env.withheld = NULL;
	env.nwithheld = 0;
	l.pol = pol;
	l.mode = c->mode;
	l.feat = c->feat;
	l.warn_missing = c->warn;
	l.weaker_ok = c->s->pol.fallback == SBX_FALLBACK_WARN;
	l.argv = command_argv(c->req, shellv);
	l.envp = env.v;
	l.workdir = c->req->workdir ? c->req->workdir : pol->project;
	l.policy_file = c->rd.path;
	l.shim_path = vars.shim;
	l.report_addr = report;
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
	l.on_warning = on_warning;
	l.warning_ctx = c;
	if (sbx_check_start(&l, c->cpol, c->cpol_len, on_start_refused, &col)) {
		/* an exec deny rule names the command: as the shim refuses
		 * it inside, with EACCES, before anything runs */
		res->exit_code = res->status = 126;
		res->exec_errno = EACCES;
		if (c->proxy.fd >= 0) {
			close(c->proxy.fd);
			c->proxy.fd = -1;
		}
		sbx_env_free(&env);
		return 0;
	}
	r = c->b->launch(&l, &x, err);
	c->settle = x;
	if (r != 0) /* nothing to repair: no overlap to win */
		settle(c);
	forget_seen(report);
	if (c->proxy.fd >= 0) { /* launch() failed before taking it */
		close(c->proxy.fd);
		c->proxy.fd = -1;
	}
	if (r == 0) {
		res->exit_code = x.code;
		res->status = x.sig ? -1 : x.status;
		res->signal = x.sig;
		res->timed_out = x.timed_out;
		res->exec_errno = x.exec_errno;
		res->duration = (double)x.duration_ns / 1e9;
		if (x.exec_errno)
			sbx_explain_start(&l, c->b->cpol_flags(c->mode),
					  x.exec_errno, on_start_refused, &col);
		if (col.dropped)
			run_warn(c,
				 "%lu refusal records were not kept: a process "
				 "sent more than %d, or the run more than %d "
				 "(the first %d of each kind are kept)",
				 col.dropped, RPT_PER_SENDER, RPT_MAX,
				 RPT_FIRST_PER_KIND);
	}
	sbx_env_free(&env);
	return r;
}

/* Pick the mode, write its policy, run.  SBX_LAUNCH_RETRY when the
 * backend could not make its sandbox for a reason a full probe may
 * explain (nothing ran). */
static int launch_in_mode(struct run_ctx *c, struct sbx_result *res,
			  struct sbx_err *err)
{
	int rc = pick_mode(c, err);

	if (rc != SBX_OK)
		return rc;
	/* Before the run's policy: a state directory made now is no
	 * protected path "created during the run". */
	if (sbx_rundir_create(&c->rd, c->s->pol.home, state_writable, c->s,
			      err) < 0)
		return SBX_E_RUN;
	/* N-04/N-21: an earlier run here killed before its exit repair;
	 * before the policy, which takes what exists now as the project's */
	if (sbx_journal_repair(c->rd.base, c->s->pol.project, warn_line, c,
			       err) < 0) {
		sbx_rundir_release(&c->rd);
		return SBX_E_RUN;
	}
	if (run_policy(c, err) < 0) {
		sbx_rundir_release(&c->rd);
		return SBX_E_NOMEM;
	}
	if (sbx_nest_check(&c->pol, err) < 0) {
		sbx_rundir_release(&c->rd);
		return SBX_E_DENIED;
	}
	rc = write_policy(c, &c->rd, err);
	sbx_plants_free(&c->plants);
	(void)sbx_policy_index(&c->pol); /* without it: slower, same answers */
	if (rc == 0) /* N-33: before the guard's copies, the mounts */
		sbx_links_break(&c->pol, sandbox_writable, warn_line, c);
	sbx_plants_note(&c->plants, &c->pol, sandbox_writable);
	sbx_journal_end(&c->journal, 0);
	if (rc == 0)
		sbx_journal_write(&c->journal, c->rd.base, c->pol.project,
				  &c->plants, warn_line, c);
	sbx_guard_free(&c->guard);
	if (rc == 0 && (c->b->cpol_flags(c->mode) & SBX_CPOL_F_SHIM_PROTECT))
		sbx_guard_note(&c->guard, &c->pol, sandbox_writable, warn_line,
			       c);
	if (rc == 0)
		rc = do_launch(c, res, err);
	sbx_rundir_release(&c->rd);
	if (rc == SBX_LAUNCH_RETRY)
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
		sbx_errf(&err, 0, "out of memory");
		goto fail;
	}
	c->journal.fd = -1;
	c->settle.settle_fd = -1;
	if (!s || !req || (!req->shell && (!req->argv || !req->argv[0]))) {
		rc = SBX_E_ARG;
		sbx_errf(&err, 0, "no command to run");
		goto fail;
	}
	c->b = sbx_backend();
	c->s = s;
	c->req = req;
	c->res = res;
	{
		char g[PATH_MAX + 8];
		struct stat gst;

		snprintf(g, sizeof(g), "%s/.git", s->pol.project);
		c->had_git = lstat(g, &gst) == 0;
	}
	clock_gettime(CLOCK_REALTIME_COARSE, &c->t0);
	c->have_shim = sbx_find_shim(c->shim, sizeof(c->shim)) == 0;
	if (!c->have_shim)
		run_warn(c, "libsbxshim.so not found next to sbxrun or libsbx "
			    "(set SBXRUN_SHIM=/path/to/it): refusals are not "
			    "explained and the exec, suffix and size rules are "
			    "NOT enforced; the kernel layers are");
	/* A home that cannot hold the caches (read-only, not ours): the
	 * tools keep their own places, refused and explained as any write
	 * (issue 12: any HOME runs). */
	c->no_caches = s->pol.redirect_caches && s->pol.cache_dir &&
		       sbx_mkdirs(s->pol.cache_dir, 0700) < 0;
	make_flag_roots(c);
	c->feat = c->b->probe(1);
	if (!c->feat) {
		rc = SBX_E_NOMEM;
		sbx_errf(&err, 0, "out of memory");
		goto fail;
	}
	rc = launch_in_mode(c, res, &err);
	if (rc == SBX_LAUNCH_RETRY && c->b->reprobe(c->feat))
		rc = launch_in_mode(c, res, &err);
	if (rc == SBX_LAUNCH_RETRY)
		rc = SBX_E_KERNEL;
	if (rc != SBX_OK)
		goto fail;
	fill_layers(res, c);
	rc = report_created(c);
	if (rc) /* N-16/N-29: never planted code left with a warning alone */
		run_warn(c, "ERROR: code the run planted is still in place "
			    "(see above): sbxrun fails the run");
	res->exit_code = rc ? 125 : res->exit_code;
	sbx_journal_end(&c->journal, rc); /* kept: the next run tries */
	sbx_plants_free(&c->plants);
	sbx_guard_free(&c->guard);
	sbx_policy_free(&c->pol);
	free(c->cpol);
	free(c->feat);
	settle(c);
	free(c);
	*out = res;
	return SBX_OK;
fail:
	sbx_err_out(&err, errbuf, errlen);
	if (c && c->have_pol)
		sbx_policy_free(&c->pol);
	if (c) {
		settle(c);
		sbx_journal_end(&c->journal, 1); /* the next run checks */
		sbx_plants_free(&c->plants);
		sbx_guard_free(&c->guard);
		free(c->feat);
		free(c->cpol);
	}
	free(c);
	sbx_result_free(res);
	return rc;
}
