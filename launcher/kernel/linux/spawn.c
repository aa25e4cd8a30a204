/*
 * spawn.c - start one command in the sandbox and supervise its whole tree
 * (DESIGN §7 layers 1 and 4, §9 exit codes).
 *
 * Process shapes:
 *
 *   full mode       supervisor ── pid 1 (new user+mount+pid+ipc[+net] ns)
 *                                   └── command
 *   landlock-only   supervisor ── keeper (child subreaper)
 *                                   └── command
 *
 * The command process does the same in both modes: setsid, limits,
 * no_new_privs, capabilities dropped, Landlock, seccomp, exec.  pid 1
 * builds the mount view first.  pid 1 and the keeper fork the command and
 * reap; when the command exits they pass its wait status up and exit.  In
 * full mode the kernel then kills whatever is left in the pid namespace;
 * the keeper, a child subreaper that every orphan reparents to, kills the
 * rest itself, and does so too when the supervisor dies.  Either way
 * nothing the command started survives it (PRC-03, PRC-04).
 *
 * Everything the children have to say before exec travels over one
 * SOCK_SEQPACKET socketpair, the channel: a layer that failed (fail closed:
 * nothing runs and sbx_launch returns -1), a layer that is missing under
 * fallback = warn, the errno of a failed exec, the reaper's report of the
 * command's wait status, and the bound report socket (SCM_RIGHTS).  The
 * children's end is close-on-exec, so the command never holds it.
 *
 * The supervisor loop polls a signalfd (SIGCHLD, and SIGINT/SIGTERM/SIGHUP
 * to forward), the channel, the report socket, the capture pipes and the
 * stdin feed, with the timeout as the poll deadline.
 *
 * Library caveats: while sbx_launch runs it blocks SIGCHLD, SIGINT,
 * SIGTERM, SIGHUP and SIGPIPE in the calling thread, sets SIGCHLD to its
 * default action, and in landlock-only mode becomes a child subreaper; all
 * restored before it returns.  It expects to be called from a
 * single-threaded process (the CLI is), and in landlock-only mode treats
 * any child of the caller started after the launch as part of the sandbox.
 *
 * One cleanup idiom in this file: goto out.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/securebits.h>

#include "compat.h"
#include "kernel.h"

/* Channel messages, children -> supervisor. */
enum {
	MSG_FAIL = 1, /* text: layer and reason; nothing will run */
	MSG_WARN, /* text: what is not enforced (fallback warn) */
	MSG_EXEC, /* val: errno of the failed exec */
	MSG_STATUS, /* val: the command's wait status, from pid 1 */
	MSG_REPORT, /* SCM_RIGHTS: the bound report socket */
};

struct chan_msg {
	int kind;
	int val;
	char text[960];
};

/* The supervisor's poll set, one fixed slot each; -1 = inactive. */
/* P_CHILD is a pidfd of our child: SIGCHLD is process-directed, and with
 * sbx_run() in several threads another thread's signalfd may take it. */
enum { P_SIG, P_CHAN, P_REPORT, P_IN, P_OUT, P_ERR, P_CHILD, P_N };

struct sup {
	struct sbx_launch *l;
	struct sbx_exit *x;
	struct sbx_err *err;
	enum sbx_kmode mode;
	char **envp; /* what the command gets */
	char *own[6]; /* the variables we added */
	char report_name[64];
	int chan[2]; /* [0] supervisor, [1] children until exec */
	int sync[2]; /* full mode: the "maps written, go" byte */
	int cfd[3]; /* dup'ed onto 0, 1, 2 in the child, or -1 */
	int cpipe[3]; /* our pipe ends that belong to the child */
	int fd[P_N];
	sigset_t oldmask;
	struct sigaction oldchld;
	int signals_set;
	int old_dumpable, old_subreaper, subreaper_set;
	pid_t self, child;
	unsigned long long child_start; /* clock ticks since boot */
	int child_done, child_status;
	int cmd_status_known, cmd_status;
	int failed, clone_failed, exec_errno, timed_out;
	size_t in_off;
	uint64_t t0, t_end, deadline;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int exit_code(int st)
{
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 125;
}

/* ------------------------------------------------------------------ */
/* Children: the channel                                               */

static void chan_put(int fd, int kind, int val, const char *text)
{
	struct chan_msg m;
	int saved = errno;

	memset(&m, 0, sizeof m);
	m.kind = kind;
	m.val = val;
	snprintf(m.text, sizeof m.text, "%s", text ? text : "");
	(void)send(fd, &m, sizeof m, MSG_NOSIGNAL);
	errno = saved;
}

__attribute__((format(printf, 3, 4))) static void chan_say(int fd, int kind,
							   const char *fmt, ...)
{
	char text[sizeof((struct chan_msg *)0)->text];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	chan_put(fd, kind, 0, text);
}

/* The bound report socket goes to the supervisor as SCM_RIGHTS. */
static int chan_send_fd(int chan, int fd)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} u;
	struct chan_msg m;
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof m };
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.b,
		.msg_controllen = sizeof u.b,
	};
	struct cmsghdr *c;

	memset(&m, 0, sizeof m);
	memset(&u, 0, sizeof u);
	m.kind = MSG_REPORT;
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof fd);
	return sendmsg(chan, &mh, MSG_NOSIGNAL) < 0 ? -1 : 0;
}

/* A layer could not be applied.  fallback = warn: say loudly what is not
 * enforced and go on.  Otherwise fail closed: nothing runs. */
static void layer_failed(const struct sup *s, const char *layer,
			 const struct sbx_err *e)
{
	if (s->l->warn_missing) {
		chan_say(s->chan[1], MSG_WARN, "%s is NOT enforced: %s", layer,
			 e->msg);
		return;
	}
	chan_say(s->chan[1], MSG_FAIL, "%s: %s", layer, e->msg);
	_exit(125);
}

/* ------------------------------------------------------------------ */
/* Children: descriptors                                               */

static int close_span(unsigned lo, unsigned hi)
{
	long max;

	if (lo > hi || close_range(lo, hi, 0) == 0)
		return 0;
	if (errno != ENOSYS)
		return -1;
	max = sysconf(_SC_OPEN_MAX);
	for (; lo <= hi && (long)lo < (max < 0 ? 65536 : max); lo++)
		close((int)lo);
	return 0;
}

