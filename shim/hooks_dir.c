/*
 * hooks_dir.c - calls that create, remove, rename or change directory
 * entries and their attributes, and chdir/fchdir for the cwd cache.
 *
 * Suffix rules look at the final name of every way a file can get one
 * (THREATS FS-06): the new name of rename/renameat/renameat2 (both names
 * with RENAME_EXCHANGE), link/linkat (including an O_TMPFILE fd linked
 * with AT_EMPTY_PATH), symlink/symlinkat and mknod of a regular file.
 */
#include <fcntl.h>

#include "shim.h"

/* Two path arguments. */
#define PATH2_HOOK(aval, bval, call)                     \
	do {                                             \
		struct shim_fs a_ = (aval), b_ = (bval); \
		int look_, rc_;                          \
		if (shim_fs_pre(&look_, &a_, &b_))       \
			return -1;                       \
		rc_ = (call);                            \
		shim_fs_post(look_, rc_ < 0, &a_, &b_);  \
		return rc_;                              \
	} while (0)

#define W(d, p, c) SHIM_FS((d), (p), SBX_OP_WRITE, (c))
#define REMOVE (CHK_MODIFY | CHK_TREE)

/* ------------------------------------------------------------ create/remove */

int mkdir(const char *path, mode_t mode)
{
	PATH_HOOK(W(AT_FDCWD, path, CHK_MODIFY | CHK_MKDIR),
		  REAL(mkdir)(path, mode));
}

int mkdirat(int dirfd, const char *path, mode_t mode)
{
	PATH_HOOK(W(dirfd, path, CHK_MODIFY | CHK_MKDIR),
		  REAL(mkdirat)(dirfd, path, mode));
}

int unlink(const char *path)
{
	PATH_HOOK(W(AT_FDCWD, path, REMOVE), REAL(unlink)(path));
}

int unlinkat(int dirfd, const char *path, int flags)
{
	PATH_HOOK(W(dirfd, path, REMOVE), REAL(unlinkat)(dirfd, path, flags));
}

int rmdir(const char *path)
{
	PATH_HOOK(W(AT_FDCWD, path, REMOVE), REAL(rmdir)(path));
}

/* mknod names a file only when it makes a regular one. */
static struct shim_fs mknod_fs(int dirfd, const char *path, mode_t mode)
{
	struct shim_fs f = W(dirfd, path, CHK_MODIFY);

	if (S_ISREG(mode) || (mode & S_IFMT) == 0) {
		f.chk |= CHK_NAME;
		f.obj = NULL;
	}
	return f;
}

int mknod(const char *path, mode_t mode, dev_t dev)
{
	PATH_HOOK(mknod_fs(AT_FDCWD, path, mode), REAL(mknod)(path, mode, dev));
}

int mknodat(int dirfd, const char *path, mode_t mode, dev_t dev)
{
	PATH_HOOK(mknod_fs(dirfd, path, mode),
		  REAL(mknodat)(dirfd, path, mode, dev));
}

/* ------------------------------------------------------------ new names */

/* The path that receives a name, and the object that gets it. */
static struct shim_fs named(int dirfd, const char *path, int objfd,
			    const char *obj, int objflags, unsigned chk)
{
	struct shim_fs f = W(dirfd, path, CHK_NAME | CHK_MODIFY | chk);

	f.objfd = objfd;
	f.obj = obj;
	f.objflags = objflags;
	return f;
}

/* rename moves the entry itself (a symlink stays a symlink). */
static struct shim_fs rename_src(int dirfd, const char *path, int newfd,
				 const char *newpath, unsigned flags)
{
	if (flags & RENAME_EXCHANGE)
		return named(dirfd, path, newfd, newpath, AT_SYMLINK_NOFOLLOW,
			     CHK_TREE);
	return W(dirfd, path, REMOVE);
}

int rename(const char *oldpath, const char *newpath)
{
	PATH2_HOOK(rename_src(AT_FDCWD, oldpath, AT_FDCWD, newpath, 0),
		   named(AT_FDCWD, newpath, AT_FDCWD, oldpath,
			 AT_SYMLINK_NOFOLLOW, CHK_TREE | CHK_SIZE),
		   REAL(rename)(oldpath, newpath));
}

int renameat(int olddirfd, const char *oldpath, int newdirfd,
	     const char *newpath)
{
	PATH2_HOOK(rename_src(olddirfd, oldpath, newdirfd, newpath, 0),
		   named(newdirfd, newpath, olddirfd, oldpath,
			 AT_SYMLINK_NOFOLLOW, CHK_TREE | CHK_SIZE),
		   REAL(renameat)(olddirfd, oldpath, newdirfd, newpath));
}

