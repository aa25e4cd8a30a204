/*
 * startfail.h - why the kernel refused to start the command (startfail.c).
 */
#ifndef SBX_STARTFAIL_H
#define SBX_STARTFAIL_H

#include "policy.h"

/*
 * execve of argv failed in the sandbox with err (envp and workdir are
 * the command's, pol and mode the run's): when the policy explains it
 * (the program is hidden, or no rule covers it), hand rec the refusal
 * record (record.h fields; process "sbxrun") and return 1, else 0.
 */
int sbx_explain_start(const struct sbx_policy *pol, enum sbx_kmode mode,
		      char *const argv[], char *const envp[],
		      const char *workdir, int err,
		      void (*rec)(void *ctx, const char **f), void *ctx);

#endif
