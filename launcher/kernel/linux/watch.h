/*
 * watch.h - full mode: pid 1 keeps protected paths read-only while the
 * host replaces them (watch.c).  pid 1 only.
 */
#ifndef SBX_WATCH_H
#define SBX_WATCH_H

#include "linux.h"

/* A protected path bound read-only inside a writable root (mounts.c).
 * 0, or -1 without memory. */
int sbx_watch_add(const char *path);
/* Start watching what was added: 1 watching, 0 nothing to watch, -1
 * with err. */
int sbx_watch_start(int chan, struct sbx_err *err);
/* Is anything watched? */
int sbx_watching(void);
/* The descriptor to poll for POLLPRI (our mount table changed). */
int sbx_watch_fd(void);
/* It did: make every watched path read-only again where it is not. */
void sbx_watch_events(void);

#endif
