/*
 * hook.h - agent pre-tool-use hook mode (sbxrun --hook claude-code).
 */
#ifndef SBX_HOOK_H
#define SBX_HOOK_H

#include "sbx.h"

/* Read the hook JSON on stdin, answer on stdout.  Returns the exit code. */
int sbx_hook_main(const char *agent, const struct sbx_opts *opts);

#endif
