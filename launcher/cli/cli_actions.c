/*
 * cli_actions.c - what each sbxrun action does.  Management actions run
 * nothing; the run action goes through sbx_run() like any libsbx caller.
 * Built on include/sbx.h and launcher/lib/cli-api/sbx_cli.h only.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "die.h"
#include "hook.h"
#include "sbx_cli.h"

sbx_t *cli_open_policy(const struct cli *c)
{
	char err[1200];
	const char *w;
	sbx_t *s;

	if (sbx_open(&s, &c->opts, err, sizeof(err)) != SBX_OK)
		die("invalid configuration: %s", err);
	for (size_t i = 0; (w = sbx_warning(s, i)); i++)
		warning("%s", w);
	return s;
}

/* Text from the library, printed. */
static void put_text(char *text, FILE *fp)
{
	if (!text)
		die("out of memory");
	fputs(text, fp);
	free(text);
}

/* ------------------------------------------------------------ queries */

/* What the policy says about a path, for each operation, in the words
 * the shim and libsbx use (one decider, one explainer: decide.h,
 * explain.h). */
static int act_check(struct cli *c)
{
	struct sbx_answer rd, wr, ex;
	sbx_t *s = cli_open_policy(c);
	char note[512];
	int hold;

	if (sbx_check(s, c->action_arg, SBX_ACCESS_READ, -1, &rd) != SBX_OK ||
	    sbx_check(s, c->action_arg, SBX_ACCESS_WRITE, -1, &wr) != SBX_OK ||
	    sbx_check(s, c->action_arg, SBX_ACCESS_EXEC, -1, &ex) != SBX_OK)
		die("bad path: %s", c->action_arg);
	/* agree with what a run enforces, not only with the policy (W-17) */
	hold = sbx_cli_check_hold(s, c->action_arg, note, sizeof(note));
	printf("%s: %s\n", rd.path,
	       !rd.allowed  ? rd.verdict
	       : wr.allowed ? "writable"
	       : hold == SBX_HOLD_ABSENT
		       ? "writable in a run (protected, but missing)"
	       : hold == SBX_HOLD_SHIM
		       ? "read-only for programs that load the shim only"
		       : "read-only");
	printf("  rule: %s (%s) from %s\n", rd.rule[0] ? rd.rule : "none",
	       rd.mode[0] ? rd.mode : "-", rd.source[0] ? rd.source : "-");
	printf("  read: %s\n", rd.reason);
	printf("  write: %s\n", wr.reason);
	if (note[0])
		printf("  note: %s\n", note);
	printf("  run: %s\n", ex.reason);
	sbx_close(s);
	return 0;
}

static int act_list_paths(struct cli *c)
{
	sbx_t *s = cli_open_policy(c);

	put_text(sbx_cli_list_paths(s), stdout);
	sbx_close(s);
	return 0;
}

/* --shim-only, said before anything runs and first in --dry-run. */
static void say_advisory(FILE *fp)
{
	fprintf(fp,
		"sbxrun: ADVISORY (--shim-only): NO SANDBOX. The command runs on "
		"this machine as it is: secrets are readable, files outside the "
		"project writable, the network open.\n"
		"sbxrun: ADVISORY: only the shim's rules hold, and only for "
		"programs that load it (not static programs, raw system calls "
		"or a cleared LD_PRELOAD): exec rules, file suffixes, size "
		"limits, protected paths; each refusal is explained.\n");
}

/* --shim-only: the command on the host with the shim preloaded, in
 * place of sbxrun (its exit status is the command's own). */
static int act_shim_only(struct cli *c, sbx_t *s, char *const argv[])
{
	struct sbx_cli_shim sh;
	char err[1200];
	int e;

	if (sbx_cli_shim_only(s, &sh, err, sizeof err) < 0)
		die("--shim-only: %s", err);
	sbx_close(s);
	say_advisory(stderr);
	fflush(NULL);
	execvpe(argv[0], argv, sh.envp);
	e = errno;
	note("cannot run '%s': %s", argv[0], strerror(e));
	return e == ENOENT ? SBX_EXIT_NOTFOUND : SBX_EXIT_NOEXEC;
}

static int act_dry_run(struct cli *c)
{
	sbx_t *s = cli_open_policy(c);

	if (c->shim_only) {
		say_advisory(stdout);
		printf("With --shim-only nothing below is kernel-enforced: "
		       "the paths and the network rules are only explained "
		       "where a program that loads the shim is refused; the "
		       "kernel plan is what a sandboxed run would get.\n\n");
	}
	put_text(sbx_cli_dry_run(s), stdout);
	sbx_close(s);
	return 0;
}

