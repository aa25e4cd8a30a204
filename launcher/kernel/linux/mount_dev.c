/*
 * mount_dev.c - step 5 of the mount view (mounts.c): a minimal /dev on a
 * fresh tmpfs (a few host device nodes bound in, a new devpts instance,
 * a private /dev/shm) and a fresh /proc for the new pid namespace.
 *
 * One cleanup idiom in this file: goto out.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mountview.h"

static const char *const dev_nodes[] = {
	"null", "zero", "full", "random", "urandom", "tty",
};
#define NDEV (sizeof dev_nodes / sizeof dev_nodes[0])

/* One host device node bound onto a file in our /dev tmpfs.  Step 3 made
 * the host's /dev nodev, and the bind inherits that, so nodev is cleared
 * again on this one mount (it was not locked: the host's /dev allows
 * devices).  Read-only is kept: writes to a device are not affected. */
static int dev_node(struct mctx *c, const char *name, int src)
{
	char path[64];
	int tgt, rc;

	snprintf(path, sizeof path, "/dev/%s", name);
	tgt = sbx_mnt_target(c, path, 0, 1);
	if (tgt < 0)
		return sbx_errf(c->err, errno, "mount view: %s", path);
	rc = sbx_mnt_bind(src, tgt);
	sbx_mnt_close(tgt);
	if (rc < 0 ||
	    sbx_mnt_set_attr(path, 0, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC,
			     MOUNT_ATTR_NODEV) < 0)
		return sbx_errf(c->err, errno, "mount view: %s", path);
	return 0;
}

/* The rest of /dev lives in our fresh tmpfs: by name is safe here. */
static int dev_extras(struct mctx *c)
{
	static const char *const links[][2] = {
		{ "/proc/self/fd", "/dev/fd" },
		{ "/proc/self/fd/0", "/dev/stdin" },
		{ "/proc/self/fd/1", "/dev/stdout" },
		{ "/proc/self/fd/2", "/dev/stderr" },
		{ "pts/ptmx", "/dev/ptmx" },
	};
	size_t i;

	/* TTY-05: a new devpts instance, not the host's ptys. */
	if (mkdir("/dev/pts", 0755) < 0 ||
	    mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
		  "newinstance,ptmxmode=0666,mode=620") < 0)
		return sbx_errf(c->err, errno, "mount view: /dev/pts");
	if (mkdir("/dev/shm", 01777) < 0 ||
	    mount("tmpfs", "/dev/shm", "tmpfs",
		  MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=1777") < 0)
		return sbx_errf(c->err, errno, "mount view: /dev/shm");
	for (i = 0; i < sizeof links / sizeof links[0]; i++)
		if (symlink(links[i][0], links[i][1]) < 0)
			return sbx_errf(c->err, errno, "mount view: %s",
					links[i][1]);
	return 0;
}

int sbx_mnt_dev(struct mctx *c)
{
	int src[NDEV], tgt = -1, rc = -1;
	char buf[32];
	size_t i;

	for (i = 0; i < NDEV; i++) { /* before the tmpfs covers them */
		char path[64];

		snprintf(path, sizeof path, "/dev/%s", dev_nodes[i]);
		src[i] = sbx_mnt_pin(path);
	}
	tgt = sbx_mnt_pin("/dev");
	if (tgt < 0 || mount("tmpfs", sbx_mnt_fdpath(tgt, buf), "tmpfs",
			     MS_NOSUID | MS_NODEV | MS_NOEXEC,
			     "mode=0755,size=64k,nr_inodes=64") < 0) {
		sbx_errf(c->err, errno, "mount view: /dev");
		goto out;
	}
	if (sbx_mnt_record(c, "/dev", D_TMPFS_RO) < 0)
		goto out;
	for (i = 0; i < NDEV; i++)
		if (src[i] >= 0 && dev_node(c, dev_nodes[i], src[i]) < 0)
			goto out;
	rc = dev_extras(c);
out:
	for (i = 0; i < NDEV; i++)
		sbx_mnt_close(src[i]);
	sbx_mnt_close(tgt);
	return rc;
}

/* Mounted by pid 1 of the new pid namespace, so it shows only the
 * sandbox's processes.  The kernel allows it only while the host's /proc
 * is fully visible (no over-mounts hiding parts of it: a container's
 * masked paths).  Then, under fallback = warn, the host's /proc stays,
 * read-only with its masks, and 1 says so; otherwise nothing runs. */
int sbx_mnt_proc(struct mctx *c)
{
	char buf[32];
	int tgt = sbx_mnt_pin("/proc"), rc;

	if (tgt < 0)
		return sbx_errf(c->err, errno, "mount view: /proc");
	rc = mount("proc", sbx_mnt_fdpath(tgt, buf), "proc",
		   MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	sbx_mnt_close(tgt);
	if (rc == 0)
		return 0;
	if (errno == EPERM && c->l->weaker_ok)
		return 1;
	if (errno == EPERM)
		return sbx_errf(c->err, 0,
				"a fresh /proc is refused: %s; fallback = "
				"\"deny\" refuses to run with the host's "
				"/proc",
				sbx_proc_masked_fix);
	return sbx_errf(c->err, 0, "mount view: fresh /proc: %s",
			strerror(errno));
}