int renameat2(int olddirfd, const char *oldpath, int newdirfd,
	      const char *newpath, unsigned int flags)
{
	PATH2_HOOK(rename_src(olddirfd, oldpath, newdirfd, newpath, flags),
		   named(newdirfd, newpath, olddirfd, oldpath,
			 AT_SYMLINK_NOFOLLOW, CHK_TREE | CHK_SIZE),
		   REAL(renameat2)(olddirfd, oldpath, newdirfd, newpath,
				   flags));
}

/* The source of a hard link is only read; the kernel's answer about it
 * is explained when it is hidden or not covered. */
#define LINK_SRC(d, p) SHIM_FS((d), (p), SBX_OP_READ, 0)

int link(const char *oldpath, const char *newpath)
{
	PATH2_HOOK(LINK_SRC(AT_FDCWD, oldpath),
		   named(AT_FDCWD, newpath, AT_FDCWD, oldpath,
			 AT_SYMLINK_NOFOLLOW, CHK_SIZE),
		   REAL(link)(oldpath, newpath));
}

/* linkat(fd, "", dir, name, AT_EMPTY_PATH) names an O_TMPFILE file: the
 * object is the fd itself. */
static int link_objflags(int flags)
{
	return (flags & AT_EMPTY_PATH) |
	       ((flags & AT_SYMLINK_FOLLOW) ? 0 : AT_SYMLINK_NOFOLLOW);
}

int linkat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
	   int flags)
{
	PATH2_HOOK(LINK_SRC(olddirfd, oldpath),
		   named(newdirfd, newpath, olddirfd, oldpath,
			 link_objflags(flags), CHK_SIZE),
		   REAL(linkat)(olddirfd, oldpath, newdirfd, newpath, flags));
}

/* A symlink is a new name with nothing to stat: always checked. */
int symlink(const char *target, const char *linkpath)
{
	PATH_HOOK(named(AT_FDCWD, linkpath, AT_FDCWD, NULL, 0, 0),
		  REAL(symlink)(target, linkpath));
}

int symlinkat(const char *target, int newdirfd, const char *linkpath)
{
	PATH_HOOK(named(newdirfd, linkpath, newdirfd, NULL, 0, 0),
		  REAL(symlinkat)(target, newdirfd, linkpath));
}

/* ------------------------------------------------------------ attributes */

#define ATTR (CHK_MODIFY | CHK_ATTR)

int chmod(const char *path, mode_t mode)
{
	PATH_HOOK(W(AT_FDCWD, path, ATTR), REAL(chmod)(path, mode));
}

int fchmodat(int dirfd, const char *path, mode_t mode, int flags)
{
	PATH_HOOK(W(dirfd, path, ATTR),
		  REAL(fchmodat)(dirfd, path, mode, flags));
}

int chown(const char *path, uid_t owner, gid_t group)
{
	PATH_HOOK(W(AT_FDCWD, path, ATTR), REAL(chown)(path, owner, group));
}

int lchown(const char *path, uid_t owner, gid_t group)
{
	PATH_HOOK(W(AT_FDCWD, path, ATTR), REAL(lchown)(path, owner, group));
}

int fchownat(int dirfd, const char *path, uid_t owner, gid_t group, int flags)
{
	PATH_HOOK(W(dirfd, path, ATTR),
		  REAL(fchownat)(dirfd, path, owner, group, flags));
}

/* utimensat(fd, NULL, ...) acts on the fd: a NULL path is not looked at. */
int utimensat(int dirfd, const char *path, const struct timespec times[2],
	      int flags)
{
	PATH_HOOK(W(dirfd, path, ATTR),
		  REAL(utimensat)(dirfd, path, times, flags));
}

/* ------------------------------------------------------------ cwd */

/* After a successful chdir the cwd cache is refreshed (cwd.c says why
 * that is safe in vfork children); a failed one is explained like a
 * read. */
int chdir(const char *path)
{
	struct shim_fs f = SHIM_FS(AT_FDCWD, path, SBX_OP_READ, 0);
	int look = shim_enter(), rc = REAL(chdir)(path);

	if (rc == 0)
		shim_cwd_changed();
	shim_fs_post(look, rc < 0, &f, NULL);
	return rc;
}

int fchdir(int fd)
{
	int look = shim_enter(), rc = REAL(fchdir)(fd);

	if (rc == 0)
		shim_cwd_changed();
	shim_fs_post(look, 0, NULL, NULL);
	return rc;
}
