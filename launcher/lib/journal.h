/*
 * journal.h - what a run must repair at exit, written down before the
 * command starts, so that the next run repairs it when sbxrun was killed
 * first (journal.c; review N-04, N-21).
 */
#ifndef SBX_JOURNAL_H
#define SBX_JOURNAL_H

#include <limits.h>

#include "plant.h"

struct sbx_journal {
	char path[PATH_MAX];
	int fd; /* holds an exclusive flock while the run lives; -1 */
};

/* Before the command starts: write pl down in base (sbxrun's private
 * state directory, not writable inside the sandbox), keyed by project.
 * Nothing to write, or no room: j->fd stays -1 (said by the caller). */
int sbx_journal_write(struct sbx_journal *j, const char *base,
		      const char *project, const struct sbx_plants *pl);

/* The exit repair ran: forget the journal. */
void sbx_journal_done(struct sbx_journal *j);

/* Before a run in project: every journal of an earlier run in it whose
 * sbxrun is gone (its lock free) is repaired now (sbx_plants_check) and
 * removed.  warn gets a line saying so first.  Returns how many planted
 * entries are still in place. */
int sbx_journal_repair(const char *base, const char *project,
		       void (*warn)(void *ctx, const char *line), void *ctx);

#endif
