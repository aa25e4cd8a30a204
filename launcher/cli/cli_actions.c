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
#include "sbx_cli.h"

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

static int act_check(struct cli *c)
{
	struct sbx_answer rd, wr;
	sbx_t *s;
	int r = open_policy(c, &s);

	if (r)
		return r;
	if (sbx_check(s, c->action_arg, SBX_ACCESS_READ, -1, &rd) != SBX_OK ||
	    sbx_check(s, c->action_arg, SBX_ACCESS_WRITE, -1, &wr) != SBX_OK) {
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
	sbx_close(s);
	return 0;
}

/* Text from the library: printed, or "out of memory". */
static int put_text(char *text, FILE *fp)
{
	if (!text)
		return die("out of memory", "");
	fputs(text, fp);
	free(text);
	return 0;
}

static int act_list_paths(struct cli *c)
{
	sbx_t *s;
	int r = open_policy(c, &s);

	if (r)
		return r;
	r = put_text(sbx_cli_list_paths(s), stdout);
	sbx_close(s);
	return r;
}

static int act_dry_run(struct cli *c)
{
	sbx_t *s;
	int r = open_policy(c, &s);

	if (r)
		return r;
	r = put_text(sbx_cli_dry_run(s), stdout);
	sbx_close(s);
	return r;
}

static int act_status(struct cli *c)
{
	char *text;
	int ok = sbx_cli_status(&c->opts, &text) == 0;
	int r = put_text(text, stdout);

	return r ? r : ok ? 0 : SBX_EXIT_FAIL;
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

/* Warnings come as they are known (sbx_run_req.on_warning), so one that
 * weakens the sandbox is said before the command runs. */
static void say_warning(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "sbxrun: warning: %s\n", msg);
}

static int print_result(struct cli *c, struct sbx_result *res,
			char *const argv[], int report_fd)
{
	int code = res->exit_code;

	if (res->exec_errno)
		fprintf(stderr, "sbxrun: cannot run '%s': %s\n", argv[0],
			strerror(res->exec_errno));
	if (res->timed_out)
		fprintf(stderr, "sbxrun: timed out; everything in the sandbox "
				"was killed\n");
	if (!(c->opts.flags & SBX_OPT_QUIET))
		put_text(sbx_cli_summary(res), stderr);
	if (report_fd >= 0 && sbx_cli_report_write(report_fd, res, argv) < 0) {
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
	if (c->report && (report_fd = sbx_cli_report_open(c->report)) < 0) {
		sbx_close(s);
		fprintf(stderr, "sbxrun: cannot write the report %s: %s\n",
			c->report, strerror(errno));
		return SBX_EXIT_FAIL;
	}
	req.argv = c->argv;
	req.shell = c->shell;
	req.on_warning = say_warning;
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
