/*
 * startfail.h - why the kernel refused to start the command (startfail.c).
 */
#ifndef SBX_STARTFAIL_H
#define SBX_STARTFAIL_H

#include "kernel.h"

/*
 * The launch l ran, and execve of l->argv failed in the sandbox with err
 * (cflags: the backend's compiled-policy flags for l->mode).  When the
 * policy explains it (the program is hidden, or no rule covers it), hand
 * rec the refusal record (record.h fields; process "sbxrun") and return
 * 1, else 0.
 */
int sbx_explain_start(const struct sbx_launch *l, unsigned cflags, int err,
		      void (*rec)(void *ctx, const char **f), void *ctx);

/*
 * Before the launch: over the run's compiled policy (cpol, cpol_len),
 * does an exec deny rule refuse the command itself
 * (l->argv, found through the command's PATH as the launcher's exec
 * would)?  The same decision and line as the shim's for a program inside
 * (sbx_decide_exec_q).  When it does, hand rec the refusal record
 * (process "sbxrun", pid 0) and return 1: nothing may run.
 */
int sbx_check_start(const struct sbx_launch *l, const void *cpol,
		    size_t cpol_len, void (*rec)(void *ctx, const char **f),
		    void *ctx);

/* The directories directly below "/", NUL-separated (sbx_exec_q). */
size_t sbx_root_dirs(char *buf, size_t sz);

#endif
