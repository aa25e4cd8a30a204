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

#endif
