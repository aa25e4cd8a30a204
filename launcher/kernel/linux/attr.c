/*
 * attr.c - attribute changes in landlock-only mode, done by the
 * supervisor for the command (E-16).
 *
 * Landlock has no right for chmod, chown, extended attributes or file
 * times: without the read-only mounts of full mode a sandboxed program
 * could chmod a hidden ~/.ssh/id_rsa to 0644 for every local user, or
 * set a read-only ~/.bashrc world-writable.  So in landlock-only mode
 * the filter sends every such call (the path ones and the descriptor
 * ones) to the supervisor's listener (notif.c), which does it here:
 *
 *  1. the target is opened O_PATH the way the kernel would have looked
 *     it up -- relative to /proc/TID/cwd or /proc/TID/fd/N, following
 *     the last symlink or not as the call asks -- with the command's
 *     effective capabilities (none): the supervisor's are off meanwhile;
 *  2. the descriptor's path (/proc/self/fd/N) is decided for a write by
 *     the one decider over the run's compiled policy: anything but a
 *     writable path is refused with EACCES, as Landlock refuses a write;
 *  3. the change is made on that descriptor, never on the name again.
 *
 * The answer is always ours: never SECCOMP_USER_NOTIF_FLAG_CONTINUE,
 * which would let the kernel read the caller's memory a second time
 * (the name can be swapped between our check and the kernel's lookup).
 * The caller's memory is read once, into our buffers.  Set-uid and
 * set-gid modes are not done here: they stay the baseline's EPERM.
 * Where the kernel gives no listener (older than 5.0, an outer sbxrun),
 * the plain filter refuses all of these calls with EPERM: fail closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <seccomp.h>

#include "attr.h"
#include "compat.h"

#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif
#define ATTR_NR_FCHMODAT2 452 /* x86_64 and arm64 share new numbers */
#define ATTR_XATTR_MAX 65536 /* XATTR_SIZE_MAX */

enum attr_op { A_CHMOD, A_CHOWN, A_SETX, A_RMX, A_TIMES };
enum attr_tm { TM_TS, TM_TV, TM_UTIMBUF }; /* how the call gives times */

/* One call, as the kernel would read its arguments. */
struct attr_call {
	enum attr_op op;
	int fd; /* the descriptor the call acts on, or the dirfd */
	uint64_t path; /* 0: the call acts on fd itself */
	int nofollow, empty_ok;
	enum attr_tm tm;
	uint64_t a[4]; /* the op's own arguments */
};

/* The calls handled here: where each finds its descriptor (-1: the
 * working directory), name (-1: none, the call acts on the descriptor),
 * flags (-1: none) and its own arguments (from arg). */
static const struct attr_kind {
	int nr;
	enum attr_op op;
	signed char fd, path, flags, arg, nofollow;
	enum attr_tm tm;
} attr_kinds[] = {
#ifdef SYS_chmod
	{ SYS_chmod, A_CHMOD, -1, 0, -1, 1, 0, TM_TS },
	{ SYS_chown, A_CHOWN, -1, 0, -1, 1, 0, TM_TS },
	{ SYS_lchown, A_CHOWN, -1, 0, -1, 1, 1, TM_TS },
	{ SYS_utime, A_TIMES, -1, 0, -1, 1, 0, TM_UTIMBUF },
	{ SYS_utimes, A_TIMES, -1, 0, -1, 1, 0, TM_TV },
	{ SYS_futimesat, A_TIMES, 0, 1, -1, 2, 0, TM_TV },
#endif
	{ SYS_fchmod, A_CHMOD, 0, -1, -1, 1, 0, TM_TS },
	{ SYS_fchmodat, A_CHMOD, 0, 1, -1, 2, 0, TM_TS },
	{ ATTR_NR_FCHMODAT2, A_CHMOD, 0, 1, 3, 2, 0, TM_TS },
	{ SYS_fchown, A_CHOWN, 0, -1, -1, 1, 0, TM_TS },
	{ SYS_fchownat, A_CHOWN, 0, 1, 4, 2, 0, TM_TS },
	{ SYS_setxattr, A_SETX, -1, 0, -1, 1, 0, TM_TS },
	{ SYS_lsetxattr, A_SETX, -1, 0, -1, 1, 1, TM_TS },
	{ SYS_fsetxattr, A_SETX, 0, -1, -1, 1, 0, TM_TS },
	{ SYS_removexattr, A_RMX, -1, 0, -1, 1, 0, TM_TS },
	{ SYS_lremovexattr, A_RMX, -1, 0, -1, 1, 1, TM_TS },
	{ SYS_fremovexattr, A_RMX, 0, -1, -1, 1, 0, TM_TS },
	/* utimensat(fd, NULL, ...) is futimens: a name of 0 is none */
	{ SYS_utimensat, A_TIMES, 0, 1, 3, 2, 0, TM_TS },
};

