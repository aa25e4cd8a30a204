/*
 * rundir.h - where the compiled policy the shim reads lives on the host:
 * $XDG_RUNTIME_DIR/sbxrun when that is a private directory of ours, else
 * ~/.cache/sbxrun/run of the policy's home (read-only inside the sandbox);
 * never /tmp.
 *
 * Policies are stored by content: policy-<XXH3-128 of the bytes>, written
 * once (a temporary file renamed into place) and reused by every later
 * run with the same policy, so a launch usually costs one open and one
 * read here instead of a directory made and removed.  A run holds a
 * shared flock on its file until it ends; files nobody has locked or used
 * for a day are removed when a new policy is written.
 */
#ifndef SBX_RUNDIR_H
#define SBX_RUNDIR_H

#include <limits.h>
#include <stddef.h>

#include "policy.h"

struct sbx_rundir {
	char base[PATH_MAX];
	char path[PATH_MAX]; /* the policy file, once stored */
	int fd; /* holds the shared lock; -1 */
};

/* Find (or make, or make private again) the base directory. */
int sbx_rundir_create(struct sbx_rundir *rd, const char *home,
		      int (*writable)(void *, const char *), void *ctx,
		      struct sbx_err *err);
/* The first of the places create() tries that exists now as a private
 * directory of ours (no final symlink), in out; -1 when none does.  For
 * kept conf trees (confcache.c), read before the run has a policy. */
int sbx_rundir_existing(const char *home, char *out, size_t outsz);
/* Store the policy (or find it stored) and lock it for this run. */
int sbx_rundir_put(struct sbx_rundir *rd, const void *data, size_t len,
		   struct sbx_err *err);
/* The run is over: release the lock (the file stays for the next run). */
void sbx_rundir_release(struct sbx_rundir *rd);

#endif
