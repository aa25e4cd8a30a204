/*
 * cli_actions.c - what each sbxrun action does.  Management actions run
 * nothing; the run action goes through sbx_run() like any libsbx caller.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api.h"
#include "cli.h"
#include "conf.h"
#include "explain.h"
#include "hook.h"
#include "kernel.h"
#include "report.h"

void sbx_cli_usage(FILE *fp);

static int die(const char *what, const char *msg)
{
	fprintf(stderr, "sbxrun: %s%s%s\n", what, *msg ? ": " : "", msg);
	return SBX_EXIT_FAIL;
}

static void print_warnings(const sbx_t *s)
{
	const char *w;

	for (size_t i = 0; (w = sbx_warning(s, i)); i++)
		fprintf(stderr, "sbxrun: warning: %s\n", w);
}

static int open_policy(struct cli *c, sbx_t **s)
{
	char err[1200];

	if (sbx_open(s, &c->opts, err, sizeof(err)) != SBX_OK)
		return die("invalid configuration", err);
	print_warnings(*s);
	return 0;
}

/* ------------------------------------------------------------ queries */

/* What the policy says about a path, for each operation, in the words
 * the shim and libsbx use (one decider, one explainer: decide.h,
 * explain.h). */
static int act_check(struct cli *c)
{
	struct sbx_answer rd, wr, ex;
	sbx_t *s;
	int r = open_policy(c, &s);

	if (r)
		return r;
	if (sbx_check(s, c->action_arg, SBX_ACCESS_READ, -1, &rd) != SBX_OK ||
	    sbx_check(s, c->action_arg, SBX_ACCESS_WRITE, -1, &wr) != SBX_OK ||
	    sbx_check(s, c->action_arg, SBX_ACCESS_EXEC, -1, &ex) != SBX_OK) {
		sbx_close(s);
		return die("bad path", c->action_arg);
	}
	printf("%s: %s\n", rd.path,
	       !rd.allowed  ? rd.verdict
	       : wr.allowed ? "writable"
			    : "read-only");
	printf("  rule: %s (%s) from %s\n", rd.rule[0] ? rd.rule : "none",
	       rd.mode[0] ? rd.mode : "-", rd.source[0] ? rd.source : "-");
	printf("  read: %s\n", rd.reason);
	printf("  write: %s\n", wr.reason);
	printf("  run: %s\n", ex.reason);
	sbx_close(s);
	return 0;
}

static void print_rule(const struct sbx_path_rule *r)
{
	char src[600];

	sbx_src_format(src, sizeof(src), r->src);
	printf("%-5s %s", sbx_pmode_name(r->mode), r->root);
	if (r->flags & SBX_RF_PROTECT)
		printf("  [protected]");
	if (r->flags & SBX_RF_PROJECT)
		printf("  [project]");
	if (r->flags & SBX_RF_TMP)
		printf("  [private /tmp]");
	for (size_t i = 0; i < r->nsuffixes; i++)
		printf("%s%s", i ? "," : "  suffixes=", r->suffixes[i]);
	if (r->max_file_bytes)
		printf("  max_file_bytes=%llu",
		       (unsigned long long)r->max_file_bytes);
	printf("  (%s)\n", src);
}

static int rule_cmp(const void *a, const void *b)
{
	const struct sbx_path_rule *x = a, *y = b;

	return strcmp(x->root, y->root);
}

static int act_list_paths(struct cli *c)
{
	sbx_t *s;
	int r = open_policy(c, &s);
	struct sbx_path_rule *v;

	if (r)
		return r;
	v = malloc(s->pol.nrules * sizeof(*v) + 1);
	if (!v) {
		sbx_close(s);
		return die("out of memory", "");
	}
	memcpy(v, s->pol.rules, s->pol.nrules * sizeof(*v));
	qsort(v, s->pol.nrules, sizeof(*v), rule_cmp);
	printf("# profile %s, project %s\n", s->pol.profile, s->pol.project);
	for (size_t i = 0; i < s->pol.nrules; i++)
		print_rule(&v[i]);
	free(v);
	sbx_close(s);
	return 0;
}

