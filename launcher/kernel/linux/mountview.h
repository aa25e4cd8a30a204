/*
 * mountview.h - full mode's mount view (DESIGN §7, layer 1), shared by
 * its three files:
 *
 *   mounts.c     the view: items from the policy's rules and the extras,
 *                applied shortest root first, and the record of the
 *                mounts we made (what may happen below each);
 *   mount_ops.c  mount primitives on pinned descriptors: openat2 without
 *                symlinks, mount_setattr, open_tree/move_mount, with the
 *                fallbacks for kernels before 5.12;
 *   mount_dev.c  the minimal /dev and the fresh /proc.
 *
 * Everything runs in the sandbox's pid 1, single-threaded, before the
 * command exists.  See mounts.c for the steps and what keeps the view in
 * place.
 */
#ifndef SBX_MOUNTVIEW_H
#define SBX_MOUNTVIEW_H

#include <stddef.h>
#include <stdint.h>

#include "compat.h"
#include "linux.h"

#define ATTR_SECURE (MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)
#define ATTR_SEALED (MOUNT_ATTR_RDONLY | ATTR_SECURE | MOUNT_ATTR_NOEXEC)

/* What one item asks for, in processing order at equal length. */
enum mkind {
	MK_RW, /* bind the root onto itself read-write */
	MK_TMP, /* the private /tmp */
	MK_RO, /* read-only, where our own mounts made it writable
			 * or covered it */
	MK_HIDE, /* empty tmpfs over a directory, /dev/null over
			 * anything else */
};

struct mitem {
	char *path; /* owned copy */
	size_t len;
	enum mkind kind;
	int src; /* pinned before anything was covered, or -1 */
	int isdir; /* src is a directory; -1: not asked yet */
};

/* A mount we made: its kind decides what may happen below it. */
enum dkind {
	D_RW, /* writable bind of a host tree */
	D_MID, /* self-bind of a directory above a protected
				 * path, only there to make renames fail */
	D_RO, /* read-only bind */
	D_TMPFS, /* writable tmpfs (/tmp) */
	D_TMPFS_RO, /* tmpfs made read-only at the end */
	D_FILE, /* /dev/null over a hidden file */
};

struct mdone {
	char *path;
	size_t len;
	enum dkind kind;
	int sealed; /* a D_TMPFS_RO mounted read-only already */
};

struct mctx {
	const struct sbx_launch *l;
	struct sbx_err *err;
	struct mitem *items;
	size_t nitems, capitems;
	struct mdone *done;
	size_t ndone, capdone;
	/* done by path: index + 1 of the latest record of each path, open
	 * addressing; dixcap 0: no index (out of memory), scan instead.
	 * Every item asks which of our mounts lies above it, so scanning
	 * made a policy of n rules cost n² compares. */
	uint32_t *dix;
	size_t dixcap;
	int null; /* the host's /dev/null, pinned for the first hidden
		   * file (-1: not yet), bound over every one */
};

/* ------------------------------------------------------- mount_ops.c */

/* "/proc/self/fd/N" for fd, in buf. */
const char *sbx_mnt_fdpath(int fd, char buf[32]);
/* close(fd) unless fd < 0, keeping errno. */
void sbx_mnt_close(int fd);
/* Is path equal to root or below it?  Both canonical. */
int sbx_mnt_under(const char *path, const char *root, size_t rootlen);
/* An O_PATH descriptor for path, refusing symlinks anywhere in it. */
int sbx_mnt_pin(const char *path);
/* Set and clear MOUNT_ATTR_* on the mount at path (rec: and below). */
int sbx_mnt_set_attr(const char *path, int rec, uint64_t set, uint64_t clr);
/* Recursive bind of the pinned src onto the pinned tgt. */
int sbx_mnt_bind(int src, int tgt);
/* A read-only recursive copy of src attached on tgt: 1 done, 0 the
 * kernel lacks the new mount API, -1 error with errno. */
int sbx_mnt_bind_ro(int src, int tgt);

/* A read-only bind of src onto tgt (path: tgt's name, for kernels
 * before 5.12).  0, or -1 with errno. */
int sbx_mnt_ro_onto(int src, int tgt, const char *path);

/* --------------------------------------------------------- mounts.c */

/* Remember a mount we made at path. */
int sbx_mnt_record(struct mctx *c, const char *path, enum dkind kind);
/* The mount target for path in the current view; with create, a missing
 * one is made when (and only when) it would lie inside one of our tmpfs. */
int sbx_mnt_target(struct mctx *c, const char *path, int isdir, int create);

/* ------------------------------------------------------- mount_dev.c */

/* Step 5: a minimal /dev on a fresh tmpfs, and /proc for the pid
 * namespace.  0, or -1 with c->err. */
int sbx_mnt_dev(struct mctx *c);
int sbx_mnt_proc(struct mctx *c);

#endif
