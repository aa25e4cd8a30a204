/*
 * gen_completion.c - print sbxrun's completion script for one shell,
 * generated from the CLI's option table (launcher/cli/completion.c).
 * A build tool, not installed:
 *
 *   gen_completion bash|zsh|fish DATADIR > script
 *   gen_completion options                  every option, one a line
 *
 * DATADIR is where the shipped profiles live ($(datadir)/sbxrun), for
 * completing --profile.  "options" lists -c and --command style names for
 * the tests that keep the man page and the table in step.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static int list_options(void)
{
	struct cli_optinfo o;

	for (size_t i = 0; cli_option(i, &o); i++) {
		if (o.short_name)
			printf("-%c\n", o.short_name);
		printf("--%s\n", o.name);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "options") == 0)
		return list_options();
	if (argc != 3) {
		fprintf(stderr, "usage: gen_completion bash|zsh|fish DATADIR\n"
				"       gen_completion options\n");
		return 2;
	}
	if (cli_completion(stdout, argv[1], argv[2]) < 0) {
		fprintf(stderr, "gen_completion: cannot generate for '%s'\n",
			argv[1]);
		return 1;
	}
	return fflush(stdout) == 0 ? 0 : 1;
}
