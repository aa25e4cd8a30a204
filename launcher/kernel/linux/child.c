/*
 * child.c - everything the sandbox's processes do before exec (spawn.h):
 * pid 1's mount view and loopback, stdio and the descriptors nobody may
 * inherit, resource limits, no_new_privs, capabilities, Landlock, the
 * report socket, seccomp, and exec with the command's own PATH.  Runs
 * single-threaded in a forked child; what it has to say goes over the
 * channel, and a layer that fails ends the child (fail closed).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/securebits.h>

#include "compat.h"
#include "proxy.h"
#include "spawn.h"
#include "watch.h"

void sbx_chan_put(int fd, int kind, int val, const char *text)
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

void sbx_chan_say(int fd, int kind, const char *fmt, ...)
{
	char text[sizeof((struct chan_msg *)0)->text];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	sbx_chan_put(fd, kind, 0, text);
}

/* The bound report socket (MSG_REPORT), the proxy's listening socket
 * (MSG_NETPROXY) and the seccomp listener (MSG_NOTIF) go to the
 * supervisor as SCM_RIGHTS. */
static int chan_send_fd(int chan, int kind, int fd)
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
	m.kind = kind;
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof fd);
	return sendmsg(chan, &mh, MSG_NOSIGNAL) < 0 ? -1 : 0;
}

/* A layer could not be applied.  fallback = warn: say loudly what is not
 * enforced and go on.  Otherwise fail closed: nothing runs. */
void sbx_layer_failed(const struct sup *s, const char *layer,
		      const struct sbx_err *e)
{
	if (s->l->warn_missing) {
		sbx_chan_say(s->chan[1], MSG_WARN, "%s is NOT enforced: %s",
			     layer, e->msg);
		return;
	}
	sbx_chan_say(s->chan[1], MSG_FAIL, "%s: %s", layer, e->msg);
	_exit(125);
}

/*
 * Landlock, in the command's process.  A run weaker than full mode was
 * accepted (fallback = warn) and said before launch: full mode without
 * Landlock goes on without it, landlock-only mode whose Landlock has no
 * TCP rules leaves network = off to seccomp's socket filter.  But
 * landlock-only mode without Landlock has no filesystem boundary at all:
 * nothing runs, whatever the fallback.
 */
static void apply_landlock(const struct sup *s)
{
	const struct sbx_launch *l = s->l;
	int abi = l->feat ? l->feat->landlock_abi : 0;
	uint16_t port = l->proxy ? l->proxy->port : 0;
	struct sbx_policy open_net;
	struct sbx_err e;

	if (s->mode == SBX_KMODE_FULL && abi < 1 && l->warn_missing)
		return;
	if (sbx_landlock_apply(l->pol, s->mode, abi, port, &e) == 0)
		return;
	if (s->mode == SBX_KMODE_LANDLOCK && l->warn_missing && abi >= 1 &&
	    l->pol->net == SBX_NET_OFF) {
		open_net = *l->pol; /* read only: a shallow copy */
		open_net.net = SBX_NET_ON;
		if (sbx_landlock_apply(&open_net, s->mode, abi, 0, &e) == 0)
			return;
	}
	if (s->mode == SBX_KMODE_LANDLOCK) {
		sbx_chan_say(s->chan[1], MSG_FAIL, "Landlock: %s", e.msg);
		_exit(125);
	}
	sbx_layer_failed(s, "Landlock", &e);
}

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
int sbx_child_fds(const struct sup *s, int keep_sync)
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
static int drop_caps_but(struct sbx_err *e, uint32_t keep)
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
		/* one call per capability: EINVAL past the last one the
		 * kernel knows (as PR_CAPBSET_READ would say) */
		for (c = 0; prctl(PR_CAPBSET_DROP, c, 0, 0, 0) == 0; c++)
			;
		if (errno != EINVAL || c == 0)
			return sbx_errf(e, 0, "PR_CAPBSET_DROP(%d): %m", c);
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 &&
	    errno != EINVAL)
		return sbx_errf(e, 0, "PR_CAP_AMBIENT_CLEAR_ALL: %m");
	memset(d, 0, sizeof d);
	d[0].effective = d[0].permitted = keep;
	if (syscall(SYS_capset, &h, d) < 0)
		return sbx_errf(e, 0, "capset: %m");
	if (syscall(SYS_capget, &h, d) < 0 ||
	    ((d[0].effective | d[0].permitted) & ~keep) != 0 ||
	    (d[0].inheritable | d[1].effective | d[1].permitted |
	     d[1].inheritable) != 0)
		return sbx_errf(e, 0,
				"capabilities are still held after dropping");
	return 0;
}

