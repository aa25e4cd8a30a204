/*
 * cli.h - the sbxrun command line: parsing (a table, one handler per
 * option) and the actions.  Built on libsbx only.
 */
#ifndef SBX_CLI_H
#define SBX_CLI_H

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
	char **argv; /* the command, or NULL */
};

/* Parse argv into c.  Returns 0, or an exit code after printing why. */
int sbx_cli_parse(struct cli *c, int argc, char **argv);
int sbx_cli_main(int argc, char **argv);
void sbx_cli_free(struct cli *c);

#endif
