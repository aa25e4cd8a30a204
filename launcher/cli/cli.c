/*
 * cli.c - option table and handlers for sbxrun.  Parsing stops at the
 * first non-option or at "--": nothing after it is ever read as a launcher
 * option (THREATS LCH-01).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "die.h"
#include "hook.h"

struct optdef {
	const char *name;
	int has_arg;
	void (*fn)(struct cli *c, const char *arg, const struct optdef *d);
	const char *meta; /* argument name for --help, or NULL */
	const char *help;
	int value; /* action or override name, per handler */
	const char *ov;
};

static void add_override(struct cli *c, const char *name, const char *val)
{
	char *s;

	if (c->noverrides >= CLI_MAX_OVERRIDES)
		die("too many overrides");
	if (asprintf(&s, "%s=%s", name, val) < 0)
		die("out of memory");
	c->owned[c->noverrides] = s;
	c->overrides[c->noverrides++] = s;
	c->overrides[c->noverrides] = NULL;
}

static void h_override(struct cli *c, const char *arg, const struct optdef *d)
{
	add_override(c, d->ov, arg);
}

static void h_action(struct cli *c, const char *arg, const struct optdef *d)
{
	if (c->action != CLI_RUN && c->action != (enum cli_action)d->value)
		die("--%s cannot be combined with another management option",
		    d->name);
	c->action = (enum cli_action)d->value;
	c->action_arg = arg;
}

static void h_command(struct cli *c, const char *arg, const struct optdef *d)
{
	c->shell = arg;
}

/* The hook's rewritten commands: the shell string, base64-encoded, so no
 * agent text is ever parsed by the agent's shell. */
static void h_command_b64(struct cli *c, const char *arg,
			  const struct optdef *d)
{
	size_t n;
	char *s = sbx_base64_decode(arg, &n);

	if (!s || strlen(s) != n)
		die("--command-base64: not valid base64 of a command");
	c->shell_owned = s;
	c->shell = s;
}

/* Everything after --sh is the shell's: parsing stops here. */
static void h_sh(struct cli *c, const char *arg, const struct optdef *d)
{
	c->sh = 1;
}

static void h_profile(struct cli *c, const char *arg, const struct optdef *d)
{
	c->opts.profile = arg;
}

static void h_workdir(struct cli *c, const char *arg, const struct optdef *d)
{
	c->opts.project_dir = arg;
}

static void h_report(struct cli *c, const char *arg, const struct optdef *d)
{
	c->report = arg;
}

static void h_flag(struct cli *c, const char *arg, const struct optdef *d)
{
	c->opts.flags |= (unsigned)d->value;
}

static void h_shim_only(struct cli *c, const char *arg, const struct optdef *d)
{
	c->shim_only = 1;
}

static void h_verbose(struct cli *c, const char *arg, const struct optdef *d)
{
	c->verbose = 1;
}

static void h_mode(struct cli *c, const char *arg, const struct optdef *d)
{
	if (strcmp(arg, "auto") == 0)
		c->opts.mode = SBX_MODE_AUTO;
	else if (strcmp(arg, "full") == 0)
		c->opts.mode = SBX_MODE_FULL;
	else if (strcmp(arg, "landlock-only") == 0)
		c->opts.mode = SBX_MODE_LANDLOCK_ONLY;
	else
		die("--mode takes auto, full or landlock-only, not '%s'", arg);
}

static const struct optdef opts[] = {
	{ "command", 1, h_command, "STRING", "run STRING with /bin/sh -c", 0,
	  NULL },
	{ "command-base64", 1, h_command_b64, "B64",
	  "like -c, the string base64-encoded (hook mode)", 0, NULL },
	{ "profile", 1, h_profile, "NAME",
	  "profile: default, strict, build, or a file", 0, NULL },
	{ "allow-read", 1, h_override, "PATH",
	  "make PATH readable (lifts a hide)", 0, "allow-read" },
	{ "allow-write", 1, h_override, "PATH", "make PATH writable", 0,
	  "allow-write" },
	{ "hide", 1, h_override, "PATH", "hide PATH", 0, "hide" },
	{ "net", 1, h_override, "MODE",
	  "off | loopback | on | allow:HOST[,HOST]", 0, "net" },
	{ "timeout", 1, h_override, "SECS",
	  "kill everything after SECS seconds (exit 124)", 0, "timeout" },
	{ "caches", 1, h_override, "on|off",
	  "tools' caches in the project's own sandbox cache (default: on)", 0,
	  "caches" },
	{ "env-keep", 1, h_override, "NAME",
	  "pass environment variable NAME (a glob)", 0, "env-keep" },
	{ "workdir", 1, h_workdir, "DIR",
	  "project directory (default: the current one)", 0, NULL },
	{ "mode", 1, h_mode, "MODE", "kernel mode: auto | full | landlock-only",
	  0, NULL },
	{ "report", 1, h_report, "FILE",
	  "write a JSON report to FILE (- for stderr)", 0, NULL },
	{ "quiet", 0, h_flag, NULL, "no explanations on stderr", SBX_OPT_QUIET,
	  NULL },
	{ "verbose", 0, h_verbose, NULL, "say which mode and layers are used",
	  0, NULL },
	{ "unsafe-project", 0, h_flag, NULL,
	  "allow /, $HOME or a system dir as the writable project",
	  SBX_OPT_UNSAFE_PROJECT, NULL },
	{ "sh", 0, h_sh, NULL,
	  "be /bin/sh for a tool (as sbxrun-sh): the rest are its arguments", 0,
	  NULL },
	{ "shim-only", 0, h_shim_only, NULL,
	  "ADVISORY: no sandbox, only the shim's rules (where none can nest)",
	  0, NULL },
	{ "check", 1, h_action, "PATH",
	  "what the policy says about PATH, and why", CLI_CHECK, NULL },
	{ "list-paths", 0, h_action, NULL,
	  "every effective path rule and where it came from", CLI_LIST_PATHS,
	  NULL },
	{ "add-path", 1, h_action, "PATH[=MODE]",
	  "add PATH (rw, ro or hide; default rw) to the per-project conf",
	  CLI_ADD_PATH, NULL },
	{ "remove-path", 1, h_action, "PATH",
	  "remove PATH from the per-project conf", CLI_REMOVE_PATH, NULL },
	{ "edit", 0, h_action, NULL, "edit the per-project conf in $EDITOR",
	  CLI_EDIT, NULL },
	{ "trust", 0, h_action, NULL,
	  "trust this project's .sbxrun.conf as it is now", CLI_TRUST, NULL },
	{ "dry-run", 0, h_action, NULL,
	  "show the effective policy and the kernel plan", CLI_DRY_RUN, NULL },
	{ "status", 0, h_action, NULL,
	  "which kernel features exist, which mode is used", CLI_STATUS, NULL },
	{ "hook", 1, h_action, "AGENT", "pre-tool-use hook mode (claude-code)",
	  CLI_HOOK, NULL },
	{ "print-profile", 1, h_action, "FORMAT",
	  "print the policy as a macOS Seatbelt profile (FORMAT: seatbelt)",
	  CLI_PRINT_PROFILE, NULL },
	{ "version", 0, h_action, NULL, "print the version", CLI_VERSION,
	  NULL },
	{ "help", 0, h_action, NULL, "this help", CLI_HELP, NULL },
};
#define NOPTS (sizeof(opts) / sizeof(opts[0]))

