/*
 * guard.c - protected paths that exist at launch, where the kernel
 * cannot hold them (landlock-only mode: SBX_CPOL_F_SHIM_PROTECT), put
 * back at exit (review E-06, PER-02).
 *
 * Landlock grants a directory's rights to everything below it and cannot
 * take them back for one entry: .git/config stays writable to a program
 * that bypasses the shim (a static binary, a raw syscall) as long as git
 * may create index.lock in .git, and carving .git (granting each entry
 * but not the directory) would refuse every git write inside the
 * sandbox.  So in that mode the run keeps a copy of every protected path
 * that exists at launch (files, directories, symlinks: bounded, see
 * GUARD_MAX_*), and once every process of the run is gone compares and
 * restores: what differs, or is new inside a protected directory, is
 * moved aside to NAME.sbxrun-blocked-<random> (aside.c; removed only when
 * the run made that impossible, the run fails when even that does not
 * work), the original
 * is written back, and the run says so.  Each parent directory is
 * checked by device and inode and walked with O_NOFOLLOW, so nothing
 * outside is touched through a symlink the run planted.  A program
 * outside that reads a protected path during the run is not stopped;
 * --dry-run says so.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aside.h"
#include "guard.h"

#define GUARD_MAX_NODES 4000 /* entries kept, all roots together */
#define GUARD_MAX_BYTES (16u << 20) /* bytes of files kept */
#define GUARD_MAX_DEPTH 6

struct gnode {
	char *name;
	mode_t mode; /* with the type bits */
	char *data; /* a file's bytes, a symlink's target */
	size_t len;
	struct timespec mtime; /* a file's, put back with it */
	struct gnode *kids;
	size_t nkids;
};

struct groot {
	char *path; /* the protected path */
	dev_t dev; /* its parent directory at launch */
	ino_t ino;
	dev_t gdev; /* and the parent's parent (0, 0: none) */
	ino_t gino;
	struct gnode node;
};

static void gnode_free(struct gnode *g)
{
	for (size_t i = 0; i < g->nkids; i++)
		gnode_free(&g->kids[i]);
	free(g->kids);
	free(g->data);
	free(g->name);
}

static int read_all(int fd, struct gnode *g, size_t size)
{
	size_t got = 0;
	ssize_t k;

	g->data = malloc(size ? size : 1);
	if (!g->data)
		return -1;
	while (got < size && (k = read(fd, g->data + got, size - got)) > 0)
		got += (size_t)k;
	g->len = got;
	return got == size ? 0 : -1;
}

static int snap(struct sbx_guard *gd, int pfd, const char *name,
		struct gnode *g, int depth);

static int snap_dir(struct sbx_guard *gd, int fd, struct gnode *g, int depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;
	int rc = 0;

	if (!d) {
		close(fd);
		return -1;
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		struct gnode *k;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		k = realloc(g->kids, (g->nkids + 1) * sizeof(*k));
		if (!k) {
			rc = -1;
			break;
		}
		g->kids = k;
		memset(&k[g->nkids], 0, sizeof(*k));
		rc = snap(gd, dirfd(d), e->d_name, &k[g->nkids++], depth + 1);
	}
	closedir(d);
	return rc;
}

/* Keep what name (in pfd) is now; -1 when it cannot be kept whole. */
static int snap(struct sbx_guard *gd, int pfd, const char *name,
		struct gnode *g, int depth)
{
	struct stat st;
	int fd, rc;