static void print_policy(const struct sbx_policy *p)
{
	char src[600];

	printf("profile: %s\nproject: %s\n\npaths:\n", p->profile, p->project);
	for (size_t i = 0; i < p->nrules; i++) {
		printf("  ");
		print_rule(&p->rules[i]);
	}
	sbx_src_format(src, sizeof(src), p->net_src);
	printf("\nnetwork: %s (%s)\n", sbx_net_name(p->net), src);
	for (size_t i = 0; i < p->nallow; i++)
		printf("  allow %s\n", p->allow[i].text);
	for (size_t i = 0; i < p->unix_sockets.n; i++)
		printf("  unix socket %s\n", p->unix_sockets.v[i]);
	printf("\nexec deny rules: %zu\n", p->nexec);
	for (size_t i = 0; i < p->nexec; i++)
		printf("  %s%s: %s\n", p->exec[i].program,
		       p->exec[i].nargs ? " (with args)" : "",
		       p->exec[i].reason);
	printf("\nlimits: timeout=%llus cpu=%llus memory=%llu nofile=%llu "
	       "nproc=%llu fsize=%llu\nfallback: %s\n",
	       (unsigned long long)p->limits.timeout,
	       (unsigned long long)p->limits.cpu,
	       (unsigned long long)p->limits.memory,
	       (unsigned long long)p->limits.nofile,
	       (unsigned long long)p->limits.nproc,
	       (unsigned long long)p->limits.fsize,
	       p->fallback == SBX_FALLBACK_WARN ? "warn" : "deny");
	if (p->redirect_caches)
		printf("caches redirected to: %s\n", p->cache_dir);
}

static int act_dry_run(struct cli *c)
{
	struct sbx_features f;
	struct sbx_err err;
	enum sbx_kmode mode;
	sbx_t *s;
	int r = open_policy(c, &s);

	if (r)
		return r;
	print_policy(&s->pol);
	sbx_features_probe(&f, 0);
	if (sbx_mode_resolve(s->mode, &f, &mode, &err) < 0) {
		printf("\nkernel plan: none: %s\n", err.msg);
		mode = f.userns ? SBX_KMODE_FULL : SBX_KMODE_LANDLOCK;
	}
	printf("\nkernel plan (%s mode):\n",
	       mode == SBX_KMODE_FULL ? "full" : "landlock-only");
	fflush(stdout);
	sbx_plan_print(stdout, &s->pol, mode, &f);
	sbx_close(s);
	return 0;
}

static int act_status(struct cli *c)
{
	struct sbx_features f;
	struct sbx_err err;
	enum sbx_kmode mode;
	int ok;

	sbx_features_probe(&f, 0);
	printf("sbxrun %s\n", sbx_version());
	printf("landlock: %s", f.landlock_abi ? "yes" : "no");
	if (f.landlock_abi)
		printf(" (ABI %d)\n", f.landlock_abi);
	else
		printf(" -- %s\n", f.landlock_why);
	printf("user namespaces: %s%s%s\n", f.userns ? "yes" : "no",
	       f.userns ? "" : " -- ", f.userns ? "" : f.userns_why);
	printf("seccomp: %s\n", f.seccomp ? "yes" : "no");
	ok = sbx_mode_resolve((enum sbx_kmode)c->opts.mode, &f, &mode, &err) ==
	     0;
	if (ok)
		printf("mode: %s\n",
		       mode == SBX_KMODE_FULL ? "full" : "landlock-only");
	else
		printf("mode: none: %s\n", err.msg);
	if (ok) {
		sbx_t *s = NULL;
		char e[1200];

		if (sbx_open(&s, &c->opts, e, sizeof(e)) == SBX_OK) {
			printf("\n");
			fflush(stdout);
			sbx_plan_print(stdout, &s->pol, mode, &f);
			sbx_close(s);
		}
	}
	return ok ? 0 : SBX_EXIT_FAIL;
}

