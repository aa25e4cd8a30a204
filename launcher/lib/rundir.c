/*
 * rundir.c - see rundir.h.  Every path here is opened with O_NOFOLLOW or
 * created with O_EXCL, and the base directory's owner and mode are
 * checked, so a planted symlink or another user's directory is refused
 * (THREATS FS-13).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "rundir.h"

/*
 * base exists, is a real directory of ours, and private.  A directory of
 * ours that others may enter is made private again rather than refused:
 * landlock-only mode cannot stop a chmod from inside (Landlock has no
 * attribute rights), and refusing would let any sandbox stop every later
 * run, or push the store somewhere it can write.
 */
static int private_dir(const char *base)
{
	struct stat st;
	int fd;

	if (mkdir(base, 0700) < 0 && errno != EEXIST)
		return -1;
	fd = open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() ||
	    ((st.st_mode & 077) && fchmod(fd, 0700) < 0)) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	close(fd);
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
		unlink(dir); /* a planted symlink: remove the link only */
}

/* A file unused for this long, and locked by no run, is removed. */
#define POLICY_MAX_IDLE (24 * 3600)

/* Policies nobody uses: not locked by a run, not used for a day.  Also
 * the run-PID-* directories of older versions whose launcher is gone. */
static void remove_stale(const char *base)
{
	DIR *d = opendir(base);
	struct dirent *e;
	struct stat st;
	time_t now = time(NULL);
	long pid;
	int fd;

	while (d && (e = readdir(d))) {
		if (sscanf(e->d_name, "run-%ld-", &pid) == 1 && pid > 0) {
			char p[PATH_MAX];

			if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
				continue;
			snprintf(p, sizeof(p), "%s/%s", base, e->d_name);
			remove_tree(p);
			continue;
		}
		/* .new-*: a launcher died between create and rename;
		 * conf-*: kept conf trees (confcache.c) */
		if (strncmp(e->d_name, "policy-", 7) != 0 &&
		    strncmp(e->d_name, "conf-", 5) != 0 &&
		    strncmp(e->d_name, ".new-", 5) != 0)
			continue;
		fd = openat(dirfd(d), e->d_name,
			    O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0 &&
		    now - st.st_mtime > POLICY_MAX_IDLE &&
		    flock(fd, LOCK_EX | LOCK_NB) == 0)
			unlinkat(dirfd(d), e->d_name, 0);
		close(fd);
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

/* dir is ours and private (not created: XDG_RUNTIME_DIR, /run/user). */
static int ours_private(const char *dir)
{
	struct stat st;

	return dir && dir[0] == '/' && lstat(dir, &st) == 0 &&
	       S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	       !(st.st_mode & 077);
}

/* Can we create files in dir (a read-only mount, Landlock, a full disk
 * show only when trying)? */
static int can_store(const char *dir)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), "%s/.new-probe-%d", dir, (int)getpid());
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0400);
	if (fd < 0)
		return 0;
	close(fd);
	unlink(p);
	return 1;
}

/*
 * The first of these that works and that the sandbox cannot write
 * (writable(): the run's policy, before its mode's rules):
 *   $XDG_RUNTIME_DIR/sbxrun, /run/user/UID/sbxrun   when ours and private
 *   HOME/.cache/sbxrun/run                           HOME not "/"
 *   /var/tmp/sbxrun-UID                              created 0700, ours
 * and, inside another sbxrun sandbox (SBXRUN set), where only the project
 * and /tmp may be writable, /tmp/sbxrun-UID: the outer sandbox's /tmp.
 * Never the host's /tmp otherwise: every landlock-only sandbox of the
 * user can write there.  base[] is left naming the last one tried.
 */
static size_t candidates(char cand[4][PATH_MAX], const char *home)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	size_t n = 0;
	unsigned uid = (unsigned)geteuid();

	if (ours_private(xdg))
		snprintf(cand[n++], PATH_MAX, "%s/sbxrun", xdg);
	snprintf(cand[n], PATH_MAX, "/run/user/%u", uid);
	if (ours_private(cand[n]) && (!xdg || strcmp(xdg, cand[n])))
		snprintf(cand[n++], PATH_MAX, "/run/user/%u/sbxrun", uid);
	if (home && home[0] == '/' && home[1])
		snprintf(cand[n++], PATH_MAX, "%s/.cache/sbxrun/run", home);
	snprintf(cand[n++], PATH_MAX, "/var/tmp/sbxrun-%u", uid);
	return n;
}

static int pick_base(struct sbx_rundir *rd, const char *home,
		     int (*writable)(void *, const char *), void *ctx)
{
	const char *in = getenv("SBXRUN");
	char cand[4][PATH_MAX];
	size_t n = candidates(cand, home);
	unsigned uid = (unsigned)geteuid();

	for (size_t i = 0; i < n; i++) {
		snprintf(rd->base, sizeof(rd->base), "%s", cand[i]);
		if (writable && writable(ctx, cand[i]))
			continue;
		if (strstr(cand[i], "/.cache/sbxrun/run")) {
			char up[PATH_MAX];

			snprintf(up, sizeof(up), "%s/.cache/sbxrun", home);
			if (private_dir_chain(up) < 0)
				continue;
		}
		if (private_dir(cand[i]) == 0 && can_store(cand[i]))
			return 0;
	}
	if (in && !strcmp(in, "1")) {
		snprintf(rd->base, sizeof(rd->base), "/tmp/sbxrun-%u", uid);
		if (private_dir(rd->base) == 0 && can_store(rd->base))
			return 0;
	}
	errno = EACCES;
	return -1;
}

