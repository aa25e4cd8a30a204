/*
 * plant.c - protected paths missing at launch that the run created
 * ("planted"), moved aside at exit (GIT-01, PER-03).
 *
 * A protected path that does not exist at launch (.git/commondir in every
 * ordinary repository, an optional include.path target, .claude or
 * .mcp.json in a project that has none) can take no read-only mount
 * without leaving a stub on the host, and Landlock cannot refuse one name
 * in a directory where others may be created (git makes index.lock in
 * .git).  So the sandbox can create it, and the next git or agent run
 * outside would read it.  A warning at exit was the only defence, and an
 * agent harness may show stderr to the model, not to a human.
 *
 * Instead, once every process of the run is gone, each such path that
 * now exists is renamed to NAME.sbxrun-blocked-<random> in the same
 * directory (aside.c: kept, it may be wanted; the warning says how to
 * take it back; removed only when the run made the rename impossible,
 * and the run fails when even that does not work).  Only paths whose parent directory existed at launch
 * are watched, identified by device and inode, so a parent replaced
 * during the run (by a symlink to somewhere else) is left alone and
 * said; a path inside a directory the run made is the run's own (git
 * init makes .git/hooks), and GIT-02's warning names new repositories.
 * The moment between creation and exit is not covered: a git run
 * outside during the run (an editor's) would read it; --dry-run says so.
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
#include "plant.h"

/* The last directory looked at: the absent protected paths of a run
 * mostly share one (the project's), looked at once. */
struct lastdir {
	char dir[PATH_MAX];
	struct stat st;
	int ok; /* 1: dir is a directory (st), 0: not, -1: nothing yet */
};

static void note(struct sbx_plants *pl, struct lastdir *ld, const char *path)
{
	char dir[PATH_MAX];
	struct sbx_plant *v;
	char *slash;

	if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
		return;
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return;
	*slash = '\0';
	if (ld->ok < 0 || strcmp(ld->dir, dir) != 0) {
		memcpy(ld->dir, dir, (size_t)(slash - dir) + 1);
		ld->ok = lstat(dir, &ld->st) == 0 && S_ISDIR(ld->st.st_mode);
	}
	if (!ld->ok)
		return;
	v = realloc(pl->v, (pl->n + 1) * sizeof(*v));
	if (!v)
		return;
	pl->v = v;
	v[pl->n].path = strdup(path);
	if (!v[pl->n].path)
		return;
	v[pl->n].dev = ld->st.st_dev;
	v[pl->n].ino = ld->st.st_ino;
	pl->n++;
}

void sbx_plants_note(struct sbx_plants *pl, const struct sbx_policy *p,
		     int (*writable)(const struct sbx_policy *, const char *))
{
	struct lastdir ld = { .ok = -1 };

	for (size_t i = 0; i < p->nrules; i++) {
		const struct sbx_path_rule *r = &p->rules[i];

		if ((r->flags & SBX_RF_ABSENT) && writable(p, r->root))
			note(pl, &ld, r->root);
	}
}

/* The directory of the launch, open: reused while the next planted path
 * lies in the same one (a project's absent .claude, .mcp.json, .envrc
 * and the rest share it), so it is opened and checked once, not per
 * path.  -1 with errno: ENOENT when gone, EXDEV when replaced. */
struct dircache {
	char dir[PATH_MAX];
	int fd; /* -1: none open */
	int mode_back; /* sbx_open_dir's */
	dev_t dev;
	ino_t ino;
};

static void dc_close(struct dircache *dc)
{
	if (dc->fd < 0)
		return;
	sbx_dir_close_up(dc->fd, dc->mode_back);
	close(dc->fd);
	dc->fd = -1;
}

static int launch_dir(struct dircache *dc, const struct sbx_plant *pt,
		      const char *dir)
{
	struct stat st;

	if (dc->fd >= 0 && dc->dev == pt->dev && dc->ino == pt->ino &&
	    strcmp(dc->dir, dir) == 0)
		return dc->fd;
	dc_close(dc);
	dc->fd = sbx_open_dir(dir, &dc->mode_back);
	if (dc->fd < 0)
		return -1;
	if (fstat(dc->fd, &st) < 0 || st.st_dev != pt->dev ||
	    st.st_ino != pt->ino) {
		dc_close(dc);
		errno = EXDEV; /* not the directory of the launch */
		return -1;
	}
	snprintf(dc->dir, sizeof dc->dir, "%s", dir);
	dc->dev = st.st_dev;
	dc->ino = st.st_ino;
	return dc->fd;
}

/* Move one planted path aside: an SBX_ASIDE_* result (the new name in
 * out when moved), 0 when not there, -2 when its directory is not the
 * one of the launch. */
static int move_aside(struct dircache *dc, const struct sbx_plant *pt,
		      char *out, size_t outlen)
{
	const char *name = strrchr(pt->path, '/') + 1;
	char dir[PATH_MAX], moved[NAME_MAX + 1];
	struct stat st;
	int dfd, rc;

	snprintf(dir, sizeof dir, "%.*s", (int)(name - 1 - pt->path), pt->path);
	dfd = launch_dir(dc, pt, dir);
	if (dfd < 0)
		return errno == ENOENT ? 0
		       : errno == EXDEV || errno == ELOOP || errno == ENOTDIR
			       ? -2
			       : SBX_ASIDE_FAILED;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : SBX_ASIDE_FAILED;
	rc = sbx_aside(dfd, name, moved, sizeof moved);
	if (rc == SBX_ASIDE_MOVED)
		snprintf(out, outlen, "%s/%s", dir, moved);
	return rc;
}