	g->name = strdup(name);
	if (!g->name || ++gd->nodes > GUARD_MAX_NODES ||
	    depth > GUARD_MAX_DEPTH ||
	    fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	g->mode = st.st_mode;
	g->mtime = st.st_mtim;
	if (S_ISLNK(st.st_mode)) {
		char t[PATH_MAX];
		ssize_t n = readlinkat(pfd, name, t, sizeof t);

		if (n < 0 || (size_t)n >= sizeof t ||
		    !(g->data = strndup(t, n)))
			return -1;
		g->len = (size_t)n;
		return 0;
	}
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return -1;
	if (S_ISREG(st.st_mode) &&
	    (gd->bytes += (size_t)st.st_size) > GUARD_MAX_BYTES)
		return -1;
	fd = openat(pfd, name,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
			    (S_ISDIR(st.st_mode) ? O_DIRECTORY : 0));
	if (fd < 0)
		return -1;
	if (S_ISDIR(st.st_mode))
		return snap_dir(gd, fd, g, depth);
	rc = read_all(fd, g, (size_t)st.st_size);
	close(fd);
	return rc;
}

struct gctx {
	void (*warn)(void *ctx, const char *line);
	void *ctx;
	char path[PATH_MAX]; /* of the entry being compared */
	char done[PATH_MAX]; /* a replaced parent already handled */
	int failed; /* changed entries left in place */
};

/* One warning line: what happened to c->path (or path). */
static void say(struct gctx *c, const char *path, const char *moved,
		const char *what)
{
	char line[3 * PATH_MAX];

	if (!strcmp(what, "replaced") || !strcmp(what, "gone"))
		snprintf(line, sizeof line,
			 "'%s' holds protected paths and was %s during the "
			 "run by a program that bypassed the shim (this mode "
			 "cannot refuse it)%s%s%s: where the original went, "
			 "the command decided; find it before running git or "
			 "an agent there outside",
			 path, strcmp(what, "gone") ? "replaced" : "moved away",
			 moved ? "; the replacement was moved aside to '" : "",
			 moved ? moved : "", moved ? "'" : "");
	else if (moved)
		snprintf(line, sizeof line,
			 "'%s' is protected and was %s during the run by a "
			 "program that bypassed the shim (this mode cannot "
			 "refuse it): %s '%s': review it",
			 path, what,
			 strcmp(what, "created")
				 ? "put back as it was at launch; the run's "
				   "version is in"
				 : "moved aside to",
			 moved);
	else if (!strcmp(what, "removed"))
		snprintf(line, sizeof line,
			 "'%s' is protected and was removed during the run: "
			 "put back as it was at launch",
			 path);
	else if (!strcmp(what, "too large"))
		snprintf(line, sizeof line,
			 "'%s' is protected, but this mode cannot hold it "
			 "against a program that bypasses the shim, and it "
			 "is too large to keep a copy of: a change will not "
			 "be put back at exit",
			 path);
	else
		snprintf(line, sizeof line,
			 "'%s' is protected and was changed during the run, "
			 "and could not be %s: review it before running git "
			 "or an agent there outside",
			 path,
			 strcmp(what, "directory replaced")
				 ? "put back"
				 : "checked (its directory was replaced)");
	c->warn(c->ctx, line);
}

/* The parent of path, opened without following a symlink at its end; a
 * parent of ours the run made unreadable is opened up (aside.c), the
 * mode put back by close_parent. */
static int open_parent(const char *path, char *name_out, size_t n,
		       int *mode_back)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');

	*mode_back = -1;
	if (!slash || !slash[1] ||
	    snprintf(name_out, n, "%s", slash + 1) >= (int)n)
		return -1;
	snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	return sbx_open_dir(dir[0] ? dir : "/", mode_back);
}

static void close_parent(int fd, int mode_back)
{
	if (fd < 0)
		return;
	sbx_dir_close_up(fd, mode_back);
	close(fd);
}

int sbx_guard_note(struct sbx_guard *gd, const struct sbx_policy *p,
		   int (*writable)(const struct sbx_policy *, const char *),
		   void (*warn)(void *ctx, const char *line), void *ctx)
{
	struct gctx c = { .warn = warn, .ctx = ctx };

	for (size_t i = 0; i < p->nrules; i++) {
		const struct sbx_path_rule *r = &p->rules[i];
		char name[NAME_MAX + 1];
		struct groot *v, *g;
		struct stat st;
		int pfd, back;

		if (!(r->flags & SBX_RF_PROTECT) ||
		    (r->flags & SBX_RF_ABSENT) || !writable(p, r->root))
			continue;
		pfd = open_parent(r->root, name, sizeof name, &back);
		if (pfd < 0)
			continue;
		v = realloc(gd->v, (gd->n + 1) * sizeof(*v));
		if (!v || fstat(pfd, &st) < 0) {
			close_parent(pfd, back);
			if (v)
				gd->v = v;
			continue;
		}
		gd->v = v;
		g = &v[gd->n];
		memset(g, 0, sizeof(*g));
		g->dev = st.st_dev;
		g->ino = st.st_ino;
		if (fstatat(pfd, "..", &st, 0) == 0) {
			g->gdev = st.st_dev;
			g->gino = st.st_ino;
		}
		g->path = strdup(r->root);
		if (!g->path || snap(gd, pfd, name, &g->node, 0) < 0) {
			say(&c, r->root, NULL, "too large");
			free(g->path);
			gnode_free(&g->node);
		} else {
			gd->n++;
		}
		close_parent(pfd, back);
	}
	return 0;
}

