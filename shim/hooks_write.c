/*
 * hooks_write.c - max_file_bytes on growth: write, pwrite(64),
 * writev, pwritev(64), fallocate(64), posix_fallocate(64),
 * copy_file_range and sendfile(64) on a file under a rule with a size
 * limit.  Opening such a file past its limit, truncating it and renaming
 * or linking a big file into the root are checked where those calls are
 * hooked; here, the file growing through a descriptor.
 *
 * Nothing happens unless some rule has max_file_bytes (shim_g.min_limit):
 * the hook is then the guard, one load and the real call.  With limits,
 * each call fstat()s the descriptor -- it may have been closed and
 * reopened, dup'ed, or inherited across exec -- and looks the path up
 * (readlink of /proc/self/fd, the longest rule) only when the inode is
 * new to that descriptor number; a small table per fd number, no
 * allocation.  Only a call that makes a file bigger than its limit (and
 * bigger than it is) is refused, with EFBIG as RLIMIT_FSIZE would, and
 * explained.  stdio inside libc writes through internal symbols no
 * preload reaches, and static programs and raw syscalls reach nothing:
 * limits.fsize (RLIMIT_FSIZE) is the kernel's backstop for those.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>

#include "shim.h"
#include "sys.h"

#define FDC_MAX 1024

/* What an fd number pointed at when last looked up. */
struct fdc {
	uint64_t dev, ino;
	const struct sbx_cpol_rule *rule; /* with a limit, or NULL */
	int known;
};

static struct fdc fdc[FDC_MAX];

/* The rule with a size limit over the file fd names, or NULL. */
static const struct sbx_cpol_rule *limit_rule(int fd, const struct stat *st,
					      char *abs, size_t sz)
{
	const struct sbx_cpol_rule *r = NULL;
	struct fdc *c = fd >= 0 && fd < FDC_MAX ? &fdc[fd] : NULL;

	if (c && __atomic_load_n(&c->known, __ATOMIC_ACQUIRE) &&
	    c->dev == (uint64_t)st->st_dev && c->ino == (uint64_t)st->st_ino)
		return c->rule;
	abs[0] = '\0';
	if (shim_fdpath(fd, abs, sz) == 0)
		r = sbx_cpol_match(&shim_g.pol, abs);
	if (r && !r->max_file_bytes)
		r = NULL;
	if (c) {
		__atomic_store_n(&c->known, 0, __ATOMIC_RELEASE);
		c->dev = (uint64_t)st->st_dev;
		c->ino = (uint64_t)st->st_ino;
		c->rule = r;
		__atomic_store_n(&c->known, 1, __ATOMIC_RELEASE);
	}
	return r;
}

int shim_grow_check(int fd, int64_t end, size_t n)
{
	char abs[PATH_MAX];
	const struct sbx_cpol_rule *r;
	struct sbx_path_decision d;
	struct stat st;
	int saved = errno;
	long fl;

	if (syscall(SYS_fstat, fd, &st) < 0 || !S_ISREG(st.st_mode))
		goto allow;
	abs[0] = '\0';
	if (!(r = limit_rule(fd, &st, abs, sizeof(abs))))
		goto allow;
	if (end < 0) {
		fl = syscall(SYS_fcntl, fd, F_GETFL);
		end = (fl >= 0 && (fl & O_APPEND))
			      ? st.st_size
			      : (int64_t)syscall(SYS_lseek, fd, 0, SEEK_CUR);
		if (end < 0)
			goto allow;
		end += (int64_t)n;
	}
	if ((uint64_t)end <= r->max_file_bytes || end <= st.st_size)
		goto allow;
	if (!abs[0] && shim_fdpath(fd, abs, sizeof(abs)) < 0)
		goto allow;
	d = (struct sbx_path_decision){ SBX_DENY_SIZE, r, end, 1 };
	shim_explain_fs(abs, abs, SBX_OP_WRITE, &d, 0);
	errno = saved;
	return EFBIG;
allow:
	errno = saved;
	return 0;
}

/* What copy_file_range or sendfile can actually move: len, or what is
 * left of a regular input file past its offset (cp asks for SSIZE_MAX). */
static size_t from_file(int in, const int64_t *off, size_t len)
{
	struct stat st;
	int saved = errno;
	int64_t pos = off ? *off : (int64_t)syscall(SYS_lseek, in, 0, SEEK_CUR);

	if (syscall(SYS_fstat, in, &st) == 0 && S_ISREG(st.st_mode) &&
	    pos >= 0 && st.st_size - pos < (int64_t)len)
		len = st.st_size > pos ? (size_t)(st.st_size - pos) : 0;
	errno = saved;
	return len;
}

