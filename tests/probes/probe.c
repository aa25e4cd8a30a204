/*
 * probe - call ONE libc entry point and print "rc errno", so shell tests
 * judge the shim (and the kernel) from outside.  Built dynamic and
 * static; probe_fortify.c and probe_lfs.c rebuild this file with
 * _FORTIFY_SOURCE=2 and _FILE_OFFSET_BITS=64 so the __open_2 / open64
 * hooks are reached the way real programs reach them.
 *
 *   probe [-C DIR | -F DIR] CMD ARGS... [:: CMD ARGS...]...
 *
 * -C DIR chdir()s (through libc, so through the shim) first; -F DIR does
 * it with fchdir.  "::" separates further commands run in the same
 * process, each printing its own line.  rc is the return value (0 / -1
 * for calls returning pointers, the returned error for posix_spawn*),
 * errno is 0 on success.  See usage() for the commands.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void result(long rc, int err)
{
	printf("%ld %d\n", rc, rc < 0 || err ? err : 0);
	fflush(stdout);
}

static int parse_flags(const char *s)
{
	static const struct {
		const char *name;
		int flag;
	} names[] = {
		{ "r", O_RDONLY },
		{ "w", O_WRONLY },
		{ "rw", O_RDWR },
		{ "creat", O_CREAT },
		{ "trunc", O_TRUNC },
		{ "excl", O_EXCL },
		{ "append", O_APPEND },
		{ "tmpfile", O_TMPFILE },
		{ "directory", O_DIRECTORY },
		{ "cloexec", O_CLOEXEC },
		{ "path", O_PATH },
		{ "nofollow", O_NOFOLLOW },
	};
	char buf[256], *tok, *save = NULL;
	int fl = 0;

	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",|", &save); tok;
	     tok = strtok_r(NULL, ",|", &save)) {
		size_t i;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strcmp(tok, names[i].name) == 0)
				break;
		fl |= i < sizeof(names) / sizeof(names[0])
			      ? names[i].flag
			      : (int)strtol(tok, NULL, 0);
	}
	return fl;
}

static int needs_mode(int fl)
{
	return (fl & O_CREAT) || (fl & O_TMPFILE) == O_TMPFILE;
}

/* A directory fd opened with a raw syscall (not through the shim). */
static int dirfd_of(const char *s)
{
	if (strcmp(s, "AT_FDCWD") == 0 || strcmp(s, "-") == 0)
		return AT_FDCWD;
	return (int)syscall(SYS_openat, AT_FDCWD, s, O_RDONLY | O_DIRECTORY, 0);
}

static int raw_open(const char *path, int flags)
{
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags, 0644);
}

static mode_t mode_arg(char **a, int n, int i)
{
	return i < n ? (mode_t)strtol(a[i], NULL, 8) : 0644;
}

#define NEED(k)                                                            \
	do {                                                               \
		if (n < (k)) {                                             \
			fprintf(stderr, "probe: %s needs %d args\n", a[0], \
				(k)-1);                                    \
			return 2;                                          \
		}                                                          \
	} while (0)

/* ------------------------------------------------------------ files */

static int c_open(char **a, int n)
{
	int fl, rc;

	NEED(3);
	fl = parse_flags(a[2]);
	errno = 0;
	if (strcmp(a[0], "open64") == 0)
		rc = needs_mode(fl) ? open64(a[1], fl, mode_arg(a, n, 3))
				    : open64(a[1], fl);
	else
		rc = needs_mode(fl) ? open(a[1], fl, mode_arg(a, n, 3))
				    : open(a[1], fl);
	result(rc, errno);
	return 0;
}

static int c_openat(char **a, int n)
{
	int fl, rc, d;

	NEED(4);
	d = dirfd_of(a[1]);
	fl = parse_flags(a[3]);
	errno = 0;
	if (strcmp(a[0], "openat64") == 0)
		rc = needs_mode(fl) ? openat64(d, a[2], fl, mode_arg(a, n, 4))
				    : openat64(d, a[2], fl);
	else
		rc = needs_mode(fl) ? openat(d, a[2], fl, mode_arg(a, n, 4))
				    : openat(d, a[2], fl);
	result(rc, errno);
	return 0;
}

static int c_creat(char **a, int n)
{
	int rc;

	NEED(2);
	errno = 0;
	rc = strcmp(a[0], "creat64") == 0 ? creat64(a[1], mode_arg(a, n, 2))
					  : creat(a[1], mode_arg(a, n, 2));
	result(rc, errno);
	return 0;
}

