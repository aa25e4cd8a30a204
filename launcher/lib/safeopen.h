/*
 * safeopen.h - open an absolute path through no symbolic link (API-01).
 */
#ifndef SBX_SAFEOPEN_H
#define SBX_SAFEOPEN_H

#include <sys/types.h>

/* open(2) of abs (absolute, without symlinks, as sbx_path_norm gives it)
 * that fails with ELOOP when any component is a symbolic link now. */
int sbx_open_nolinks(const char *abs, int flags, mode_t mode);

#endif
