/*
 * rundir.h - the per-run state directory on the host: the compiled policy
 * the shim reads.  $XDG_RUNTIME_DIR/sbxrun/run-PID-XXXXXX when that is a
 * private directory of ours, else ~/.cache/sbxrun/run/run-PID-XXXXXX (read-only
 * inside the sandbox), and /tmp/sbxrun-UID/... only without a home.  Removed
 * when the run ends; directories of dead runs are removed by the next run.
 */
#ifndef SBX_RUNDIR_H
#define SBX_RUNDIR_H

#include <limits.h>
#include <stddef.h>

#include "policy.h"

struct sbx_rundir {
	char base[PATH_MAX];
	char dir[PATH_MAX];
	int created;
};

int sbx_rundir_create(struct sbx_rundir *rd, struct sbx_err *err);
void sbx_rundir_path(const struct sbx_rundir *rd, const char *name,
		     char *out, size_t outsz);
int sbx_rundir_write(struct sbx_rundir *rd, const char *name,
		     const void *data, size_t len, struct sbx_err *err);
void sbx_rundir_remove(struct sbx_rundir *rd);

#endif