/* ------------------------------------------------------------ at exit */

/* Move name (in pfd) aside, or remove it; 0, or -1 (still there). */
static int aside(struct gctx *c, int pfd, const char *name, const char *what)
{
	char moved[NAME_MAX + 1], full[PATH_MAX];
	int rc = sbx_aside(pfd, name, moved, sizeof moved);

	if (rc == SBX_ASIDE_FAILED) {
		c->failed++;
		say(c, c->path, NULL, what);
		return -1;
	}
	if (rc == SBX_ASIDE_REMOVED)
		snprintf(full, sizeof full,
			 "(nowhere: the run made the "
			 "rename impossible, so it was "
			 "removed)");
	else
		snprintf(full, sizeof full, "%.*s/%s",
			 (int)(strrchr(c->path, '/') - c->path), c->path,
			 moved);
	say(c, c->path, full, what);
	return 0;
}

/* Write g back as name in pfd (nothing is there). */
static int put_back(int pfd, const struct gnode *g)
{
	/* as it was at launch: its modification time too (a build tool or
	 * a check outside compares it) */
	const struct timespec t[2] = { { 0, UTIME_OMIT }, g->mtime };
	int fd;

	if (S_ISLNK(g->mode))
		return symlinkat(g->data, pfd, g->name);
	if (S_ISDIR(g->mode))
		return mkdirat(pfd, g->name, g->mode & 07777);
	fd = openat(pfd, g->name,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    g->mode & 0777);
	if (fd < 0)
		return -1;
	if (write(fd, g->data, g->len) != (ssize_t)g->len ||
	    fchmod(fd, g->mode & 0777) < 0) {
		close(fd);
		return -1;
	}
	(void)futimens(fd, t);
	return close(fd);
}

/* Is name in pfd still what g kept?  Directories: the type alone. */
static int same(int pfd, const struct gnode *g, const struct stat *st)
{
	char buf[65536];
	size_t off = 0;
	ssize_t k;
	int fd, ok = 1;

	if ((st->st_mode & S_IFMT) != (g->mode & S_IFMT))
		return 0;
	if (S_ISDIR(g->mode))
		return 1;
	if (S_ISLNK(g->mode)) {
		char t[PATH_MAX];

		k = readlinkat(pfd, g->name, t, sizeof t);
		return k == (ssize_t)g->len && !memcmp(t, g->data, g->len);
	}
	if ((st->st_mode & 07777) != (g->mode & 07777) ||
	    (size_t)st->st_size != g->len)
		return 0;
	fd = openat(pfd, g->name,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	while (ok && (k = read(fd, buf, sizeof buf)) > 0) {
		ok = off + (size_t)k <= g->len &&
		     !memcmp(buf, g->data + off, (size_t)k);
		off += (size_t)k;
	}
	close(fd);
	return ok && k == 0 && off == g->len;
}

static void check(struct gctx *c, int pfd, const struct gnode *g);

/* The names in directory fd now (one allocation, NUL-separated, ending
 * with an empty name); NULL without memory. */
static char *names_in(int fd)
{
	int dup_fd = dup(fd);
	DIR *d = dup_fd < 0 ? NULL : fdopendir(dup_fd);
	size_t len = 0, cap = 256;
	char *v = malloc(cap), *nv;
	struct dirent *e;

	if (!d || !v) {
		if (d)
			closedir(d);
		else if (dup_fd >= 0)
			close(dup_fd);
		free(v);
		return NULL;
	}
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name) + 1;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (len + n + 1 > cap) {
			cap = 2 * (len + n + 1);
			if (!(nv = realloc(v, cap)))
				break;
			v = nv;
		}
		memcpy(v + len, e->d_name, n);
		len += n;
	}
	v[len] = '\0';
	closedir(d);
	return v;
}