/* The policy as another sandbox's profile, on stdout (README, "macOS
 * (preview)"). */
static int act_print_profile(struct cli *c)
{
	char err[1200], *out = NULL;
	size_t len = 0;
	sbx_t *s = cli_open_policy(c);

	if (sbx_profile(s, c->action_arg, NULL, &out, &len, err, sizeof(err)) !=
	    SBX_OK)
		die("--print-profile: %s", err);
	if (fwrite(out, 1, len, stdout) != len || fflush(stdout) != 0)
		die_errno("--print-profile");
	free(out);
	sbx_close(s);
	return 0;
}

static int act_status(struct cli *c)
{
	char *text;
	int ok = sbx_cli_status(&c->opts, &text) == 0;

	put_text(text, stdout);
	return ok ? 0 : SBX_EXIT_FAIL;
}

/* ------------------------------------------------------------ conf mgmt */

static void locate(const struct cli *c, struct sbx_locs *l)
{
	char err[1200];

	if (sbx_cli_locate(l, &c->opts, err, sizeof(err)) < 0)
		die("cannot find the project: %s", err);
}

/* PATH[=MODE]: the mode after the last '=', when it is one.  A word
 * after '=' that is no mode is refused (--add-path /srv=rwx used to
 * store the path "/srv=rwx"); a '/' after it makes it part of a path. */
static const char *split_mode(char *arg)
{
	char *eq = strrchr(arg, '=');

	if (!eq || strchr(eq, '/'))
		return "rw";
	if (strcmp(eq + 1, "rw") && strcmp(eq + 1, "ro") &&
	    strcmp(eq + 1, "hide"))
		die("--add-path: unknown mode '%s' in '%s': a mode is rw, ro "
		    "or hide (for a path with '=' in its name, add =rw)",
		    eq + 1, arg);
	*eq = '\0';
	return eq + 1;
}

/* The conf file's bytes, to put back (NULL: it did not exist). */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0;

	*len = 0;
	if (!f)
		return NULL;
	for (;;) {
		char *nb = realloc(buf, cap + 4096 + 1);

		if (!nb)
			die("out of memory");
		buf = nb;
		size_t n = fread(buf + *len, 1, 4096, f);

		*len += n;
		cap += 4096;
		if (n < 4096)
			break;
	}
	fclose(f);
	buf[*len] = '\0';
	return buf;
}

static void restore(const char *path, const char *old, size_t len)
{
	FILE *f;

	if (!old) {
		unlink(path);
		return;
	}
	f = fopen(path, "we");
	if (!f || fwrite(old, 1, len, f) != len || fclose(f) != 0)
		die_errno("cannot restore %s", path);
}

/* The first warning of s that was not among before's, or NULL. */
static const char *new_warning(sbx_t *s, sbx_t *before)
{
	const char *w, *o;

	for (size_t i = 0; (w = sbx_warning(s, i)); i++) {
		size_t j = 0;

		while ((o = sbx_warning(before, j)) && strcmp(o, w))
			j++;
		if (!o)
			return w;
	}
	return NULL;
}

/* A writable rule for a missing path is not what the user means (the
 * sandbox cannot make it: its parent is read-only, and mkdir fails
 * there): make it, as a directory, outside the sandbox. */
static void make_missing(sbx_t *s, const char *path, const char *mode)
{
	struct sbx_answer a;
	char cmd[PATH_MAX];

	if (strcmp(mode, "rw") ||
	    sbx_check(s, path, SBX_ACCESS_READ, -1, &a) != SBX_OK ||
	    access(a.path, F_OK) == 0 || errno != ENOENT)
		return;
	snprintf(cmd, sizeof cmd, "%s", a.path);
	for (char *p = cmd + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(cmd, 0755);
			*p = '/';
		}
	if (mkdir(cmd, 0755) < 0 && errno != EEXIST)
		die_errno("added, but cannot create the missing directory "
			  "%s (a rule's path must exist at launch; create it "
			  "yourself, mkdir -p or touch for a file)",
			  a.path);
	printf("created the directory %s (it did not exist; a rule's path "
	       "must exist at launch; for a file, rmdir it and touch it)\n",
	       a.path);
}