/* Close every descriptor above 2 except keep[0..1] (-1: unused). */
static int close_except(int a, int b)
{
	unsigned lo = 3;
	int k[2], i;

	k[0] = a < b ? a : b;
	k[1] = a < b ? b : a;
	for (i = 0; i < 2; i++) {
		if (k[i] < 3)
			continue;
		if (close_span(lo, (unsigned)k[i] - 1) < 0)
			return -1;
		lo = (unsigned)k[i] + 1;
	}
	return close_span(lo, ~0U);
}

/* Stdio first, through fresh duplicates so that fd_out == 0 and the like
 * cannot clobber each other; then every other descriptor is closed
 * (LCH-02): whatever the caller leaked, and the supervisor's ends of the
 * pipes (pid 1 holding the write end of a stdin pipe would keep the
 * command from ever seeing EOF).  Only the channel and, in pid 1, the sync
 * pipe survive; both are close-on-exec. */
static int child_fds(const struct sup *s, int keep_sync)
{
	int tmp[3], i;

	for (i = 0; i < 3; i++) {
		tmp[i] = -1;
		if (s->cfd[i] >= 0) {
			tmp[i] = fcntl(s->cfd[i], F_DUPFD_CLOEXEC, 3);
			if (tmp[i] < 0)
				return -1;
		}
	}
	for (i = 0; i < 3; i++)
		if (tmp[i] >= 0 && dup2(tmp[i], i) < 0)
			return -1;
	return close_except(s->chan[1], keep_sync ? s->sync[0] : -1);
}

/* Everything left open at exec time is closed by exec: the report socket
 * and the channel are already close-on-exec, and this catches anything a
 * layer (Landlock ruleset, libseccomp) might have left behind. */
static int cloexec_all(void)
{
	long fd, max;

	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return 0;
	if (errno != ENOSYS && errno != EINVAL)
		return -1;
	max = sysconf(_SC_OPEN_MAX);
	for (fd = 3; fd < (max < 0 ? 65536 : max); fd++)
		(void)fcntl((int)fd, F_SETFD, FD_CLOEXEC);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Children: process hygiene                                           */

static int set_limits(const struct sbx_limits *lim, struct sbx_err *e)
{
	const struct {
		int res;
		uint64_t v;
		const char *name;
	} t[] = {
		{ RLIMIT_CPU, lim->cpu, "cpu" },
		{ RLIMIT_AS, lim->memory, "memory" },
		{ RLIMIT_NOFILE, lim->nofile, "nofile" },
		{ RLIMIT_NPROC, lim->nproc, "nproc" },
		{ RLIMIT_FSIZE, lim->fsize, "fsize" },
	};
	struct rlimit r;
	size_t i;

	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		if (t[i].v == 0)
			continue;
#if defined(__SANITIZE_ADDRESS__)
		/* An ASan launcher (make check-asan only) reserves terabytes
		 * of shadow memory; an address-space limit set before exec
		 * makes its own allocations fail.  Release builds keep it. */
		if (t[i].res == RLIMIT_AS)
			continue;
#endif
		if (getrlimit(t[i].res, &r) < 0)
			return sbx_errf(e, 0, "getrlimit(%s): %m", t[i].name);
		/* Soft and hard both: the command cannot raise it again.
		 * Never above the current hard limit (only lowering is
		 * allowed without privilege). */
		if (r.rlim_max == RLIM_INFINITY || t[i].v < r.rlim_max)
			r.rlim_max = (rlim_t)t[i].v;
		r.rlim_cur = r.rlim_max;
		if (setrlimit(t[i].res, &r) < 0)
			return sbx_errf(e, 0, "setrlimit(%s): %m", t[i].name);
	}
	return 0;
}

#define SECBITS_ALL_LOCKED                                               \
	(SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP | \
	 SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |       \
	 SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED)

/* Drop every capability for good.  In full mode a process holds every
 * capability of its user namespace, which owns the mount namespace: with
 * CAP_SYS_ADMIN it could unmount the view.  A caller that is root holds
 * real ones.  exec would recompute them: for uid 0 from the bounding set,
 * for any uid from file capabilities (no_new_privs limits those to the
 * current permitted set, which is full).  So: securebits locked so uid 0
 * earns nothing at exec, bounding and ambient sets emptied, then the three
 * sets cleared, and checked.  Without CAP_SETPCAP (unprivileged caller,
 * landlock-only mode) the sets are empty already and no_new_privs keeps
 * them so. */
static int drop_caps(struct sbx_err *e)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	int c;

	memset(d, 0, sizeof d);
	if (syscall(SYS_capget, &h, d) < 0)
		return sbx_errf(e, 0, "capget: %m");
	if (d[0].effective & (1u << CAP_SETPCAP)) {
		if (prctl(PR_SET_SECUREBITS, SECBITS_ALL_LOCKED, 0, 0, 0) < 0)
			return sbx_errf(e, 0, "PR_SET_SECUREBITS: %m");
		for (c = 0; prctl(PR_CAPBSET_READ, c, 0, 0, 0) >= 0; c++)
			if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0)
				return sbx_errf(e, 0, "PR_CAPBSET_DROP(%d): %m",
						c);
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 &&
	    errno != EINVAL)
		return sbx_errf(e, 0, "PR_CAP_AMBIENT_CLEAR_ALL: %m");
	memset(d, 0, sizeof d);
	if (syscall(SYS_capset, &h, d) < 0)
		return sbx_errf(e, 0, "capset: %m");
	if (syscall(SYS_capget, &h, d) < 0 ||
	    (d[0].effective | d[0].permitted | d[0].inheritable |
	     d[1].effective | d[1].permitted | d[1].inheritable) != 0)
		return sbx_errf(e, 0,
				"capabilities are still held after dropping");
	return 0;
}

/* loopback: the new network namespace starts with lo down. */
static int lo_up(struct sbx_err *e)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = -1;

	if (fd < 0)
		return sbx_errf(e, 0, "socket: %m");
	memset(&ifr, 0, sizeof ifr);
	memcpy(ifr.ifr_name, "lo", 3);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0) {
		sbx_errf(e, 0, "SIOCGIFFLAGS lo: %m");
		goto out;
	}
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0) {
		sbx_errf(e, 0, "SIOCSIFFLAGS lo: %m");
		goto out;
	}
	rc = 0;
out:
	close(fd);
	return rc;
}

