/*
 * links.c - a protected file with a second hard link gets its own inode
 * at launch (review N-33).
 *
 * Full mode holds a protected file with a read-only bind mount of its
 * path, and landlock-only mode with the shim and the put-back at exit
 * (guard.c): both hold the name, not the inode.  A second link made by an
 * earlier run (landlock-only: `ln .git/config notes.txt`) is a writable
 * way to the same file, which a static program uses in a later run of
 * either mode.  So before each run, every protected regular file under a
 * writable root, and those below a protected directory (depth and count
 * bounded), whose link count is above one is copied to a new file in the
 * same directory (same mode, same bytes) that is renamed over it, with a
 * warning naming it: the other name keeps the old inode, and writing it
 * changes nothing that is protected.  Cost: one fstatat per protected
 * path that exists (a fresh repository: about 20), a copy only when
 * linked.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "links.h"

#define LINKS_MAX_DEPTH 4
#define LINKS_MAX_ENTRIES 4000

struct lctx {
	void (*warn)(void *ctx, const char *line);
	void *ctx;
	unsigned seen;
};

static int copy_fd(int in, int out)
{
	char buf[65536];
	ssize_t k;

	while ((k = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)k) != k)
			return -1;
	return k < 0 ? -1 : 0;
}

/* name in dfd (st) gets a new inode; 0 or -1. */
static int break_link(int dfd, const char *name, const struct stat *st)
{
	char tmp[NAME_MAX + 1];
	uint64_t r = 0;
	struct stat now;
	int in, out, rc = -1;

	if (getrandom(&r, sizeof r, 0) != sizeof r)
		r = (uint64_t)getpid();
	snprintf(tmp, sizeof tmp, ".sbxrun-link-%016llx",
		 (unsigned long long)r);
	in = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (in < 0)
		return -1;
	if (fstat(in, &now) < 0 || now.st_ino != st->st_ino ||
	    !S_ISREG(now.st_mode)) {
		close(in);
		return -1;
	}
	out = openat(dfd, tmp,
		     O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		     0600);
	if (out >= 0) {
		rc = copy_fd(in, out) < 0 ||
				     fchmod(out, st->st_mode & 07777) < 0
			     ? -1
			     : 0;
		rc = close(out) < 0 ? -1 : rc;
		if (rc == 0)
			rc = renameat(dfd, tmp, dfd, name);
		if (rc < 0)
			unlinkat(dfd, tmp, 0);
	}
	close(in);
	return rc;
}

static void look(struct lctx *c, int dfd, const char *name, char *path,
		 int depth);

static void look_dir(struct lctx *c, int dfd, const char *name, char *path,
		     int depth)
{
	size_t len = strlen(path);
	struct dirent *e;
	DIR *d;
	int fd;

	if (depth >= LINKS_MAX_DEPTH)
		return;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d)) && c->seen < LINKS_MAX_ENTRIES) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (e->d_type != DT_UNKNOWN && e->d_type != DT_REG &&
		    e->d_type != DT_DIR)
			continue;
		snprintf(path + len, PATH_MAX - len, "/%s", e->d_name);
		look(c, dirfd(d), e->d_name, path, depth + 1);
		path[len] = '\0';
	}
	closedir(d);
}

static void look(struct lctx *c, int dfd, const char *name, char *path,
		 int depth)
{
	char line[PATH_MAX + 300];
	struct stat st;

	c->seen++;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		look_dir(c, dfd, name, path, depth);
		return;
	}
	if (!S_ISREG(st.st_mode) || st.st_nlink < 2)
		return;
	if (break_link(dfd, name, &st) == 0)
		snprintf(line, sizeof line,
			 "'%s' is protected but had another hard link (%lu "
			 "names), through which the sandbox could write it: "
			 "it was given its own copy; the other names keep "
			 "the old one",
			 path, (unsigned long)st.st_nlink);
	else
		snprintf(line, sizeof line,
			 "'%s' is protected but has another hard link, "
			 "through which the sandbox can write it, and could "
			 "not be given its own copy (%s): find the other "
			 "name (find -samefile) and remove it",
			 path, strerror(errno));
	c->warn(c->ctx, line);
}

void sbx_links_break(const struct sbx_policy *p,
		     int (*writable)(const struct sbx_policy *, const char *),
		     void (*warn)(void *ctx, const char *line), void *ctx)
{
	struct lctx c = { warn, ctx, 0 };
	char path[PATH_MAX], dir[PATH_MAX];

	for (size_t i = 0; i < p->nrules; i++) {
		const struct sbx_path_rule *r = &p->rules[i];
		const char *slash = strrchr(r->root, '/');
		int dfd;

		if (!(r->flags & SBX_RF_PROTECT) ||
		    (r->flags & SBX_RF_ABSENT) || !slash || !slash[1] ||
		    !writable(p, r->root))
			continue;
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - r->root),
			 r->root);
		dfd = open(dir[0] ? dir : "/",
			   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dfd < 0)
			continue;
		snprintf(path, sizeof path, "%s", r->root);
		look(&c, dfd, slash + 1, path, 0);
		close(dfd);
	}
}
