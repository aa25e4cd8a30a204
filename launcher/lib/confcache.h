/*
 * confcache.h - the trees of conf files parsed before, kept by the hash
 * of their bytes (issue 17: libconfig was a third of the launcher's
 * work).
 *
 * The key also holds the identity (device, inode, size, mtime) of the
 * file whose libconfig parses: the static sbxrun, or libsbx.so's
 * libconfig; another build never takes this one's trees.
 *
 * Keyed by content, not by a file's device, inode, size and times: the
 * bytes are read on every run anyway (CONF-01: the bytes trusted are the
 * bytes parsed), and a conf edited between runs, within the same second
 * and to the same size, has other bytes and so another key; there is no
 * stale entry to fall into.  What the tree then means (paths resolved,
 * links followed, rules merged, the environment's hides) is worked out
 * on every run, as without the cache.
 *
 * Entries, conf-<key>, live in sbxrun's private state directory
 * (rundir.c: the store of compiled policies and journals), are read like
 * a conf (no final symlink, a regular file of ours, mode 0444) and
 * checked whole (conftree.c); anything else is parsed anew.  sbx_open()
 * loads again without them when its finished policy would let the
 * sandbox write that directory.  Unused for a day, they are swept with
 * the stale policies.
 */
#ifndef SBX_CONFCACHE_H
#define SBX_CONFCACHE_H

#include "conftree.h"

/* A load starts: find the state directory (none: nothing kept or read);
 * off: parse everything, keep nothing. */
void sbx_confcache_begin(const char *home, int off);
/* The kept tree of text into t: 0, or -1 (parse it); key is set either
 * way. */
int sbx_confcache_get(const char *text, const char *file, struct sbx_ct *t,
		      unsigned char key[16]);
/* Keep a tree just parsed (best effort). */
void sbx_confcache_put(const struct sbx_ct *t, const unsigned char key[16]);
/* The directory a tree was taken from since begin, or NULL. */
const char *sbx_confcache_used(void);

#endif
