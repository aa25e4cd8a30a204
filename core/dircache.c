/*
 * dircache.c - "is this path missing?" answered from directory listings
 * (issue 17).
 *
 * A run asks about ~80 hidden names under every account's home, most of
 * them missing (~/.aws of someone without AWS keys).  One openat2 or
 * lstat per name made ~1,400 failing lookups a launch.  Here the parent
 * directory is listed once (getdents64) and every name under it is
 * matched against the list; a parent that is itself missing answers for
 * everything below it.
 *
 * Only absence is ever claimed, and only what the lookup it stands for
 * would have said: a directory is listed after opening it with
 * RESOLVE_NO_SYMLINKS (so no link on the way), a name found (a file, a
 * directory or a symlink) is "maybe", and the caller makes its own lookup
 * as before.  A directory that cannot be searched answers EACCES for all
 * its names, as their lookups would; one that cannot be opened or read
 * otherwise (a link, no openat2, read but no search permission, more
 * than DC_MAX_NAMES names) answers "maybe" for all its names.
 *
 * The cache lives for one step of the launch (sbx_dircache_begin/_end,
 * one per thread): a name that appears later is found by the next step's
 * own listing, as it was by the next step's own lookup before.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "policy.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#define DC_RESOLVE_NO_MAGICLINKS 0x02
#define DC_RESOLVE_NO_SYMLINKS 0x04
#define DC_MAX_NAMES 4096 /* larger directories: ask name by name */

struct dc_how { /* struct open_how */
	uint64_t flags, mode, resolve;
};

struct dc_dir {
	char *path;
	size_t len;
	int err; /* 0: listed; ENOENT/ENOTDIR: missing; EACCES: not
		  * searchable; EAGAIN: asked about once, not listed yet;
		  * EIO: unknown */
	char *pool; /* the names, NUL-separated */
	uint32_t *slots; /* hash set: offset in pool + 1, 0 empty */
	size_t mask; /* slots - 1, a power of two minus one */
};

struct sbx_dircache {
	struct dc_dir *v;
	size_t n, cap;
	uint32_t *ix; /* hash set of v by path: index + 1, 0 empty */
	size_t ixmask;
	int nolist; /* sbx_dircache_begin_nolist */
};

static __thread struct sbx_dircache *cur;

static uint32_t mem_hash(const char *s, size_t n)
{
	return (uint32_t)XXH3_64bits(s, n);
}

static uint32_t name_hash(const char *s)
{
	return mem_hash(s, strlen(s));
}

/* Index the n names of pool (used bytes) in d's hash set. */
static int index_names(struct dc_dir *d, char *pool, size_t used, size_t n)
{
	size_t cap = 16;

	while (cap < 2 * n)
		cap *= 2;
	d->slots = calloc(cap, sizeof *d->slots);
	if (!d->slots)
		return -1;
	d->mask = cap - 1;
	for (size_t at = 0; at < used; at += strlen(pool + at) + 1) {
		size_t i = name_hash(pool + at) & d->mask;

		while (d->slots[i])
			i = (i + 1) & d->mask;
		d->slots[i] = (uint32_t)at + 1;
	}
	d->pool = pool;
	return 0;
}

static int has_name(const struct dc_dir *d, const char *name)
{
	size_t i = name_hash(name) & d->mask;

	for (; d->slots[i]; i = (i + 1) & d->mask)
		if (strcmp(d->pool + d->slots[i] - 1, name) == 0)
			return 1;
	return 0;
}

/* Every name of the open directory fd into d (pool and hash set);
 * -1 when it could not be read whole or is too large. */
