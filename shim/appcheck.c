/*
 * appcheck.c - the policy the kernel cannot express, checked before the
 * real call (suffixes, size limits, protect rules in landlock-only mode),
 * and the explanation of a call the kernel refused.
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

struct judgement {
	enum sbx_verdict v;
	const struct sbx_cpol_rule *rule;
	int64_t size; /* for SBX_DENY_SIZE */
};

static const struct judgement allowed = { SBX_ALLOW, NULL, -1 };

static int suffix_ok(const struct sbx_cpol_rule *r, const char *abs)
{
	const char *sfx[SBX_MAX_SUFFIXES];

	for (uint32_t i = 0; i < r->nsuffixes; i++)
		sfx[i] = sbx_cpol_str(&shim_g.pol, r->suffixes[i]);
	return sbx_suffix_ok(abs, (char *const *)sfx, r->nsuffixes);
}

/* Is the object that gets the name a file?  Directories, devices,
 * fifos and sockets are not policed by suffix.  An object that does not
 * exist is not refused either: the call fails on its own (open without
 * O_CREAT, truncate, the source of rename or link), and the program
 * should see that error.  Calls that create the object pass obj == NULL. */
static int obj_is_file(const struct shim_fs *f)
{
	struct stat st;

	if (!f->obj)
		return 1;
	if (sys_fstatat(f->objfd, f->obj, &st, f->objflags) < 0)
		return 0;
	return S_ISREG(st.st_mode) || S_ISLNK(st.st_mode);
}

/* Size of the existing regular file at the call's path, or -1. */
static int64_t file_size(const struct shim_fs *f)
{
	struct stat st;

	if (sys_fstatat(f->dirfd, f->path, &st, 0) < 0 || !S_ISREG(st.st_mode))
		return -1;
	return st.st_size;
}

/* A protect rule at or below abs: removing or moving abs would take the
 * protected path with it (mv .git g). */
static const struct sbx_cpol_rule *protect_inside(const char *abs)
{
	size_t n = strlen(abs);

	for (uint32_t i = 0; i < shim_g.pol.hdr->nrules; i++) {
		const struct sbx_cpol_rule *r = &shim_g.pol.rules[i];

		if ((r->flags & SBX_RF_PROTECT) && r->mode == SBX_RO &&
		    !(r->flags & SBX_RF_ABSENT) &&
		    sbx_path_within(sbx_cpol_str(&shim_g.pol, r->root), abs, n))
			return r;
	}
	return NULL;
}

static struct judgement verdict(enum sbx_verdict v,
				const struct sbx_cpol_rule *r, int64_t size)
{
	return (struct judgement){ v, r, size };
}

static struct judgement judge(const struct shim_fs *f, const char *abs)
{
	const struct sbx_cpol_rule *r, *p;
	int64_t sz;

	if ((f->chk & CHK_TREE) && shim_g.protect && (p = protect_inside(abs)))
		return verdict(SBX_DENY_READONLY, p, -1);
	r = sbx_cpol_match(&shim_g.pol, abs);
	if (!r || r->mode == SBX_HIDE)
		return allowed;
	if (r->mode == SBX_RO)
		return shim_g.protect && (r->flags & SBX_RF_PROTECT) &&
				       !(r->flags & SBX_RF_ABSENT) &&
				       (f->chk &
					(CHK_MODIFY | CHK_NAME | CHK_TREE))
			       ? verdict(SBX_DENY_READONLY, r, -1)
			       : allowed;
	if ((f->chk & CHK_NAME) && r->nsuffixes && !suffix_ok(r, abs) &&
	    obj_is_file(f))
		return verdict(SBX_DENY_SUFFIX, r, -1);
	if (!r->max_file_bytes)
		return allowed;
	if (f->size >= 0 && (uint64_t)f->size > r->max_file_bytes)
		return verdict(SBX_DENY_SIZE, r, f->size);
	if ((f->chk & CHK_SIZE) && (sz = file_size(f)) >= 0 &&
	    (uint64_t)sz > r->max_file_bytes)
		return verdict(SBX_DENY_SIZE, r, sz);
	return allowed;
}