static void hygiene(const struct sup *s)
{
	struct sbx_err e;

	if (set_limits(&s->l->pol->limits, &e) < 0)
		layer_failed(s, "resource limits", &e);
	/* SHM-06: set-uid bits and file capabilities are inert from here
	 * on; it is also what lets an unprivileged process install Landlock
	 * and seccomp. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		sbx_errf(&e, 0, "PR_SET_NO_NEW_PRIVS: %m");
		layer_failed(s, "no_new_privs", &e);
	}
	if (drop_caps(&e) < 0)
		layer_failed(s, "capability drop", &e);
}

/* ------------------------------------------------------------------ */
/* Children: the report socket and exec                                */

/* The report channel (HACKING.md).  Made here, after Landlock's
 * restrict_self, because the abstract-socket scope only lets the sandbox
 * reach sockets created inside its domain.  The bound socket goes to the
 * supervisor and is closed here: the command only knows its name.
 * SO_PASSCRED makes every datagram carry the sender's pid as the kernel
 * saw it, so nobody can write records in another process's name. */
static void report_socket(const struct sup *s)
{
	struct sockaddr_un a;
	size_t n = strlen(s->report_name);
	socklen_t len =
		(socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	int one = 1, fd;

	memset(&a, 0, sizeof a);
	a.sun_family = AF_UNIX;
	memcpy(a.sun_path + 1, s->report_name, n); /* abstract: \0name */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, len) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0 ||
	    chan_send_fd(s->chan[1], fd) < 0)
		chan_say(s->chan[1], MSG_WARN,
			 "the refusal report channel "
			 "is not available: %m");
	if (fd >= 0)
		close(fd);
}

static const char *env_get(char *const *envp, const char *name)
{
	size_t n = strlen(name);

	for (; envp && *envp; envp++)
		if (strncmp(*envp, name, n) == 0 && (*envp)[n] == '=')
			return *envp + n + 1;
	return NULL;
}

/* ENOEXEC: a script without #!, run by /bin/sh as execvp(3) does. */
static void exec_script(const char *path, char *const argv[],
			char *const envp[])
{
	size_t n = 0;
	char **av;

	while (argv[n])
		n++;
	av = calloc(n + 2, sizeof *av);
	if (av) {
		av[0] = (char *)"/bin/sh";
		av[1] = (char *)path;
		memcpy(av + 2, argv + 1, (n - 1) * sizeof *av);
		execve("/bin/sh", av, envp);
		free(av);
	}
	errno = ENOEXEC;
}

static int try_exec(const char *path, char *const argv[], char *const envp[])
{
	execve(path, argv, envp);
	if (errno == ENOEXEC)
		exec_script(path, argv, envp);
	return errno;
}

/* execvpe(3) semantics, but the PATH is the command's (from its envp), not
 * the launcher's.  Returns the errno to report: EACCES if any candidate was
 * not executable, else ENOENT, or the first other hard error. */
static int exec_path(char *const argv[], char *const envp[])
{
	const char *file = argv[0], *path = env_get(envp, "PATH"), *p, *q;
	size_t flen = strlen(file), dl;
	int e, eacces = 0;
	char buf[PATH_MAX];

	if (!*file)
		return ENOENT;
	if (strchr(file, '/'))
		return try_exec(file, argv, envp);
	for (p = path ? path : "/usr/local/bin:/usr/bin:/bin";; p = q + 1) {
		q = strchrnul(p, ':');
		dl = (size_t)(q - p);
		e = ENAMETOOLONG;
		if (dl + 1 + flen < sizeof buf) {
			memcpy(buf, p, dl);
			if (dl) /* an empty entry is the current directory */
				buf[dl++] = '/';
			memcpy(buf + dl, file, flen + 1);
			e = try_exec(buf, argv, envp);
		}
		/* A PATH directory we may not search (root's ~/.pyenv for
		 * another user) is "not there", not "cannot run": 127. */
		if (e == EACCES) {
			if (access(buf, F_OK) == 0)
				eacces = 1;
		} else if (e != ENOENT && e != ENOTDIR && e != ENAMETOOLONG &&
			   e != ESTALE && e != ENODEV && e != ETIMEDOUT)
			return e;
		if (!*q)
			break;
	}
	return eacces ? EACCES : ENOENT;
}

/* The command process, in both modes.  Order matters: no_new_privs and
 * the capability drop before the layers (Landlock and seccomp need
 * no_new_privs without CAP_SYS_ADMIN), Landlock before the report socket
 * (scope), seccomp last (it may forbid what comes before it). */
static void __attribute__((noreturn)) cmd_main(const struct sup *s)
{
	const struct sbx_launch *l = s->l;
	struct sbx_err e;
	int r;

	sigprocmask(SIG_SETMASK, &s->oldmask, NULL);
	if (!l->keep_tty)
		setsid(); /* TTY-01: no terminal shared with the caller */
	hygiene(s);
	if (l->workdir && chdir(l->workdir) < 0) {
		chan_say(s->chan[1], MSG_FAIL,
			 "cannot enter the working "
			 "directory '%s' in the sandbox: %m",
			 l->workdir);
		_exit(125);
	}
	if (sbx_landlock_apply(l->pol, s->mode,
			       l->feat ? l->feat->landlock_abi : 0, &e) < 0)
		layer_failed(s, "Landlock", &e);
	report_socket(s);
	if (cloexec_all() < 0) {
		chan_say(s->chan[1], MSG_FAIL, "close descriptors: %m");
		_exit(125);
	}
	if (sbx_seccomp_apply(l->pol, s->mode, &e) < 0)
		layer_failed(s, "seccomp", &e);
	r = exec_path(l->argv, s->envp);
	chan_put(s->chan[1], MSG_EXEC, r, NULL);
	_exit(r == ENOENT ? 127 : 126);
}

/* ------------------------------------------------------------------ */
/* The process tree without a pid namespace                            */

/* Fields 4 (ppid) and 22 (starttime) of /proc/PID/stat. */
static int proc_stat(pid_t pid, pid_t *ppid, unsigned long long *start)
{
	char path[64], buf[1024], *p;
	int fd, f;
	ssize_t n;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* the name may contain anything */
	if (!p)
		return -1;
	for (f = 2; p && f < 22; f++) {
		p = strchr(p + 1, ' ');
		if (p && f == 3)
			*ppid = (pid_t)strtol(p + 1, NULL, 10);
	}
	if (!p)
		return -1;
	*start = strtoull(p + 1, NULL, 10);
	return 0;
}

struct proc {
	pid_t pid, ppid;
	unsigned long long start;
	int mark;
};