/* A directory that is still one: new entries aside, kept ones checked. */
static void check_dir(struct gctx *c, int pfd, const struct gnode *g)
{
	size_t len = strlen(c->path);
	int fd = openat(pfd, g->name,
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	char *names;

	/* made unreadable by the run (chmod 000): the launch mode back, it
	 * is a directory (same()) and no process of the run is left */
	if (fd < 0 && errno == EACCES &&
	    fchmodat(pfd, g->name, g->mode & 07777, 0) == 0)
		fd = openat(pfd, g->name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	names = fd < 0 ? NULL : names_in(fd);

	for (const char *n = names; n && *n; n += strlen(n) + 1) {
		size_t i;

		for (i = 0; i < g->nkids && strcmp(g->kids[i].name, n); i++)
			;
		if (i < g->nkids)
			continue;
		snprintf(c->path + len, sizeof c->path - len, "/%s", n);
		aside(c, fd, n, "created");
		c->path[len] = '\0';
	}
	free(names);
	for (size_t i = 0; fd >= 0 && i < g->nkids; i++) {
		snprintf(c->path + len, sizeof c->path - len, "/%s",
			 g->kids[i].name);
		check(c, fd, &g->kids[i]);
		c->path[len] = '\0';
	}
	if (fd >= 0) {
		struct stat st;

		/* only when changed: a chmod touches ctime, which GIT-02's
		 * search at exit reads as a change */
		if (fstat(fd, &st) == 0 &&
		    (st.st_mode & 07777) != (g->mode & 07777))
			fchmod(fd, g->mode & 07777);
		close(fd);
	}
}

static void check(struct gctx *c, int pfd, const struct gnode *g)
{
	struct stat st;
	int there = fstatat(pfd, g->name, &st, AT_SYMLINK_NOFOLLOW) == 0;

	if (there && same(pfd, g, &st)) {
		if (S_ISDIR(g->mode))
			check_dir(c, pfd, g);
		return;
	}
	if (there && aside(c, pfd, g->name, "changed") < 0)
		return;
	if (put_back(pfd, g) < 0) {
		int mode = sbx_dir_open_up(pfd);
		int bad = mode < 0 || put_back(pfd, g) < 0;

		sbx_dir_close_up(pfd, mode);
		if (bad) {
			say(c, c->path, NULL, "not restored");
			return;
		}
	}
	if (!there)
		say(c, c->path, NULL, "removed");
	if (S_ISDIR(g->mode))
		check_dir(c, pfd, g); /* puts every entry back */
}

/*
 * The parent of a protected path is not the directory of the launch
 * (FS-05: mv .git g; mkdir -p .git/hooks; a hook): if the parent's own
 * parent still is, the replacement is moved aside, so git outside finds
 * no repository rather than the command's; once per parent.
 */
static void parent_replaced(struct gctx *c, const struct groot *g)
{
	char name[NAME_MAX + 1];
	struct stat st;
	int gpfd, back;

	*strrchr(c->path, '/') = '\0'; /* the parent */
	if (!strcmp(c->path, c->done))
		return;
	snprintf(c->done, sizeof c->done, "%s", c->path);
	gpfd = open_parent(c->path, name, sizeof name, &back);
	if (gpfd < 0 || !g->gino || fstat(gpfd, &st) < 0 ||
	    st.st_dev != g->gdev || st.st_ino != g->gino) {
		say(c, g->path, NULL, "directory replaced");
	} else if (fstatat(gpfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		say(c, c->path, NULL, "gone");
	} else {
		aside(c, gpfd, name, "replaced");
	}
	close_parent(gpfd, back);
}

int sbx_guard_check(struct sbx_guard *gd,
		    void (*warn)(void *ctx, const char *line), void *ctx)
{
	struct gctx c = { .warn = warn, .ctx = ctx };

	for (size_t i = 0; i < gd->n; i++) {
		struct groot *g = &gd->v[i];
		char name[NAME_MAX + 1];
		struct stat st;
		int back, pfd = open_parent(g->path, name, sizeof name, &back);

		snprintf(c.path, sizeof c.path, "%s", g->path);
		if (pfd < 0 || fstat(pfd, &st) < 0 || st.st_dev != g->dev ||
		    st.st_ino != g->ino) {
			close_parent(pfd, back);
			parent_replaced(&c, g);
			continue;
		}
		check(&c, pfd, &g->node);
		close_parent(pfd, back);
	}
	return c.failed;
}

void sbx_guard_free(struct sbx_guard *gd)
{
	for (size_t i = 0; i < gd->n; i++) {
		free(gd->v[i].path);
		gnode_free(&gd->v[i].node);
	}
	free(gd->v);
	memset(gd, 0, sizeof(*gd));
}