/* Add the rule, then load the policy as a run would: a conf that no
 * longer loads, or a rule that is ignored (a conf cannot lift a hide),
 * is rolled back and refused with the reason. */
static int act_add_path(struct cli *c)
{
	struct sbx_locs l;
	char path[4096], err[1200], *old;
	const char *mode, *w;
	size_t oldlen;
	sbx_t *before, *after;

	locate(c, &l);
	snprintf(path, sizeof(path), "%s", c->action_arg);
	mode = split_mode(path);
	before = cli_open_policy(c);
	old = slurp(l.project_conf, &oldlen);
	if (sbx_cli_add_path(&l, path, mode, err, sizeof(err)) < 0)
		die("cannot add the path: %s", err);
	if (sbx_open(&after, &c->opts, err, sizeof(err)) != SBX_OK) {
		restore(l.project_conf, old, oldlen);
		die("not added (%s was put back): the conf would not load: %s",
		    l.project_conf, err);
	}
	if ((w = new_warning(after, before))) {
		restore(l.project_conf, old, oldlen);
		die("not added, the rule would be ignored: %s", w);
	}
	printf("added %s (%s) to %s\n", path, mode, l.project_conf);
	make_missing(after, path, mode);
	free(old);
	sbx_close(after);
	sbx_close(before);
	return 0;
}

static int act_remove_path(struct cli *c)
{
	struct sbx_locs l;
	char err[1200];

	locate(c, &l);
	if (sbx_cli_remove_path(&l, c->action_arg, err, sizeof(err)) < 0)
		die("cannot remove the path: %s", err);
	printf("removed %s from %s\n", c->action_arg, l.project_conf);
	return 0;
}

/* Print the lines of text that name file (the in-repo conf as a rule's
 * source) and widen the sandbox: path rules that are not hides and lie
 * outside the project, and whatever else the conf sets (network, allow
 * entries, environment, limits).  The number printed. */
static int print_widening(const char *text, const char *file,
			  const char *project, int rules)
{
	size_t plen = strlen(project);
	char needle[PATH_MAX + 2];
	int n = 0, net = 0;

	snprintf(needle, sizeof needle, "(%s:", file);
	for (const char *p = text; p && *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char line[4200];

		const char *l;
		int rule;

		snprintf(line, sizeof line, "%.*s", (int)len, p);
		p = e ? e + 1 : NULL;
		l = line + strspn(line, " ");
		rule = !strncmp(l, "rw ", 3) || !strncmp(l, "ro ", 3) ||
		       !strncmp(l, "hide ", 5);
		/* the allow list under the conf's network line */
		net = net && !strncmp(l, "allow ", 6);
		if (net) {
			printf("    %s\n", l);
			continue;
		}
		net = !rules && !strncmp(l, "network:", 8) && strstr(l, needle);
		if (!strstr(l, needle) || rule != rules ||
		    !strncmp(l, "hide ", 5))
			continue;
		if (rule) {
			const char *path = l + 2 + strspn(l + 2, " ");

			if (!strncmp(path, project, plen) &&
			    (path[plen] == ' ' || path[plen] == '/'))
				continue; /* the project is writable anyway */
		}
		printf("  %s\n", l);
		n++;
	}
	return n;
}

/* Record the in-repo conf's hash, after saying what it widens (the rules
 * it adds, from the policy as a run will load it); on a terminal, ask
 * first.  Declined: the trust record is put back as it was. */
static int act_trust(struct cli *c)
{
	struct sbx_locs l;
	char err[1200], *old, *paths, *dry, ans[16];
	size_t oldlen;
	int n;
	sbx_t *s;

	locate(c, &l);
	old = slurp(l.trust_file, &oldlen);
	n = sbx_cli_trust(&l, err, sizeof(err));
	if (n < 0)
		die("not trusted: %s", err);
	if (n == 1) {
		free(old);
		printf("%s is gone: forgot that you trusted it\n",
		       l.inrepo_conf);
		return 0;
	}
	if (sbx_open(&s, &c->opts, err, sizeof(err)) != SBX_OK) {
		restore(l.trust_file, old, oldlen);
		die("not trusted: the conf would not load: %s", err);
	}
	paths = sbx_cli_list_paths(s);
	dry = sbx_cli_dry_run(s);
	printf("%s widens the sandbox with:\n", l.inrepo_conf);
	n = print_widening(paths, l.inrepo_conf, l.project, 1);
	n += print_widening(dry, l.inrepo_conf, l.project, 0);
	if (!n)
		printf("  nothing outside the project\n");
	free(paths);
	free(dry);
	sbx_close(s);
	if (isatty(STDIN_FILENO)) {
		fprintf(stderr, "sbxrun: trust it as it is now? [y/N] ");
		if (!fgets(ans, sizeof ans, stdin) || ans[0] != 'y') {
			restore(l.trust_file, old, oldlen);
			die("not trusted");
		}
	}
	free(old);
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

/* The editor on path: 0 when it exited 0. */
static int run_editor(const char *path)
{
	const char *ed = getenv("VISUAL") ? getenv("VISUAL") : getenv("EDITOR");
	char cmd[8400];
	pid_t pid;
	int st;

	snprintf(cmd, sizeof(cmd), "%s \"$1\"", ed && *ed ? ed : "vi");
	pid = fork();
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, "sh", path, (char *)NULL);
		_exit(127);
	}
	return pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
			       WEXITSTATUS(st) != 0
		       ? -1
		       : 0;
}

