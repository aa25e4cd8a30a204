/*
 * atk_syscall - one attack per invocation, performed with a raw system
 * call (inline `syscall` instruction: neither libc nor the shim sees it),
 * in the spirit of bubblewrap's tests/try-syscall.c.
 *
 *   atk_syscall [-l] OP [ARGS...]
 *
 * -l uses the libc wrapper instead (open/read/write/connect/...), so the
 * dynamic build goes through the shim's hooks.
 *
 * The last line printed is always
 *   RESULT <rc> <ERRNAME>        e.g. "RESULT -1 EPERM" or "RESULT 3 OK"
 * Arguments are chosen so that a call which reaches the kernel fails
 * harmlessly with a distinctive errno (EFAULT, EBADF, EINVAL) while a call
 * stopped by the seccomp filter fails with EPERM/ENOSYS (or SIGSYS).
 * Anything read from a file is copied to stdout before the RESULT line.
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/uio.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <termios.h>
#include <unistd.h>

#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#ifndef SYS_fsopen
#define SYS_fsopen 430
#endif
#ifndef SYS_fsconfig
#define SYS_fsconfig 431
#endif
#ifndef SYS_fsmount
#define SYS_fsmount 432
#endif
#ifndef SYS_fspick
#define SYS_fspick 433
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup 425
#endif
#ifndef SYS_memfd_create
#define SYS_memfd_create 319
#endif
#ifndef SYS_userfaultfd
#define SYS_userfaultfd 323
#endif
#ifndef SYS_bpf
#define SYS_bpf 321
#endif
#ifndef SYS_execveat
#define SYS_execveat 322
#endif
#ifndef SYS_renameat2
#define SYS_renameat2 316
#endif
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif
#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif
#ifndef SECCOMP_RET_USER_NOTIF
#define SECCOMP_RET_USER_NOTIF 0x7fc00000U
#endif
#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 1U
#endif
#define X32_BIT 0x40000000L

static int use_libc;

#if defined(__x86_64__)
static long rsys(long n, long a1, long a2, long a3, long a4, long a5, long a6)
{
	unsigned long ret;
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;
	register long r9 __asm__("r9") = a6;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8),
			   "r"(r9)
			 : "rcx", "r11", "memory");
	return (long)ret;
}
#else
static long rsys(long n, long a1, long a2, long a3, long a4, long a5, long a6)
{
	long r = syscall(n, a1, a2, a3, a4, a5, a6);
	return r < 0 ? -errno : r;
}
#endif

#define S0(n) rsys((n), 0, 0, 0, 0, 0, 0)
#define S1(n, a) rsys((n), (long)(a), 0, 0, 0, 0, 0)
#define S2(n, a, b) rsys((n), (long)(a), (long)(b), 0, 0, 0, 0)
#define S3(n, a, b, c) rsys((n), (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define S4(n, a, b, c, d) \
	rsys((n), (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)
#define S5(n, a, b, c, d, e) \
	rsys((n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), 0)
#define S6(n, a, b, c, d, e, f)                                          \
	rsys((n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), \
	     (long)(f))

/* libc-style result -> raw-style result */
static long L(long r)
{
	return r < 0 ? -errno : r;
}

static const char *ename(long e)
{
	const char *n = strerrorname_np((int)e);
	return n ? n : "E?";
}

static int result(long r)
{
	fflush(stdout);
	if (r < 0 && r > -4096)
		printf("RESULT -1 %s\n", ename(-r));
	else
		printf("RESULT %ld OK\n", r);
	fflush(stdout);
	return r < 0 && r > -4096 ? 1 : 0;
}

static void need(int argc, int n, const char *usage)
{
	if (argc < n) {
		fprintf(stderr, "usage: atk_syscall %s\n", usage);
		exit(2);
	}
}

static long do_open(const char *p, int flags, int mode)
{
	if (use_libc)
		return L(open(p, flags, mode));
	return S4(SYS_openat, AT_FDCWD, p, flags, mode);
}

static long dump_fd(long fd)
{
	char buf[4096];
	long n, total = 0;

	while ((n = use_libc ? L(read((int)fd, buf, sizeof(buf)))
			     : S3(SYS_read, fd, buf, sizeof(buf))) > 0) {
		fwrite(buf, 1, (size_t)n, stdout);
		total += n;
	}
	fflush(stdout);
	return n < 0 ? n : total;
}

static long op_read(const char *p)
{
	long fd = do_open(p, O_RDONLY, 0);

	if (fd < 0)
		return fd;
	return dump_fd(fd);
}

static long op_write(const char *p, const char *data, int flags)
{
	long fd = do_open(p, flags, 0644), r;

	if (fd < 0)
		return fd;
	r = use_libc ? L(write((int)fd, data, strlen(data)))
		     : S3(SYS_write, fd, data, strlen(data));
	S1(SYS_close, fd);
	return r;
}

/* The inode at p, 0 when there is none (raw newfstatat). */
static unsigned long long ino_of(const char *p)
{
	struct stat st;

	return S4(SYS_newfstatat, AT_FDCWD, p, &st, 0) == 0
		       ? (unsigned long long)st.st_ino
		       : 0;
}

/* TIME-01..03: print WAITING, then wait up to secs for something new at
 * p (created, or replaced by another inode), then settle a moment.  The
 * host changes the file from outside while we wait.  -ETIMEDOUT if it
 * never changes. */
static long wait_new(const char *p, int secs)
{
	unsigned long long first = ino_of(p), now;
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	printf("WAITING\n");
	fflush(stdout);
	for (int i = 0; i < secs * 100; i++) {
		now = ino_of(p);
		if (now && now != first) {
			ts.tv_nsec = 300 * 1000 * 1000;
			S2(SYS_nanosleep, &ts, NULL);
			printf("CHANGED\n");
			fflush(stdout);
			return 0;
		}
		S2(SYS_nanosleep, &ts, NULL);
	}
	return -ETIMEDOUT;
}

