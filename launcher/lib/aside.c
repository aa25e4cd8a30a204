/*
 * aside.c - move a protected entry the run planted or changed out of the
 * way at exit (plant.c, guard.c), so that it never stays in place.
 *
 * The run can prepare for the rename (review N-16, N-29): occupy the
 * names it would pick (they were NAME.sbxrun-blocked-PID-N, the pid is in
 * $SBXRUN_REPORT) or take write permission from the directory (chmod 555
 * .git: its own project, allowed).  So the new name carries 64 random
 * bits (getrandom), taken again when one exists; a parent directory that
 * refuses is given write permission back for the rename (sbxrun outside
 * owns it) and its mode is put back afterwards; and when the entry still
 * cannot be renamed it is removed, files and whole directories alike
 * (the run's version is lost, the next git outside runs nothing of it).
 * Only when even that fails is it left, and the caller fails the run.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aside.h"

#define ASIDE_TRIES 16
#define ASIDE_RM_DEPTH 64

static int try_rename(int dfd, const char *name, char *out, size_t outlen)
{
	int rc = -1;

	for (unsigned k = 0; k < ASIDE_TRIES && rc < 0; k++) {
		uint64_t r = 0;

		if (getrandom(&r, sizeof r, 0) != sizeof r)
			r ^= (uint64_t)getpid() << 32 ^ (uint64_t)k * 0x9e37u;
		if (snprintf(out, outlen, "%.*s.sbxrun-blocked-%016llx", 200,
			     name, (unsigned long long)r) >= (int)outlen) {
			errno = ENAMETOOLONG;
			return -1;
		}
		rc = renameat2(dfd, name, dfd, out, RENAME_NOREPLACE);
		if (rc < 0 && errno != EEXIST)
			break;
	}
	return rc;
}

/* Remove name in dfd, a directory with all below it; 0 or -1. */
static int remove_tree(int dfd, const char *name, int depth)
{
	struct dirent *e;
	DIR *d;
	int fd, bad = 0;

	if (unlinkat(dfd, name, 0) == 0)
		return 0;
	if ((errno != EISDIR && errno != EPERM) || depth > ASIDE_RM_DEPTH)
		return -1;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	fchmod(fd, 0700); /* a run's chmod 555 on its own directory */
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    remove_tree(dirfd(d), e->d_name, depth + 1) < 0)
			bad = 1;
	closedir(d);
	return bad ? -1 : unlinkat(dfd, name, AT_REMOVEDIR);
}

int sbx_dir_open_up(int dfd)
{
	struct stat st;

	if (fstat(dfd, &st) < 0 || st.st_uid != geteuid() ||
	    (st.st_mode & S_IRWXU) == S_IRWXU ||
	    fchmod(dfd, (st.st_mode & 07777) | S_IRWXU) < 0)
		return -1;
	return (int)(st.st_mode & 07777);
}

void sbx_dir_close_up(int dfd, int mode)
{
	if (mode >= 0)
		fchmod(dfd, (mode_t)mode);
}

int sbx_open_dir(const char *dir, int *mode_back)
{
	char self[64];
	struct stat st;
	int fd, pfd;

	*mode_back = -1;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 || errno != EACCES)
		return fd;
	/* chmod 000 by the run: opened up through an O_PATH fd, the mode
	 * put back by the caller (sbx_dir_close_up) */
	pfd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0)
		return -1;
	snprintf(self, sizeof self, "/proc/self/fd/%d", pfd);
	if (fstat(pfd, &st) < 0 || st.st_uid != geteuid() ||
	    chmod(self, (st.st_mode & 07777) | S_IRWXU) < 0) {
		close(pfd);
		errno = EACCES;
		return -1;
	}
	fd = open(self, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		chmod(self, st.st_mode & 07777);
	else
		*mode_back = (int)(st.st_mode & 07777);
	close(pfd);
	return fd;
}

int sbx_aside(int dfd, const char *name, char *out, size_t outlen)
{
	int rc, err, mode = -1;

	rc = try_rename(dfd, name, out, outlen);
	if (rc < 0 && (errno == EACCES || errno == EPERM) &&
	    (mode = sbx_dir_open_up(dfd)) >= 0)
		rc = try_rename(dfd, name, out, outlen);
	err = errno;
	if (rc < 0 && remove_tree(dfd, name, 0) == 0)
		rc = 1;
	sbx_dir_close_up(dfd, mode);
	errno = err;
	if (rc == 0)
		return SBX_ASIDE_MOVED;
	return rc == 1 ? SBX_ASIDE_REMOVED : SBX_ASIDE_FAILED;
}