/* The edited conf does not load: on a terminal ask, like visudo, whether
 * to edit again or roll back; otherwise roll back.  1: edit again. */
static int edit_again(const char *path, const char *why)
{
	char ans[16];

	note("%s does not load: %s", path, why);
	if (!isatty(STDIN_FILENO))
		return 0;
	for (;;) {
		fprintf(stderr, "sbxrun: (e)dit again or (r)oll back to the "
				"conf as it was? [e/r] ");
		if (!fgets(ans, sizeof ans, stdin) || ans[0] == 'r')
			return 0;
		if (ans[0] == 'e')
			return 1;
	}
}

/* $VISUAL or $EDITOR (else vi) on the per-project conf, then check that
 * it still loads; a conf that does not is never left in place (every
 * later run would exit 125): re-edit or roll back. */
static int act_edit(struct cli *c)
{
	struct sbx_locs l;
	char err[1200], *old;
	size_t oldlen;
	sbx_t *s;

	locate(c, &l);
	old = slurp(l.project_conf, &oldlen);
	if (sbx_cli_conf_create(&l, edit_template, err, sizeof(err)) < 0)
		die("%s", err);
	for (;;) {
		if (run_editor(l.project_conf) < 0) {
			restore(l.project_conf, old, oldlen);
			die("the editor failed; %s rolled back",
			    l.project_conf);
		}
		if (sbx_open(&s, &c->opts, err, sizeof(err)) == SBX_OK)
			break;
		if (!edit_again(l.project_conf, err)) {
			restore(l.project_conf, old, oldlen);
			die("%s rolled back to the conf as it was",
			    l.project_conf);
		}
	}
	sbx_close(s);
	free(old);
	printf("%s is valid\n", l.project_conf);
	return 0;
}

/* ------------------------------------------------------------ running */

/* Warnings come as they are known (sbx_run_req.on_warning), so one that
 * weakens the sandbox is said before the command runs. */
static void say_warning(void *ctx, const char *msg)
{
	(void)ctx;
	warning("%s", msg);
}

/* The command could not start: the policy's explanation when the
 * launcher found one (its record has pid 0; the line is the one
 * explainer's, "sbxrun: cannot run ..."), else the system error. */
static void say_exec_failure(const struct sbx_result *res, const char *cmd)
{
	for (size_t i = 0; i < res->nrefusals; i++)
		if (res->refusals[i].pid == 0) {
			fprintf(stderr, "%s\n", res->refusals[i].message);
			return;
		}
	note("cannot run '%s': %s", cmd, strerror(res->exec_errno));
}

static int print_result(struct cli *c, struct sbx_result *res,
			char *const argv[], struct sbx_cli_report *rp)
{
	int code = res->exit_code, w;
	char why[PATH_MAX + 100];

	if (res->exec_errno)
		say_exec_failure(res, argv[0]);
	if (res->timed_out)
		note("timed out; everything in the sandbox was killed");
	/* --report -: the JSON on stderr stands for the summary */
	if (!(c->opts.flags & SBX_OPT_QUIET) &&
	    !(c->report && !strcmp(c->report, "-")))
		put_text(sbx_cli_summary(res), stderr);
	if (rp->fd < 0)
		return code;
	/* fail closed: a harness must not read what the command left at the
	 * report's path (W-15) */
	w = sbx_cli_report_write(rp, res, argv, why, sizeof(why));
	if (w < 0) {
		note("cannot write the report %s: %s", c->report, why);
		return SBX_EXIT_FAIL;
	}
	if (w > 0)
		warning("the report's path %s was replaced during the run (the "
			"command could write there): the report was written "
			"in its place",
			c->report);
	return code;
}

