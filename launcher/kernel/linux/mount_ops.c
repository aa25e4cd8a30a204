/*
 * mount_ops.c - mount primitives for the mount view (mountview.h).  Every
 * mount targets a /proc/self/fd/N path of a descriptor opened without
 * following symlinks: rule roots arrive canonical, so a symlink here
 * means the tree changed since the policy was built, and we refuse rather
 * than bind the wrong thing.  Kernels before 5.12 (no openat2 or
 * mount_setattr) get the classic calls.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mountview.h"

const char *sbx_mnt_fdpath(int fd, char buf[32])
{
	snprintf(buf, 32, "/proc/self/fd/%d", fd);
	return buf;
}

void sbx_mnt_close(int fd)
{
	int e = errno;

	if (fd >= 0)
		close(fd);
	errno = e;
}

int sbx_mnt_under(const char *path, const char *root, size_t rootlen)
{
	if (rootlen == 1 && root[0] == '/')
		return path[0] == '/';
	return strncmp(path, root, rootlen) == 0 &&
	       (path[rootlen] == '\0' || path[rootlen] == '/');
}

/* Without openat2: O_PATH|O_NOFOLLOW opens a symlink in the last component
 * as itself (fstat catches that), and the kernel's own name for what we
 * opened catches one anywhere else. */
static int pin_compat(const char *path)
{
	char self[32], real[PATH_MAX];
	int fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = readlink(sbx_mnt_fdpath(fd, self), real, sizeof real - 1);
	if (n < 0 || fstat(fd, &st) < 0 || S_ISLNK(st.st_mode) ||
	    (real[n] = '\0', strcmp(real, path) != 0)) {
		close(fd);
		errno = ELOOP;
		return -1;
	}
	return fd;
}

int sbx_mnt_pin(const char *path)
{
	struct sbx_open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = SBX_RESOLVE_NO_SYMLINKS | SBX_RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);

	if (fd >= 0 || errno != ENOSYS)
		return fd;
	return pin_compat(path);
}

static unsigned long attr_to_ms(uint64_t a)
{
	return (a & MOUNT_ATTR_RDONLY ? MS_RDONLY : 0) |
	       (a & MOUNT_ATTR_NOSUID ? MS_NOSUID : 0) |
	       (a & MOUNT_ATTR_NODEV ? MS_NODEV : 0) |
	       (a & MOUNT_ATTR_NOEXEC ? MS_NOEXEC : 0);
}

/* Classic bind remount.  It replaces every per-mount flag, so the current
 * ones (atime flags included: they may be locked) are read back first. */
static int remount_one(const char *path, uint64_t set, uint64_t clr)
{
	static const struct {
		unsigned long st, ms;
	} map[] = {
		{ ST_RDONLY, MS_RDONLY },     { ST_NOSUID, MS_NOSUID },
		{ ST_NODEV, MS_NODEV },	      { ST_NOEXEC, MS_NOEXEC },
		{ ST_NOATIME, MS_NOATIME },   { ST_NODIRATIME, MS_NODIRATIME },
		{ ST_RELATIME, MS_RELATIME },
	};
	unsigned long fl = 0;
	struct statvfs sv;
	size_t i;

	if (statvfs(path, &sv) < 0)
		return -1;
	for (i = 0; i < sizeof map / sizeof map[0]; i++)
		if (sv.f_flag & map[i].st)
			fl |= map[i].ms;
	fl = (fl | attr_to_ms(set)) & ~attr_to_ms(clr);
	return mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | fl, NULL);
}

/* mountinfo escapes blanks and backslashes as \ooo. */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++, d++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				    (s[3] - '0'));
			s += 3;
		} else {
			*d = *s;
		}
	}
	*d = '\0';
}

/* The recursive fallback: remount every mount at or below root.  Mounts
 * that are shadowed by another mount cannot be reached by name (EINVAL,
 * ENOENT); nothing can reach them from inside either. */