static int proc_cmp(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int read_procs(struct proc **out, size_t *n)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	struct proc *v = NULL, *t;
	size_t cap = 0;

	*n = 0;
	if (!d)
		return -1;
	while ((de = readdir(d)) != NULL) {
		pid_t pid = (pid_t)strtol(de->d_name, NULL, 10);

		if (pid <= 0)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			t = realloc(v, cap * sizeof *v);
			if (!t)
				break;
			v = t;
		}
		v[*n].pid = pid;
		v[*n].mark = 0;
		if (proc_stat(pid, &v[*n].ppid, &v[*n].start) == 0)
			(*n)++;
	}
	closedir(d);
	*out = v;
	return 0;
}

/* Every descendant of root that belongs to the sandbox: root's children
 * started no earlier than min_start (the supervisor's caller may have
 * children of its own, which are not ours to kill), and theirs,
 * transitively.  Marked in place. */
static size_t mark_tree(pid_t root, unsigned long long min_start,
			struct proc *v, size_t n)
{
	size_t i, count = 0;
	int changed = 1;
	struct proc key, *par;

	qsort(v, n, sizeof *v, proc_cmp);
	while (changed) {
		changed = 0;
		for (i = 0; i < n; i++) {
			if (v[i].mark)
				continue;
			key.pid = v[i].ppid;
			par = bsearch(&key, v, n, sizeof *v, proc_cmp);
			if ((v[i].ppid == root && v[i].start >= min_start) ||
			    (par && par->mark)) {
				v[i].mark = 1;
				changed = 1;
				count++;
			}
		}
	}
	return count;
}

/* Does root (us) still have a child?  Reaps the dead ones on the way. */
static int children_left(void)
{
	int st;

	while (waitpid(-1, &st, WNOHANG | __WALL) > 0)
		;
	return errno != ECHILD;
}

/* Has root (us) any child at all?  Reaps none.  Every descendant of the
 * sandbox has an ancestor among our children (we are a subreaper, and
 * the sandbox cannot make a pid namespace), so without one there is no
 * tree to scan /proc for -- the common case, and a scan costs about a
 * millisecond on a busy machine. */
static int has_children(void)
{
	siginfo_t si;

	memset(&si, 0, sizeof si);
	return waitid(P_ALL, 0, &si,
		      WEXITED | WSTOPPED | WCONTINUED | WNOHANG | WNOWAIT |
			      __WALL) == 0 ||
	       errno != ECHILD;
}

/* Nothing the command started may outlive it (PRC-03): daemons, double
 * forks, setsid, nohup.  root (us) is a child subreaper, so every orphan
 * of the tree reparents to it.  SIGKILL every marked process at once,
 * reap root's own children, which reparents their orphans to root, and go
 * round until none is left.  A process that forks and exits while /proc
 * is being read can slip through one scan; when every child of root is
 * the sandbox's (the keeper: all_ours), "root has no child left" is the
 * exact end condition, since every descendant has an ancestor among
 * root's children.  reaped() (may be NULL) hears about each child. */
static void kill_tree(pid_t root, unsigned long long min_start, int all_ours,
		      void (*reaped)(struct sup *, pid_t, int), struct sup *s)
{
	struct proc *v = NULL;
	size_t n, i, marked;
	int st;

	for (;;) {
		free(v);
		v = NULL;
		if (!has_children() || read_procs(&v, &n) < 0)
			break;
		marked = mark_tree(root, min_start, v, n);
		if (marked == 0 && (!all_ours || !children_left()))
			break;
		for (i = 0; i < n; i++)
			if (v[i].mark)
				kill(v[i].pid, SIGKILL);
		for (i = 0; i < n; i++)
			if (v[i].mark && v[i].ppid == root &&
			    waitpid(v[i].pid, &st, __WALL) == v[i].pid &&
			    reaped)
				reaped(s, v[i].pid, st);
	}
	free(v);
}

/* ------------------------------------------------------------------ */
/* The reaper: pid 1 in full mode, the keeper in landlock-only mode     */

static void forward(pid_t pid, int sig)
{
	/* The command leads its own process group after setsid(); with
	 * keep_tty it does not, and only the process itself is signalled. */
	if (kill(-pid, sig) < 0)
		kill(pid, sig);
}

/* The signals the supervisor and the in-sandbox reaper wait for. */
static void waited_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGCHLD);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}

/* Reap everything (orphans reparent to us: pid 1 of the namespace, or a
 * child subreaper); when the command exits, hand its wait status up and
 * exit.  In full mode the kernel then kills every process left in the pid
 * namespace; the keeper kills what is left itself, and also does so when
 * the supervisor dies (its parent-death signal, SIGUSR2), which a pid
 * namespace would have done for us.  Signals arrive through the mask
 * inherited from the supervisor.  Terminal-generated ones (SI_KERNEL) are
 * not forwarded: the supervisor forwards those itself, or with keep_tty
 * the command got them from the terminal directly. */
static void __attribute__((noreturn))
reaper_loop(const struct sup *s, pid_t cmd, int keeper)
{
	sigset_t set;
	siginfo_t si;
	pid_t p;
	int st;

	waited_signals(&set);
	if (keeper)
		sigaddset(&set, SIGUSR2);
	for (;;) {
		if (sigwaitinfo(&set, &si) < 0)
			continue;
		if (keeper &&
		    (si.si_signo == SIGUSR2 || getppid() != s->self)) {
			kill_tree(getpid(), 0, 1, NULL, NULL);
			_exit(125);
		}
		if (si.si_signo != SIGCHLD) {
			if (si.si_code != SI_KERNEL)
				forward(cmd, si.si_signo);
			continue;
		}
		while ((p = waitpid(-1, &st, WNOHANG | __WALL)) > 0) {
			if (p != cmd)
				continue;
			chan_put(s->chan[1], MSG_STATUS, st, NULL);
			if (keeper)
				kill_tree(getpid(), 0, 1, NULL, NULL);
			_exit(exit_code(st));
		}
	}
}