static int parse_addr(const char *host, const char *port,
		      struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (strchr(host, ':')) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)atoi(port));
		if (inet_pton(AF_INET6, host, &a6->sin6_addr) != 1)
			return -1;
		*len = sizeof(*a6);
	} else {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)atoi(port));
		if (inet_pton(AF_INET, host, &a4->sin_addr) != 1)
			return -1;
		*len = sizeof(*a4);
	}
	return 0;
}

static long do_socket(int fam, int type, int proto)
{
	if (use_libc)
		return L(socket(fam, type, proto));
	return S3(SYS_socket, fam, type, proto);
}

static long do_connect(long fd, const void *sa, socklen_t len)
{
	if (use_libc)
		return L(connect((int)fd, sa, len));
	return S3(SYS_connect, fd, sa, len);
}

static long do_sendto(long fd, const void *b, size_t n, int fl, const void *sa,
		      socklen_t len)
{
	if (use_libc)
		return L(sendto((int)fd, b, n, fl, sa, len));
	return S6(SYS_sendto, fd, b, n, fl, sa, len);
}

/* connect/udp/fastopen/mptcp HOST PORT */
static long op_inet(const char *how, const char *host, const char *port)
{
	struct sockaddr_storage ss;
	socklen_t len;
	const char msg[] = "sbx-attack-packet\n";
	long fd, r;

	if (parse_addr(host, port, &ss, &len) < 0)
		return -EINVAL;
	if (!strcmp(how, "connect")) {
		fd = do_socket(ss.ss_family, SOCK_STREAM, 0);
		if (fd < 0)
			return fd;
		r = do_connect(fd, &ss, len);
		if (r == 0)
			r = use_libc ? L(write((int)fd, msg, sizeof(msg) - 1))
				     : S3(SYS_write, fd, msg, sizeof(msg) - 1);
	} else if (!strcmp(how, "udp")) {
		fd = do_socket(ss.ss_family, SOCK_DGRAM, 0);
		if (fd < 0)
			return fd;
		r = do_sendto(fd, msg, sizeof(msg) - 1, 0, &ss, len);
	} else if (!strcmp(how, "udpconnect")) {
		fd = do_socket(ss.ss_family, SOCK_DGRAM, 0);
		if (fd < 0)
			return fd;
		r = do_connect(fd, &ss, len);
		if (r == 0)
			r = S3(SYS_write, fd, msg, sizeof(msg) - 1);
	} else if (!strcmp(how, "fastopen")) {
		fd = do_socket(ss.ss_family, SOCK_STREAM, 0);
		if (fd < 0)
			return fd;
		r = do_sendto(fd, msg, sizeof(msg) - 1, MSG_FASTOPEN, &ss, len);
	} else if (!strcmp(how, "mptcp")) {
		fd = do_socket(ss.ss_family, SOCK_STREAM, IPPROTO_MPTCP);
		if (fd < 0)
			return fd;
		r = do_connect(fd, &ss, len);
		if (r == 0)
			r = S3(SYS_write, fd, msg, sizeof(msg) - 1);
	} else if (!strcmp(how, "sctp")) {
		fd = do_socket(ss.ss_family, SOCK_STREAM, IPPROTO_SCTP);
		if (fd < 0)
			return fd;
		r = do_connect(fd, &ss, len);
	} else if (!strcmp(how, "ping")) {
		/* unprivileged ICMP echo */
		unsigned char pkt[16] = { 8, 0 };

		fd = do_socket(ss.ss_family, SOCK_DGRAM, IPPROTO_ICMP);
		if (fd < 0)
			return fd;
		r = do_sendto(fd, pkt, sizeof(pkt), 0, &ss, len);
	} else if (!strcmp(how, "raw")) {
		fd = do_socket(ss.ss_family, SOCK_RAW, IPPROTO_UDP);
		if (fd < 0)
			return fd;
		r = do_sendto(fd, msg, sizeof(msg) - 1, 0, &ss, len);
	} else if (!strcmp(how, "listen")) {
		/* bind + listen on HOST:PORT, accept one connection, echo */
		int one = 1;
		char buf[128];
		long c, n;

		fd = do_socket(ss.ss_family, SOCK_STREAM, 0);
		if (fd < 0)
			return fd;
		setsockopt((int)fd, SOL_SOCKET, SO_REUSEADDR, &one,
			   sizeof(one));
		r = S3(SYS_bind, fd, &ss, len);
		if (r == 0)
			r = S2(SYS_listen, fd, 4);
		if (r < 0)
			return r;
		printf("LISTENING\n");
		fflush(stdout);
		c = S3(SYS_accept, fd, 0, 0);
		if (c < 0)
			return c;
		n = S3(SYS_read, c, buf, sizeof(buf));
		if (n > 0)
			fwrite(buf, 1, (size_t)n, stdout);
		return n;
	} else {
		return -EINVAL;
	}
	return r;
}

static long op_unix(const char *path, int abstract, int type)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	size_t n = strlen(path);
	socklen_t len;
	long fd, r;
	const char msg[] = "sbx-attack-unix\n";

	if (n >= sizeof(sun.sun_path) - 1)
		return -ENAMETOOLONG;
	if (abstract) {
		memcpy(sun.sun_path + 1, path, n);
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
				  n);
	} else {
		memcpy(sun.sun_path, path, n);
		len = sizeof(sun);
	}
	fd = do_socket(AF_UNIX, type, 0);
	if (fd < 0)
		return fd;
	if (type == SOCK_DGRAM)
		return do_sendto(fd, msg, sizeof(msg) - 1, 0, &sun, len);
	r = do_connect(fd, &sun, len);
	if (r == 0)
		r = S3(SYS_write, fd, msg, sizeof(msg) - 1);
	return r;
}

