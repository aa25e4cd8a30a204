/*
 * journal.h - what a run must repair at exit, written down before the
 * command starts, so that the next run repairs it when sbxrun was killed
 * first (journal.c; review N-04, N-21).
 */
#ifndef SBX_JOURNAL_H
#define SBX_JOURNAL_H

#include <limits.h>

#include "err.h"
#include "plant.h"

struct sbx_journal {
	char path[PATH_MAX];
	int fd; /* holds an exclusive flock while the run lives; -1 */
};

/* Before the command starts: write pl down in base (sbxrun's private
 * state directory, not writable inside the sandbox), keyed by project.
 * Nothing to write: j->fd stays -1; no room: the same, and warn says. */
void sbx_journal_write(struct sbx_journal *j, const char *base,
		       const char *project, const struct sbx_plants *pl,
		       void (*warn)(void *ctx, const char *line), void *ctx);

/* The run is over: the journal is removed after its exit repair, kept
 * (for the next run) when keep. */
void sbx_journal_end(struct sbx_journal *j, int keep);

/* Before a run in project: every journal of an earlier run in it whose
 * sbxrun is gone (its lock free) is repaired now (sbx_plants_check) and
 * removed.  warn gets a line saying so first.  -1 (err set) when planted
 * entries are still in place: the run must not start. */
int sbx_journal_repair(const char *base, const char *project,
		       void (*warn)(void *ctx, const char *line), void *ctx,
		       struct sbx_err *err);

#endif