static int read_names(int fd, struct dc_dir *d)
{
	char buf[16384];
	size_t used = 0, cap = 0, n = 0;
	char *pool = NULL;
	long got;

	while ((got = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
		for (long off = 0; off < got;) {
			unsigned short reclen;
			const char *name = buf + off + 19; /* d_name */
			size_t len = strlen(name) + 1;

			memcpy(&reclen, buf + off + 16, sizeof reclen);
			off += reclen;
			if (used + len > cap) {
				char *np;

				cap = cap ? cap * 2 : 4096;
				if (cap < used + len)
					cap = used + len;
				if (!(np = realloc(pool, cap)))
					goto fail;
				pool = np;
			}
			memcpy(pool + used, name, len);
			used += len;
			if (++n > DC_MAX_NAMES)
				goto fail;
		}
	}
	if (got < 0 || index_names(d, pool, used, n) < 0)
		goto fail;
	return 0;
fail:
	free(pool);
	return -1;
}

static int dir_absent(struct sbx_dircache *c, const char *dir, size_t len);

/* List d->path now: d->err becomes 0 (listed), ENOENT or ENOTDIR
 * (missing), EACCES (not searchable) or EIO (unknown).  nolist: no
 * listing, only the three errors. */
static void list_dir(struct dc_dir *d, int nolist)
{
	struct dc_how how = {
		.flags = (nolist ? O_PATH : O_RDONLY) | O_DIRECTORY | O_CLOEXEC,
		.resolve = DC_RESOLVE_NO_SYMLINKS | DC_RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, d->path, &how, sizeof how);

	if (nolist) { /* missing or not searchable, else unknown */
		d->err = fd >= 0 ? (faccessat(AT_FDCWD, d->path, X_OK,
					      AT_EACCESS) < 0
					    ? EACCES
					    : EIO)
			 : errno == ENOENT || errno == ENOTDIR ? errno
							       : EIO;
		if (fd >= 0)
			close(fd);
		return;
	}
	if (fd < 0) {
		/* no link on the way (that is ELOOP), but not readable: if
		 * not searchable either, every name below fails with EACCES
		 * (another account's home) */
		d->err = errno;
		if (d->err == EACCES &&
		    faccessat(AT_FDCWD, d->path, X_OK, AT_EACCESS) == 0)
			d->err = EIO;
		if (d->err != ENOENT && d->err != ENOTDIR && d->err != EACCES)
			d->err = EIO;
		return;
	}
	/* a name in a directory we may read but not search: the lookup
	 * would say EACCES */
	d->err = read_names(fd, d) < 0				      ? EIO
		 : faccessat(AT_FDCWD, d->path, X_OK, AT_EACCESS) < 0 ? EACCES
								      : 0;
	close(fd);
}

/* The slot of dir[0..len) in c->ix: its entry, or the empty slot. */
static uint32_t *dir_slot(const struct sbx_dircache *c, const char *dir,
			  size_t len)
{
	size_t i = mem_hash(dir, len) & c->ixmask;

	for (; c->ix[i]; i = (i + 1) & c->ixmask) {
		const struct dc_dir *d = &c->v[c->ix[i] - 1];

		if (d->len == len && memcmp(d->path, dir, len) == 0)
			break;
	}
	return &c->ix[i];
}

/* Room for one more entry in c->v and c->ix. */
static int grow(struct sbx_dircache *c)
{
	size_t ncap = c->cap ? c->cap * 2 : 64;
	struct dc_dir *nv;
	uint32_t *nix;

	if (c->n < c->cap)
		return 0;
	nv = realloc(c->v, ncap * sizeof *nv);
	if (!nv)
		return -1;
	c->v = nv;
	nix = calloc(2 * ncap, sizeof *nix); /* at most half full */
	if (!nix)
		return -1;
	free(c->ix);
	c->ix = nix;
	c->ixmask = 2 * ncap - 1;
	c->cap = ncap;
	for (size_t k = 0; k < c->n; k++)
		*dir_slot(c, c->v[k].path, c->v[k].len) = (uint32_t)k + 1;
	return 0;
}

/* The entry of dir[0..len), made on the first question and listed on
 * the second. */
static struct dc_dir *dir_entry(struct sbx_dircache *c, const char *dir,
				size_t len)
{
	struct dc_dir d = { 0 };
	uint32_t *slot;
	int e;

	if (c->ix && *(slot = dir_slot(c, dir, len))) {
		struct dc_dir *x = &c->v[*slot - 1];

		if (x->err == EAGAIN)
			list_dir(x, c->nolist);
		return x;
	}
	e = dir_absent(c, dir, len); /* may add the parents' entries */
	if (grow(c) < 0 || !(d.path = strndup(dir, len)))
		return NULL;
	d.len = len;
	/* a directory asked about once is not listed (one lookup is
	 * cheaper than a listing): the caller looks the name up */
	d.err = e ? e : EAGAIN;
	c->v[c->n] = d;
	*dir_slot(c, dir, len) = (uint32_t)c->n + 1;
	return &c->v[c->n++];
}

/* ENOENT or ENOTDIR when path[0..len) is known missing, else 0. */
static int dir_absent(struct sbx_dircache *c, const char *path, size_t len)
{
	const struct dc_dir *d;
	char name[NAME_MAX + 1];
	size_t plen = len;

	while (plen > 0 && path[plen - 1] != '/')
		plen--;
	if (plen == 0 || len - plen > NAME_MAX || len == plen)
		return 0; /* not absolute, too long or "/": ask the kernel */
	memcpy(name, path + plen, len - plen);
	name[len - plen] = '\0';
	d = dir_entry(c, path, plen > 1 ? plen - 1 : 1);
	if (!d)
		return 0;
	if (d->err == ENOENT || d->err == ENOTDIR || d->err == EACCES)
		return d->err;
	if (d->err || has_name(d, name))
		return 0;
	return ENOENT;
}

int sbx_dircache_absent(const char *path)
{
	int e = errno, r;

	if (!cur || !path || path[0] != '/')
		return 0;
	r = dir_absent(cur, path, strlen(path));
	errno = e;
	return r;
}

int sbx_dircache_begin(void)
{
	if (cur)
		return 0;
	cur = calloc(1, sizeof *cur);
	return cur != NULL;
}

int sbx_dircache_begin_nolist(void)
{
	int began = sbx_dircache_begin();

	if (began)
		cur->nolist = 1;
	return began;
}

void sbx_dircache_end(int began)
{
	int e = errno;

	if (!began || !cur)
		return;
	for (size_t i = 0; i < cur->n; i++) {
		free(cur->v[i].path);
		free(cur->v[i].pool);
		free(cur->v[i].slots);
	}
	free(cur->v);
	free(cur->ix);
	free(cur);
	cur = NULL;
	errno = e;
}