static int refusal_errno(enum sbx_verdict v)
{
	return v == SBX_DENY_SIZE ? EFBIG : EACCES;
}

int shim_app_check(const struct shim_fs *f)
{
	char abs[PATH_MAX];
	struct judgement j;
	int saved = errno;

	if (!(f->chk & shim_g.app) && !(f->size >= 0 && shim_g.min_limit &&
					(uint64_t)f->size > shim_g.min_limit))
		return 0;
	if (!f->path ||
	    shim_abspath(f->dirfd, f->path, 0, abs, sizeof(abs)) < 0)
		return 0;
	j = judge(f, abs);
	/* Never refuse on the word of the cwd cache alone. */
	if (j.v != SBX_ALLOW && f->path[0] != '/' && f->dirfd == AT_FDCWD) {
		if (shim_abspath(f->dirfd, f->path, 1, abs, sizeof(abs)) < 0)
			return 0;
		j = judge(f, abs);
	}
	errno = saved;
	if (j.v == SBX_ALLOW)
		return 0;
	shim_explain_fs(f->path, abs, f->op, j.v, j.rule, j.size);
	return refusal_errno(j.v);
}

/* ftruncate: only the size rule, and only past the smallest limit. */
int shim_app_check_fd(int fd, int64_t size)
{
	char abs[PATH_MAX];
	const struct sbx_cpol_rule *r;

	if (!shim_g.min_limit || size < 0 || (uint64_t)size <= shim_g.min_limit)
		return 0;
	if (shim_fdpath(fd, abs, sizeof(abs)) < 0)
		return 0;
	r = sbx_cpol_match(&shim_g.pol, abs);
	if (!r || !r->max_file_bytes || (uint64_t)size <= r->max_file_bytes)
		return 0;
	shim_explain_fs(abs, abs, SBX_OP_WRITE, SBX_DENY_SIZE, r, size);
	return EFBIG;
}

/* ------------------------------------------------------------ failures */

/*
 * What the policy says about a path the kernel refused.  Only the
 * kernel's own reasons count here: hidden, read-only for writes, not
 * covered.  An ENOENT is explained only where the policy hides or does
 * not cover the path (full mode hides with empty tmpfs, so a hidden file
 * simply is not there); any other answer is an ordinary error and the
 * shim says nothing.
 */
static enum sbx_verdict kernel_verdict(const struct sbx_cpol_rule *r,
				       enum sbx_op op, int err)
{
	if (!r)
		return SBX_DENY_NOTCOVERED;
	if (r->mode == SBX_HIDE)
		return SBX_DENY_HIDDEN;
	if (err != ENOENT && op == SBX_OP_WRITE && r->mode == SBX_RO)
		return SBX_DENY_READONLY;
	return SBX_ALLOW;
}

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
		    shim_bloom_has(shim_g.hide_bloom, shim_comp_hash(p, n)))
			return 0;
		p += n;
		while (*p == '/')
			p++;
	}
	return shim_cwd_plain();
}

int shim_explain_failure(const struct shim_fs *f, int err)
{
	char abs[PATH_MAX];
	const struct sbx_cpol_rule *r;
	enum sbx_verdict v;

	if (!f || !f->path || !*f->path || !shim_g.active)
		return 0;
	if (err != EACCES && err != EPERM && err != EROFS && err != ENOENT)
		return 0;
	if (err == ENOENT && f->dirfd == AT_FDCWD && f->path[0] != '/' &&
	    enoent_unexplained(f->path))
		return 0;
	if (shim_abspath(f->dirfd, f->path, 1, abs, sizeof(abs)) < 0)
		return 0;
	r = sbx_cpol_match(&shim_g.pol, abs);
	v = kernel_verdict(r, f->op, err);
	if (v != SBX_ALLOW)
		shim_explain_fs(f->path, abs, f->op, v, r, -1);
	errno = err;
	return v != SBX_ALLOW;
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