static size_t iov_len(const struct iovec *iov, int cnt)
{
	size_t n = 0;

	for (int i = 0; iov && i < cnt; i++)
		n += iov[i].iov_len;
	return n;
}

/* Check (only when some rule limits sizes), then the real call. */
#define GROW_HOOK(fd, end, n, call)                                  \
	do {                                                         \
		int look_ = shim_enter(), err_;                      \
		__typeof__(call) rc_;                                \
		if (SHIM_UNLIKELY(look_ && shim_g.min_limit) &&      \
		    (err_ = shim_grow_check((fd), (end), (n))) != 0) \
			return shim_refuse(err_);                    \
		rc_ = (call);                                        \
		shim_leave();                                        \
		return rc_;                                          \
	} while (0)

ssize_t write(int fd, const void *buf, size_t n)
{
	GROW_HOOK(fd, -1, n, REAL(write)(fd, buf, n));
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	GROW_HOOK(fd, (int64_t)off + (int64_t)n, n,
		  REAL(pwrite)(fd, buf, n, off));
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
	GROW_HOOK(fd, (int64_t)off + (int64_t)n, n,
		  REAL(pwrite64)(fd, buf, n, off));
}

ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	GROW_HOOK(fd, -1, iov_len(iov, cnt), REAL(writev)(fd, iov, cnt));
}

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
	GROW_HOOK(fd, (int64_t)off + (int64_t)iov_len(iov, cnt), 0,
		  REAL(pwritev)(fd, iov, cnt, off));
}

ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off64_t off)
{
	GROW_HOOK(fd, (int64_t)off + (int64_t)iov_len(iov, cnt), 0,
		  REAL(pwritev64)(fd, iov, cnt, off));
}

/* FALLOC_FL_KEEP_SIZE (and the hole punching that needs it) does not
 * grow the file. */
#define FALLOC_END(mode, off, len) \
	(((mode)&FALLOC_FL_KEEP_SIZE) ? 0 : (int64_t)(off) + (int64_t)(len))

int fallocate(int fd, int mode, off_t off, off_t len)
{
	GROW_HOOK(fd, FALLOC_END(mode, off, len), 0,
		  REAL(fallocate)(fd, mode, off, len));
}

int fallocate64(int fd, int mode, off64_t off, off64_t len)
{
	GROW_HOOK(fd, FALLOC_END(mode, off, len), 0,
		  REAL(fallocate64)(fd, mode, off, len));
}

/* posix_fallocate returns the error number, errno untouched. */
#define PFALLOC_HOOK(fd, end, call)                             \
	do {                                                    \
		int look_ = shim_enter(), err_ = 0, rc_;        \
		if (SHIM_UNLIKELY(look_ && shim_g.min_limit))   \
			err_ = shim_grow_check((fd), (end), 0); \
		rc_ = err_ ? err_ : (call);                     \
		shim_leave();                                   \
		return rc_;                                     \
	} while (0)

int posix_fallocate(int fd, off_t off, off_t len)
{
	PFALLOC_HOOK(fd, (int64_t)off + (int64_t)len,
		     REAL(posix_fallocate)(fd, off, len));
}

int posix_fallocate64(int fd, off64_t off, off64_t len)
{
	PFALLOC_HOOK(fd, (int64_t)off + (int64_t)len,
		     REAL(posix_fallocate64)(fd, off, len));
}

ssize_t copy_file_range(int in, off64_t *inoff, int out, off64_t *outoff,
			size_t len, unsigned int flags)
{
	GROW_HOOK(out,
		  outoff ? *outoff + (int64_t)from_file(in, inoff, len) : -1,
		  from_file(in, inoff, len),
		  REAL(copy_file_range)(in, inoff, out, outoff, len, flags));
}

ssize_t sendfile(int out, int in, off_t *off, size_t count)
{
	GROW_HOOK(out, -1, from_file(in, (int64_t *)off, count),
		  REAL(sendfile)(out, in, off, count));
}

ssize_t sendfile64(int out, int in, off64_t *off, size_t count)
{
	GROW_HOOK(out, -1, from_file(in, off, count),
		  REAL(sendfile64)(out, in, off, count));
}
