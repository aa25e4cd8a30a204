/*
 * hooks_open.c - open and its relatives: open64, openat(64), the fortify
 * variants, creat(64), fopen/freopen(64), truncate/ftruncate(64).
 *
 * Variadic open: the mode argument exists only when the flags say so
 * (O_CREAT, or O_TMPFILE, which contains O_DIRECTORY and so is tested as
 * a whole); reading it otherwise reads garbage from the caller's frame.
 * The fortify variants (__open_2 ...) never take a mode and are passed on
 * to their own real function, which keeps glibc's checks.
 */
#include <fcntl.h>
#include <stdarg.h>

#include "shim.h"

#define OPEN_NEEDS_MODE(fl) \
	(((fl)&O_CREAT) != 0 || ((fl)&__O_TMPFILE) == __O_TMPFILE)

#define OPEN_MODE(fl)                             \
	__extension__({                           \
		mode_t m_ = 0;                    \
		if (OPEN_NEEDS_MODE(fl)) {        \
			va_list ap_;              \
			va_start(ap_, fl);        \
			m_ = va_arg(ap_, mode_t); \
			va_end(ap_);              \
		}                                 \
		m_;                               \
	})

/* What an open does to its path.  Writing opens name a file (suffix
 * rule) and modify it (protect rule); opens that keep the contents of an
 * existing file are subject to its size limit. */
static inline __attribute__((always_inline)) struct shim_fs
open_fs(int dirfd, const char *path, int flags)
{
	int acc = flags & O_ACCMODE;
	int tmpfile = (flags & __O_TMPFILE) == __O_TMPFILE;
	int writes = acc != O_RDONLY || (flags & (O_CREAT | O_TRUNC)) ||
		     tmpfile;
	struct shim_fs f = SHIM_FS(
		dirfd, path, writes ? SBX_OP_WRITE : SBX_OP_READ, CHK_SIZE);

	if (flags & O_PATH)
		f.chk = 0;
	else if (tmpfile) /* the name comes later, with linkat */
		f.chk = CHK_MODIFY;
	else if (writes)
		f.chk = CHK_NAME | CHK_MODIFY |
			((flags & O_TRUNC) ? 0 : CHK_SIZE) |
			((flags & O_EXCL) ? 0 : CHK_LINKS);
	/* O_CREAT makes the file: nothing to stat, the name always counts */
	if (flags & O_CREAT)
		f.obj = NULL;
	return f;
}

/* The body every open variant shares; `call` is the real call. */
#define OPEN_HOOK(dirfd, path, flags, call) \
	PATH_HOOK(open_fs((dirfd), (path), (flags)), call)

int open(const char *path, int flags, ...)
{
	mode_t mode = OPEN_MODE(flags);

	OPEN_HOOK(AT_FDCWD, path, flags, REAL(open)(path, flags, mode));
}

int open64(const char *path, int flags, ...)
{
	mode_t mode = OPEN_MODE(flags);

	OPEN_HOOK(AT_FDCWD, path, flags, REAL(open64)(path, flags, mode));
}

int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = OPEN_MODE(flags);

	OPEN_HOOK(dirfd, path, flags, REAL(openat)(dirfd, path, flags, mode));
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = OPEN_MODE(flags);

	OPEN_HOOK(dirfd, path, flags, REAL(openat64)(dirfd, path, flags, mode));
}

int __open_2(const char *path, int flags)
{
	OPEN_HOOK(AT_FDCWD, path, flags, REAL(__open_2)(path, flags));
}

int __open64_2(const char *path, int flags)
{
	OPEN_HOOK(AT_FDCWD, path, flags, REAL(__open64_2)(path, flags));
}

int __openat_2(int dirfd, const char *path, int flags)
{
	OPEN_HOOK(dirfd, path, flags, REAL(__openat_2)(dirfd, path, flags));
}

int __openat64_2(int dirfd, const char *path, int flags)
{
	OPEN_HOOK(dirfd, path, flags, REAL(__openat64_2)(dirfd, path, flags));
}

#define CREAT_FLAGS (O_CREAT | O_WRONLY | O_TRUNC)

