/*
 * hooks_exec.c - execve and every other way to start a program: execv,
 * execvp, execvpe, execl, execlp, execle, fexecve, execveat,
 * posix_spawn, posix_spawnp, system and popen.  glibc's own callers use
 * internal symbols (execvp -> __execve, system/popen -> __spawni), so
 * each entry point is hooked on its own.
 *
 * Each wrapper (1) refuses a program an exec deny rule names, with
 * EACCES and the rule's reason, (2) puts our variables back into the new
 * environment when the program removed them, (3) explains a refusal by
 * the kernel.
 *
 * vfork: these wrappers are what a vfork child calls, on its parent's
 * stack and memory.  So: the depth guard is lowered before the real exec
 * (a successful exec never returns to lower it, and the parent would
 * inherit a raised guard); the repaired environment lives on this frame's
 * stack (alloca), never in static memory; nothing locks or allocates.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>

#include "shim.h"

extern char **environ;

/* Enter, run the deny check, leave again before anything that may not
 * return.  Returns look, or -1 with errno set to refuse. */
#define EXEC_CHECK(look, check)              \
	__extension__({                      \
		int err_;                    \
		(look) = shim_enter();       \
		err_ = (look) ? (check) : 0; \
		shim_leave();                \
		if (err_)                    \
			errno = err_;        \
		err_ ? -1 : 0;               \
	})

/* After a real exec returned (it failed): explain it under the guard. */
static void exec_returned(int look, int dirfd, const char *path, int search,
			  int err)
{
	int in = shim_enter();

	if (look && in)
		shim_exec_failed(dirfd, path, search, err);
	shim_leave();
	errno = err;
}

/* ------------------------------------------------------------ execve */

static int do_execve(const char *path, char *const argv[], char *const envp[])
{
	int look;

	if (EXEC_CHECK(look, shim_exec_check(path, argv)) < 0)
		return -1;
	if (look)
		SHIM_ENV_FIX(envp);
	REAL(execve)(path, argv, envp);
	exec_returned(look, AT_FDCWD, path, 0, errno);
	return -1;
}

static int do_execvpe(const char *file, char *const argv[], char *const envp[])
{
	int look;

	if (EXEC_CHECK(look, shim_exec_check_search(file, argv)) < 0)
		return -1;
	if (look)
		SHIM_ENV_FIX(envp);
	REAL(execvpe)(file, argv, envp);
	exec_returned(look, AT_FDCWD, file, 1, errno);
	return -1;
}

int execve(const char *path, char *const argv[], char *const envp[])
{
	return do_execve(path, argv, envp);
}

int execv(const char *path, char *const argv[])
{
	return do_execve(path, argv, environ);
}

int execvp(const char *file, char *const argv[])
{
	return do_execvpe(file, argv, environ);
}

int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return do_execvpe(file, argv, envp);
}

/* ------------------------------------------------------------ execl* */

/* Number of arguments up to the terminating NULL, first one included. */
static size_t count_args(const char *arg, va_list ap)
{
	size_t n = 0;

	if (!arg)
		return 0;
	for (n = 1; va_arg(ap, const char *); n++)
		;
	return n;
}

/* argv[0..n-1] from arg and ap, NULL-terminated; ap ends after the NULL
 * (where execle's envp is). */
static void fill_args(char **argv, size_t n, const char *arg, va_list ap)
{
	argv[0] = (char *)arg;
	for (size_t i = 1; i < n; i++)
		argv[i] = va_arg(ap, char *);
	if (n)
		(void)va_arg(ap, char *); /* the NULL */
	argv[n] = NULL;
}

/* Build argv on this frame's stack, as glibc does; the arguments are
 * read twice (count, then copy), so no bound is needed but the kernel's. */
#define VA_ARGV(argv, arg, ap, envp)                                  \
	do {                                                          \
		size_t n_;                                            \
		va_start(ap, arg);                                    \
		n_ = count_args(arg, ap);                             \
		va_end(ap);                                           \
		if (n_ > INT_MAX) {                                   \
			errno = E2BIG;                                \
			return -1;                                    \
		}                                                     \
		(argv) = __builtin_alloca((n_ + 1) * sizeof(char *)); \
		va_start(ap, arg);                                    \
		fill_args((argv), n_, arg, ap);                       \
		(envp) = n_ ? va_arg(ap, char **) : NULL;             \
		va_end(ap);                                           \
	} while (0)

int execl(const char *path, const char *arg, ...)
{
	char **argv, **unused;
	va_list ap;

	VA_ARGV(argv, arg, ap, unused);
	(void)unused;
	return do_execve(path, argv, environ);
}