static int name2num(const char *s, const char *const *names, const int *vals)
{
	for (int i = 0; names[i]; i++)
		if (!strcmp(s, names[i]))
			return vals[i];
	return (int)strtol(s, NULL, 0);
}

static long op_socket(const char *f, const char *t, const char *p)
{
	static const char *const fn[] = { "unix",    "inet",   "inet6",
					  "netlink", "packet", "key",
					  "alg",     "vsock",  "bluetooth",
					  "xdp",     NULL };
	static const int fv[] = { AF_UNIX,	AF_INET, AF_INET6, AF_NETLINK,
				  AF_PACKET,	AF_KEY,	 AF_ALG,   AF_VSOCK,
				  AF_BLUETOOTH, 44 };
	static const char *const tn[] = { "stream", "dgram", "raw", "seqpacket",
					  NULL };
	static const int tv[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_RAW,
				  SOCK_SEQPACKET };
	static const char *const pn[] = { "icmp",  "tcp",    "udp", "sctp",
					  "mptcp", "icmpv6", NULL };
	static const int pv[] = { IPPROTO_ICMP, IPPROTO_TCP,   IPPROTO_UDP,
				  IPPROTO_SCTP, IPPROTO_MPTCP, IPPROTO_ICMPV6 };

	return do_socket(name2num(f, fn, fv), name2num(t, tn, tv),
			 p ? name2num(p, pn, pv) : 0);
}

static long op_unshare(const char *what)
{
	static const char *const n[] = { "user", "mnt",	   "net",  "pid", "ipc",
					 "uts",	 "cgroup", "time", NULL };
	static const int v[] = { CLONE_NEWUSER,	  CLONE_NEWNS,	CLONE_NEWNET,
				 CLONE_NEWPID,	  CLONE_NEWIPC, CLONE_NEWUTS,
				 CLONE_NEWCGROUP, 0x80 /* CLONE_NEWTIME */ };

	return S1(SYS_unshare, name2num(what, n, v));
}

/* Fork children until fork fails or max is reached; report the count. */
static long op_forkcount(long max)
{
	pid_t *kids = calloc((size_t)max, sizeof(pid_t));
	long n = 0, err = 0;

	for (; n < max; n++) {
		pid_t p = fork();

		if (p == 0) {
			for (;;)
				pause();
		}
		if (p < 0) {
			err = errno;
			break;
		}
		kids[n] = p;
	}
	for (long i = 0; i < n; i++)
		kill(kids[i], SIGKILL);
	for (long i = 0; i < n; i++)
		waitpid(kids[i], NULL, 0);
	printf("FORKED %ld\n", n);
	return err ? -err : n;
}

static long op_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char p[300], t[512];

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		ssize_t n;

		if (e->d_name[0] == '.' || atoi(e->d_name) == dirfd(d))
			continue;
		snprintf(p, sizeof(p), "/proc/self/fd/%s", e->d_name);
		n = readlink(p, t, sizeof(t) - 1);
		t[n < 0 ? 0 : n] = '\0';
		printf("FD %s %s\n", e->d_name, t);
	}
	closedir(d);
	return 0;
}

static long op_status(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "NoNewPrivs", 10) ||
		    !strncmp(line, "Cap", 3) || !strncmp(line, "Seccomp", 7) ||
		    !strncmp(line, "Uid", 3))
			fputs(line, stdout);
	fclose(f);
	printf("EUID %d\n", (int)geteuid());
	return 0;
}

