/*
 * cli.h - the sbxrun command line: parsing (a table, one handler per
 * option, cli.c) and the actions (cli_actions.c).  Built on include/sbx.h
 * and libsbx's one header for the CLI (launcher/lib/cli-api/sbx_cli.h);
 * the include path has nothing else.  Messages: die.h.
 */
#ifndef SBX_CLI_H
#define SBX_CLI_H

#include <stdio.h>

#include "sbx.h"

/* Exit codes (DESIGN 9). */
#define SBX_EXIT_TIMEOUT 124
#define SBX_EXIT_FAIL 125
#define SBX_EXIT_NOEXEC 126
#define SBX_EXIT_NOTFOUND 127

enum cli_action {
	CLI_RUN = 0,
	CLI_HELP,
	CLI_VERSION,
	CLI_CHECK,
	CLI_LIST_PATHS,
	CLI_ADD_PATH,
	CLI_REMOVE_PATH,
	CLI_EDIT,
	CLI_TRUST,
	CLI_DRY_RUN,
	CLI_STATUS,
	CLI_HOOK,
	CLI_PRINT_PROFILE,
};

#define CLI_MAX_OVERRIDES 256

struct cli {
	enum cli_action action;
	const char *action_arg;
	struct sbx_opts opts;
	const char *overrides[CLI_MAX_OVERRIDES + 1];
	char *owned[CLI_MAX_OVERRIDES];
	size_t noverrides;
	const char *shell; /* -c STRING */
	char *shell_owned; /* decoded --command-base64 */
	const char *report; /* --report FILE */
	int verbose;
	int sh; /* --sh or run as sbxrun-sh: argv are /bin/sh's arguments */
	int interactive; /* the command is an interactive shell */
	int shim_only; /* --shim-only: no sandbox, the shim alone */
	char **ishell; /* the interactive shell's argv (ishell.c), or NULL */
	char **argv; /* the command, or NULL */
};

/* Parse argv into c; a bad command line ends sbxrun (125) with the
 * reason. */
void cli_parse(struct cli *c, int argc, char **argv);
void cli_free(struct cli *c);
void cli_usage(FILE *fp);
/* sbxrun-sh (argv[0] "sbxrun-sh", or sbxrun --sh): a /bin/sh that runs
 * in a sandbox of its own, or as it is when already inside one (sh.c). */
int cli_sh(struct cli *c);
/* The interactive shell sh (absolute) with a marked prompt and its
 * history in a directory the sandbox may write, added to c's overrides
 * (ishell.c); NULL: run sh as it is. */
char **cli_ishell(struct cli *c, const char *sh);
/* The policy c asks for (warnings said), or the end of sbxrun. */
sbx_t *cli_open_policy(const struct cli *c);
/* Run c's command under s (closed here); the exit status. */
int cli_run(struct cli *c, sbx_t *s);
/* sbxrun: returns the exit status (DESIGN §9). */
int cli_main(int argc, char **argv);

/* The option table, read-only (cli.c): entry i, or 0 past the end.
 * short_name is 0 for an option without one. */
struct cli_optinfo {
	const char *name;
	int has_arg;
	char short_name;
	const char *meta; /* argument name, or NULL */
	const char *help;
};
int cli_option(size_t i, struct cli_optinfo *o);

/* Print the completion script of shell ("bash", "zsh" or "fish") for
 * the option table (completion.c); datadir is where the shipped profiles
 * are installed.  Returns 0, or -1 for an unknown shell or an option the
 * completion rules name that the table lacks. */
int cli_completion(FILE *fp, const char *shell, const char *datadir);

#endif