static void __attribute__((noreturn)) pid1_main(const struct sup *s)
{
	struct sbx_err e;
	pid_t cmd;
	char go;

	/* Die with the supervisor.  getppid() is 0 across a pid namespace,
	 * so it cannot tell whether the supervisor died before this was
	 * armed; the sync pipe can: it reads EOF then. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || child_fds(s, 1) < 0 ||
	    read(s->sync[0], &go, 1) != 1)
		_exit(125);
	close(s->sync[0]);
	/* The maps are written; from now on no process outside may open
	 * our /proc entries (root, fd, mem) or ptrace us. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	if (sbx_mounts_setup(s->l, &e) < 0)
		layer_failed(s, "mount namespace", &e);
	if (s->l->pol->net == SBX_NET_LOOPBACK && lo_up(&e) < 0)
		layer_failed(s, "loopback network", &e);
	if (drop_caps(&e) < 0) /* pid 1 needs none of them any more */
		layer_failed(s, "capability drop", &e);
	cmd = fork();
	if (cmd == 0)
		cmd_main(s);
	if (cmd < 0) {
		chan_say(s->chan[1], MSG_FAIL, "sandbox: fork: %m");
		_exit(125);
	}
	reaper_loop(s, cmd, 0);
}

/* Landlock-only mode has no pid namespace to end the tree, so a keeper
 * process stands in for pid 1: a child subreaper (orphans of the command
 * reparent to it, not to init) that holds no Landlock domain and no
 * secrets, whose parent-death signal makes it kill the whole tree when
 * the supervisor is killed (PRC-04).  Landlock's signal scope keeps the
 * command from signalling it; no_new_privs, ptrace and non-dumpable keep
 * it from being traced. */
static void __attribute__((noreturn)) keeper_main(const struct sup *s)
{
	sigset_t usr2;
	pid_t cmd;

	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	if (sigprocmask(SIG_BLOCK, &usr2, NULL) < 0 ||
	    prctl(PR_SET_PDEATHSIG, SIGUSR2) < 0 || getppid() != s->self ||
	    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0 ||
	    child_fds(s, 0) < 0)
		_exit(125);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	cmd = fork();
	if (cmd == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		cmd_main(s);
	}
	if (cmd < 0) {
		chan_say(s->chan[1], MSG_FAIL, "sandbox: fork: %m");
		_exit(125);
	}
	reaper_loop(s, cmd, 1);
}

/* ------------------------------------------------------------------ */
/* Supervisor: preparation                                             */

static const char *net_name(enum sbx_net n)
{
	switch (n) {
	case SBX_NET_OFF: return "off";
	case SBX_NET_LOOPBACK: return "loopback";
	case SBX_NET_ON: return "on";
	case SBX_NET_FILTERED: return "filtered";
	}
	return "off";
}

/* Variables we set replace inherited ones: a nested sbxrun must not pass
 * the outer sandbox's SBXRUN_NET or report socket on as its own. */
static int env_ours(const struct sup *s, const char *e)
{
	static const char *const names[] = {
		"SBXRUN=",
		"SBXRUN_NET=",
		"SBXRUN_REPORT=",
	};
	size_t i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strncmp(e, names[i], strlen(names[i])) == 0)
			return 1;
	if (s->l->policy_file && strncmp(e, "SBXRUN_POLICY=", 14) == 0)
		return 1;
	return s->l->shim_path && strncmp(e, "LD_PRELOAD=", 11) == 0;
}

__attribute__((format(printf, 2, 3))) static int env_add(struct sup *s,
							 const char *fmt, ...)
{
	size_t n = 0, i = 0;
	va_list ap;
	char *v;
	int r;

	while (s->own[n])
		n++;
	va_start(ap, fmt);
	r = vasprintf(&v, fmt, ap);
	va_end(ap);
	if (r < 0)
		return sbx_errf(s->err, 0, "launch: out of memory");
	s->own[n] = v;
	while (s->envp[i])
		i++;
	s->envp[i] = v;
	return 0;
}

/* The shim goes first in LD_PRELOAD; preloads the caller kept stay. */
static int build_env(struct sup *s)
{
	const struct sbx_launch *l = s->l;
	const char *pre = NULL;
	size_t n = 0, j = 0;

	while (l->envp && l->envp[n])
		n++;
	s->envp = calloc(n + 6, sizeof *s->envp);
	if (!s->envp)
		return sbx_errf(s->err, 0, "launch: out of memory");
	for (n = 0; l->envp && l->envp[n]; n++) {
		if (strncmp(l->envp[n], "LD_PRELOAD=", 11) == 0)
			pre = l->envp[n] + 11;
		if (!env_ours(s, l->envp[n]))
			s->envp[j++] = l->envp[n];
	}
	if (env_add(s, "SBXRUN=1") < 0 ||
	    env_add(s, "SBXRUN_NET=%s", net_name(l->pol->net)) < 0 ||
	    env_add(s, "SBXRUN_REPORT=@%s", s->report_name) < 0)
		return -1;
	if (l->policy_file &&
	    env_add(s, "SBXRUN_POLICY=%s", l->policy_file) < 0)
		return -1;
	if (!l->shim_path)
		return 0;
	if (pre && strstr(pre, l->shim_path))
		return env_add(s, "LD_PRELOAD=%s", pre);
	if (pre && *pre)
		return env_add(s, "LD_PRELOAD=%s %s", l->shim_path, pre);
	return env_add(s, "LD_PRELOAD=%s", l->shim_path);
}

/* \0sbxrun-<launcher pid>-<64 random bits>: unguessable, so nothing
 * outside can bind it first. */
static void report_name(struct sup *s)
{
	uint64_t r;

	if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
		r = now_ns() ^ ((uint64_t)getpid() << 40);
	snprintf(s->report_name, sizeof s->report_name, "sbxrun-%d-%016llx",
		 (int)getpid(), (unsigned long long)r);
}

/* Our descriptors must not sit on 0-2, where the child puts stdio: with a
 * caller that started with a standard descriptor closed, the channel
 * could land there and be clobbered by dup2. */
static int lift(int *fd)
{
	int n;

	if (*fd < 0 || *fd > 2)
		return 0;
	n = fcntl(*fd, F_DUPFD_CLOEXEC, 3);
	if (n < 0)
		return -1;
	close(*fd);
	*fd = n;
	return 0;
}

/* fd_in/out/err: >= 0 dup'ed onto 0/1/2 in the child, -1 inherited,
 * -2 a pipe to or from the supervisor.  Our ends are non-blocking (the
 * loop must never stall on one), the child's stay blocking. */
static int open_io(struct sup *s)
{
	const int want[3] = { s->l->fd_in, s->l->fd_out, s->l->fd_err };
	const int slot[3] = { P_IN, P_OUT, P_ERR };
	int i, p[2];

	for (i = 0; i < 3; i++) {
		if (want[i] != -2) {
			s->cfd[i] = want[i] >= 0 ? want[i] : -1;
			continue;
		}
		if (pipe2(p, O_CLOEXEC) < 0)
			return sbx_errf(s->err, 0, "launch: pipe: %m");
		if (lift(&p[0]) < 0 || lift(&p[1]) < 0) {
			close(p[0]);
			close(p[1]);
			return sbx_errf(s->err, 0, "launch: pipe: %m");
		}
		s->cfd[i] = s->cpipe[i] = i == 0 ? p[0] : p[1];
		s->fd[slot[i]] = i == 0 ? p[1] : p[0];
		fcntl(s->fd[slot[i]], F_SETFL, O_NONBLOCK);
	}
	return 0;
}