static int remount_tree(const char *root, uint64_t set, uint64_t clr)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL, *mp;
	size_t cap = 0;
	int rc = -1, i;

	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		mp = line;
		for (i = 0; i < 4 && mp; i++)
			mp = strchr(mp, ' ') ? strchr(mp, ' ') + 1 : NULL;
		if (!mp || !strchr(mp, ' '))
			continue;
		*strchr(mp, ' ') = '\0';
		unescape(mp);
		if (!sbx_mnt_under(mp, root, strlen(root)))
			continue;
		if (remount_one(mp, set, clr) < 0 && errno != EINVAL &&
		    errno != ENOENT && errno != EACCES)
			goto out;
	}
	rc = 0;
out:
	free(line);
	fclose(f);
	return rc;
}

/* Change the attributes of the mount on top of path (rec: and of every
 * mount below it).  mount_setattr(2) is atomic and leaves flags we do not
 * name alone; kernels before 5.12 get the remount fallback. */
int sbx_mnt_set_attr(const char *path, int rec, uint64_t set, uint64_t clr)
{
	struct sbx_mount_attr a = { .attr_set = set, .attr_clr = clr };
	char buf[32];
	int fd = sbx_mnt_pin(path), rc;

	if (fd < 0)
		return -1;
	rc = (int)syscall(SYS_mount_setattr, fd, "",
			  AT_EMPTY_PATH | (rec ? AT_RECURSIVE : 0), &a,
			  sizeof a);
	if (rc < 0 && errno == ENOSYS)
		rc = rec ? remount_tree(path, set, clr)
			 : remount_one(sbx_mnt_fdpath(fd, buf), set, clr);
	sbx_mnt_close(fd);
	return rc;
}

int sbx_mnt_bind(int src, int tgt)
{
	char s[32], t[32];

	return mount(sbx_mnt_fdpath(src, s), sbx_mnt_fdpath(tgt, t), NULL,
		     MS_BIND | MS_REC, NULL);
}

/*
 * A read-only recursive copy of the tree at src, attached on tgt.  The
 * copy is made read-only while still detached and then moved into place:
 * open_tree, mount_setattr and move_mount work on the descriptors we
 * hold, where a bind through /proc/self/fd and a mount_setattr on the
 * path looked both up again for every rule.  The result is the same
 * mount: open_tree(OPEN_TREE_CLONE) copies the tree as a recursive bind
 * does, and no one can see the copy before it is read-only.  Returns 1
 * when done, 0 when the kernel lacks the calls (before 5.12), -1 on
 * error with errno set.
 */
int sbx_mnt_bind_ro(int src, int tgt)
{
	struct sbx_mount_attr a = {
		.attr_set = MOUNT_ATTR_RDONLY | ATTR_SECURE,
	};
	int t, rc;

	t = (int)syscall(SYS_open_tree, src, "",
			 OPEN_TREE_CLONE | O_CLOEXEC | AT_RECURSIVE |
				 AT_EMPTY_PATH);
	if (t < 0)
		return errno == ENOSYS ? 0 : -1;
	rc = (int)syscall(SYS_mount_setattr, t, "",
			  AT_EMPTY_PATH | AT_RECURSIVE, &a, sizeof a);
	if (rc == 0)
		rc = (int)syscall(SYS_move_mount, t, "", tgt, "",
				  MOVE_MOUNT_F_EMPTY_PATH |
					  MOVE_MOUNT_T_EMPTY_PATH);
	sbx_mnt_close(t); /* a detached copy goes away with it */
	if (rc < 0)
		return errno == ENOSYS ? 0 : -1;
	return 1;
}

int sbx_mnt_ro_onto(int src, int tgt, const char *path)
{
	int r = sbx_mnt_bind_ro(src, tgt);

	if (r != 0)
		return r > 0 ? 0 : -1;
	if (sbx_mnt_bind(src, tgt) < 0)
		return -1;
	return sbx_mnt_set_attr(path, 1, MOUNT_ATTR_RDONLY | ATTR_SECURE, 0);
}