static int c_fopen(char **a, int n)
{
	FILE *f;

	NEED(3);
	errno = 0;
	if (strcmp(a[0], "fopen64") == 0)
		f = fopen64(a[1], a[2]);
	else if (strncmp(a[0], "freopen", 7) == 0) {
		FILE *old = fdopen(raw_open("/dev/null", O_RDONLY), "r");

		f = strcmp(a[0], "freopen64") == 0 ? freopen64(a[1], a[2], old)
						   : freopen(a[1], a[2], old);
	} else
		f = fopen(a[1], a[2]);
	result(f ? 0 : -1, errno);
	return 0;
}

static int c_truncate(char **a, int n)
{
	long long len;
	int rc, fd;

	NEED(3);
	len = strtoll(a[2], NULL, 10);
	errno = 0;
	if (strcmp(a[0], "truncate") == 0)
		rc = truncate(a[1], (off_t)len);
	else if (strcmp(a[0], "truncate64") == 0)
		rc = truncate64(a[1], len);
	else {
		fd = raw_open(a[1], O_WRONLY);
		errno = 0;
		rc = strcmp(a[0], "ftruncate64") == 0
			     ? ftruncate64(fd, len)
			     : ftruncate(fd, (off_t)len);
	}
	result(rc, errno);
	return 0;
}

static int c_entry(char **a, int n)
{
	const char *c = a[0];
	int rc;

	NEED(2);
	errno = 0;
	if (!strcmp(c, "mkdir"))
		rc = mkdir(a[1], 0755);
	else if (!strcmp(c, "unlink"))
		rc = unlink(a[1]);
	else if (!strcmp(c, "rmdir"))
		rc = rmdir(a[1]);
	else if (!strcmp(c, "chmod"))
		rc = chmod(a[1], mode_arg(a, n, 2));
	else if (!strcmp(c, "chown"))
		rc = chown(a[1], getuid(), getgid());
	else if (!strcmp(c, "lchown"))
		rc = lchown(a[1], getuid(), getgid());
	else if (!strcmp(c, "utimensat"))
		rc = utimensat(AT_FDCWD, a[1], NULL, 0);
	else if (!strcmp(c, "chdir"))
		rc = chdir(a[1]);
	else if (!strcmp(c, "mknod"))
		rc = mknod(a[1],
			   (n > 2 && !strcmp(a[2], "fifo") ? S_IFIFO
							   : S_IFREG) |
				   0644,
			   0);
	else
		return -1;
	result(rc, errno);
	return 0;
}

static int c_entryat(char **a, int n)
{
	const char *c = a[0];
	int rc, d;

	NEED(3);
	d = dirfd_of(a[1]);
	errno = 0;
	if (!strcmp(c, "mkdirat"))
		rc = mkdirat(d, a[2], 0755);
	else if (!strcmp(c, "unlinkat"))
		rc = unlinkat(d, a[2],
			      n > 3 && !strcmp(a[3], "dir") ? AT_REMOVEDIR : 0);
	else if (!strcmp(c, "fchmodat"))
		rc = fchmodat(d, a[2], mode_arg(a, n, 3), 0);
	else if (!strcmp(c, "fchownat"))
		rc = fchownat(d, a[2], getuid(), getgid(), 0);
	else if (!strcmp(c, "mknodat"))
		rc = mknodat(d, a[2],
			     (n > 3 && !strcmp(a[3], "fifo") ? S_IFIFO
							     : S_IFREG) |
				     0644,
			     0);
	else
		return -1;
	result(rc, errno);
	return 0;
}

static unsigned rename_flags(const char *s)
{
	return !strcmp(s, "exchange")	 ? RENAME_EXCHANGE
	       : !strcmp(s, "noreplace") ? RENAME_NOREPLACE
					 : 0;
}

static int c_names(char **a, int n)
{
	const char *c = a[0];
	int rc;

	NEED(3);
	errno = 0;
	if (!strcmp(c, "rename"))
		rc = rename(a[1], a[2]);
	else if (!strcmp(c, "renameat"))
		rc = renameat(AT_FDCWD, a[1], AT_FDCWD, a[2]);
	else if (!strcmp(c, "renameat2"))
		rc = renameat2(AT_FDCWD, a[1], AT_FDCWD, a[2],
			       n > 3 ? rename_flags(a[3]) : 0);
	else if (!strcmp(c, "link"))
		rc = link(a[1], a[2]);
	else if (!strcmp(c, "linkat"))
		rc = linkat(AT_FDCWD, a[1], AT_FDCWD, a[2],
			    n > 3 && !strcmp(a[3], "follow") ? AT_SYMLINK_FOLLOW
							     : 0);
	else if (!strcmp(c, "symlink"))
		rc = symlink(a[1], a[2]);
	else if (!strcmp(c, "symlinkat"))
		rc = symlinkat(a[1], AT_FDCWD, a[2]);
	else
		return -1;
	result(rc, errno);
	return 0;
}