static int open_channels(struct sup *s)
{
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, s->chan) < 0)
		return sbx_errf(s->err, 0, "launch: channel: %m");
	s->fd[P_CHAN] = s->chan[0];
	if (lift(&s->fd[P_CHAN]) < 0 || lift(&s->chan[1]) < 0 ||
	    pipe2(s->sync, O_CLOEXEC) < 0 || lift(&s->sync[0]) < 0 ||
	    lift(&s->sync[1]) < 0)
		return sbx_errf(s->err, 0, "launch: channel: %m");
	s->chan[0] = s->fd[P_CHAN];
	return open_io(s);
}

/* Signals are taken through a signalfd; SIGPIPE is blocked so that
 * feeding stdin to a command that stopped reading gives EPIPE, not death.
 * Children inherit the mask: pid 1 keeps it (it waits with sigwaitinfo),
 * the command restores the caller's before exec. */
static int take_signals(struct sup *s)
{
	struct sigaction dfl;
	sigset_t set;

	waited_signals(&set);
	sigaddset(&set, SIGPIPE);
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL; /* SIG_IGN would auto-reap */
	if (sigaction(SIGCHLD, &dfl, &s->oldchld) < 0 ||
	    sigprocmask(SIG_BLOCK, &set, &s->oldmask) < 0)
		return sbx_errf(s->err, 0, "launch: signals: %m");
	s->signals_set = 1;
	sigdelset(&set, SIGPIPE);
	s->fd[P_SIG] = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (s->fd[P_SIG] < 0 || lift(&s->fd[P_SIG]) < 0)
		return sbx_errf(s->err, 0, "launch: signalfd: %m");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Supervisor: starting                                                */

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), rc = 0;
	size_t n = strlen(text);

	if (fd < 0)
		return -1;
	if (write(fd, text, n) != (ssize_t)n)
		rc = -1;
	close(fd);
	return rc;
}

/* uid_map and gid_map map the caller's ids to themselves and nothing
 * else: root stays 0, a user stays who they are, so files created in the
 * project keep their owner.  Written from here, the parent user namespace,
 * while the child waits on the sync pipe.  setgroups must be denied before
 * an unprivileged gid_map; it also keeps the sandbox from dropping a
 * supplementary group that denies it something. */
static int write_maps(struct sup *s, pid_t pid)
{
	char path[64], line[64];

	snprintf(path, sizeof path, "/proc/%d/setgroups", (int)pid);
	if (write_file(path, "deny") < 0 && errno != ENOENT)
		return sbx_errf(s->err, 0, "namespaces: %s: %m", path);
	snprintf(path, sizeof path, "/proc/%d/uid_map", (int)pid);
	snprintf(line, sizeof line, "%u %u 1\n", geteuid(), geteuid());
	if (write_file(path, line) < 0)
		return sbx_errf(s->err, 0, "namespaces: %s: %m", path);
	snprintf(path, sizeof path, "/proc/%d/gid_map", (int)pid);
	snprintf(line, sizeof line, "%u %u 1\n", getegid(), getegid());
	if (write_file(path, line) < 0)
		return sbx_errf(s->err, 0, "namespaces: %s: %m", path);
	return 0;
}

static void close_child_ends(struct sup *s)
{
	int i;

	close_fd(&s->chan[1]);
	close_fd(&s->sync[0]);
	for (i = 0; i < 3; i++)
		close_fd(&s->cpipe[i]);
}

static int start_full(struct sup *s)
{
	unsigned long fl = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID |
			   CLONE_NEWIPC;
	int loop = s->l->pol->net == SBX_NET_LOOPBACK;
	pid_t pid;

	if (loop)
		fl |= CLONE_NEWNET;
	/* A fork-like raw clone (no new stack): the child is pid 1 of the
	 * new pid namespace.  We are single-threaded, so it may use libc. */
	pid = (pid_t)syscall(SYS_clone, fl | SIGCHLD, NULL, NULL, NULL, NULL);
	if (pid == 0)
		pid1_main(s);
	if (pid < 0) {
		/* Refused namespaces, as opposed to a machine out of
		 * processes or memory, which must not change the mode. */
		s->clone_failed = errno == EPERM || errno == EINVAL ||
				  errno == ENOSPC || errno == EUSERS ||
				  errno == EACCES || errno == ENOSYS;
		return sbx_errf(s->err, 0,
				"namespaces: clone(user, mount, pid, "
				"ipc%s): %m (see sbxrun --status)",
				loop ? ", net" : "");
	}
	s->child = pid;
	s->fd[P_CHILD] = (int)syscall(SYS_pidfd_open, pid, 0);
	close_child_ends(s);
	if (write_maps(s, pid) < 0) {
		s->clone_failed = 1;
		return -1; /* the cleanup kills the child */
	}
	if (write(s->sync[1], "g", 1) != 1)
		return sbx_errf(s->err, 0, "namespaces: sync: %m");
	close_fd(&s->sync[1]);
	return 0;
}

/* Landlock-only: the keeper does the work (keeper_main); we are a child
 * subreaper as well, so that if the keeper itself is killed, what it
 * leaves reparents to us and kill_tree() still finds it. */
static int start_landlock(struct sup *s)
{
	pid_t pid, pp;

	prctl(PR_GET_CHILD_SUBREAPER, &s->old_subreaper, 0, 0, 0);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		return sbx_errf(s->err, 0,
				"launch: PR_SET_CHILD_SUBREAPER: %m");
	s->subreaper_set = 1;
	pid = fork();
	if (pid == 0)
		keeper_main(s);
	if (pid < 0)
		return sbx_errf(s->err, 0, "launch: fork: %m");
	s->child = pid;
	s->fd[P_CHILD] = (int)syscall(SYS_pidfd_open, pid, 0);
	if (proc_stat(pid, &pp, &s->child_start) < 0)
		s->child_start = 0;
	close_child_ends(s);
	return 0;
}