/* ------------------------------------------------------------ conf mgmt */

static int locs(struct cli *c, struct sbx_locs *l)
{
	struct sbx_err err;

	if (sbx_locs_init(l, &c->opts, &err) < 0)
		return die("cannot find the project", err.msg);
	return 0;
}

static int act_add_path(struct cli *c)
{
	struct sbx_locs l;
	struct sbx_err err;
	char path[4096], *eq;
	const char *mode = "rw";
	int r = locs(c, &l);

	if (r)
		return r;
	snprintf(path, sizeof(path), "%s", c->action_arg);
	eq = strrchr(path, '=');
	if (eq && (!strcmp(eq + 1, "rw") || !strcmp(eq + 1, "ro") ||
		   !strcmp(eq + 1, "hide"))) {
		*eq = '\0';
		mode = eq + 1;
	}
	if (sbx_conf_add_path(&l, path, mode, &err) < 0)
		return die("cannot add the path", err.msg);
	printf("added %s (%s) to %s\n", path, mode, l.project_conf);
	return 0;
}

static int act_remove_path(struct cli *c)
{
	struct sbx_locs l;
	struct sbx_err err;
	int r = locs(c, &l);

	if (r)
		return r;
	if (sbx_conf_remove_path(&l, c->action_arg, &err) < 0)
		return die("cannot remove the path", err.msg);
	printf("removed %s from %s\n", c->action_arg, l.project_conf);
	return 0;
}

static int act_trust(struct cli *c)
{
	struct sbx_locs l;
	struct sbx_err err;
	int r = locs(c, &l);

	if (r)
		return r;
	if (sbx_conf_trust(&l, &err) < 0)
		return die("not trusted", err.msg);
	printf("trusted %s as it is now (hash recorded in %s)\n", l.inrepo_conf,
	       l.trust_file);
	return 0;
}

static const char edit_template[] =
	"# sbxrun per-project conf (libconfig syntax); see the conf/ examples.\n"
	"# It lives outside the project, so nothing sandboxed can edit it.\n"
	"#\n"
	"# paths = ( { root = \"~/.cache/my-tool\"; mode = \"rw\"; } );\n"
	"# network = { mode = \"loopback\"; };\n";

static int act_edit(struct cli *c)
{
	struct sbx_locs l;
	char dir[4200], cmd[8400];
	const char *ed = getenv("VISUAL") ? getenv("VISUAL") : getenv("EDITOR");
	sbx_t *s;
	int r = locs(c, &l), st;
	FILE *f;

	if (r)
		return r;
	snprintf(dir, sizeof(dir), "%s/projects", l.config_dir);
	if (access(l.project_conf, F_OK) != 0) {
		if (sbx_mkdirs(dir, 0700) < 0 ||
		    !(f = fopen(l.project_conf, "wx")))
			return die("cannot create", l.project_conf);
		fputs(edit_template, f);
		fclose(f);
	}
	snprintf(cmd, sizeof(cmd), "%s \"$1\"", ed && *ed ? ed : "vi");
	pid_t pid = fork();
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, "sh", l.project_conf,
		      (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0)
		return die("the editor failed", l.project_conf);
	r = open_policy(c, &s);
	if (r)
		return r;
	sbx_close(s);
	printf("%s is valid\n", l.project_conf);
	return 0;
}

/* ------------------------------------------------------------ running */

/* The command could not start: the policy's explanation when the
 * launcher found one (its record has pid 0), else the system error. */
static void print_exec_failure(const struct sbx_result *res, const char *cmd)
{
	for (size_t i = 0; i < res->nrefusals; i++)
		if (res->refusals[i].pid == 0) {
			fprintf(stderr, "%s\n", res->refusals[i].message);
			return;
		}
	fprintf(stderr, "sbxrun: cannot run '%s': %s\n", cmd,
		strerror(res->exec_errno));
}

