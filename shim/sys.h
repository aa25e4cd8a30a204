/*
 * sys.h - the shim's own system calls, made with syscall(2) so that they
 * never pass through an interposed libc symbol (ours or another
 * preload's) and never touch stdio or malloc.  Each returns what the
 * kernel returned, -1 with errno on failure; callers that run inside a
 * hook save and restore errno around them.
 */
#ifndef SBX_SHIM_SYS_H
#define SBX_SHIM_SYS_H

#include <fcntl.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline int sys_openat(int dirfd, const char *path, int flags)
{
	return (int)syscall(SYS_openat, dirfd, path, flags, 0);
}

static inline int sys_close(int fd)
{
	return (int)syscall(SYS_close, fd);
}

static inline ssize_t sys_read(int fd, void *buf, size_t n)
{
	return syscall(SYS_read, fd, buf, n);
}

static inline int sys_fstatat(int dirfd, const char *path, struct stat *st,
			      int flags)
{
	return (int)syscall(SYS_newfstatat, dirfd, path, st, flags);
}

static inline ssize_t sys_readlink(const char *path, char *buf, size_t n)
{
	return syscall(SYS_readlinkat, AT_FDCWD, path, buf, n);
}

static inline long sys_getcwd(char *buf, size_t n)
{
	return syscall(SYS_getcwd, buf, n);
}

static inline int sys_access_x(const char *path)
{
	return (int)syscall(SYS_faccessat, AT_FDCWD, path, X_OK, 0);
}

static inline pid_t sys_getpid(void)
{
	return (pid_t)syscall(SYS_getpid);
}

/* The policy's private copy (init.c): raw calls, not libc's, so that
 * the shim imports three symbols fewer -- every import is a symbol
 * lookup in every program started. */
static inline void *sys_mmap_anon(size_t n, int extra_flags)
{
	return (void *)syscall(SYS_mmap, NULL, n, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | extra_flags, -1,
			       0);
}

static inline int sys_mprotect_ro(void *p, size_t n)
{
	return (int)syscall(SYS_mprotect, p, n, PROT_READ);
}

static inline int sys_munmap(void *p, size_t n)
{
	return (int)syscall(SYS_munmap, p, n);
}

/* Write all of buf to fd, retrying short writes and EINTR a few times. */
void sys_write_all(int fd, const char *buf, size_t n);

#endif
