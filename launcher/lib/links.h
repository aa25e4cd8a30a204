/*
 * links.h - protected files with a second hard link, given their own
 * inode at launch (links.c; review N-33).
 */
#ifndef SBX_LINKS_H
#define SBX_LINKS_H

#include "policy.h"

/* Every protected regular file (a protect rule's root, or a file below a
 * protected directory) that exists under a path writable() says the
 * sandbox can write, and has more than one link, is copied to a new
 * inode that replaces it; warn gets a line for each. */
void sbx_links_break(const struct sbx_policy *p,
		     int (*writable)(const struct sbx_policy *, const char *),
		     void (*warn)(void *ctx, const char *line), void *ctx);

#endif
