/*
 * reportfile.c - the --report file, safe from the command it reports on
 * (review W-15, THREATS FS-13; the reasoning is in sbx_cli.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "reportfile.h"

static int split_path(struct sbx_cli_report *rp, const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t dl = slash ? (size_t)(slash - path) : 1;

	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return errno = EISDIR, -1;
	if (strlen(base) > NAME_MAX || dl >= sizeof(rp->dir))
		return errno = ENAMETOOLONG, -1;
	if (!slash)
		strcpy(rp->dir, ".");
	else if (slash == path)
		strcpy(rp->dir, "/");
	else
		memcpy(rp->dir, path, dl), rp->dir[dl] = '\0';
	strcpy(rp->base, base);
	return 0;
}

/*
 * "/dev/fd/N" or "/proc/self/fd/N", N > 2: the caller's descriptor N
 * (review W-20).  The command does not inherit it (the launch closes
 * every descriptor above 2), so unlike "-" (standard error, which the
 * command shares) it is a channel the command cannot write to: a pipe
 * the harness reads, or a file it opened.
 */
static int fd_path(const char *path, int *n)
{
	const char *d = !strncmp(path, "/dev/fd/", 8)	       ? path + 8
			: !strncmp(path, "/proc/self/fd/", 14) ? path + 14
							       : NULL;
	char *end;
	long v;

	if (!d || *d < '0' || *d > '9')
		return -1;
	errno = 0;
	v = strtol(d, &end, 10);
	if (*end || errno || v <= 2 || v > 65535)
		return -1;
	*n = (int)v;
	return 0;
}

int sbx_cli_report_open(struct sbx_cli_report *rp, const char *path)
{
	struct stat st, ds;
	int e, n;

	memset(rp, 0, sizeof(*rp));
	rp->fd = rp->dirfd = -1;
	if (strcmp(path, "-") == 0) /* standard error, never stdout */
		return (rp->fd = dup(STDERR_FILENO)) < 0 ? -1 : 0;
	if (fd_path(path, &n) == 0) /* a descriptor the command lacks */
		return (rp->fd = fcntl(n, F_DUPFD_CLOEXEC, 3)) < 0 ? -1 : 0;
	if (split_path(rp, path) < 0)
		return -1;
	rp->dirfd = open(rp->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rp->dirfd < 0 || fstat(rp->dirfd, &ds) < 0)
		goto fail;
	rp->fd = openat(rp->dirfd, rp->base,
			O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
			0644);
	if (rp->fd < 0 || fstat(rp->fd, &st) < 0)
		goto fail;
	rp->regular = S_ISREG(st.st_mode);
	rp->dev = st.st_dev, rp->ino = st.st_ino;
	rp->ddev = ds.st_dev, rp->dino = ds.st_ino;
	return 0;
fail:
	e = errno;
	sbx_cli_report_close(rp);
	return errno = e, -1;
}

void sbx_cli_report_close(struct sbx_cli_report *rp)
{
	if (rp->fd >= 0)
		close(rp->fd);
	if (rp->dirfd >= 0)
		close(rp->dirfd);
	rp->fd = rp->dirfd = -1;
}

int sbx_report_replaced(const struct sbx_cli_report *rp)
{
	struct stat st;

	if (rp->dirfd < 0)
		return 0;
	return fstatat(rp->dirfd, rp->base, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	       st.st_dev != rp->dev || st.st_ino != rp->ino;
}

static int write_all(int fd, const char *s)
{
	size_t len = strlen(s), off = 0;

	while (off < len) {
		ssize_t n = write(fd, s + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		off += (size_t)n;
	}
	return write(fd, "\n", 1) == 1 ? 0 : -1;
}

/* A new file of ours in the held directory, renamed over the path: what
 * the command left there (a symlink, a file it still writes) is replaced,
 * never followed. */
static int put_renamed(struct sbx_cli_report *rp, const char *s)
{
	struct stat st;
	struct timespec ts;
	char tmp[NAME_MAX + 1];
	int t, e;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(tmp, sizeof(tmp), ".%.200s.sbxrun-%d-%lx", rp->base,
		 (int)getpid(), (unsigned long)ts.tv_nsec);
	t = openat(rp->dirfd, tmp,
		   O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		   fstat(rp->fd, &st) == 0 ? st.st_mode & 0666 : 0644);
	if (t < 0)
		return -1;
	if (write_all(t, s) < 0 ||
	    renameat(rp->dirfd, tmp, rp->dirfd, rp->base) < 0) {
		e = errno;
		unlinkat(rp->dirfd, tmp, 0);
		close(t);
		return errno = e, -1;
	}
	return close(t);
}

int sbx_report_put(struct sbx_cli_report *rp, const char *s, char *why,
		   size_t whysz)
{
	int replaced = sbx_report_replaced(rp);
	struct stat st;

	if (rp->dirfd < 0 && write_all(rp->fd, s) == 0)
		return 0;
	if (rp->dirfd < 0)
		return snprintf(why, whysz, "%s", strerror(errno)), -1;
	if (stat(rp->dir, &st) < 0 || st.st_dev != rp->ddev ||
	    st.st_ino != rp->dino)
		return snprintf(why, whysz,
				"its directory %s was moved or replaced "
				"during the run",
				rp->dir),
		       -1;
	if (!rp->regular && replaced)
		return snprintf(why, whysz,
				"it was replaced during the run and is no "
				"regular file to write anew"),
		       -1;
	if (rp->regular && put_renamed(rp, s) == 0)
		return 0;
	/* a file we may write in a directory we may not: in place, while
	 * the path still names it */
	if (!replaced &&
	    (!rp->regular || errno == EACCES || errno == EPERM ||
	     errno == EROFS) &&
	    (!rp->regular ||
	     (ftruncate(rp->fd, 0) == 0 && lseek(rp->fd, 0, SEEK_SET) == 0)) &&
	    write_all(rp->fd, s) == 0)
		return 0;
	return snprintf(why, whysz, "%s%s", strerror(errno),
			replaced ? " (the command replaced it during the run)"
				 : ""),
	       -1;
}
