/*
 * rundir.c - see rundir.h.  Every path here is created with O_EXCL /
 * O_NOFOLLOW and the base directory's owner and mode are checked, so a
 * planted symlink or another user's directory is refused (THREATS FS-13).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rundir.h"

static int fail(struct sbx_err *err, const char *what, const char *path)
{
	snprintf(err->msg, sizeof(err->msg), "%s %s: %s", what, path,
		 strerror(errno));
	return -1;
}

/* base exists, is a real directory, ours, and private. */
static int private_dir(const char *base)
{
	struct stat st;

	if (mkdir(base, 0700) < 0 && errno != EEXIST)
		return -1;
	if (lstat(base, &st) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077)) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

/* Remove a run directory and the plain files in it.  The directory is
 * opened with O_NOFOLLOW and its entries removed relative to that fd, so
 * a symlink planted in its place is never followed (THREATS FS-13). */
static void remove_tree(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	while (d && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	}
	if (d)
		closedir(d);
	else if (fd >= 0)
		close(fd);
	if (fd >= 0)
		rmdir(dir);
	else
		unlink(dir);	/* a planted symlink: remove the link only */
}

/* Runs whose launcher died (SIGKILL) leave their directory: remove those
 * whose pid is gone. */
static void remove_stale(const char *base)
{
	DIR *d = opendir(base);
	struct dirent *e;
	char p[PATH_MAX];

	while (d && (e = readdir(d))) {
		long pid;

		if (sscanf(e->d_name, "run-%ld-", &pid) != 1 || pid <= 0)
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(p, sizeof(p), "%s/%s", base, e->d_name);
		remove_tree(p);
	}
	if (d)
		closedir(d);
}

/* ~/.cache may not exist yet: create it (0700 for our own part). */
static int private_dir_chain(const char *dir)
{
	char parent[PATH_MAX];
	char *slash;

	snprintf(parent, sizeof(parent), "%s", dir);
	slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = '\0';
		if (mkdir(parent, 0700) < 0 && errno != EEXIST)
			return -1;
	}
	return private_dir(dir);
}

static void pick_base(struct sbx_rundir *rd)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR"), *home;
	struct stat st;

	if (xdg && xdg[0] == '/' && stat(xdg, &st) == 0 &&
	    st.st_uid == geteuid() && !(st.st_mode & 077)) {
		snprintf(rd->base, sizeof(rd->base), "%s/sbxrun", xdg);
		if (private_dir(rd->base) == 0)
			return;
	}
	/* Not /tmp: in landlock-only mode the sandbox can write there.  The
	 * home directory is read-only inside on every shipped profile. */
	home = getenv("HOME");
	if (home && home[0] == '/') {
		snprintf(rd->base, sizeof(rd->base), "%s/.cache/sbxrun", home);
		if (private_dir_chain(rd->base) == 0) {
			snprintf(rd->base, sizeof(rd->base), "%s/.cache/sbxrun/run",
				 home);
			return;
		}
	}
	snprintf(rd->base, sizeof(rd->base), "/tmp/sbxrun-%u",
		 (unsigned)geteuid());
}

int sbx_rundir_create(struct sbx_rundir *rd, struct sbx_err *err)
{
	memset(rd, 0, sizeof(*rd));
	pick_base(rd);
	if (private_dir(rd->base) < 0)
		return fail(err, "cannot use the state directory", rd->base);
	remove_stale(rd->base);
	snprintf(rd->dir, sizeof(rd->dir), "%s/run-%ld-XXXXXX", rd->base,
		 (long)getpid());
	if (!mkdtemp(rd->dir))
		return fail(err, "cannot create", rd->dir);
	chmod(rd->dir, 0755);	/* the policy must be readable inside */
	rd->created = 1;
	return 0;
}

void sbx_rundir_path(const struct sbx_rundir *rd, const char *name,
		     char *out, size_t outsz)
{
	snprintf(out, outsz, "%s/%s", rd->dir, name);
}

int sbx_rundir_write(struct sbx_rundir *rd, const char *name,
		     const void *data, size_t len, struct sbx_err *err)
{
	char p[PATH_MAX];
	int fd;

	sbx_rundir_path(rd, name, p, sizeof(p));
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
	if (fd < 0)
		return fail(err, "cannot create", p);
	if (write(fd, data, len) != (ssize_t)len) {
		close(fd);
		return fail(err, "cannot write", p);
	}
	close(fd);
	return 0;
}

void sbx_rundir_remove(struct sbx_rundir *rd)
{
	if (rd->created)
		remove_tree(rd->dir);
	rd->created = 0;
}
