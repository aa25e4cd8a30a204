/*
 * exec.c - exec deny rules and explanations of refused execs.
 *
 * sbx_decide_exec matches the program pattern against the basename
 * of argv[0] and of the resolved path, or against the full path when the
 * pattern has a '/'.  The wrappers therefore resolve what will run the
 * way the kernel or execvp would: a path is made absolute lexically, a
 * bare name is looked up in PATH here, on the stack, one stat per
 * candidate -- and only when the policy has exec rules at all.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"
#include "sys.h"

static int has_exec_rules(void)
{
	return (shim_g.active && shim_g.pol.hdr->nexec > 0) || shim_g.broken;
}

/* The policy named by SBXRUN_POLICY did not load: refuse, loudly. */
static int refuse_broken(const char *shown)
{
	static const char a[] = "sbxrun: refused to run '";
	static const char b[] = "': the sandbox's compiled policy "
				"(SBXRUN_POLICY) could not be loaded, so its "
				"exec rules cannot be checked\n";

	sys_write_all(2, a, sizeof(a) - 1);
	sys_write_all(2, shown, strlen(shown));
	sys_write_all(2, b, sizeof(b) - 1);
	return EACCES;
}

/* The program as the message names it: argv[0] as the caller wrote it. */
static const char *shown_name(const char *path, char *const argv[])
{
	return argv && argv[0] && argv[0][0] ? argv[0] : path ? path : "?";
}

/* The directories directly below "/", for a recursive rm of them all:
 * one getdents64 pass on the stack. */
static size_t root_dirs(char *buf, size_t sz)
{
	char d[4096];
	size_t used = 0;
	long n;
	int fd = sys_openat(AT_FDCWD, "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	while ((n = syscall(SYS_getdents64, fd, d, sizeof(d))) > 0) {
		for (long o = 0; o < n;) {
			struct dirent64 *e = (struct dirent64 *)(d + o);
			size_t l = strlen(e->d_name) + 1;

			o += e->d_reclen;
			if (e->d_type != DT_DIR)
				continue;
			if (used + l > sz) {
				used = 0; /* too many to tell */
				goto out;
			}
			memcpy(buf + used, e->d_name, l);
			used += l;
		}
	}
	if (n < 0)
		used = 0;
out:
	sys_close(fd);
	return used;
}

/* A path that is not there: the exec fails on its own (ENOENT), and a
 * shell searching PATH tries the next directory; refusing each candidate
 * would say the same thing once per PATH entry (stat only on a match). */
static int absent(const char *abs)
{
	struct stat st;
	int saved = errno, r;

	if (!strchr(abs, '/'))
		return 0;
	r = sys_fstatat(AT_FDCWD, abs, &st, 0) < 0 && errno == ENOENT;
	errno = saved;
	return r;
}

static int check_resolved(const char *abs, const char *path, char *const argv[])
{
	const struct sbx_cpol_exec *e;
	char cwd[PATH_MAX];
	struct sbx_exec_q q = { abs, argv, NULL, root_dirs };
	size_t at = 0;

	if (shim_g.broken)
		return refuse_broken(shown_name(path, argv));
	if (shim_cwd_get(cwd, sizeof(cwd), 0) == 0)
		q.cwd = cwd;
	e = sbx_decide_exec_q(&shim_g.pol, &q, &at);
	if (!e || (abs && absent(abs)))
		return 0;
	shim_explain_exec(at ? argv[at] : shown_name(path, argv),
			  abs ? abs : "", e);
	return EACCES;
}

int shim_exec_check_at(int dirfd, const char *path, int flags,
		       char *const argv[])
{
	char abs[PATH_MAX];
	const char *p = path;
	int saved = errno, rc;

	if (!has_exec_rules())
		return 0;
	if ((flags & AT_EMPTY_PATH) && path && !*path) {
		if (shim_fdpath(dirfd, abs, sizeof(abs)) == 0)
			p = abs;
	} else if (path && (strchr(path, '/') || dirfd != AT_FDCWD) &&
		   shim_abspath(dirfd, path, 1, abs, sizeof(abs)) == 0) {
		/* a bare name (not found in PATH) stays a name */
		p = abs;
	}
	rc = check_resolved(p, path, argv);
	errno = saved;
	return rc;
}

int shim_exec_check(const char *path, char *const argv[])
{
	return shim_exec_check_at(AT_FDCWD, path, 0, argv);
}

/* One PATH candidate: dir (may be empty: the cwd) + "/" + file. */
static int candidate(const char *dir, size_t dl, const char *file, char *out,
		     size_t sz)
{
	size_t fl = strlen(file);
	struct stat st;

	if (dl + 1 + fl + 1 > sz)
		return -1;
	memcpy(out, dir, dl);
	if (dl)
		out[dl++] = '/';
	memcpy(out + dl, file, fl + 1);
	return sys_fstatat(AT_FDCWD, out, &st, 0) == 0 && S_ISREG(st.st_mode) &&
			       (st.st_mode & 0111)
		       ? 0
		       : -1;
}

/* What execvp(file) would run, searching the caller's PATH like glibc
 * (default "/bin:/usr/bin"); file itself when it has a '/' or nothing
 * matches. */
const char *shim_path_search(const char *file, char *out, size_t sz)
{
	const char *path = getenv("PATH");
	int saved = errno;

	if (!file || !*file || strchr(file, '/'))
		return file;
	if (!path)
		path = "/bin:/usr/bin";
	for (;;) {
		const char *end = strchrnul(path, ':');

		if (candidate(path, (size_t)(end - path), file, out, sz) == 0) {
			errno = saved;
			return out;
		}
		if (!*end)
			break;
		path = end + 1;
	}
	errno = saved;
	return file;
}

int shim_exec_check_search(const char *file, char *const argv[])
{
	char found[PATH_MAX];

	if (!has_exec_rules())
		return 0;
	return shim_exec_check(shim_path_search(file, found, sizeof(found)),
			       argv);
}

/* The kernel refused an exec: explain a hidden or uncovered program. */
void shim_exec_failed(int dirfd, const char *path, int search, int err)
{
	char found[PATH_MAX];
	struct shim_fs f;

	if (!shim_g.active || !path)
		return;
	if (search)
		path = shim_path_search(path, found, sizeof(found));
	f = SHIM_FS(dirfd, path, SBX_OP_EXEC, 0);
	shim_explain_failure(&f, err);
	errno = err;
}