int execlp(const char *file, const char *arg, ...)
{
	char **argv, **unused;
	va_list ap;

	VA_ARGV(argv, arg, ap, unused);
	(void)unused;
	return do_execvpe(file, argv, environ);
}

int execle(const char *path, const char *arg, ...)
{
	char **argv, **envp;
	va_list ap;

	VA_ARGV(argv, arg, ap, envp);
	return do_execve(path, argv, envp);
}

/* ------------------------------------------------------------ fd exec */

int fexecve(int fd, char *const argv[], char *const envp[])
{
	int look;

	if (EXEC_CHECK(look, shim_exec_check_at(fd, "", AT_EMPTY_PATH, argv)) <
	    0)
		return -1;
	if (look)
		SHIM_ENV_FIX(envp);
	return REAL(fexecve)(fd, argv, envp);
}

int execveat(int dirfd, const char *path, char *const argv[],
	     char *const envp[], int flags)
{
	int look;

	if (EXEC_CHECK(look, shim_exec_check_at(dirfd, path, flags, argv)) < 0)
		return -1;
	if (look)
		SHIM_ENV_FIX(envp);
	REAL(execveat)(dirfd, path, argv, envp, flags);
	if (!(flags & AT_EMPTY_PATH))
		exec_returned(look, dirfd, path, 0, errno);
	return -1;
}

/* ------------------------------------------------------------ spawn */

/* posix_spawn returns the error instead of setting errno; errno is left
 * as the real call left it. */
int posix_spawn(pid_t *pid, const char *path,
		const posix_spawn_file_actions_t *fa,
		const posix_spawnattr_t *attr, char *const argv[],
		char *const envp[])
{
	int look, saved = errno, rc;

	if (EXEC_CHECK(look, shim_exec_check(path, argv)) < 0) {
		rc = errno;
		errno = saved;
		return rc;
	}
	if (look)
		SHIM_ENV_FIX(envp);
	rc = REAL(posix_spawn)(pid, path, fa, attr, argv, envp);
	if (rc) {
		saved = errno;
		exec_returned(look, AT_FDCWD, path, 0, rc);
		errno = saved;
	}
	return rc;
}

int posix_spawnp(pid_t *pid, const char *file,
		 const posix_spawn_file_actions_t *fa,
		 const posix_spawnattr_t *attr, char *const argv[],
		 char *const envp[])
{
	int look, saved = errno, rc;

	if (EXEC_CHECK(look, shim_exec_check_search(file, argv)) < 0) {
		rc = errno;
		errno = saved;
		return rc;
	}
	if (look)
		SHIM_ENV_FIX(envp);
	rc = REAL(posix_spawnp)(pid, file, fa, attr, argv, envp);
	if (rc) {
		saved = errno;
		exec_returned(look, AT_FDCWD, file, 1, rc);
		errno = saved;
	}
	return rc;
}

/* ------------------------------------------------------------ shell */

/*
 * system and popen spawn /bin/sh with the global environ, not with an
 * envp we could pass.  When the program removed our variables, environ
 * points at a repaired copy on this frame's stack for the duration of
 * the real call, and is put back with a compare-and-swap.  Other threads
 * meanwhile read a superset of their environment; a setenv on another
 * thread copies the array (our added strings are static, so the copy
 * stays valid) and, because the compare-and-swap then fails, is kept.
 * The deny rules apply inside the shell, whose own shim checks what it
 * runs.
 */
static char **environ_swap_in(char **fixed, char **orig)
{
	if (fixed != orig)
		__atomic_store_n(&environ, fixed, __ATOMIC_SEQ_CST);
	return fixed;
}

static void environ_swap_out(char **fixed, char **orig)
{
	if (fixed != orig)
		__atomic_compare_exchange_n(&environ, &fixed, orig, 0,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

int system(const char *command)
{
	char **orig = environ, **fixed = orig;
	int look = shim_enter(), rc, err;

	shim_leave();
	if (look && command)
		SHIM_ENV_FIX(fixed);
	environ_swap_in(fixed, orig);
	rc = REAL(system)(command);
	err = errno;
	environ_swap_out(fixed, orig);
	errno = err;
	return rc;
}

FILE *popen(const char *command, const char *type)
{
	char **orig = environ, **fixed = orig;
	int look = shim_enter(), err;
	FILE *fp;

	shim_leave();
	if (look && command)
		SHIM_ENV_FIX(fixed);
	environ_swap_in(fixed, orig);
	fp = REAL(popen)(command, type);
	err = errno;
	environ_swap_out(fixed, orig);
	errno = err;
	return fp;
}