/* q's call as struct attr_call: 1, or 0 if it is not one of them, or a
 * negative errno for flags the kernel refuses. */
static int attr_classify(const struct seccomp_data *d, struct attr_call *c)
{
	const struct attr_kind *k = NULL;
	uint64_t fl;

	for (size_t i = 0; i < sizeof attr_kinds / sizeof attr_kinds[0]; i++)
		if (attr_kinds[i].nr == d->nr)
			k = &attr_kinds[i];
	if (!k)
		return 0;
	memset(c, 0, sizeof *c);
	c->op = k->op;
	c->fd = k->fd < 0 ? AT_FDCWD : (int)d->args[(int)k->fd];
	c->path = k->path < 0 ? 0 : d->args[(int)k->path];
	c->tm = k->tm;
	for (int i = 0; i < 4 && k->arg + i < 6; i++)
		c->a[i] = d->args[k->arg + i];
	fl = k->flags < 0 ? 0 : d->args[(int)k->flags];
	c->nofollow = k->nofollow || (fl & AT_SYMLINK_NOFOLLOW);
	c->empty_ok = !!(fl & AT_EMPTY_PATH);
	if (d->nr == SYS_utimensat && !c->path && fl)
		return -EINVAL;
	if (fl & ~(uint64_t)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	return 1;
}

int sbx_attr_call(int nr)
{
	struct seccomp_data d = { .nr = nr };
	struct attr_call c;

	return attr_classify(&d, &c) != 0;
}

/* len bytes of the caller's memory at addr, page by page so a string
 * that ends before an unmapped page is still read. */
static int mem_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		size_t room = 4096 - ((addr + done) & 4095);
		size_t n = len - done < room ? len - done : room;
		struct iovec l = { (char *)buf + done, n };
		struct iovec r = { (void *)(uintptr_t)(addr + done), n };

		if (process_vm_readv(pid, &l, 1, &r, 1, 0) != (ssize_t)n)
			return -EFAULT;
		done += n;
	}
	return 0;
}

/* A NUL-terminated string of at most cap - 1 bytes. */
static int mem_str(pid_t pid, uint64_t addr, char *buf, size_t cap, int toolong)
{
	size_t done = 0;

	while (done < cap) {
		size_t room = 4096 - ((addr + done) & 4095);
		size_t n = cap - done < room ? cap - done : room;

		if (mem_read(pid, addr + done, buf + done, n) < 0)
			return -EFAULT;
		if (memchr(buf + done, '\0', n))
			return 0;
		done += n;
	}
	return -toolong;
}

/* The supervisor's effective capabilities off (root running sbxrun):
 * the command has none, so neither has its stand-in.  Per thread. */
static int caps_off(struct __user_cap_data_struct old[2])
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct now[2];

	if (syscall(SYS_capget, &h, old) < 0)
		return -errno;
	if (!old[0].effective && !old[1].effective)
		return 0;
	memcpy(now, old, sizeof now);
	now[0].effective = now[1].effective = 0;
	return syscall(SYS_capset, &h, now) < 0 ? -errno : 1;
}

static void caps_on(struct __user_cap_data_struct old[2], int was_off)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };

	if (was_off > 0)
		(void)syscall(SYS_capset, &h, old);
}

/* An O_PATH descriptor of ours on the caller's descriptor fd, or on its
 * working directory (AT_FDCWD). */
static int caller_fd(pid_t tid, int fd)
{
	char p[64];
	int r;

	if (fd == AT_FDCWD)
		snprintf(p, sizeof p, "/proc/%d/cwd", (int)tid);
	else if (fd < 0)
		return -EBADF;
	else
		snprintf(p, sizeof p, "/proc/%d/fd/%d", (int)tid, fd);
	r = open(p, O_PATH | O_CLOEXEC);
	if (r < 0)
		return errno == ENOENT && fd != AT_FDCWD ? -EBADF : -errno;
	return r;
}