/* tmplink DIR NAME [proc]: an O_TMPFILE file in DIR given NAME by
 * linkat(fd, "", AT_EMPTY_PATH) or through /proc/self/fd. */
static int c_tmplink(char **a, int n)
{
	char proc[64];
	int fd, rc;

	NEED(3);
	fd = raw_open(a[1], O_TMPFILE | O_WRONLY);
	if (fd < 0) {
		result(-1, errno);
		return 0;
	}
	errno = 0;
	if (n > 3 && !strcmp(a[3], "proc")) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		rc = linkat(AT_FDCWD, proc, AT_FDCWD, a[2], AT_SYMLINK_FOLLOW);
	} else {
		rc = linkat(fd, "", AT_FDCWD, a[2], AT_EMPTY_PATH);
	}
	result(rc, errno);
	return 0;
}

/* ------------------------------------------------------------ network */

static int addr_of(const char *host, const char *port, int type,
		   struct sockaddr_storage *ss, socklen_t *len)
{
	struct addrinfo hints = { .ai_socktype = type }, *res;
	int rc = getaddrinfo(host, port, &hints, &res);

	if (rc != 0)
		return rc;
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

static int c_net(char **a, int n)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int type = strcmp(a[0], "connect") ? SOCK_DGRAM : SOCK_STREAM;
	int fd, rc;
	long r;

	NEED(3);
	rc = addr_of(a[1], a[2], type, &ss, &len);
	if (rc) {
		printf("gai %d %s\n", rc, gai_strerror(rc));
		return 0;
	}
	fd = socket(ss.ss_family, type, 0);
	if (fd < 0) {
		result(-1, errno);
		return 0;
	}
	errno = 0;
	if (type == SOCK_STREAM) {
		r = connect(fd, (struct sockaddr *)&ss, len);
	} else if (!strcmp(a[0], "sendto")) {
		r = sendto(fd, "x", 1, 0, (struct sockaddr *)&ss, len);
	} else {
		struct iovec iov = { "x", 1 };
		struct msghdr m = { .msg_name = &ss,
				    .msg_namelen = len,
				    .msg_iov = &iov,
				    .msg_iovlen = 1 };

		r = sendmsg(fd, &m, 0);
	}
	result(r, errno);
	return 0;
}

static int c_connect_unix(char **a, int n)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	int fd, rc;

	NEED(2);
	snprintf(un.sun_path, sizeof(un.sun_path), "%s", a[1]);
	fd = (int)syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0);
	errno = 0;
	rc = connect(fd, (struct sockaddr *)&un, sizeof(un));
	result(rc, errno);
	return 0;
}

static int c_socket(char **a, int n)
{
	int dom = AF_INET, rc;

	if (n > 1 && !strcmp(a[1], "inet6"))
		dom = AF_INET6;
	if (n > 1 && !strcmp(a[1], "unix"))
		dom = AF_UNIX;
	errno = 0;
	rc = socket(dom, SOCK_STREAM, 0);
	result(rc, errno);
	return 0;
}

static int c_getaddrinfo(char **a, int n)
{
	struct addrinfo *res;
	int rc;

	NEED(2);
	errno = 0;
	rc = getaddrinfo(a[1], NULL, NULL, &res);
	printf("%d %s\n", rc, rc ? gai_strerror(rc) : "ok");
	if (!rc)
		freeaddrinfo(res);
	return 0;
}

/* ------------------------------------------------------------ exec */

static int c_exec(char **a, int n)
{
	const char *c = a[0];
	char *env1[] = { "PROBE_ENVLE=1", NULL };

	NEED(2);
	errno = 0;
	if (!strcmp(c, "execve"))
		execve(a[1], a + 1, environ);
	else if (!strcmp(c, "execv"))
		execv(a[1], a + 1);
	else if (!strcmp(c, "execvp"))
		execvp(a[1], a + 1);
	else if (!strcmp(c, "execvpe"))
		execvpe(a[1], a + 1, environ);
	else if (!strcmp(c, "execl"))
		execl(a[1], a[1], n > 2 ? a[2] : NULL, n > 3 ? a[3] : NULL,
		      (char *)NULL);
	else if (!strcmp(c, "execlp"))
		execlp(a[1], a[1], n > 2 ? a[2] : NULL, n > 3 ? a[3] : NULL,
		       (char *)NULL);
	else if (!strcmp(c, "execle") && n > 2)
		execle(a[1], a[1], a[2], (char *)NULL, env1);
	else if (!strcmp(c, "execle"))
		execle(a[1], a[1], (char *)NULL, env1);
	else if (!strcmp(c, "fexecve"))
		fexecve(raw_open(a[1], O_RDONLY | O_CLOEXEC), a + 1, environ);
	else if (!strcmp(c, "execveat"))
		execveat(AT_FDCWD, a[1], a + 1, environ, 0);
	else
		return -1;
	result(-1, errno);
	return 0;
}