/* A full-mode start that could not make its namespaces is handed back to
 * the caller (SBX_LAUNCH_NO_USERNS) rather than retried here: landlock-only
 * mode needs its own policy (hidden /dev/pts and /dev/shm, protect rules
 * in the shim), which the caller builds. */
static int sup_start(struct sup *s)
{
	if (s->mode == SBX_KMODE_LANDLOCK)
		return start_landlock(s);
	return start_full(s);
}

/* ------------------------------------------------------------------ */
/* Supervisor: the loop                                                */

static void got_child(struct sup *s, pid_t pid, int st)
{
	if (pid == s->child)
		s->child_status = st;
}

static void child_finished(struct sup *s)
{
	s->child_done = 1;
	s->t_end = now_ns();
}

/* The child (pid 1 or the keeper) is gone.  Without a pid namespace, what
 * a killed keeper could not clean up has reparented to us: kill it. */
static void reap(struct sup *s)
{
	int st;

	if (waitpid(s->child, &st, WNOHANG | __WALL) != s->child)
		return;
	s->child_status = st;
	if (s->mode == SBX_KMODE_LANDLOCK)
		kill_tree(s->self, s->child_start, 0, got_child, s);
	child_finished(s);
}

static void relay(struct sup *s, int sig)
{
	kill(s->child, sig); /* pid 1 or the keeper forwards it */
}

static void on_signals(struct sup *s)
{
	struct signalfd_siginfo si;

	while (read(s->fd[P_SIG], &si, sizeof si) == (ssize_t)sizeof si) {
		if (si.ssi_signo == SIGCHLD)
			reap(s);
		else if (!(s->l->keep_tty && si.ssi_code == SI_KERNEL))
			relay(s, (int)si.ssi_signo);
	}
}

/* The timeout kills the whole tree: in full mode SIGKILL to pid 1 is
 * enough, the kernel takes the pid namespace down with it. */
static void check_timeout(struct sup *s)
{
	if (!s->deadline || s->timed_out || now_ns() < s->deadline)
		return;
	s->timed_out = 1;
	if (s->mode == SBX_KMODE_FULL) {
		kill(s->child, SIGKILL);
		return;
	}
	kill_tree(s->self, s->child_start, 0, got_child, s);
	child_finished(s);
}

static int poll_timeout(const struct sup *s)
{
	uint64_t now = now_ns(), ms;

	if (!s->deadline || s->timed_out)
		return -1;
	if (now >= s->deadline)
		return 0;
	ms = (s->deadline - now) / 1000000u + 1;
	return ms > INT_MAX ? INT_MAX : (int)ms;
}

/* The first SCM_RIGHTS descriptor, closing any others. */
static int take_fd(struct msghdr *mh)
{
	struct cmsghdr *c;
	int fd = -1, f;
	size_t i, n;

	for (c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof f);
			if (fd < 0)
				fd = f;
			else
				close(f);
		}
	}
	return fd;
}

static void on_message(struct sup *s, struct chan_msg *m, int *fd)
{
	m->text[sizeof m->text - 1] = '\0';
	switch (m->kind) {
	case MSG_FAIL:
		if (!s->failed)
			snprintf(s->err->msg, sizeof s->err->msg, "%s",
				 m->text);
		s->failed = 1;
		break;
	case MSG_WARN: fprintf(stderr, "sbxrun: warning: %s\n", m->text); break;
	case MSG_EXEC: s->exec_errno = m->val; break;
	case MSG_STATUS:
		s->cmd_status = m->val;
		s->cmd_status_known = 1;
		break;
	case MSG_REPORT:
		if (*fd < 0 || s->fd[P_REPORT] >= 0)
			break;
		s->fd[P_REPORT] = *fd;
		s->l->report_fd = *fd;
		*fd = -1;
		fcntl(s->fd[P_REPORT], F_SETFL, O_NONBLOCK);
		break;
	}
}

/* One channel message; 0 when none was waiting. */
static int on_chan(struct sup *s)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(4 * sizeof(int))];
	} u;
	struct chan_msg m;
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof m };
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.b,
		.msg_controllen = sizeof u.b,
	};
	ssize_t n;
	int fd;

	n = recvmsg(s->fd[P_CHAN], &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0) {
		close_fd(&s->fd[P_CHAN]);
		return 0;
	}
	fd = take_fd(&mh);
	if ((size_t)n == sizeof m)
		on_message(s, &m, &fd);
	if (fd >= 0)
		close(fd);
	return 1;
}

/* One refusal record; 0 when none was waiting.  Records never carry
 * descriptors: any that came along are closed, so a process cannot pin
 * files open in the supervisor. */
static int on_report(struct sup *s)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(struct ucred)) +
		       CMSG_SPACE(8 * sizeof(int))];
	} u;
	char buf[16384];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof buf };
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.b,
		.msg_controllen = sizeof u.b,
	};
	struct cmsghdr *c;
	struct ucred cr = { 0, 0, 0 };
	ssize_t n;
	int fd;

	n = recvmsg(s->fd[P_REPORT], &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0)
		return 0;
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET &&
		    c->cmsg_type == SCM_CREDENTIALS)
			memcpy(&cr, CMSG_DATA(c), sizeof cr);
	fd = take_fd(&mh);
	if (fd >= 0)
		close(fd);
	if (s->l->on_report)
		s->l->on_report(s->l->report_ctx, cr.pid, buf, (size_t)n);
	return 1;
}

static int on_output(struct sup *s, int slot)
{
	char buf[16384];
	ssize_t n = read(s->fd[slot], buf, sizeof buf);

	if (n > 0) {
		if (s->l->on_output)
			s->l->on_output(s->l->output_ctx, slot == P_OUT ? 1 : 2,
					buf, (size_t)n);
		return 1;
	}
	if (n == 0 || (errno != EAGAIN && errno != EINTR))
		close_fd(&s->fd[slot]);
	return 0;
}

/* EPIPE (the command stopped reading) ends the feed; SIGPIPE is blocked. */
static void feed_stdin(struct sup *s)
{
	const struct sbx_launch *l = s->l;
	ssize_t n;

	if (s->in_off < l->stdin_len) {
		n = write(s->fd[P_IN], l->stdin_data + s->in_off,
			  l->stdin_len - s->in_off);
		if (n > 0)
			s->in_off += (size_t)n;
		else if (n < 0 && errno != EAGAIN && errno != EINTR)
			s->in_off = l->stdin_len;
	}
	if (s->in_off >= l->stdin_len)
		close_fd(&s->fd[P_IN]);
}