/* Plants in one directory read at once, at least; fewer are looked up
 * one by one. */
#define PLANT_GROUP 4
/* A larger directory (st_size) is not read: one lookup per plant. */
#define PLANT_DIR_BYTES (64 * 1024)

/* Does pt lie in the directory of path (the part before its last '/')? */
static int same_dir(const struct sbx_plant *pt, const char *path)
{
	size_t n = (size_t)(strrchr(path, '/') - path);

	return strncmp(pt->path, path, n) == 0 && pt->path[n] == '/' &&
	       !strchr(pt->path + n + 1, '/');
}

/*
 * The plants v[i..end) share one directory (of the launch: dc): one read
 * of it says which names are there, instead of a lookup per name (a
 * project's absent .claude, .mcp.json, .envrc and the sixty others are
 * mostly still absent).  present[k] for v[i + k]; -1 when the directory
 * could not be read or is large: each is looked up as before.  Every
 * process of the run is gone: nothing appears after the read.
 */
static int read_group(struct dircache *dc, const struct sbx_plant *v, size_t i,
		      size_t end, unsigned char *present)
{
	const char *name = strrchr(v[i].path, '/') + 1;
	char dir[PATH_MAX];
	struct stat st;
	struct dirent *e;
	DIR *d;
	int fd;

	snprintf(dir, sizeof dir, "%.*s", (int)(name - 1 - v[i].path),
		 v[i].path);
	fd = launch_dir(dc, &v[i], dir);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size > PLANT_DIR_BYTES ||
	    !sbx_names_exact(fd))
		return -1;
	fd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	memset(present, 0, end - i);
	errno = 0;
	/* one directory: every name of the group starts at the same
	 * offset of its path */
	while ((e = readdir(d)) != NULL)
		for (size_t k = i; k < end; k++)
			if (!present[k - i] &&
			    v[k].path[name - v[i].path] == e->d_name[0] &&
			    !strcmp(v[k].path + (name - v[i].path), e->d_name))
				present[k - i] = 1;
	fd = errno; /* readdir's: 0 at the end */
	closedir(d);
	return fd ? -1 : 0;
}

#define PLANTED                                                     \
	"'%s' was created during the run; it is protected because " \
	"it can run code outside the sandbox later, "

int sbx_plants_check(struct sbx_plants *pl,
		     void (*warn)(void *ctx, const char *line), void *ctx)
{
	char moved[PATH_MAX], line[3 * PATH_MAX];
	struct dircache dc = { .fd = -1 };
	unsigned char present[64];
	size_t gstart = 0, gend = 0; /* present[] is for v[gstart..gend) */
	int failed = 0;

	for (size_t i = 0; i < pl->n; i++) {
		const char *p = pl->v[i].path;
		int rc, e;

		if (i >= gend) {
			gstart = i;
			gend = i + 1;
			while (gend < pl->n && gend - i < sizeof present &&
			       pl->v[gend].dev == pl->v[i].dev &&
			       pl->v[gend].ino == pl->v[i].ino &&
			       same_dir(&pl->v[gend], p))
				gend++;
			if (gend - i < PLANT_GROUP ||
			    read_group(&dc, pl->v, i, gend, present) < 0)
				gend = i + 1, present[0] = 1;
		}
		if (!present[i - gstart])
			continue; /* not in the directory read just now */
		rc = move_aside(&dc, &pl->v[i], moved, sizeof moved);
		e = errno;
		if (rc == 0)
			continue;
		if (rc == SBX_ASIDE_MOVED)
			snprintf(line, sizeof line,
				 PLANTED "so it was moved aside to '%s': "
					 "review it, and move it back only if "
					 "you trust it",
				 p, moved);
		else if (rc == SBX_ASIDE_REMOVED)
			snprintf(line, sizeof line,
				 PLANTED "and the run made it impossible to "
					 "move it aside (%s), so it was "
					 "removed",
				 p, strerror(e));
		else if (rc == -2)
			snprintf(line, sizeof line,
				 PLANTED "and it could not be moved aside "
					 "(its directory was replaced): "
					 "review it before using it outside",
				 p);
		else
			snprintf(line, sizeof line,
				 "ERROR: " PLANTED "and it could neither be "
				 "moved aside nor removed "
				 "(%s): remove it before "
				 "running git or an agent "
				 "there outside",
				 p, strerror(e));
		failed += rc == SBX_ASIDE_FAILED;
		warn(ctx, line);
	}
	dc_close(&dc);
	return failed;
}

int sbx_plants_watched(struct sbx_plants *pl, const char *path)
{
	/* asked in the order they were noted (run.c walks the same rules):
	 * from the one after the last found, so mostly at the first try */
	for (size_t k = 0; k < pl->n; k++) {
		size_t i = (pl->next + k) % pl->n;

		if (strcmp(pl->v[i].path, path) == 0) {
			pl->next = i + 1;
			return 1;
		}
	}
	return 0;
}

void sbx_plants_free(struct sbx_plants *pl)
{
	for (size_t i = 0; i < pl->n; i++)
		free(pl->v[i].path);
	free(pl->v);
	pl->v = NULL;
	pl->n = 0;
	pl->next = 0;
}