static int c_spawn(char **a, int n)
{
	pid_t pid;
	int rc, st;

	NEED(2);
	errno = 0;
	rc = strcmp(a[0], "posix_spawnp") == 0
		     ? posix_spawnp(&pid, a[1], NULL, NULL, a + 1, environ)
		     : posix_spawn(&pid, a[1], NULL, NULL, a + 1, environ);
	if (rc == 0)
		waitpid(pid, &st, 0);
	result(rc, 0);
	return 0;
}

/* The shim must survive a program removing its variables. */
static void strip_env(void)
{
	unsetenv("LD_PRELOAD");
	unsetenv("SBXRUN_POLICY");
	unsetenv("SBXRUN_REPORT");
	unsetenv("SBXRUN");
	unsetenv("SBXRUN_NET");
}

static int c_shell(char **a, int n)
{
	int rc;

	NEED(2);
	if (!strncmp(a[0], "unsetenv-", 9))
		strip_env();
	fflush(stdout);
	errno = 0;
	if (strstr(a[0], "popen")) {
		char buf[4096];
		size_t got;
		FILE *p = popen(a[1], "r");

		if (!p) {
			result(-1, errno);
			return 0;
		}
		while ((got = fread(buf, 1, sizeof(buf), p)) > 0)
			fwrite(buf, 1, got, stdout);
		rc = pclose(p);
	} else {
		rc = system(a[1]);
	}
	result(rc, rc < 0 ? errno : 0);
	return 0;
}

/* clearenv-execvp FILE ARGS: like `env -i FILE ARGS` */
static int c_clearenv(char **a, int n)
{
	NEED(2);
	clearenv();
	execvp(a[1], a + 1);
	result(-1, errno);
	return 0;
}

/* vfork-exec [-C DIR] PATH ARGS: the child (sharing our memory) execs;
 * the parent waits and carries on with the next command. */