static long op_seccomp_listener(void)
{
	struct sock_filter insn[] = {
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_filter notif[] = {
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	};
	struct sock_fprog prog = { .len = 1, .filter = insn };
	long r;

	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	/* an allow-all filter carrying NEW_LISTENER: harmless if it loads */
	r = S3(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	       SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	(void)notif;
	return r;
}

static long op_memfd_exec(int argc, char **argv)
{
	long mfd, src, n, r;
	char buf[65536];
	static char *envp[] = { "PATH=/usr/bin:/bin", NULL };

	mfd = S2(SYS_memfd_create, "x", 0);
	if (mfd < 0)
		return mfd;
	src = S4(SYS_openat, AT_FDCWD, argv[0], O_RDONLY, 0);
	if (src < 0)
		return src;
	while ((n = S3(SYS_read, src, buf, sizeof(buf))) > 0)
		if (S3(SYS_write, mfd, buf, n) != n)
			return -EIO;
	r = S5(SYS_execveat, mfd, "", argv, envp, AT_EMPTY_PATH);
	return r;
}

#if defined(__x86_64__)
static long ia32_call(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(a), "c"(b), "d"(c)
			 : "memory");
	return ret;
}
#endif

int main(int argc, char **argv)
{
	const char *op;
	long r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "-l")) {
		use_libc = 1;
		argv++;
		argc--;
	}
	need(argc, 2, "[-l] OP [ARGS...]");
	op = argv[1];
	argc -= 2;
	argv += 2;

	if (!strcmp(op, "read")) {
		need(argc, 1, "read PATH");
		r = op_read(argv[0]);
	} else if (!strcmp(op, "open")) {
		/* open PATH r|w|rw: only open (a tty or device), never read */
		int fl;

		need(argc, 2, "open PATH r|w|rw");
		fl = !strcmp(argv[1], "rw") ? O_RDWR
		     : argv[1][0] == 'w'    ? O_WRONLY
					    : O_RDONLY;
		r = do_open(argv[0], fl | O_NOCTTY | O_NONBLOCK, 0);
	} else if (!strcmp(op, "shm")) {
		/* shm KEY: attach a SysV segment of someone else, print it */
		long id;

		need(argc, 1, "shm KEY");
		id = S3(SYS_shmget, strtol(argv[0], NULL, 0), 0, 0);
		if (id < 0)
			return result(id);
		r = S3(SYS_shmat, id, NULL, SHM_RDONLY);
		if (r < 0 && r > -4096)
			return result(r);
		fwrite((void *)r, 1, strnlen((char *)r, 256), stdout);
		printf("\n");
		r = id;
	} else if (!strcmp(op, "readat")) {
		/* open DIR, then openat(dirfd, REL): FS-08 */
		long dfd;

		need(argc, 2, "readat DIR REL");
		dfd = S4(SYS_openat, AT_FDCWD, argv[0], O_RDONLY | O_DIRECTORY,
			 0);
		if (dfd < 0)
			return result(dfd);
		r = S4(SYS_openat, dfd, argv[1], O_RDONLY, 0);
		if (r >= 0)
			r = dump_fd(r);
	} else if (!strcmp(op, "write") || !strcmp(op, "append")) {
		need(argc, 1, "write PATH [DATA]");
		r = op_write(argv[0],
			     argc > 1 ? argv[1] : "sbx-attack-payload\n",
			     O_WRONLY | O_APPEND | O_CREAT);
	} else if (!strcmp(op, "creat")) {
		need(argc, 1, "creat PATH [DATA]");
		r = op_write(argv[0],
			     argc > 1 ? argv[1] : "sbx-attack-payload\n",
			     O_WRONLY | O_CREAT | O_TRUNC);
	} else if (!strcmp(op, "trunc")) {
		need(argc, 1, "trunc PATH");
		r = use_libc ? L(truncate(argv[0], 0))
			     : S2(SYS_truncate, argv[0], 0);
	} else if (!strcmp(op, "otrunc")) {
		need(argc, 1, "otrunc PATH");
		r = do_open(argv[0], O_RDONLY | O_TRUNC, 0);
	} else if (!strcmp(op, "mkdir")) {
		need(argc, 1, "mkdir PATH");
		r = use_libc ? L(mkdir(argv[0], 0755))
			     : S3(SYS_mkdirat, AT_FDCWD, argv[0], 0755);
	} else if (!strcmp(op, "unlink")) {
		need(argc, 1, "unlink PATH");
		r = S3(SYS_unlinkat, AT_FDCWD, argv[0], 0);
	} else if (!strcmp(op, "rmdir")) {
		need(argc, 1, "rmdir PATH");
		r = S3(SYS_unlinkat, AT_FDCWD, argv[0], AT_REMOVEDIR);
	} else if (!strcmp(op, "rename")) {
		need(argc, 2, "rename FROM TO");
		r = use_libc ? L(rename(argv[0], argv[1]))
			     : S5(SYS_renameat2, AT_FDCWD, argv[0], AT_FDCWD,
				  argv[1], 0);
	} else if (!strcmp(op, "exchange")) {
		need(argc, 2, "exchange A B");
		r = S5(SYS_renameat2, AT_FDCWD, argv[0], AT_FDCWD, argv[1],
		       2 /* RENAME_EXCHANGE */);
	} else if (!strcmp(op, "link")) {
		need(argc, 2, "link TARGET NEW");
		r = use_libc ? L(link(argv[0], argv[1]))
			     : S5(SYS_linkat, AT_FDCWD, argv[0], AT_FDCWD,
				  argv[1], 0);
	} else if (!strcmp(op, "symlink")) {
		need(argc, 2, "symlink TARGET NEW");
		r = S3(SYS_symlinkat, argv[0], AT_FDCWD, argv[1]);
	} else if (!strcmp(op, "chmod")) {
		need(argc, 2, "chmod PATH OCTAL");
		r = S4(SYS_fchmodat, AT_FDCWD, argv[0],
		       strtol(argv[1], NULL, 8), 0);
	} else if (!strcmp(op, "waitread")) {
		need(argc, 2, "waitread PATH SECS");
		r = wait_new(argv[0], atoi(argv[1]));
		if (r == 0)
			r = op_read(argv[0]);
	} else if (!strcmp(op, "waitwrite")) {
		need(argc, 3, "waitwrite PATH SECS DATA");
		r = wait_new(argv[0], atoi(argv[1]));
		if (r == 0)
			r = op_write(argv[0], argv[2], O_WRONLY | O_APPEND);
	} else if (!strcmp(op, "setid")) {
		/* setid HOW PATH OCTAL: give PATH a mode (PERS-01) through
		 * chmod, fchmod, fchmodat2, or create it with the mode
		 * through open, openat, creat, mknod (a regular file), mkdir; tmpfile makes an O_TMPFILE in
		 * the directory PATH and links it as PATH/setid-tmp */
		const char *how;
		long mode, fd;

		need(argc, 3, "setid HOW PATH OCTAL");
		how = argv[0];
		mode = strtol(argv[2], NULL, 8);
		if (!strcmp(how, "chmod")) {
			r = S2(SYS_chmod, argv[1], mode);
		} else if (!strcmp(how, "fchmod")) {
			fd = S4(SYS_openat, AT_FDCWD, argv[1], O_RDONLY, 0);
			r = fd < 0 ? fd : S2(SYS_fchmod, fd, mode);
		} else if (!strcmp(how, "fchmodat2")) {
			r = S4(452, AT_FDCWD, argv[1], mode, 0);
		} else if (!strcmp(how, "open")) {
			r = S3(SYS_open, argv[1], O_WRONLY | O_CREAT | O_EXCL,
			       mode);
		} else if (!strcmp(how, "openat")) {
			r = S4(SYS_openat, AT_FDCWD, argv[1],
			       O_WRONLY | O_CREAT | O_EXCL, mode);
		} else if (!strcmp(how, "creat")) {
			r = S2(SYS_creat, argv[1], mode);
		} else if (!strcmp(how, "mknod")) { /* W-14 */
			r = S4(SYS_mknodat, AT_FDCWD, argv[1], S_IFREG | mode,
			       0);
		} else if (!strcmp(how, "mkdir")) {
			r = S3(SYS_mkdirat, AT_FDCWD, argv[1], mode);
		} else if (!strcmp(how, "tmpfile")) {
			char p[4096];

			fd = S4(SYS_openat, AT_FDCWD, argv[1],
				O_WRONLY | O_TMPFILE, mode);
			snprintf(p, sizeof p, "%s/setid-tmp", argv[1]);
			r = fd < 0 ? fd
				   : S5(SYS_linkat, fd, "", AT_FDCWD, p,
					AT_EMPTY_PATH);
		} else {
			r = -EINVAL;
		}
	} else if (!strcmp(op, "mknod")) {
		/* mknod PATH chr|blk|fifo: /dev/null's numbers (1,3) */
		long type;

		need(argc, 2, "mknod PATH chr|blk|fifo");
		type = !strcmp(argv[1], "chr")	 ? S_IFCHR
		       : !strcmp(argv[1], "blk") ? S_IFBLK
						 : S_IFIFO;
		r = S4(SYS_mknodat, AT_FDCWD, argv[0], type | 0666,
		       (1 << 8) | 3);
	} else if (!strcmp(op, "mknodold")) {
		need(argc, 1, "mknodold PATH");
		r = S3(SYS_mknod, argv[0], S_IFCHR | 0666, (1 << 8) | 3);
	} else if (!strcmp(op, "chown")) {
		need(argc, 1, "chown PATH");
		r = S5(SYS_fchownat, AT_FDCWD, argv[0], getuid(), getgid(), 0);
	} else if (!strcmp(op, "utime")) {
		struct timespec ts[2] = { { 1000000000, 0 },
					  { 1000000000, 0 } };

		need(argc, 1, "utime PATH");
		r = S4(SYS_utimensat, AT_FDCWD, argv[0], ts, 0);
	} else if (!strcmp(op, "fdattr")) {
		/* fdattr HOW PATH: an attribute change through a descriptor
		 * (E-16): chmod (fchmod of an O_RDONLY fd), chmod2
		 * (fchmodat2 AT_EMPTY_PATH of an O_PATH fd), chown
		 * (fchownat AT_EMPTY_PATH, O_PATH), utime (utimensat of an
		 * O_RDONLY fd), xattr (fsetxattr, O_RDONLY) */
		struct timespec ts[2] = { { 1000000000, 0 },
					  { 1000000000, 0 } };
		const char *how;
		long fd;
		int opath;

		need(argc, 2, "fdattr HOW PATH");
		how = argv[0];
		opath = !strcmp(how, "chmod2") || !strcmp(how, "chown");
		fd = S4(SYS_openat, AT_FDCWD, argv[1],
			opath ? O_PATH : O_RDONLY, 0);
		if (fd < 0)
			r = fd;
		else if (!strcmp(how, "chmod"))
			r = S2(SYS_fchmod, fd, 0666);
		else if (!strcmp(how, "chmod2"))
			r = S4(452, fd, "", 0666, AT_EMPTY_PATH);
		else if (!strcmp(how, "chown"))
			r = S5(SYS_fchownat, fd, "", getuid(), getgid(),
			       AT_EMPTY_PATH);
		else if (!strcmp(how, "utime"))
			r = S4(SYS_utimensat, fd, NULL, ts, 0);
		else if (!strcmp(how, "xattr"))
			r = S5(SYS_fsetxattr, fd, "user.sbxattack", "1", 1, 0);
		else
			r = -EINVAL;
	} else if (!strcmp(op, "setxattr")) {
		need(argc, 1, "setxattr PATH");
		r = S5(SYS_setxattr, argv[0], "user.sbxattack", "1", 1, 0);
	} else if (!strcmp(op, "stat")) {
		struct stat st;

		need(argc, 1, "stat PATH");
		r = S4(SYS_newfstatat, AT_FDCWD, argv[0], &st, 0);
		if (r == 0)
			printf("SIZE %lld\n", (long long)st.st_size);
	} else if (!strcmp(op, "connect") || !strcmp(op, "udp") ||
		   !strcmp(op, "udpconnect") || !strcmp(op, "fastopen") ||
		   !strcmp(op, "mptcp") || !strcmp(op, "sctp") ||
		   !strcmp(op, "ping") || !strcmp(op, "raw") ||
		   !strcmp(op, "listen")) {
		need(argc, 2,
		     "connect|udp|fastopen|mptcp|ping|listen HOST PORT");
		r = op_inet(op, argv[0], argv[1]);
	} else if (!strcmp(op, "unix")) {
		need(argc, 1, "unix PATH");
		r = op_unix(argv[0], 0, SOCK_STREAM);
	} else if (!strcmp(op, "unixdgram")) {
		need(argc, 1, "unixdgram PATH");
		r = op_unix(argv[0], 0, SOCK_DGRAM);
	} else if (!strcmp(op, "listenabs")) {
		/* listenabs NAME: squat an abstract name, accept one client */
		struct sockaddr_un sun = { .sun_family = AF_UNIX };
		size_t n = strlen(argv[0]);
		char buf[128];
		long fd, c;

		need(argc, 1, "listenabs NAME");
		if (n > sizeof(sun.sun_path) - 2)
			return result(-ENAMETOOLONG);
		memcpy(sun.sun_path + 1, argv[0], n);
		fd = S3(SYS_socket, AF_UNIX, SOCK_STREAM, 0);
		if (fd < 0)
			return result(fd);
		r = S3(SYS_bind, fd, &sun,
		       offsetof(struct sockaddr_un, sun_path) + 1 + n);
		if (r == 0)
			r = S2(SYS_listen, fd, 4);
		if (r < 0)
			return result(r);
		printf("LISTENING\n");
		fflush(stdout);
		c = S3(SYS_accept, fd, 0, 0);
		if (c < 0)
			return result(c);
		r = S3(SYS_read, c, buf, sizeof(buf));
		if (r > 0)
			fwrite(buf, 1, (size_t)r, stdout);
	} else if (!strcmp(op, "unixabs")) {
		need(argc, 1, "unixabs NAME");
		r = op_unix(argv[0], 1, SOCK_STREAM);
	} else if (!strcmp(op, "socket")) {
		need(argc, 2, "socket FAMILY TYPE [PROTO]");
		r = op_socket(argv[0], argv[1], argc > 2 ? argv[2] : NULL);
	} else if (!strcmp(op, "tiocsti")) {
		/* tiocsti FD [hi] [TEXT]: push TEXT into the tty's input */
		const char *text = argc > 2 ? argv[2] : "echo SBX-INJECTED\n";
		unsigned long req = TIOCSTI;

		need(argc, 1, "tiocsti FD [hi] [TEXT]");
		if (argc > 1 && !strcmp(argv[1], "hi"))
			req |= 1UL << 32;
		r = 0;
		for (const char *c = text; *c && r >= 0; c++)
			r = S3(SYS_ioctl, atoi(argv[0]), req, c);
	} else if (!strcmp(op, "tioclinux")) {
		char sub[8] = { 3 /* TIOCL_PASTESEL */ };
		unsigned long req = TIOCLINUX;

		need(argc, 1, "tioclinux FD [hi]");
		if (argc > 1 && !strcmp(argv[1], "hi"))
			req |= 1UL << 32;
		r = S3(SYS_ioctl, atoi(argv[0]), req, sub);
	} else if (!strcmp(op, "ioctl")) {
		int v = 0;

		need(argc, 2, "ioctl FD REQ");
		r = S3(SYS_ioctl, atoi(argv[0]), strtoul(argv[1], NULL, 0), &v);
	} else if (!strcmp(op, "x32")) {
		/* x32 getpid; a correct filter kills or fails it */
		r = S0(X32_BIT | SYS_getpid);
	} else if (!strcmp(op, "x32open")) {
		need(argc, 1, "x32open PATH");
		r = S4(X32_BIT | SYS_openat, AT_FDCWD, argv[0], O_RDONLY, 0);
		if (r >= 0)
			r = dump_fd(r);
	} else if (!strcmp(op, "ia32")) {
#if defined(__x86_64__)
		r = ia32_call(20 /* i386 getpid */, 0, 0, 0);
#else
		r = -ENOTSUP;
#endif
	} else if (!strcmp(op, "ia32socketcall")) {
#if defined(__x86_64__)
		/* socketcall(SYS_SOCKET, args) with args at a bad address */
		r = ia32_call(102, 1, 0, 0);
#else
		r = -ENOTSUP;
#endif
	} else if (!strcmp(op, "nr")) {
		need(argc, 1, "nr NUMBER");
		r = S0(strtol(argv[0], NULL, 0));
	} else if (!strcmp(op, "clone3")) {
		/* size 0: the kernel would say EINVAL */
		r = S2(SYS_clone3, NULL, 0);
	} else if (!strcmp(op, "clone3ns")) {
		struct clone_args ca;

		memset(&ca, 0, sizeof(ca));
		ca.flags = CLONE_NEWUSER | CLONE_NEWNS;
		ca.exit_signal = SIGCHLD;
		r = S2(SYS_clone3, &ca, sizeof(ca));
		if (r == 0)
			_exit(0);
		if (r > 0)
			waitpid((pid_t)r, NULL, 0);
	} else if (!strcmp(op, "clonens")) {
		/* classic clone with namespace flags, child exits at once */
		r = S5(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
		if (r == 0)
			_exit(0);
		if (r > 0)
			waitpid((pid_t)r, NULL, 0);
	} else if (!strcmp(op, "openat2")) {
		uint64_t how[3] = { O_RDONLY, 0, 0 };

		need(argc, 1, "openat2 PATH");
		r = S4(SYS_openat2, AT_FDCWD, argv[0], how, sizeof(how));
		if (r >= 0)
			r = dump_fd(r);
	} else if (!strcmp(op, "unshare")) {
		need(argc, 1, "unshare user|mnt|net|pid|ipc|uts|cgroup");
		r = op_unshare(argv[0]);
	} else if (!strcmp(op, "setns")) {
		long fd;

		need(argc, 1, "setns NSFILE");
		fd = S4(SYS_openat, AT_FDCWD, argv[0], O_RDONLY, 0);
		if (fd < 0)
			return result(fd);
		r = S2(SYS_setns, fd, 0);
	} else if (!strcmp(op, "setns_bad")) {
		r = S2(SYS_setns, -1, 0); /* EBADF if it reached the kernel */
	} else if (!strcmp(op, "mount")) {
		need(argc, 1, "mount TARGET");
		r = S5(SYS_mount, "none", argv[0], "tmpfs", 0, NULL);
	} else if (!strcmp(op, "bindmount")) {
		need(argc, 2, "bindmount SRC TARGET");
		r = S5(SYS_mount, argv[0], argv[1], NULL, MS_BIND | MS_REC,
		       NULL);
	} else if (!strcmp(op, "remount")) {
		need(argc, 1, "remount TARGET");
		r = S5(SYS_mount, NULL, argv[0], NULL, MS_REMOUNT | MS_BIND,
		       NULL);
	} else if (!strcmp(op, "umount")) {
		need(argc, 1, "umount TARGET");
		r = S2(SYS_umount2, argv[0], MNT_DETACH);
	} else if (!strcmp(op, "pivot_root")) {
		r = S2(SYS_pivot_root, "/nonexistent-new", "/nonexistent-old");
	} else if (!strcmp(op, "chroot")) {
		need(argc, 1, "chroot DIR");
		r = S1(SYS_chroot, argv[0]);
	} else if (!strcmp(op, "open_tree")) {
		need(argc, 1, "open_tree PATH");
		r = S3(SYS_open_tree, AT_FDCWD, argv[0], 0);
	} else if (!strcmp(op, "open_tree_clone")) {
		need(argc, 1, "open_tree_clone PATH");
		r = S3(SYS_open_tree, AT_FDCWD, argv[0],
		       1 /* OPEN_TREE_CLONE */);
	} else if (!strcmp(op, "open_tree_attr")) {
		/* 6.15+: open_tree with mount attributes; same as open_tree */
		need(argc, 1, "open_tree_attr PATH");
		r = S5(467, AT_FDCWD, argv[0], 0, NULL, 0);
	} else if (!strcmp(op, "fsopen")) {
		r = S2(SYS_fsopen, "tmpfs", 0);
	} else if (!strcmp(op, "fspick")) {
		r = S3(SYS_fspick, AT_FDCWD, "/", 0);
	} else if (!strcmp(op, "fsconfig")) {
		r = S5(SYS_fsconfig, -1, 0, NULL, NULL, 0);
	} else if (!strcmp(op, "fsmount")) {
		r = S3(SYS_fsmount, -1, 0, 0);
	} else if (!strcmp(op, "move_mount")) {
		r = S5(SYS_move_mount, -1, "", AT_FDCWD, "/nonexistent", 0);
	} else if (!strcmp(op, "mount_setattr")) {
		r = S5(SYS_mount_setattr, -1, "", 0, NULL, 0);
	} else if (!strcmp(op, "bpf")) {
		r = S3(SYS_bpf, 0 /* BPF_MAP_CREATE */, NULL,
		       0); /* EFAULT/EINVAL */
	} else if (!strcmp(op, "perf_event_open")) {
		r = S5(SYS_perf_event_open, NULL, 0, -1, -1, 0); /* EFAULT */
	} else if (!strcmp(op, "userfaultfd")) {
		r = S1(SYS_userfaultfd, 0x7fffffff); /* EINVAL */
	} else if (!strcmp(op, "keyctl")) {
		/* read the id of the user keyring */
		r = S3(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -4 /* USER */,
		       0);
	} else if (!strcmp(op, "add_key")) {
		r = S5(SYS_add_key, "user", "sbxattack", "x", 1,
		       -2 /* PROCESS */);
	} else if (!strcmp(op, "request_key")) {
		r = S4(SYS_request_key, "user", "sbxattack", NULL, 0);
	} else if (!strcmp(op, "kexec_load")) {
		r = S4(SYS_kexec_load, 0, 0, NULL, 0);
	} else if (!strcmp(op, "init_module")) {
		r = S3(SYS_init_module, NULL, 0, "");
	} else if (!strcmp(op, "finit_module")) {
		r = S3(SYS_finit_module, -1, "", 0);
	} else if (!strcmp(op, "delete_module")) {
		r = S2(SYS_delete_module, "sbxattack_nomod", 0);
	} else if (!strcmp(op, "open_by_handle_at")) {
		r = S3(SYS_open_by_handle_at, -1, NULL, 0);
	} else if (!strcmp(op, "name_to_handle_at")) {
		char h[128 + 8];
		int mnt;

		*(unsigned *)h = 128;
		r = S5(SYS_name_to_handle_at, AT_FDCWD, "/", h, &mnt, 0);
	} else if (!strcmp(op, "acct")) {
		r = S1(SYS_acct, NULL);
	} else if (!strcmp(op, "quotactl")) {
		r = S4(SYS_quotactl, 0, NULL, 0, NULL);
	} else if (!strcmp(op, "swapoff")) {
		r = S1(SYS_swapoff, "/nonexistent");
	} else if (!strcmp(op, "reboot")) {
		r = S4(SYS_reboot, 0, 0, 0, NULL); /* bad magic: EINVAL */
	} else if (!strcmp(op, "syslog")) {
		char b[16];

		r = S3(SYS_syslog, 3 /* READ_ALL */, b, sizeof(b));
	} else if (!strcmp(op, "ptrace")) {
		need(argc, 1, "ptrace PID");
		r = S4(SYS_ptrace, 16 /* PTRACE_ATTACH */, atol(argv[0]), 0, 0);
	} else if (!strcmp(op, "ptrace_traceme")) {
		r = S4(SYS_ptrace, 0 /* TRACEME */, 0, 0, 0);
	} else if (!strcmp(op, "pvread") || !strcmp(op, "pvwrite")) {
		char buf[8] = "x";
		struct iovec l = { buf, sizeof(buf) },
			     rm = { (void *)0x10000, 8 };

		need(argc, 1, "pvread PID");
		r = S6(op[2] == 'r' ? SYS_process_vm_readv
				    : SYS_process_vm_writev,
		       atol(argv[0]), &l, 1, &rm, 1, 0);
	} else if (!strcmp(op, "pidfd_getfd")) {
		long pfd;

		need(argc, 2, "pidfd_getfd PID FD");
		pfd = S2(SYS_pidfd_open, atol(argv[0]), 0);
		if (pfd < 0)
			return result(pfd);
		r = S3(SYS_pidfd_getfd, pfd, atol(argv[1]), 0);
		if (r >= 0) {
			S3(SYS_lseek, r, 0, SEEK_SET);
			dump_fd(r);
		}
	} else if (!strcmp(op, "pidfd_signal")) {
		long pfd;

		need(argc, 1, "pidfd_signal PID");
		pfd = S2(SYS_pidfd_open, atol(argv[0]), 0);
		if (pfd < 0)
			return result(pfd);
		r = S4(424 /* pidfd_send_signal */, pfd, SIGKILL, NULL, 0);
	} else if (!strcmp(op, "io_uring")) {
		char params[120];

		memset(params, 0, sizeof(params));
		r = S2(SYS_io_uring_setup, 1, params);
	} else if (!strcmp(op, "personality")) {
		need(argc, 1, "personality VALUE");
		r = S1(SYS_personality, strtoul(argv[0], NULL, 0));
		if (r >= 0) {
			/* did it stick? */
			long now = S1(SYS_personality, 0xffffffff);

			printf("PERSONALITY 0x%lx\n", now);
			if (now == (long)strtoul(argv[0], NULL, 0) && now != 0)
				r = now;
			else
				r = -ENOTRECOVERABLE; /* accepted but no effect */
		}
	} else if (!strcmp(op, "seccomp_listener")) {
		r = op_seccomp_listener();
	} else if (!strcmp(op, "memfd_exec")) {
		need(argc, 1, "memfd_exec PROGRAM [ARGS...]");
		r = op_memfd_exec(argc, argv);
	} else if (!strcmp(op, "kill")) {
		need(argc, 2, "kill PID SIG");
		r = S2(SYS_kill, atol(argv[0]), atoi(argv[1]));
	} else if (!strcmp(op, "tgkill")) {
		need(argc, 2, "tgkill PID SIG");
		r = S3(SYS_tgkill, atol(argv[0]), atol(argv[0]), atoi(argv[1]));
	} else if (!strcmp(op, "prlimit")) {
		/* prlimit PID: RLIMIT_CPU = 1 s and RLIMIT_NOFILE = 3 on PID */
		struct rlimit cpu = { 1, 1 }, nf = { 3, 3 };

		need(argc, 1, "prlimit PID");
		r = S4(SYS_prlimit64, atol(argv[0]), RLIMIT_NOFILE, &nf, NULL);
		if (r == 0)
			r = S4(SYS_prlimit64, atol(argv[0]), RLIMIT_CPU, &cpu,
			       NULL);
	} else if (!strcmp(op, "setprio")) {
		/* setprio process|user WHO NICE */
		need(argc, 3, "setprio process|user WHO NICE");
		r = S3(SYS_setpriority,
		       !strcmp(argv[0], "user") ? 2 /* PRIO_USER */ : 0,
		       atol(argv[1]), atol(argv[2]));
	} else if (!strcmp(op, "ioprio")) {
		/* ioprio process|user WHO: idle class */
		need(argc, 2, "ioprio process|user WHO");
		r = S3(SYS_ioprio_set,
		       !strcmp(argv[0], "user") ? 3 /* WHO_USER */ : 1,
		       atol(argv[1]), 3 << 13 /* IOPRIO_CLASS_IDLE */);
	} else if (!strcmp(op, "sched_idle")) {
		struct {
			int prio;
		} sp = { 0 };

		need(argc, 1, "sched_idle PID");
		r = S3(SYS_sched_setscheduler, atol(argv[0]),
		       5 /* SCHED_IDLE */, &sp);
	} else if (!strcmp(op, "getppid")) {
		r = S0(SYS_getppid);
	} else if (!strcmp(op, "getpid")) {
		r = S0(SYS_getpid);
	} else if (!strcmp(op, "status")) {
		r = op_status();
	} else if (!strcmp(op, "fds")) {
		r = op_fds();
	} else if (!strcmp(op, "forkcount")) {
		need(argc, 1, "forkcount MAX");
		r = op_forkcount(atol(argv[0]));
	} else if (!strcmp(op, "alloc")) {
		/* alloc MB: touch every page */
		size_t n;
		char *p;

		need(argc, 1, "alloc MB");
		n = (size_t)atol(argv[0]) << 20;
		p = mmap(NULL, n, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return result(-errno);
		for (size_t i = 0; i < n; i += 4096)
			p[i] = 1;
		r = (long)(n >> 20);
	} else if (!strcmp(op, "bigfile")) {
		/* bigfile PATH: ftruncate to 1 TiB, pwrite at 4 GiB */
		long fd;

		need(argc, 1, "bigfile PATH");
		signal(SIGXFSZ, SIG_IGN);
		fd = S4(SYS_openat, AT_FDCWD, argv[0], O_WRONLY | O_CREAT,
			0644);
		if (fd < 0)
			return result(fd);
		r = S2(SYS_ftruncate, fd, 1LL << 40);
		printf("FTRUNCATE %s\n", r < 0 ? ename(-r) : "OK");
		r = S4(SYS_pwrite64, fd, "x", 1, 1LL << 32);
	} else if (!strcmp(op, "mprotect_exec")) {
		/* mmap a file from PATH with PROT_EXEC (noexec mounts refuse) */
		long fd;
		void *p;

		need(argc, 1, "mprotect_exec PATH");
		fd = S4(SYS_openat, AT_FDCWD, argv[0], O_RDONLY, 0);
		if (fd < 0)
			return result(fd);
		p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE,
			 (int)fd, 0);
		r = p == MAP_FAILED ? -errno : 0;
	} else {
		fprintf(stderr, "atk_syscall: unknown op %s\n", op);
		return 2;
	}
	return result(r);
}
