/*
 * journal.c - the exit repair of planted paths (plant.c), written down
 * before the command starts (review N-04, N-21).
 *
 * The repair runs in sbxrun once every process of the run is gone; a
 * SIGKILL of sbxrun skips it, and the command can bring one about (a
 * harness's `timeout -k`: it ignores SIGTERM).  So before the command
 * starts, the paths to check go to pending-<XXH64 of the project>-<pid>
 * in sbxrun's private state directory (rundir.c: never writable inside
 * the sandbox), held with an exclusive flock while the run lives and
 * removed after its repair.  The next run in that project repairs each
 * journal whose lock is free (its sbxrun is gone, and every process that
 * shared the lock) before it builds its policy, and says so.  The window
 * between the kill and the next run stays: git or an agent run outside
 * then reads the planted paths; --dry-run and SECURITY.md say so.
 * Format: one "DEV INO PATH" record per planted path, NUL-terminated.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "journal.h"

#define JOURNAL_MAX (1u << 20)

static void prefix(char *out, size_t n, const char *project)
{
	snprintf(out, n, "pending-%016llx-",
		 (unsigned long long)XXH3_64bits(project, strlen(project)));
}

/* v in decimal at out (room for 20 digits), its end returned. */
static char *put_u64(char *out, unsigned long long v)
{
	char tmp[20];
	size_t n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (n)
		*out++ = tmp[--n];
	return out;
}

/* "DEV INO PATH" and its NUL, as "%llu %llu %s" would (one record per
 * absent protected path, ~70 a run: no printf). */
static size_t record(char *rec, const struct sbx_plant *pt)
{
	char *e = put_u64(rec, (unsigned long long)pt->dev);
	size_t n = strnlen(pt->path, PATH_MAX - 1);

	*e++ = ' ';
	e = put_u64(e, (unsigned long long)pt->ino);
	*e++ = ' ';
	memcpy(e, pt->path, n);
	e[n] = '\0';
	return (size_t)(e - rec) + n + 1;
}

static int write_down(struct sbx_journal *j, const char *base,
		      const char *project, const struct sbx_plants *pl)
{
	char pre[64], rec[PATH_MAX + 64];
	FILE *f;
	int fd;

	prefix(pre, sizeof pre, project);
	snprintf(j->path, sizeof j->path, "%s/%s%d", base, pre, (int)getpid());
	unlink(j->path); /* one of an earlier run with our pid */
	fd = open(j->path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX) < 0 || !(f = fdopen(dup(fd), "w"))) {
		unlink(j->path);
		close(fd);
		return -1;
	}
	for (size_t i = 0; i < pl->n; i++)
		fwrite(rec, 1, record(rec, &pl->v[i]), f);
	if (fclose(f) != 0) { /* no fsync: a kill keeps the page cache */
		unlink(j->path);
		close(fd);
		return -1;
	}
	j->fd = fd;
	return 0;
}

void sbx_journal_write(struct sbx_journal *j, const char *base,
		       const char *project, const struct sbx_plants *pl,
		       void (*warn)(void *ctx, const char *line), void *ctx)
{
	char line[PATH_MAX + 200];

	j->fd = -1;
	if (!pl->n || write_down(j, base, project, pl) == 0)
		return;
	snprintf(line, sizeof line,
		 "could not write down the exit repair in '%s' (%s): if "
		 "sbxrun is killed, the next run cannot do it",
		 base, strerror(errno));
	warn(ctx, line);
}

void sbx_journal_end(struct sbx_journal *j, int keep)
{
	if (j->fd < 0)
		return;
	if (!keep)
		unlink(j->path);
	close(j->fd);
	j->fd = -1;
}

/* The records of fd as plants; 0, or -1. */
static int load(int fd, struct sbx_plants *pl)
{
	struct stat st;
	char *buf;
	size_t off = 0;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || (size_t)st.st_size > JOURNAL_MAX)
		return -1;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf || pread(fd, buf, (size_t)st.st_size, 0) != st.st_size) {
		free(buf);
		return -1;
	}
	buf[st.st_size] = '\0';
	while (off < (size_t)st.st_size) {
		char *rec = buf + off, *path;
		unsigned long long dev, ino;
		struct sbx_plant *v;

		off += strlen(rec) + 1;
		path = strchr(rec, '/');
		if (!path || sscanf(rec, "%llu %llu ", &dev, &ino) != 2 ||
		    !(v = realloc(pl->v, (pl->n + 1) * sizeof(*v))))
			continue;
		pl->v = v;
		if (!(v[pl->n].path = strdup(path)))
			continue;
		v[pl->n].dev = (dev_t)dev;
		v[pl->n].ino = (ino_t)ino;
		pl->n++;
	}
	free(buf);
	return 0;
}

struct said {
	void (*warn)(void *ctx, const char *line);
	void *ctx;
	const char *project;
	int told;
};

static void say_first(void *ctx, const char *line)
{
	struct said *s = ctx;
	char head[PATH_MAX + 200];

	if (!s->told++) {
		snprintf(head, sizeof head,
			 "an earlier sbxrun in '%s' was killed before its "
			 "exit repair: doing it now",
			 s->project);
		s->warn(s->ctx, head);
	}
	s->warn(s->ctx, line);
}

int sbx_journal_repair(const char *base, const char *project,
		       void (*warn)(void *ctx, const char *line), void *ctx,
		       struct sbx_err *err)
{
	struct said s = { warn, ctx, project, 0 };
	char pre[64];
	struct dirent *e;
	int failed = 0;
	DIR *d = opendir(base);

	prefix(pre, sizeof pre, project);
	while (d && (e = readdir(d))) {
		struct sbx_plants pl = { 0 };
		int fd;

		if (strncmp(e->d_name, pre, strlen(pre)) != 0)
			continue;
		fd = openat(dirfd(d), e->d_name,
			    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			close(fd); /* its run is still going */
			continue;
		}
		if (load(fd, &pl) == 0) {
			int left = sbx_plants_check(&pl, say_first, &s);

			failed += left;
			if (!left)
				unlinkat(dirfd(d), e->d_name, 0);
		}
		sbx_plants_free(&pl);
		close(fd);
	}
	if (d)
		closedir(d);
	if (failed)
		return sbx_errf(err, 0,
				"code an earlier run planted in '%s' is still "
				"in place (see above): remove it, then run "
				"again",
				project);
	return 0;
}
