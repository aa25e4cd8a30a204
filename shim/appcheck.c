/*
 * appcheck.c - the policy the kernel cannot express, refused before the
 * real call (suffixes, size limits, protect rules in landlock-only mode),
 * and the explanation of a call the kernel refused.  The decisions are
 * the one decider's (core/decide.h); what is the shim's own is which of
 * them it enforces, the facts it gives the decider (a stat, only when a
 * rule needs one) and when it asks at all.
 *
 * Only the rules the policy actually has are looked at: shim_g.app holds
 * the CHK_* bits some rule makes relevant, so a call none of them applies
 * to costs nothing, and a policy without application rules keeps every
 * file hook on the pass-through path.
 *
 * The shim refuses only for what it owns.  Hidden and read-only paths
 * are the kernel's business: the shim lets those calls through and
 * explains the kernel's answer afterwards.  The exception is a protect
 * rule when the compiled policy says the kernel cannot hold it
 * (SBX_CPOL_F_SHIM_PROTECT, landlock-only mode).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "shim.h"
#include "sys.h"

/* Is the object that gets the name a file?  Directories, devices,
 * fifos and sockets are not policed by suffix.  An object that does not
 * exist is not refused either: the call fails on its own (open without
 * O_CREAT, truncate, the source of rename or link), and the program
 * should see that error.  Calls that create the object pass obj == NULL. */
static int obj_is_file(const struct sbx_path_q *q)
{
	const struct shim_fs *f = q->ctx;
	struct stat st;

	if (!f->obj)
		return 1;
	if (sys_fstatat(f->objfd, f->obj, &st, f->objflags) < 0)
		return 0;
	return S_ISREG(st.st_mode) || S_ISLNK(st.st_mode);
}

/* Size of the existing regular file the call keeps, or -1: the one at
 * the call's path, or for a new name (rename, link) the object that gets
 * it, so a big file moved or linked into a limited root counts. */
static int64_t file_size(const struct sbx_path_q *q)
{
	const struct shim_fs *f = q->ctx;
	struct stat st;
	int r = (f->chk & CHK_NAME) && f->obj && f->obj != f->path
			? sys_fstatat(f->objfd, f->obj, &st, f->objflags)
			: sys_fstatat(f->dirfd, f->path, &st, 0);

	if (r < 0 || !S_ISREG(st.st_mode))
		return -1;
	return st.st_size;
}

/* Hard links of the existing regular file the call writes (PERS-02):
 * the path itself, followed as open follows it. */
static int64_t file_links(const struct sbx_path_q *q)
{
	const struct shim_fs *f = q->ctx;
	struct stat st;

	if (sys_fstatat(f->dirfd, f->path, &st, 0) < 0 || !S_ISREG(st.st_mode))
		return 0;
	return (int64_t)st.st_nlink;
}

static const struct sbx_path_facts facts = { obj_is_file, file_size,
					     file_links };

/* The decision, asking only what the shim enforces: the tree check is
 * for protect rules the shim holds (landlock-only mode); in full mode the
 * mounts refuse those moves themselves. */
static struct sbx_path_decision judge(const struct shim_fs *f, const char *abs)
{
	struct sbx_path_q q = {
		.path = abs,
		.op = f->op,
		.chk = shim_g.protect ? f->chk : f->chk & ~CHK_TREE,
		.size = f->size,
		.facts = &facts,
		.ctx = f,
	};

	return sbx_decide_path(&shim_g.pol, &q);
}

/*
 * A refusal of nothing: the call would have failed with ENOENT anyway.
 * A removal, move or attribute change refused as read-only (CHK_TREE,
 * CHK_ATTR, never a call that gives a name: rm -rf of a missing path,
 * which a read-only mount answers EROFS before looking),
 * and in landlock-only mode a hidden path (Landlock refuses the open, not
 * the stat, so the stat tells).  Full mode's hidden paths cannot be
 * looked at from inside: below a hidden directory that exists, a missing
 * file is still explained as hidden; a hidden path missing at launch is
 * not (SBX_RF_GONE, decide.c).
 */
static int missing_anyway(const struct shim_fs *f, const char *abs,
			  const struct sbx_path_decision *d)
{
	struct stat st;
	int saved = errno, r;

	int gone_ok = (f->chk & (CHK_TREE | CHK_ATTR)) &&
		      !(f->chk & CHK_NAME) && d->verdict == SBX_DENY_READONLY;

	if (!gone_ok && !(d->verdict == SBX_DENY_HIDDEN &&
			  shim_g.pol.hdr->kmode != SBX_KMODE_FULL))
		return 0;
	r = sys_fstatat(AT_FDCWD, abs, &st, AT_SYMLINK_NOFOLLOW) < 0 &&
	    errno == ENOENT;
	errno = saved;
	return r;
}

static int refusal_errno(enum sbx_verdict v)
{
	return v == SBX_DENY_SIZE ? EFBIG : EACCES;
}

/* Refused here: what only the shim can hold.  Hidden, read-only and
 * uncovered paths are the kernel's to refuse; the shim explains them
 * after the call (shim_fs_failed). */
