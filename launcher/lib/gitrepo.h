/*
 * gitrepo.h - git's indirections (gitrepo.c): protect entries from the
 * repository layout at launch, and the repositories a run created.
 */
#ifndef SBX_GITREPO_H
#define SBX_GITREPO_H

#include <stddef.h>
#include <time.h>

#include "policy.h"

/* Add protect entries for what the project's repository reads config
 * and hooks from: a .git file's target, commondir, linked worktrees,
 * submodules' git directories and checkouts, include targets; those
 * inside the project only.  0, or -1 without memory. */
int sbx_git_protect(struct sbx_policy *p, const char *project,
		    const char *home);

/* At exit: every .git below the project (the project's own aside) that
 * was created at or after since, or whose config, hooks or info changed
 * since, and submodules added to the project's own .git/modules; fn gets
 * the path and "created" or "changed".  Looks at no more than max_dirs
 * directories (reading only those that changed or have subdirectories);
 * returns 1 when it had to stop there, else 0. */
int sbx_git_new_repos(const char *project, const struct timespec *since,
		      size_t max_dirs,
		      void (*fn)(void *ctx, const char *path, const char *what),
		      void *ctx);

#endif