static void dispatch(struct sup *s, const struct pollfd *p)
{
	if (p[P_CHAN].revents)
		on_chan(s);
	if (p[P_REPORT].revents)
		on_report(s);
	if (p[P_OUT].revents)
		on_output(s, P_OUT);
	if (p[P_ERR].revents)
		on_output(s, P_ERR);
	if (p[P_IN].revents)
		feed_stdin(s);
	if (p[P_SIG].revents)
		on_signals(s);
	if (p[P_CHILD].revents && !s->child_done)
		reap(s);
}

/* After the tree is gone every writer is gone: what is queued is all. */
static void drain(struct sup *s)
{
	while (s->fd[P_CHAN] >= 0 && on_chan(s))
		;
	while (s->fd[P_REPORT] >= 0 && on_report(s))
		;
	while (s->fd[P_OUT] >= 0 && on_output(s, P_OUT))
		;
	while (s->fd[P_ERR] >= 0 && on_output(s, P_ERR))
		;
}

static int sup_loop(struct sup *s)
{
	struct pollfd p[P_N];
	int i, r;

	while (!s->child_done) {
		for (i = 0; i < P_N; i++) {
			p[i].fd = s->fd[i];
			p[i].events = i == P_IN ? POLLOUT : POLLIN;
			p[i].revents = 0;
		}
		r = poll(p, P_N, poll_timeout(s));
		if (r < 0 && errno != EINTR)
			return sbx_errf(s->err, 0, "supervisor: poll: %m");
		if (r > 0)
			dispatch(s, p);
		check_timeout(s);
	}
	drain(s);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Supervisor: result and cleanup                                      */

static int sup_finish(struct sup *s)
{
	struct sbx_exit *x = s->x;
	int st = s->cmd_status_known ? s->cmd_status : s->child_status;

	if (s->failed)
		return -1; /* a layer failed closed: nothing ran */
	if (!s->cmd_status_known && !s->exec_errno && !s->timed_out &&
	    WIFEXITED(st) && WEXITSTATUS(st) == 125)
		return sbx_errf(s->err, 0,
				"sandbox: set-up failed before the "
				"command ran");
	x->duration_ns = s->t_end - s->t0;
	x->timed_out = s->timed_out;
	if (s->exec_errno) {
		x->exec_errno = s->exec_errno;
		x->code = x->status = s->exec_errno == ENOENT ? 127 : 126;
	} else if (WIFSIGNALED(st)) {
		x->sig = WTERMSIG(st);
		x->code = 128 + x->sig;
	} else {
		x->code = x->status = exit_code(st);
	}
	if (s->timed_out) {
		x->code = 124;
		if (!s->cmd_status_known)
			x->sig = SIGKILL;
	}
	return 0;
}

/* An error after the start: nothing may keep running. */
static void abort_child(struct sup *s)
{
	int st;

	if (s->mode == SBX_KMODE_FULL) {
		kill(s->child, SIGKILL);
		waitpid(s->child, &st, __WALL);
	} else {
		kill_tree(s->self, s->child_start, 0, got_child, s);
	}
}

static void restore_signals(struct sup *s)
{
	const struct timespec zero = { 0, 0 };
	sigset_t pipe_set;

	if (!s->signals_set)
		return;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	while (sigtimedwait(&pipe_set, NULL, &zero) > 0)
		; /* an EPIPE from the stdin feed must not kill us now */
	sigprocmask(SIG_SETMASK, &s->oldmask, NULL);
	sigaction(SIGCHLD, &s->oldchld, NULL);
}

static void sup_cleanup(struct sup *s)
{
	int i;

	if (s->child > 0 && !s->child_done)
		abort_child(s);
	for (i = 0; i < P_N; i++)
		close_fd(&s->fd[i]);
	s->l->report_fd = -1;
	s->chan[0] = -1; /* was fd[P_CHAN] */
	close_fd(&s->chan[1]);
	close_fd(&s->sync[0]);
	close_fd(&s->sync[1]);
	for (i = 0; i < 3; i++)
		close_fd(&s->cpipe[i]);
	restore_signals(s);
	if (s->old_dumpable >= 0)
		prctl(PR_SET_DUMPABLE, s->old_dumpable, 0, 0, 0);
	if (s->subreaper_set)
		prctl(PR_SET_CHILD_SUBREAPER, s->old_subreaper, 0, 0, 0);
	for (i = 0; i < 6; i++)
		free(s->own[i]);
	free(s->envp);
}

static void sup_init(struct sup *s, struct sbx_launch *l, struct sbx_exit *x,
		     struct sbx_err *err)
{
	int i;

	memset(s, 0, sizeof *s);
	s->l = l;
	s->x = x;
	s->err = err;
	s->mode = l->mode;
	s->self = getpid();
	s->old_dumpable = -1;
	s->chan[0] = s->chan[1] = s->sync[0] = s->sync[1] = -1;
	for (i = 0; i < 3; i++)
		s->cfd[i] = s->cpipe[i] = -1;
	for (i = 0; i < P_N; i++)
		s->fd[i] = -1;
	l->report_fd = -1;
	memset(x, 0, sizeof *x);
	err->msg[0] = '\0';
}

int sbx_launch(struct sbx_launch *l, struct sbx_exit *x, struct sbx_err *err)
{
	struct sup s;
	int rc = -1;

	sup_init(&s, l, x, err);
	if (!l->pol || !l->argv || !l->argv[0])
		return sbx_errf(err, 0, "launch: no command");
	if (l->mode != SBX_KMODE_FULL && l->mode != SBX_KMODE_LANDLOCK)
		return sbx_errf(err, 0, "launch: kernel mode not resolved");
	report_name(&s);
	if (build_env(&s) < 0 || open_channels(&s) < 0 || take_signals(&s) < 0)
		goto out;
	s.t0 = now_ns();
	if (l->pol->limits.timeout)
		s.deadline =
			s.t0 + (l->pol->limits.timeout > 1000000000u
					? UINT64_MAX / 2
					: l->pol->limits.timeout * 1000000000u);
	if (sup_start(&s) < 0) {
		if (s.clone_failed)
			rc = SBX_LAUNCH_NO_USERNS;
		goto out;
	}
	/* PROC-04: from here on nothing of the user's (the command
	 * included) may ptrace us or read our memory or descriptors. */
	s.old_dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	if (sup_loop(&s) < 0)
		goto out;
	rc = sup_finish(&s);
out:
	sup_cleanup(&s);
	return rc;
}