static int drop_caps(struct sbx_err *e)
{
	return drop_caps_but(e, 0);
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
		sbx_layer_failed(s, "resource limits", &e);
	/* SHM-06: set-uid bits and file capabilities are inert from here
	 * on; it is also what lets an unprivileged process install Landlock
	 * and seccomp. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		sbx_errf(&e, 0, "PR_SET_NO_NEW_PRIVS: %m");
		sbx_layer_failed(s, "no_new_privs", &e);
	}
	if (drop_caps(&e) < 0)
		sbx_layer_failed(s, "capability drop", &e);
}

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
	    chan_send_fd(s->chan[1], MSG_REPORT, fd) < 0)
		sbx_chan_say(s->chan[1], MSG_WARN,
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

/*
 * seccomp, with the supervisor's listener where the kernel has user
 * notification.  The listener goes to the supervisor before exec; if it
 * cannot (the supervisor is gone), every refused call fails with ENOSYS
 * once it is closed: still refused.
 */
static void seccomp_layer(const struct sup *s)
{
	const struct sbx_launch *l = s->l;
	int want = l->feat && l->feat->seccomp_notif, fd = -1;
	struct sbx_err e;

	if (sbx_seccomp_apply(l->pol, s->mode, want ? &fd : NULL, &e) < 0)
		sbx_layer_failed(s, "seccomp", &e);
	if (fd < 0)
		return;
	(void)chan_send_fd(s->chan[1], MSG_NOTIF, fd);
	close(fd);
}

/* The command process, in both modes.  Order matters: no_new_privs and
 * the capability drop before the layers (Landlock and seccomp need
 * no_new_privs without CAP_SYS_ADMIN), Landlock before the report socket
 * (scope), seccomp last (it may forbid what comes before it). */
void sbx_cmd_main(const struct sup *s)
{
	const struct sbx_launch *l = s->l;
	int r;

	if (!l->keep_tty)
		setsid(); /* TTY-01: no terminal shared with the caller */
	else
		sbx_tty_take(s); /* tty.c */
	sigprocmask(SIG_SETMASK, &s->oldmask, NULL);
	hygiene(s);
	if (l->workdir && chdir(l->workdir) < 0) {
		sbx_chan_say(s->chan[1], MSG_FAIL,
			     "cannot enter the working "
			     "directory '%s' in the sandbox: %m",
			     l->workdir);
		_exit(125);
	}
	apply_landlock(s);
	report_socket(s);
	if (cloexec_all() < 0) {
		sbx_chan_say(s->chan[1], MSG_FAIL, "close descriptors: %m");
		_exit(125);
	}
	seccomp_layer(s);
	r = exec_path(l->argv, l->envp);
	sbx_chan_put(s->chan[1], MSG_EXEC, r, NULL);
	_exit(r == ENOENT ? 127 : 126);
}

/*
 * NET-10: with the network off, full mode used to share the host's
 * network namespace, and /proc/net/unix and /proc/net/tcp listed every
 * socket path and connection of the machine (other runs' report sockets
 * too).  /proc/<pid>/net shows the namespace of that process, so no mount
 * can cover it for processes yet to come: pid 1 takes a network namespace
 * of its own (it holds CAP_SYS_ADMIN in the user namespace that will own
 * it) before it forks the command.  About 0.4 ms; no loopback is brought
 * up, since seccomp allows only AF_UNIX sockets anyway.
 */
static int private_net(struct sbx_err *e)
{
	if (unshare(CLONE_NEWNET) < 0)
		return sbx_errf(e, errno, "unshare(CLONE_NEWNET)");
	return 0;
}

/*
 * PRC-06: RLIMIT_NPROC counts every process of the uid and the kernel
 * exempts uid 0 from it, so a root caller's fork storm ran unhindered.
 * Since Linux 6.14 pid_max is per pid namespace and bounds the pids the
 * namespace hands out, for any uid.  Once its cursor is past the 300 pids
 * the kernel reserves, it allocates from [300, pid_max) only: pid_max is
 * limits.nproc + 300 and ns_last_pid moves the cursor there at once, so
 * at most limits.nproc processes and threads live at the same time
 * (pid 1 aside).  pid 1 holds CAP_SYS_ADMIN over the namespace; the
 * command cannot write /proc (Landlock grants it read only).
 *
 * Before 6.14 pid_max is the host's own knob, and a root caller's pid 1
 * (uid 0 mapped to uid 0) could change it for the whole machine: the
 * kernel's version decides, never a trial write.  1: set, 0: not
 * available here (RLIMIT_NPROC only, as --dry-run says), -1 on error.
 */
#define PID_RESERVED 300

int sbx_pidns_has_pid_max(void)
{
	struct utsname u;
	unsigned maj = 0, min = 0;

	return uname(&u) == 0 && sscanf(u.release, "%u.%u", &maj, &min) == 2 &&
	       (maj > 6 || (maj == 6 && min >= 14));
}

/* One write of text to a /proc file; 0, or -1 with e (errno kept). */
static int write_text(const char *path, const char *text, struct sbx_err *e)
{
	size_t n = strlen(text);
	int fd, rc;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return sbx_errf(e, errno, "%s", path);
	rc = write(fd, text, n) == (ssize_t)n ? 0
					      : sbx_errf(e, errno, "%s", path);
	close(fd);
	return rc;
}

static int write_sysctl(const char *path, unsigned long long v,
			struct sbx_err *e)
{
	char buf[32];

	snprintf(buf, sizeof buf, "%llu\n", v);
	return write_text(path, buf, e);
}

/*
 * uid_map and gid_map map the caller's ids to themselves and nothing
 * else: root stays 0, a user stays who they are, so files created in the
 * project keep their owner.  pid 1 writes its own, as unshare -U does
 * (it holds every capability in its new user namespace, and a single line
 * mapping the creator's own id needs no more), before it makes itself
 * non-dumpable (its /proc files would then be root's): no round trip
 * through the supervisor.  setgroups must be denied before an
 * unprivileged gid_map; it also keeps the sandbox from dropping a
 * supplementary group that denies it something.
 */
int sbx_pid1_maps(const struct sup *s, struct sbx_err *e)
{
	char line[64];

	if (write_text("/proc/self/setgroups", "deny", e) < 0 &&
	    errno != ENOENT)
		return -1;
	snprintf(line, sizeof line, "%u %u 1\n", (unsigned)s->uid,
		 (unsigned)s->uid);
	if (write_text("/proc/self/uid_map", line, e) < 0)
		return -1;
	snprintf(line, sizeof line, "%u %u 1\n", (unsigned)s->gid,
		 (unsigned)s->gid);
	return write_text("/proc/self/gid_map", line, e);
}

static int pid_limit(uint64_t nproc, struct sbx_err *e)
{
	if (nproc == 0 || !sbx_pidns_has_pid_max())
		return 0;
	if (nproc > (1u << 22) - PID_RESERVED)
		nproc = (1u << 22) - PID_RESERVED;
	if (write_sysctl("/proc/sys/kernel/pid_max", nproc + PID_RESERVED, e) <
		    0 ||
	    write_sysctl("/proc/sys/kernel/ns_last_pid", PID_RESERVED, e) < 0)
		return -1;
	return 1;
}

/*
 * network = filtered, full mode: the namespace has only its loopback; the
 * proxy's listening socket is made here, on it, and handed to the
 * supervisor, which serves it from the host's namespace (no bridge
 * process).  The command finds it at 127.0.0.1:SBX_PROXY_PORT.
 */
static int proxy_socket(const struct sup *s, struct sbx_err *e)
{
	int fd;

	if (lo_up(e) < 0)
		return -1;
	fd = sbx_proxy_listen("127.0.0.1", SBX_PROXY_PORT, NULL, e);
	if (fd < 0)
		return -1;
	if (chan_send_fd(s->chan[1], MSG_NETPROXY, fd) < 0) {
		sbx_errf(e, errno, "hand-off to the supervisor");
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* No fallback: without its proxy the filtered network is no network. */
static void fail_closed(const struct sup *s, const char *layer,
			const struct sbx_err *e)
{
	sbx_chan_say(s->chan[1], MSG_FAIL, "%s: %s", layer, e->msg);
	_exit(125);
}

/* pid 1 of full mode, before it forks the command: the mount view, its
 * own network namespace or the loopback interface of the one it was
 * given, the pid limit, and then no capabilities (pid 1 needs none of
 * them any more). */
void sbx_pid1_setup(const struct sup *s)
{
	const struct sbx_policy *p = s->l->pol;
	struct sbx_err e;
	int w, view;

	sbx_landlock_survey(p);
	view = sbx_mounts_setup(s->l, &e);
	if (view == -2) { /* refused late: SBX_LAUNCH_RETRY */
		sbx_chan_put(s->chan[1], MSG_FAIL, 1, e.msg);
		_exit(125);
	}
	if (view < 0)
		sbx_layer_failed(s, "mount namespace", &e);
	if (view == 1) /* the host's /proc, read-only (fallback = warn) */
		sbx_chan_say(
			s->chan[1], MSG_WARN,
			"weaker sandbox (fallback = warn): the host's /proc "
			"instead of a fresh one (the process list and "
			"command lines of outside processes are visible; "
			"their memory and environment are not; the process "
			"count is held by RLIMIT_NPROC alone): %s",
			sbx_proc_masked_fix);
	if (p->net == SBX_NET_OFF && private_net(&e) < 0)
		sbx_layer_failed(s, "network namespace", &e);
	if (p->net == SBX_NET_LOOPBACK && lo_up(&e) < 0)
		sbx_layer_failed(s, "loopback network", &e);
	if (p->net == SBX_NET_FILTERED && proxy_socket(s, &e) < 0)
		fail_closed(s, "network proxy", &e);
	if (view != 1 && pid_limit(p->limits.nproc, &e) < 0)
		sbx_layer_failed(s, "process limit", &e);
	/* TIME-03: protected paths the host may replace stay read-only;
	 * pid 1 then keeps what mounting again and looking at the sandbox's
	 * descriptors take, in the sandbox's user namespace only. */
	w = sbx_watch_start(s->chan[1], &e);
	if (w < 0)
		sbx_layer_failed(s, "protected paths for the whole run", &e);
	if (drop_caps_but(&e,
			  w > 0 ? (1u << CAP_SYS_ADMIN) | (1u << CAP_SYS_PTRACE)
				: 0) < 0)
		sbx_layer_failed(s, "capability drop", &e);
}