/*
 * The caller's own names for itself, which would name the supervisor if
 * we looked them up as they are: /proc/self, /proc/thread-self and the
 * /dev/fd family become /proc/TID.  (glibc's fchmodat with
 * AT_SYMLINK_NOFOLLOW, which tar uses, is chmod("/proc/self/fd/N").)  A
 * name that reaches them some other way (a symlink of the caller's)
 * names our object: that is still only changed when writable.
 */
static int attr_own_names(pid_t tid, char *path, size_t cap)
{
	static const struct {
		const char *from, *to;
	} m[] = {
		{ "/proc/self", "" },	    { "/proc/thread-self", "" },
		{ "/dev/fd", "/fd" },	    { "/dev/stdin", "/fd/0" },
		{ "/dev/stdout", "/fd/1" }, { "/dev/stderr", "/fd/2" },
	};
	char out[PATH_MAX];

	for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
		size_t n = strlen(m[i].from);

		if (strncmp(path, m[i].from, n) || (path[n] && path[n] != '/'))
			continue;
		if ((size_t)snprintf(out, sizeof out, "/proc/%d%s%s", (int)tid,
				     m[i].to, path + n) >= cap)
			return -ENAMETOOLONG;
		strcpy(path, out);
		return 0;
	}
	return 0;
}

/* The object the call names, opened O_PATH as the kernel would look it
 * up for the caller; a negative errno when the lookup fails. */
static int attr_target(pid_t tid, const struct attr_call *c)
{
	char path[PATH_MAX];
	int dfd, t, r;

	if (c->path) {
		r = mem_str(tid, c->path, path, sizeof path, ENAMETOOLONG);
		if (r < 0)
			return r;
		if (!path[0] && !c->empty_ok)
			return -ENOENT;
		r = attr_own_names(tid, path, sizeof path);
		if (r < 0)
			return r;
	}
	/* an absolute name never looks at the directory (it may be none) */
	if (c->path && path[0] == '/') {
		dfd = open("/", O_PATH | O_CLOEXEC | O_DIRECTORY);
		if (dfd < 0)
			return -errno;
	} else if ((dfd = caller_fd(tid, c->fd)) < 0) {
		return dfd;
	}
	if (!c->path || !path[0])
		return dfd;
	t = openat(dfd, path,
		   O_PATH | O_CLOEXEC | (c->nofollow ? O_NOFOLLOW : 0));
	r = t < 0 ? -errno : t;
	close(dfd);
	return r;
}

/* Is the object in a path the policy makes writable?  abs gets its path. */
static int attr_allowed(const struct sbx_cpol *v, int t, char *abs, size_t sz,
			struct sbx_path_decision *d)
{
	char p[64];
	ssize_t n;

	snprintf(p, sizeof p, "/proc/self/fd/%d", t);
	n = readlink(p, abs, sz - 1);
	if (n <= 0 || (size_t)n >= sz - 1)
		n = 0;
	abs[n] = '\0';
	/* a pipe, a socket, an anonymous inode: no path, no rule */
	if (abs[0] != '/') {
		snprintf(abs, sz, "%s", "(no path)");
		*d = (struct sbx_path_decision){ SBX_DENY_NOTCOVERED, NULL, -1,
						 0 };
		return 0;
	}
	*d = sbx_decide_path(v, &(struct sbx_path_q){ .path = abs,
						      .op = SBX_OP_WRITE,
						      .size = -1 });
	return d->verdict == SBX_ALLOW;
}

/* The times the call gives, as utimensat wants them; *now when none. */
static int attr_times(pid_t tid, const struct attr_call *c,
		      struct timespec ts[2], int *now)
{
	struct timeval tv[2];
	struct utimbuf ub;