static int shim_refuses(const struct sbx_path_decision *d)
{
	return d->verdict != SBX_ALLOW && d->app;
}

int shim_app_check(const struct shim_fs *f)
{
	char abs[PATH_MAX];
	struct sbx_path_decision d;
	int saved = errno;

	if (!(f->chk & shim_g.app) && !(f->size >= 0 && shim_g.min_limit &&
					(uint64_t)f->size > shim_g.min_limit))
		return 0;
	if (!f->path ||
	    shim_abspath(f->dirfd, f->path, 0, abs, sizeof(abs)) < 0)
		return 0;
	d = judge(f, abs);
	/* Never refuse on the word of the cwd cache alone. */
	if (shim_refuses(&d) && f->path[0] != '/' && f->dirfd == AT_FDCWD) {
		if (shim_abspath(f->dirfd, f->path, 1, abs, sizeof(abs)) < 0)
			return 0;
		d = judge(f, abs);
	}
	errno = saved;
	if (!shim_refuses(&d) || missing_anyway(f, abs, &d))
		return 0;
	shim_explain_fs(f->path, abs, f->op, &d,
			(f->chk & CHK_MKDIR) ? SBX_EXPL_DIR : 0);
	return refusal_errno(d.verdict);
}

/* ftruncate: only the size rule, and only past the smallest limit. */
int shim_app_check_fd(int fd, int64_t size)
{
	char abs[PATH_MAX];
	struct sbx_path_q q = { abs, SBX_OP_WRITE, 0, size, NULL, NULL };
	struct sbx_path_decision d;

	if (!shim_g.min_limit || size < 0 || (uint64_t)size <= shim_g.min_limit)
		return 0;
	if (shim_fdpath(fd, abs, sizeof(abs)) < 0)
		return 0;
	d = sbx_decide_path(&shim_g.pol, &q);
	if (d.verdict != SBX_DENY_SIZE)
		return 0;
	shim_explain_fs(abs, abs, SBX_OP_WRITE, &d, 0);
	return EFBIG;
}

/* ------------------------------------------------------------ failures */

/*
 * Can a missing relative path have nothing to explain?  Compilers and
 * interpreters fail thousands of these while searching their paths, and
 * resolving each (getcwd, then a match) cost more than the open itself.
 * When the cwd is covered by a rule that does not hide it, cwd/path is
 * covered too, and it is hidden only when some hide rule's root lies
 * below the cwd on the way to it: then that root's last component is one
 * of path's components.  So a path without ".." none of whose components
 * is in the hide filter is known to be explained by nothing.  A stale
 * cwd judgement (a raw chdir) can only skip an explanation.
 */
static int enoent_unexplained(const char *path)
{
	const char *p = path;

	while (*p) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.')
			return 0;
		if (n && !(n == 1 && p[0] == '.') &&
		    sbx_cpol_bloom_has(shim_g.pol.bloom,
				       sbx_cpol_name_hash(p, n)))
			return 0;
		p += n;
		while (*p == '/')
			p++;
	}
	return shim_cwd_plain();
}

/* What the policy says about a path the kernel refused (decide.h,
 * sbx_decide_failure): an ENOENT is explained only where the policy
 * hides or does not cover the path (full mode hides with empty tmpfs, so
 * a hidden file simply is not there); any other answer is an ordinary
 * error and the shim says nothing. */
int shim_explain_failure(const struct shim_fs *f, int err)
{
	char abs[PATH_MAX];
	struct sbx_path_decision d;

	if (!f || !f->path || !*f->path || !shim_g.active)
		return 0;
	if (err != EACCES && err != EPERM && err != EROFS && err != ENOENT &&
	    err != EBUSY && err != EXDEV)
		return 0;
	if (err == ENOENT && f->dirfd == AT_FDCWD && f->path[0] != '/' &&
	    enoent_unexplained(f->path))
		return 0;
	if (shim_abspath(f->dirfd, f->path, 1, abs, sizeof(abs)) < 0)
		return 0;
	d = sbx_decide_failure(&shim_g.pol, abs, f->op, err);
	if (d.verdict != SBX_ALLOW && missing_anyway(f, abs, &d))
		d.verdict = SBX_ALLOW;
	if (d.verdict != SBX_ALLOW)
		shim_explain_fs(f->path, abs, f->op, &d,
				(f->chk & CHK_MKDIR) ? SBX_EXPL_DIR : 0);
	errno = err;
	return d.verdict != SBX_ALLOW;
}

/* ------------------------------------------------------------ pre/post */

int shim_fs_check(const struct shim_fs *a, const struct shim_fs *b)
{
	int err = a ? shim_app_check(a) : 0;

	return err ? err : b ? shim_app_check(b) : 0;
}

/* Runs with the guard still raised; errno is the real call's.  One
 * explanation per call: the new name first, the usual culprit of rename
 * and link. */
void shim_fs_failed(const struct shim_fs *a, const struct shim_fs *b)
{
	int err = errno;

	if (shim_g.active && !shim_explain_failure(b, err))
		shim_explain_failure(a, err);
	errno = err;
}
