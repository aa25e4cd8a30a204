/*
 * pathres.c - turning a call's (dirfd, path) into the absolute, lexically
 * normalised path the policy speaks about.  No allocation; the only
 * system calls are a readlink of /proc/self/fd/N for a real dirfd and,
 * when asked for, getcwd.  Symlinks are not resolved: the kernel decides
 * on the object, the shim only needs the name the program used (for
 * suffixes) and a good guess of the rule (for explanations).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "shim.h"
#include "sys.h"

/* "/proc/self/fd/" + decimal fd */
static void fd_link(int fd, char *buf)
{
	static const char pre[] = "/proc/self/fd/";
	char digits[16];
	int n = 0;
	unsigned v = (unsigned)fd;

	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(buf, pre, sizeof(pre) - 1);
	buf += sizeof(pre) - 1;
	while (n)
		*buf++ = digits[--n];
	*buf = '\0';
}

int shim_fdpath(int fd, char *out, size_t sz)
{
	char link[32];
	int saved = errno;
	ssize_t n;

	if (fd < 0 || sz < 2)
		return -1;
	fd_link(fd, link);
	n = sys_readlink(link, out, sz - 1);
	errno = saved;
	/* sockets, pipes and anon inodes read as "type:[inode]" */
	if (n <= 0 || out[0] != '/')
		return -1;
	out[n] = '\0';
	return (size_t)n < sz - 1 ? 0 : -1;
}

int shim_abspath(int dirfd, const char *path, int fresh, char *out, size_t sz)
{
	char base[PATH_MAX];
	int saved = errno, rc;

	if (!path || !*path)
		return -1;
	if (path[0] == '/')
		rc = sbx_path_lex(path, NULL, out, sz);
	else if (dirfd == AT_FDCWD)
		rc = shim_cwd_get(base, sizeof(base), fresh) < 0
			     ? -1
			     : sbx_path_lex(path, base, out, sz);
	else
		rc = shim_fdpath(dirfd, base, sizeof(base)) < 0
			     ? -1
			     : sbx_path_lex(path, base, out, sz);
	errno = saved;
	return rc;
}