/* The first place of pick_base()'s that exists and is ours and private,
 * as it is: nothing made, nothing changed, not asked whether a sandbox
 * may write it (the caller asks, once it has a policy). */
int sbx_rundir_existing(const char *home, char *out, size_t outsz)
{
	char cand[4][PATH_MAX];
	size_t n = candidates(cand, home);

	for (size_t i = 0; i < n; i++)
		if (ours_private(cand[i]))
			return snprintf(out, outsz, "%s", cand[i]) < (int)outsz
				       ? 0
				       : -1;
	snprintf(cand[0], PATH_MAX, "/tmp/sbxrun-%u", (unsigned)geteuid());
	if (getenv("SBXRUN") && !strcmp(getenv("SBXRUN"), "1") &&
	    ours_private(cand[0]))
		return snprintf(out, outsz, "%s", cand[0]) < (int)outsz ? 0
									: -1;
	return -1;
}

int sbx_rundir_create(struct sbx_rundir *rd, const char *home,
		      int (*writable)(void *, const char *), void *ctx,
		      struct sbx_err *err)
{
	memset(rd, 0, sizeof(*rd));
	rd->fd = -1;
	if (pick_base(rd, home, writable, ctx) < 0)
		return sbx_errf(err, 0,
				"no private state directory for the compiled "
				"policy: $XDG_RUNTIME_DIR/sbxrun, "
				"~/.cache/sbxrun/run and /var/tmp/sbxrun-%u "
				"are each missing, not ours, not writable or "
				"writable by the sandbox; set XDG_RUNTIME_DIR "
				"to a directory of yours with mode 0700",
				(unsigned)geteuid());
	return 0;
}

/* fd is a stored policy equal to data: a plain file of ours that nobody
 * can write, with the same bytes (read in one call, not page by page). */
static int same_policy(int fd, const void *data, size_t len)
{
	struct stat st;
	char *buf;
	int same;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 0222) ||
	    (size_t)st.st_size != len || !(buf = malloc(len + 1)))
		return 0;
	/* one byte more than expected: a file grown since fstat differs */
	same = pread(fd, buf, len + 1, 0) == (ssize_t)len &&
	       memcmp(buf, data, len) == 0;
	free(buf);
	return same;
}

/* Lock fd shared for this run and make sure that it is still the file at
 * rd->path (a sweep may have removed it between our open and the lock).
 * A file in use for an hour gets a fresh mtime, so no sweep takes it. */
static int hold(struct sbx_rundir *rd, int fd)
{
	struct stat a, b;

	if (flock(fd, LOCK_SH) < 0 || fstat(fd, &a) < 0 ||
	    lstat(rd->path, &b) < 0 || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino) {
		close(fd);
		return -1;
	}
	if (time(NULL) - a.st_mtime > 3600)
		futimens(fd, NULL);
	rd->fd = fd;
	return 0;
}

/* A new file, written whole under a temporary name and renamed into
 * place: a reader never sees part of a policy.  Runs storing the same
 * policy at once rename equal files over each other, which is harmless. */
static int store(struct sbx_rundir *rd, const void *data, size_t len,
		 struct sbx_err *err)
{
	char tmp[PATH_MAX];
	int fd, ok;

	snprintf(tmp, sizeof(tmp), "%s/.new-XXXXXX", rd->base);
	fd = mkostemp(tmp, O_CLOEXEC); /* O_EXCL, never follows a link */
	if (fd < 0)
		return sbx_errf(err, errno, "cannot create %s", tmp);
	ok = write(fd, data, len) == (ssize_t)len && fchmod(fd, 0444) == 0;
	close(fd);
	if (!ok || rename(tmp, rd->path) < 0) {
		sbx_errf(err, errno, "cannot write %s", tmp);
		unlink(tmp);
		return -1;
	}
	remove_stale(rd->base);
	return 0;
}

int sbx_rundir_put(struct sbx_rundir *rd, const void *data, size_t len,
		   struct sbx_err *err)
{
	XXH128_hash_t h = XXH3_128bits(data, len);
	int fd;

	snprintf(rd->path, sizeof(rd->path), "%s/policy-%016llx%016llx",
		 rd->base, (unsigned long long)h.high64,
		 (unsigned long long)h.low64);
	/* Usually the first open finds it.  Otherwise store it and look
	 * again: what we lock must be what is at the path. */
	for (int tries = 0; tries < 3; tries++) {
		fd = open(rd->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			if (same_policy(fd, data, len)) {
				if (hold(rd, fd) == 0) /* closes fd if not */
					return 0;
				continue;
			}
			close(fd);
		}
		if (store(rd, data, len, err) < 0)
			return -1;
	}
	errno = EAGAIN;
	return sbx_errf(err, errno, "cannot keep %s", rd->path);
}

void sbx_rundir_release(struct sbx_rundir *rd)
{
	if (rd->fd >= 0)
		close(rd->fd);
	rd->fd = -1;
}