static int print_result(struct cli *c, struct sbx_result *res,
			char *const argv[], int report_fd)
{
	int code = res->exit_code;

	for (size_t i = 0; res->warnings && res->warnings[i]; i++)
		fprintf(stderr, "sbxrun: warning: %s\n", res->warnings[i]);
	if (res->exec_errno)
		print_exec_failure(res, argv[0]);
	if (res->timed_out)
		fprintf(stderr, "sbxrun: timed out; everything in the sandbox "
				"was killed\n");
	if (!(c->opts.flags & SBX_OPT_QUIET))
		sbx_report_summary(stderr, res);
	if (report_fd >= 0 && sbx_report_write(report_fd, res, argv) < 0) {
		fprintf(stderr, "sbxrun: cannot write the report %s: %s\n",
			c->report, strerror(errno));
		if (code == 0)
			code = SBX_EXIT_FAIL;
	}
	return code;
}

static int act_run(struct cli *c)
{
	struct sbx_run_req req = { 0 };
	struct sbx_result *res;
	char err[1200], *shellv[2];
	const char *sh = getenv("SHELL");
	sbx_t *s;
	int r = open_policy(c, &s), st, report_fd = -1;

	if (r)
		return r;
	if (c->report && (report_fd = sbx_report_open(c->report)) < 0) {
		sbx_close(s);
		fprintf(stderr, "sbxrun: cannot write the report %s: %s\n",
			c->report, strerror(errno));
		return SBX_EXIT_FAIL;
	}
	req.argv = c->argv;
	req.shell = c->shell;
	if (!c->argv && !c->shell) {
		shellv[0] = (char *)(sh && sh[0] == '/' ? sh : "/bin/sh");
		shellv[1] = NULL;
		req.argv = shellv;
		req.interactive = isatty(STDIN_FILENO);
	}
	if (s->pol.redirect_caches && !(c->opts.flags & SBX_OPT_QUIET))
		fprintf(stderr,
			"sbxrun: build profile: toolchain caches "
			"redirected to %s\n",
			s->pol.cache_dir);
	st = sbx_run(s, &req, &res, err, sizeof(err));
	if (st != SBX_OK) {
		sbx_close(s);
		if (report_fd >= 0)
			close(report_fd);
		return die(st == SBX_E_KERNEL ? "cannot sandbox"
					      : "cannot run the command",
			   err);
	}
	if (c->verbose)
		fprintf(stderr, "sbxrun: mode %s, layers %s\n", res->mode,
			res->layers);
	{
		char *shv[] = { (char *)"/bin/sh", (char *)"-c",
				(char *)c->shell, NULL };

		r = print_result(c, res, c->shell ? shv : req.argv, report_fd);
	}
	if (report_fd >= 0)
		close(report_fd);
	sbx_result_free(res);
	sbx_close(s);
	return r;
}

int sbx_cli_main(int argc, char **argv)
{
	struct cli c;
	int r = sbx_cli_parse(&c, argc, argv);

	if (r == 0 && c.action != CLI_RUN && (c.argv || c.shell)) {
		fprintf(stderr, "sbxrun: management options run nothing; "
				"drop the command\n");
		r = SBX_EXIT_FAIL;
	}
	if (r) {
		sbx_cli_free(&c);
		return r;
	}
	switch (c.action) {
	case CLI_HELP: sbx_cli_usage(stdout); break;
	case CLI_VERSION: printf("sbxrun %s\n", sbx_version()); break;
	case CLI_CHECK: r = act_check(&c); break;
	case CLI_LIST_PATHS: r = act_list_paths(&c); break;
	case CLI_ADD_PATH: r = act_add_path(&c); break;
	case CLI_REMOVE_PATH: r = act_remove_path(&c); break;
	case CLI_EDIT: r = act_edit(&c); break;
	case CLI_TRUST: r = act_trust(&c); break;
	case CLI_DRY_RUN: r = act_dry_run(&c); break;
	case CLI_STATUS: r = act_status(&c); break;
	case CLI_HOOK: r = sbx_hook_main(c.action_arg, &c.opts); break;
	case CLI_RUN: r = act_run(&c); break;
	}
	sbx_cli_free(&c);
	return r;
}