/* The command: argv, -c STRING, or the user's shell when neither. */
static void run_request(struct cli *c, struct sbx_run_req *req, char *shellv[2])
{
	const char *sh = getenv("SHELL");

	req->argv = c->argv;
	req->shell = c->shell;
	req->on_warning = say_warning;
	if (!c->argv && !c->shell) {
		shellv[0] = (char *)(sh && sh[0] == '/' ? sh : "/bin/sh");
		shellv[1] = NULL;
		req->argv = c->ishell ? c->ishell : shellv;
		req->interactive = isatty(STDIN_FILENO);
	}
	if (c->interactive)
		req->interactive = 1;
}

/* Run the command under the loaded policy s, which this closes. */
int cli_run(struct cli *c, sbx_t *s)
{
	struct sbx_run_req req = { 0 };
	struct sbx_result *res;
	struct sbx_cli_info info;
	char err[1200], why[PATH_MAX + 100], *shellv[2];
	char *shv[] = { (char *)"/bin/sh", (char *)"-c", (char *)c->shell,
			NULL };
	struct sbx_cli_report rp = { .fd = -1, .dirfd = -1 };
	int st, r;

	if (c->report && sbx_cli_report_open(&rp, c->report) < 0)
		die_errno("cannot write the report %s", c->report);
	run_request(c, &req, shellv);
	if (c->shim_only)
		return act_shim_only(c, s, c->shell ? shv : req.argv);
	sbx_cli_info(s, &info);
	if (info.cache_dir && c->verbose)
		note("toolchain caches redirected to %s", info.cache_dir);
	st = sbx_run(s, &req, &res, err, sizeof(err));
	if (st != SBX_OK && rp.fd >= 0 &&
	    sbx_cli_report_failure(&rp, err, c->shell ? shv : req.argv, why,
				   sizeof(why)) < 0)
		note("cannot write the report %s: %s", c->report, why);
	if (st != SBX_OK)
		die("%s: %s%s",
		    st == SBX_E_KERNEL ? "cannot sandbox"
				       : "cannot run the command",
		    err,
		    st == SBX_E_KERNEL && c->sh
			    ? " (sbxrun-sh where no sandbox can be made: "
			      "inject = \"shim-only\" in the conf runs each "
			      "shell with the shim alone, ADVISORY)"
			    : "");
	if (c->verbose)
		note("mode %s, layers %s", res->mode, res->layers);
	r = print_result(c, res, c->shell ? shv : req.argv, &rp);
	sbx_cli_report_close(&rp);
	sbx_result_free(res);
	sbx_close(s);
	return r;
}

/* The program's own name: sbxrun, or sbxrun-sh (a link to it), also as
 * a login shell ("-sbxrun-sh"). */
static int called_as_sh(const char *argv0)
{
	const char *b = argv0 ? strrchr(argv0, '/') : NULL;

	b = b ? b + 1 : argv0;
	return b &&
	       (strcmp(b, "sbxrun-sh") == 0 || strcmp(b, "-sbxrun-sh") == 0);
}

int cli_main(int argc, char **argv)
{
	struct cli c;
	int r = 0;

	if (argc > 0 && called_as_sh(argv[0])) {
		memset(&c, 0, sizeof c);
		c.sh = 1;
		c.argv = argv + 1;
		r = cli_sh(&c);
		cli_free(&c);
		return r;
	}
	cli_parse(&c, argc, argv);
	if (c.sh) {
		r = cli_sh(&c);
		cli_free(&c);
		return r;
	}
	if (c.action != CLI_RUN && (c.argv || c.shell))
		die("management options run nothing; drop the command");
	switch (c.action) {
	case CLI_HELP: cli_usage(stdout); break;
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
	case CLI_PRINT_PROFILE: r = act_print_profile(&c); break;
	case CLI_RUN:
		if (!c.argv && !c.shell && !c.shim_only &&
		    isatty(STDIN_FILENO)) {
			const char *sh = getenv("SHELL");

			c.ishell = cli_ishell(
				&c, sh && sh[0] == '/' ? sh : "/bin/sh");
		}
		r = cli_run(&c, cli_open_policy(&c));
		break;
	}
	cli_free(&c);
	return r;
}