int creat(const char *path, mode_t mode)
{
	OPEN_HOOK(AT_FDCWD, path, CREAT_FLAGS, REAL(creat)(path, mode));
}

int creat64(const char *path, mode_t mode)
{
	OPEN_HOOK(AT_FDCWD, path, CREAT_FLAGS, REAL(creat64)(path, mode));
}

/* ------------------------------------------------------------ stdio */

/* open(2) flags equivalent to an fopen mode; -1 for a mode libc will
 * reject itself (the call then passes unexamined). */
static int fopen_flags(const char *mode)
{
	int fl;

	if (!mode)
		return -1;
	switch (mode[0]) {
	case 'r': fl = O_RDONLY; break;
	case 'w': fl = O_WRONLY | O_CREAT | O_TRUNC; break;
	case 'a': fl = O_WRONLY | O_CREAT | O_APPEND; break;
	default: return -1;
	}
	for (const char *p = mode + 1; *p && *p != ','; p++)
		if (*p == '+')
			fl = (fl & ~O_ACCMODE) | O_RDWR;
	return fl;
}

static struct shim_fs fopen_fs(const char *path, const char *mode)
{
	int fl = fopen_flags(mode);

	if (fl < 0 || !path)
		return SHIM_FS(AT_FDCWD, NULL, SBX_OP_READ, 0);
	return open_fs(AT_FDCWD, path, fl);
}

#define FOPEN_HOOK(path, mode, call)                          \
	do {                                                  \
		struct shim_fs f_ = fopen_fs((path), (mode)); \
		FILE *fp_;                                    \
		int look_;                                    \
		if (shim_fs_pre(&look_, &f_, NULL))           \
			return NULL;                          \
		fp_ = (call);                                 \
		shim_fs_post(look_, fp_ == NULL, &f_, NULL);  \
		return fp_;                                   \
	} while (0)

FILE *fopen(const char *path, const char *mode)
{
	FOPEN_HOOK(path, mode, REAL(fopen)(path, mode));
}

FILE *fopen64(const char *path, const char *mode)
{
	FOPEN_HOOK(path, mode, REAL(fopen64)(path, mode));
}

FILE *freopen(const char *path, const char *mode, FILE *fp)
{
	FOPEN_HOOK(path, mode, REAL(freopen)(path, mode, fp));
}

FILE *freopen64(const char *path, const char *mode, FILE *fp)
{
	FOPEN_HOOK(path, mode, REAL(freopen64)(path, mode, fp));
}

/* ------------------------------------------------------------ sizes */

#define TRUNCATE_HOOK(path, len, call)                                      \
	do {                                                                \
		struct shim_fs f_ = SHIM_FS(AT_FDCWD, (path), SBX_OP_WRITE, \
					    CHK_NAME | CHK_MODIFY);         \
		int look_, rc_;                                             \
		f_.size = (len);                                            \
		if (shim_fs_pre(&look_, &f_, NULL))                         \
			return -1;                                          \
		rc_ = (call);                                               \
		shim_fs_post(look_, rc_ < 0, &f_, NULL);                    \
		return rc_;                                                 \
	} while (0)

int truncate(const char *path, off_t len)
{
	TRUNCATE_HOOK(path, len, REAL(truncate)(path, len));
}

int truncate64(const char *path, off64_t len)
{
	TRUNCATE_HOOK(path, len, REAL(truncate64)(path, len));
}

/* ftruncate has no path: only the size rule applies, and the fd's path
 * is looked up only when the new size is past the smallest limit. */
#define FTRUNCATE_HOOK(fd, len, call)                             \
	do {                                                      \
		int look_ = shim_enter(), err_, rc_;              \
		if (look_ && shim_g.min_limit &&                  \
		    (err_ = shim_app_check_fd((fd), (len))) != 0) \
			return shim_refuse(err_);                 \
		rc_ = (call);                                     \
		shim_leave();                                     \
		return rc_;                                       \
	} while (0)

int ftruncate(int fd, off_t len)
{
	FTRUNCATE_HOOK(fd, len, REAL(ftruncate)(fd, len));
}

int ftruncate64(int fd, off64_t len)
{
	FTRUNCATE_HOOK(fd, len, REAL(ftruncate64)(fd, len));
}