/* Entry i of the table, for generated completions (completion.c); the
 * short names are those cli_parse maps below. */
int cli_option(size_t i, struct cli_optinfo *o)
{
	if (i >= NOPTS)
		return 0;
	*o = (struct cli_optinfo){ opts[i].name, opts[i].has_arg,
				   i == 0	    ? 'c'
				   : i == NOPTS - 1 ? 'h'
				   : i == NOPTS - 2 ? 'V'
						    : 0,
				   opts[i].meta, opts[i].help };
	return 1;
}

void cli_usage(FILE *fp)
{
	fprintf(fp,
		"usage: sbxrun [options] [--] COMMAND [ARG...]\n"
		"       sbxrun [options] -c 'SHELL COMMAND'\n"
		"       sbxrun [options]              (a sandboxed shell)\n\n"
		"Runs a command in a kernel-enforced sandbox and explains every "
		"refusal.\n\noptions:\n");
	for (size_t i = 0; i < NOPTS; i++) {
		char left[64];

		snprintf(left, sizeof(left), "%s--%s%s%s",
			 strcmp(opts[i].name, "command") ? "    " : "-c, ",
			 opts[i].name, opts[i].meta ? " " : "",
			 opts[i].meta ? opts[i].meta : "");
		fprintf(fp, "  %-30s %s\n", left, opts[i].help);
	}
	fprintf(fp,
		"\nexamples:\n"
		"  sbxrun -- npm install            wrap one command\n"
		"  sbxrun -c 'make && ./run-tests'  a shell command string\n"
		"  sbxrun --check ~/.ssh/id_rsa     why is this hidden?\n"
		"  sbxrun --add-path ~/.cache/go-build   one more writable dir\n"
		"  sbxrun --net loopback -- pytest  tests that use local servers\n"
		"  make SHELL=sbxrun-sh             each recipe in a sandbox\n"
		"  sbxrun --shim-only -- make       ADVISORY: no sandbox can nest "
		"here\n"
		"\nexit status: the command's; 124 timeout; 125 sbxrun failed; "
		"126 cannot run; 127 not found\n");
}

void cli_parse(struct cli *c, int argc, char **argv)
{
	struct option lo[NOPTS + 1];
	int ch, idx = 0;

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < NOPTS; i++)
		lo[i] = (struct option){ opts[i].name, opts[i].has_arg, NULL,
					 (int)(i + 256) };
	lo[NOPTS] = (struct option){ 0 };
	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "+:c:hV", lo, &idx)) != -1) {
		const struct optdef *d;

		if (ch == 'c')
			ch = 256; /* --command */
		else if (ch == 'h')
			ch = 256 + (int)NOPTS - 1;
		else if (ch == 'V')
			ch = 256 + (int)NOPTS - 2;
		if (ch == '?' || ch == ':') {
			note("%s option '%s'",
			     ch == '?' ? "unknown" : "missing argument for",
			     argv[optind - 1]);
			cli_usage(stderr);
			exit(SBX_EXIT_FAIL);
		}
		d = &opts[ch - 256];
		d->fn(c, optarg, d);
		if (c->sh)
			break;
	}
	c->opts.overrides = c->overrides;
	if (optind < argc)
		c->argv = argv + optind;
	if (c->shell && c->argv)
		die("give either -c STRING or a command, not both");
	if (c->shim_only && c->action != CLI_RUN && c->action != CLI_DRY_RUN)
		die("--shim-only goes with a command or --dry-run");
	if (c->sh && (c->shell || c->action != CLI_RUN))
		die("--sh takes the shell's arguments after it, and no "
		    "management option");
}

void cli_free(struct cli *c)
{
	for (size_t i = 0; i < c->noverrides; i++)
		free(c->owned[i]);
	c->noverrides = 0;
	free(c->shell_owned);
	c->shell_owned = NULL;
}