	*now = !c->a[0];
	if (*now)
		return 0;
	switch (c->tm) {
	case TM_TS: return mem_read(tid, c->a[0], ts, 2 * sizeof ts[0]);
	case TM_TV:
		if (mem_read(tid, c->a[0], tv, sizeof tv) < 0)
			return -EFAULT;
		for (int i = 0; i < 2; i++) {
			if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000)
				return -EINVAL;
			ts[i].tv_sec = tv[i].tv_sec;
			ts[i].tv_nsec = tv[i].tv_usec * 1000;
		}
		return 0;
	case TM_UTIMBUF:
		if (mem_read(tid, c->a[0], &ub, sizeof ub) < 0)
			return -EFAULT;
		ts[0] = (struct timespec){ ub.actime, 0 };
		ts[1] = (struct timespec){ ub.modtime, 0 };
		return 0;
	}
	return -EINVAL;
}

/* Set or remove an extended attribute of the object t. */
static int attr_xattr(pid_t tid, const struct attr_call *c, const char *fdp,
		      int link)
{
	char name[256];
	void *val = NULL;
	size_t len = (size_t)c->a[2];
	int r;

	r = mem_str(tid, c->a[0], name, sizeof name, ERANGE);
	if (r < 0)
		return r;
	/* no user.* attribute on a symlink: the kernel says EPERM */
	if (link)
		return -EPERM;
	if (c->op == A_RMX)
		return removexattr(fdp, name) < 0 ? -errno : 0;
	if (len > ATTR_XATTR_MAX)
		return -E2BIG;
	if (len && !(val = malloc(len)))
		return -ENOMEM;
	r = len ? mem_read(tid, c->a[1], val, len) : 0;
	if (r == 0 && setxattr(fdp, name, val, len, (int)c->a[3]) < 0)
		r = -errno;
	free(val);
	return r;
}

/* The change itself, on the object t (O_PATH). */
static int attr_do(pid_t tid, const struct attr_call *c, int t)
{
	char fdp[64];
	struct timespec ts[2];
	struct stat st;
	int link, now, r;

	if (fstatat(t, "", &st, AT_EMPTY_PATH) < 0)
		return -errno;
	link = S_ISLNK(st.st_mode);
	snprintf(fdp, sizeof fdp, "/proc/self/fd/%d", t);
	switch (c->op) {
	case A_CHMOD:
		if (link)
			return -EOPNOTSUPP; /* fchmodat2's answer */
		return chmod(fdp, (mode_t)c->a[0] & 07777) < 0 ? -errno : 0;
	case A_CHOWN:
		return fchownat(t, "", (uid_t)c->a[0], (gid_t)c->a[1],
				AT_EMPTY_PATH) < 0
			       ? -errno
			       : 0;
	case A_SETX:
	case A_RMX: return attr_xattr(tid, c, fdp, link);
	case A_TIMES:
		r = attr_times(tid, c, ts, &now);
		if (r < 0)
			return r;
		if (utimensat(t, "", now ? NULL : ts, AT_EMPTY_PATH) == 0)
			return 0;
		if (errno != EINVAL || link) /* AT_EMPTY_PATH: Linux 5.8 */
			return -errno;
		return utimensat(AT_FDCWD, fdp, now ? NULL : ts, 0) < 0 ? -errno
									: 0;
	}
	return -ENOSYS;
}

int sbx_attr_emulate(int lfd, const struct seccomp_notif *q,
		     const struct sbx_cpol *v, struct sbx_attr_res *res)
{
	struct __user_cap_data_struct caps[2];
	struct attr_call c;
	int r, off, t;

	memset(res, 0, sizeof *res);
	r = attr_classify(&q->data, &c);
	if (r == 0)
		return 0;
	/* set-uid and set-gid modes stay the baseline's refusal (PERS-01) */
	if (r > 0 && c.op == A_CHMOD && (c.a[0] & (S_ISUID | S_ISGID)))
		return 0;
	if (r < 0)
		return res->err = -r, 1;
	off = caps_off(caps);
	if (off < 0)
		return res->err = EPERM, 1;
	t = attr_target((pid_t)q->pid, &c);
	if (t >= 0 && seccomp_notify_id_valid(lfd, q->id) != 0)
		r = -ESRCH; /* not the caller's any more: do nothing */
	else if (t < 0)
		r = t;
	else if (!attr_allowed(v, t, res->abs, sizeof res->abs, &res->d))
		r = -EACCES, res->refused = 1;
	else
		r = attr_do((pid_t)q->pid, &c, t);
	if (t >= 0)
		close(t);
	caps_on(caps, off);
	res->err = -r;
	return 1;
}
