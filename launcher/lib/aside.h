/*
 * aside.h - move a planted or changed protected entry out of the way at
 * exit, so that it can never stay in place (aside.c; review N-16, N-29).
 */
#ifndef SBX_ASIDE_H
#define SBX_ASIDE_H

#include <stddef.h>

enum {
	SBX_ASIDE_FAILED = -1, /* still there: the run must fail */
	SBX_ASIDE_MOVED = 1, /* renamed; the new name in out */
	SBX_ASIDE_REMOVED = 2, /* could not be renamed: removed */
};

/* Rename name (in directory dfd) to NAME.sbxrun-blocked-<random> in the
 * same directory; when that fails, remove it.  errno is kept from the
 * failed rename when the result is not SBX_ASIDE_MOVED. */
int sbx_aside(int dfd, const char *name, char *out, size_t outlen);

/* A directory the run took write permission from (chmod 555 on its own
 * project directory): given u+rwx back when sbxrun owns it; returns the
 * mode to put back with sbx_dir_close_up, or -1 when nothing changed. */
int sbx_dir_open_up(int dfd);
void sbx_dir_close_up(int dfd, int mode);

/* open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW); a directory of ours the
 * run made unreadable (chmod 000) is opened up, the mode to put back
 * with sbx_dir_close_up in *mode_back (else -1). */
int sbx_open_dir(const char *dir, int *mode_back);

#endif
