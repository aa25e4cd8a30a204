/*
 * plant.h - protected paths missing at launch, moved aside at exit when
 * the run created them (plant.c).
 */
#ifndef SBX_PLANT_H
#define SBX_PLANT_H

#include <stddef.h>
#include <sys/types.h>

#include "policy.h"

struct sbx_plant {
	char *path; /* absolute */
	dev_t dev; /* its parent directory at launch */
	ino_t ino;
};

struct sbx_plants {
	struct sbx_plant *v;
	size_t n;
	size_t next; /* sbx_plants_watched's: where the next look starts */
};

/* At launch: every protect rule of p marked SBX_RF_ABSENT that writable()
 * says the sandbox could create, whose parent directory exists. */
void sbx_plants_note(struct sbx_plants *pl, const struct sbx_policy *p,
		     int (*writable)(const struct sbx_policy *, const char *));

/* At exit, every process of the run gone: each noted path that exists is
 * renamed aside (or removed when it cannot be); warn gets one line for
 * each.  Returns how many are still there (the run must fail). */
int sbx_plants_check(struct sbx_plants *pl,
		     void (*warn)(void *ctx, const char *line), void *ctx);

/* Is path one of the noted ones?  Fastest when asked in the order they
 * were noted. */
int sbx_plants_watched(struct sbx_plants *pl, const char *path);

void sbx_plants_free(struct sbx_plants *pl);

#endif