static int c_vfork(char **a, int n)
{
	const char *dir = NULL;
	pid_t pid;
	int st = 0;

	if (n > 2 && !strcmp(a[1], "-C")) {
		dir = a[2];
		a += 2;
		n -= 2;
	}
	NEED(2);
	fflush(stdout);
	pid = vfork();
	if (pid == 0) {
		if (dir && chdir(dir) < 0)
			_exit(126);
		execv(a[1], a + 1);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	result(WIFEXITED(st) ? WEXITSTATUS(st) : 128, 0);
	return 0;
}

static int c_fork(char **a, int n)
{
	pid_t pid;
	int st = 0;

	NEED(2);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execv(a[1], a + 1);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	result(WIFEXITED(st) ? WEXITSTATUS(st) : 128, 0);
	return 0;
}

/* ------------------------------------------------------------ threads */

struct tjob {
	const char *path;
	int flags, iters, fails, lasterr;
};

static void *tmain(void *p)
{
	struct tjob *j = p;

	for (int i = 0; i < j->iters; i++) {
		int fd = needs_mode(j->flags) ? open(j->path, j->flags, 0644)
					      : open(j->path, j->flags);

		if (fd < 0) {
			j->fails++;
			j->lasterr = errno;
		} else {
			close(fd);
		}
	}
	return NULL;
}

/* threads N ITERS PATH FLAGS: prints "fails lasterrno" over all threads */
static int c_threads(char **a, int n)
{
	pthread_t t[64];
	struct tjob j[64];
	int nt, fails = 0, err = 0;

	NEED(5);
	nt = atoi(a[1]);
	nt = nt < 1 ? 1 : nt > 64 ? 64 : nt;
	for (int i = 0; i < nt; i++) {
		j[i] = (struct tjob){ a[3], parse_flags(a[4]), atoi(a[2]), 0,
				      0 };
		pthread_create(&t[i], NULL, tmain, &j[i]);
	}
	for (int i = 0; i < nt; i++) {
		pthread_join(t[i], NULL);
		fails += j[i].fails;
		err = j[i].lasterr ? j[i].lasterr : err;
	}
	printf("%d %d\n", fails, err);
	fflush(stdout);
	return 0;
}

/* maps: is the shim mapped into this process? */
static int c_maps(char **a, int n)
{
	char buf[1 << 16];
	int fd = raw_open("/proc/self/maps", O_RDONLY);
	ssize_t got, total = 0;

	while (fd >= 0 &&
	       (got = read(fd, buf + total, sizeof(buf) - 1 - total)) > 0)
		total += got;
	buf[total > 0 ? total : 0] = '\0';
	puts(strstr(buf, "libsbxshim") ? "shim" : "noshim");
	fflush(stdout);
	return 0;
}

/* ------------------------------------------------------------ main */

struct cmd {
	const char *name;
	int (*fn)(char **a, int n);
};

static const struct cmd cmds[] = {
	{ "open", c_open },
	{ "open64", c_open },
	{ "openat", c_openat },
	{ "openat64", c_openat },
	{ "creat", c_creat },
	{ "creat64", c_creat },
	{ "fopen", c_fopen },
	{ "fopen64", c_fopen },
	{ "freopen", c_fopen },
	{ "freopen64", c_fopen },
	{ "truncate", c_truncate },
	{ "truncate64", c_truncate },
	{ "ftruncate", c_truncate },
	{ "ftruncate64", c_truncate },
	{ "mkdir", c_entry },
	{ "unlink", c_entry },
	{ "rmdir", c_entry },
	{ "chmod", c_entry },
	{ "chown", c_entry },
	{ "lchown", c_entry },
	{ "utimensat", c_entry },
	{ "chdir", c_entry },
	{ "mknod", c_entry },
	{ "mkdirat", c_entryat },
	{ "unlinkat", c_entryat },
	{ "fchmodat", c_entryat },
	{ "fchownat", c_entryat },
	{ "mknodat", c_entryat },
	{ "rename", c_names },
	{ "renameat", c_names },
	{ "renameat2", c_names },
	{ "link", c_names },
	{ "linkat", c_names },
	{ "symlink", c_names },
	{ "symlinkat", c_names },
	{ "tmplink", c_tmplink },
	{ "connect", c_net },
	{ "sendto", c_net },
	{ "sendmsg", c_net },
	{ "connect-unix", c_connect_unix },
	{ "socket", c_socket },
	{ "getaddrinfo", c_getaddrinfo },
	{ "execve", c_exec },
	{ "execv", c_exec },
	{ "execvp", c_exec },
	{ "execvpe", c_exec },
	{ "execl", c_exec },
	{ "execlp", c_exec },
	{ "execle", c_exec },
	{ "fexecve", c_exec },
	{ "execveat", c_exec },
	{ "posix_spawn", c_spawn },
	{ "posix_spawnp", c_spawn },
	{ "system", c_shell },
	{ "popen", c_shell },
	{ "unsetenv-system", c_shell },
	{ "unsetenv-popen", c_shell },
	{ "clearenv-execvp", c_clearenv },
	{ "vfork-exec", c_vfork },
	{ "fork-exec", c_fork },
	{ "threads", c_threads },
	{ "maps", c_maps },
};

static int usage(void)
{
	fprintf(stderr,
		"usage: probe [-C DIR|-F DIR] CMD ARGS... [:: CMD ARGS...]\ncommands:");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(stderr, " %s", cmds[i].name);
	fputc('\n', stderr);
	return 2;
}

static int run(char **a, int n)
{
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (strcmp(a[0], cmds[i].name) == 0)
			return cmds[i].fn(a, n) < 0 ? usage() : 0;
	return usage();
}

static int change_dir(char **argv)
{
	int fd;

	if (!strcmp(argv[1], "-C"))
		return chdir(argv[2]);
	fd = dirfd_of(argv[2]);
	return fchdir(fd);
}

/* Start from fds 0-2 only, so results do not depend on what the test
 * harness left open (and the shim cannot rely on inherited fds). */
static void close_inherited(void)
{
	if (getenv("PROBE_KEEP_FDS"))
		return;
	if (syscall(SYS_close_range, 3, ~0U, 0) < 0)
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
}

int main(int argc, char **argv)
{
	int i = 1;

	close_inherited();

	if (argc > 3 && (!strcmp(argv[1], "-C") || !strcmp(argv[1], "-F"))) {
		if (change_dir(argv) < 0) {
			perror("probe: chdir");
			return 2;
		}
		i = 3;
	}
	if (i >= argc)
		return usage();
	while (i < argc) {
		int j = i, rc;

		while (j < argc && strcmp(argv[j], "::"))
			j++;
		argv[j < argc ? j : argc] = NULL;
		rc = run(argv + i, j - i);
		if (rc)
			return rc;
		i = j + 1;
	}
	return 0;
}
