/*
 * safeopen.c - open the very path libsbx decided on (THREATS API-01).
 *
 * sbx_read_file, sbx_write_file and sbx_list_files decide on a path that
 * has no symbolic link in it (sbx_path_norm resolves them all), then open
 * it in the caller, outside the sandbox.  A sandboxed process may swap a
 * directory on that path for a symlink in between (renameat2 with
 * RENAME_EXCHANGE) and send the open to ~/.ssh or ~/.bashrc.  So the open
 * follows no symbolic link at all, in any component: openat2 with
 * RESOLVE_NO_SYMLINKS from the root, or, where there is no openat2 (before
 * Linux 5.6, or inside a sandbox, whose seccomp filter says ENOSYS), a walk
 * from a pinned fd of "/" with O_NOFOLLOW at every step.  A link found on
 * the way is ELOOP: the path is no longer the one decided on.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "safeopen.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#define SAFE_RESOLVE_NO_MAGICLINKS 0x02
#define SAFE_RESOLVE_NO_SYMLINKS 0x04

struct safe_how { /* struct open_how */
	uint64_t flags, mode, resolve;
};

/* The walk: every directory opened O_PATH|O_NOFOLLOW|O_DIRECTORY from the
 * one before, the last component with flags|O_NOFOLLOW. */
static int walk_open(const char *abs, int flags, mode_t mode)
{
	char comp[NAME_MAX + 1];
	const char *p = abs;
	int dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), fd;

	if (dir < 0)
		return -1;
	for (;;) {
		size_t n;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 0) { /* "/" itself */
			fd = openat(dir, ".", flags | O_NOFOLLOW, mode);
			break;
		}
		if (n > NAME_MAX) {
			close(dir);
			return errno = ENAMETOOLONG, -1;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		p += n;
		while (*p == '/')
			p++;
		if (!*p) {
			fd = openat(dir, comp, flags | O_NOFOLLOW, mode);
			break;
		}
		fd = openat(dir, comp,
			    O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			/* O_PATH|O_NOFOLLOW opens a symlink itself: ENOTDIR */
			int e = errno == ENOTDIR ? ELOOP : errno;

			close(dir);
			return errno = e, -1;
		}
		close(dir);
		dir = fd;
	}
	{
		int e = errno;

		close(dir);
		errno = e;
	}
	return fd;
}

int sbx_open_nolinks(const char *abs, int flags, mode_t mode)
{
	struct safe_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.mode = (flags & O_CREAT) ? mode : 0,
		.resolve = SAFE_RESOLVE_NO_SYMLINKS |
			   SAFE_RESOLVE_NO_MAGICLINKS,
	};
	int fd;

	if (!abs || abs[0] != '/')
		return errno = EINVAL, -1;
	fd = (int)syscall(SYS_openat2, AT_FDCWD, abs, &how, sizeof(how));
	if (fd >= 0 || (errno != ENOSYS && errno != EPERM && errno != E2BIG))
		return fd;
	return walk_open(abs, flags | O_CLOEXEC, mode);
}
