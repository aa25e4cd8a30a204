/*
 * perdir.h - protected names that tools read in every directory, not
 * only at the project root (perdir.c, review N-38).
 */
#ifndef SBX_PERDIR_H
#define SBX_PERDIR_H

#include <stddef.h>

#include "policy.h"

/* Is name (one path component) a per-directory name: a tool reads it in
 * whichever directory it runs in (cargo, npm, yarn, direnv, mise, bazel,
 * editors)? */
int sbx_perdir_name(const char *name);

/* Does the policy protect name at the project root (a relative protect
 * entry that is name or starts with name/)?  The profile decides: a
 * per-directory name it does not protect is not protected below either. */
int sbx_perdir_protected(const struct sbx_policy *p, const char *name);

/* At exit: path (a per-directory name below the project, created during
 * the run) is moved aside to NAME.sbxrun-blocked-PID-K in its directory,
 * and warn gets the line saying so (or why it could not be); nothing
 * when p does not protect its name, or protected path itself at launch.
 * -1 when it could not be moved, else 0. */
int sbx_perdir_planted(const struct sbx_policy *p, const char *path,
		       void (*warn)(void *ctx, const char *line), void *ctx);

#endif
