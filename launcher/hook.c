/*
 * hook.c - placeholder until the agent-integration issue: refuse clearly.
 */
#include <stdio.h>

#include "cli.h"
#include "hook.h"

int sbx_hook_main(const char *agent, const struct sbx_opts *opts)
{
	fprintf(stderr, "sbxrun: --hook %s: hook mode is not available yet\n",
		agent);
	return SBX_EXIT_FAIL;
}
