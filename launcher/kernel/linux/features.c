/*
 * features.c - what this machine's kernel offers, which mode that gives,
 * and the "kernel plan": which protection holds, by what, in a mode.
 *
 * Every probe asks the kernel by doing the thing (creating a user
 * namespace, asking Landlock its ABI) rather than trusting sysctls;
 * sysctls and container markers are read only to turn a failure into the
 * exact fix (LCH-05: fail closed, and say why).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/seccomp.h>

#include "compat.h"
#include "kernel.h"

/* ------------------------------------------------------------ helpers */

/* Read a small file into buf (NUL-terminated, trailing newline cut). */
static int read_small(const char *path, char *buf, size_t n)
{
	ssize_t got;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	got = read(fd, buf, n - 1);
	close(fd);
	if (got < 0)
		return -1;
	buf[got] = '\0';
	if (got > 0 && buf[got - 1] == '\n')
		buf[got - 1] = '\0';
	return 0;
}

/* A sysctl as a number; -1 when absent or unreadable. */
static long read_sysctl(const char *path)
{
	char buf[64], *end;
	long v;

	if (read_small(path, buf, sizeof buf) < 0)
		return -1;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf)
		return -1;
	return v;
}

/* Is this process already under a seccomp filter (a container's)? */
static int under_seccomp_filter(void)
{
	char buf[4096], *s;

	if (read_small("/proc/self/status", buf, sizeof buf) < 0)
		return 0;
	s = strstr(buf, "\nSeccomp:");
	return s && strtol(s + 9, NULL, 10) == 2;
}

/* Is the running kernel older than major.minor? */
static int kernel_older(int major, int minor)
{
	struct utsname u;
	int ma, mi;

	if (uname(&u) < 0 || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return 0;
	return ma < major || (ma == major && mi < minor);
}

/* The container we run in, if one says so; NULL otherwise. */
static const char *container_name(void)
{
	const char *env = getenv("container");

	if (access("/.dockerenv", F_OK) == 0)
		return "docker";
	if (access("/run/.containerenv", F_OK) == 0)
		return "podman";
	if (env && *env)
		return env;
	return NULL;
}

/* ------------------------------------------------------------ Landlock */

static void landlock_explain(int e, char *why, size_t n)
{
	char lsm[128]; /* sized so the message fits landlock_why */

	if (e == EOPNOTSUPP) {
		if (read_small("/sys/kernel/security/lsm", lsm, sizeof lsm) < 0)
			snprintf(lsm, sizeof lsm,
				 "<the modules already listed>");
		snprintf(
			why, n,
			"Landlock is built in but not enabled: add "
			"lsm=landlock,%s to the kernel command line and reboot",
			lsm);
	} else if (e == ENOSYS && kernel_older(5, 13)) {
		snprintf(why, n,
			 "this kernel is older than 5.13, which "
			 "introduced Landlock: upgrade the kernel");
	} else if ((e == ENOSYS || e == EPERM) && under_seccomp_filter()) {
		snprintf(why, n,
			 "the Landlock system calls are blocked by a "
			 "seccomp filter%s: allow landlock_create_ruleset, "
			 "landlock_add_rule and landlock_restrict_self in it",
			 container_name() ? " (a container runtime's)" : "");
	} else if (e == ENOSYS) {
		snprintf(
			why, n,
			"this kernel was built without Landlock "
			"(CONFIG_SECURITY_LANDLOCK): use a kernel that has it");
	} else {
		snprintf(why, n, "landlock_create_ruleset failed: %s",
			 strerror(e));
	}
}

static int probe_landlock(char *why, size_t n)
{
	long abi = syscall(__NR_landlock_create_ruleset, NULL, 0,
			   LANDLOCK_CREATE_RULESET_VERSION);

	if (abi >= 1)
		return (int)abi;
	landlock_explain(errno, why, n);
	return 0;
}

/* ------------------------------------------------------ user namespaces */

enum { UNS_OK, UNS_FORK, UNS_UNSHARE, UNS_UIDMAP, UNS_MOUNT };

struct uns_result {
	int step; /* the first step that failed, UNS_OK if none */
	int err;
};

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t len = (ssize_t)strlen(s), w;

	if (fd < 0)
		return -1;
	w = write(fd, s, (size_t)len);
	close(fd);
	return w == len ? 0 : -1;
}

/*
 * The child: do what full mode will do, up to a mount.  The mount matters
 * because Ubuntu's AppArmor restriction lets unshare() succeed and then
 * withholds the capabilities inside.  Only async-signal-safe calls: the
 * caller may be multi-threaded.
 */
static void uns_child(int wfd, const char *map)
{
	struct uns_result r = { UNS_OK, 0 };

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		r = (struct uns_result){ UNS_UNSHARE, errno };
	else if (write_str("/proc/self/setgroups", "deny") < 0 &&
		 errno != ENOENT)
		r = (struct uns_result){ UNS_UIDMAP, errno };
	else if (write_str("/proc/self/uid_map", map) < 0)
		r = (struct uns_result){ UNS_UIDMAP, errno };
	else if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		r = (struct uns_result){ UNS_MOUNT, errno };
	if (write(wfd, &r, sizeof r) != (ssize_t)sizeof r)
		_exit(2);
	_exit(0);
}

static struct uns_result uns_try(void)
{
	struct uns_result r = { UNS_FORK, 0 };
	char map[64];
	int pfd[2];
	pid_t pid;

	snprintf(map, sizeof map, "0 %u 1\n", (unsigned)geteuid());
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return (struct uns_result){ UNS_FORK, errno };
	pid = fork();
	if (pid == 0)
		uns_child(pfd[1], map);
	if (pid < 0)
		r.err = errno;
	close(pfd[1]);
	if (pid > 0 && read(pfd[0], &r, sizeof r) != (ssize_t)sizeof r)
		r = (struct uns_result){ UNS_FORK, ECHILD };
	close(pfd[0]);
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	return r;
}

static const char *uns_step_name(int step)
{
	switch (step) {
	case UNS_FORK: return "fork";
	case UNS_UNSHARE: return "unshare(CLONE_NEWUSER)";
	case UNS_UIDMAP: return "writing uid_map";
	case UNS_MOUNT: return "mounting in the new namespace";
	}
	return "probe";
}

/* AppArmor on Ubuntu 24.04 and later: the fix names our own binary.
 * A path too long for userns_why is left as a placeholder. */
static void uns_explain_apparmor(char *why, size_t n)
{
	char exe[128];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof exe);

	if (len <= 0 || (size_t)len >= sizeof exe)
		snprintf(exe, sizeof exe, "/path/to/sbxrun");
	else
		exe[len] = '\0';
	snprintf(why, n,
		 "AppArmor restricts unprivileged user namespaces "
		 "(kernel.apparmor_restrict_unprivileged_userns=1); fix: sudo "
		 "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0, or "
		 "allow sbxrun alone: /etc/apparmor.d/sbxrun with 'abi "
		 "<abi/4.0>, include <tunables/global> profile sbxrun %s "
		 "flags=(unconfined) { userns, }', then sudo apparmor_parser "
		 "-r /etc/apparmor.d/sbxrun",
		 exe);
}

static void uns_explain(const struct uns_result *r, char *why, size_t n)
{
	long clone_ok =
		read_sysctl("/proc/sys/kernel/unprivileged_userns_clone");
	long max = read_sysctl("/proc/sys/user/max_user_namespaces");
	long aa = read_sysctl(
		"/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
	const char *ct = container_name();

	if (clone_ok == 0 && geteuid() != 0)
		snprintf(
			why, n,
			"unprivileged user namespaces are disabled "
			"(kernel.unprivileged_userns_clone = 0); fix: sudo "
			"sysctl -w kernel.unprivileged_userns_clone=1 (persist "
			"it in /etc/sysctl.d/)");
	else if (max == 0)
		snprintf(why, n,
			 "user namespaces are disabled "
			 "(user.max_user_namespaces = 0); fix: sudo sysctl -w "
			 "user.max_user_namespaces=15000 (persist it in "
			 "/etc/sysctl.d/)");
	else if (r->err == ENOSPC)
		snprintf(why, n,
			 "the user namespace limit is reached "
			 "(user.max_user_namespaces = %ld); raise it with sudo "
			 "sysctl -w user.max_user_namespaces=N",
			 max);
	else if (aa == 1)
		uns_explain_apparmor(why, n);
	else if (r->step == UNS_UNSHARE && r->err == EPERM &&
		 under_seccomp_filter())
		snprintf(why, n,
			 "unshare(CLONE_NEWUSER) is blocked by a "
			 "seccomp filter%s: allow unshare and clone with "
			 "CLONE_NEWUSER in it, or run sbxrun --mode "
			 "landlock-only",
			 ct ? " (a container runtime's)" : "");
	else if (ct)
		snprintf(why, n,
			 "inside a container (%s) that forbids user "
			 "namespaces (its seccomp profile or capabilities): "
			 "start it with a seccomp profile that allows unshare "
			 "(e.g. --security-opt seccomp=unconfined), or run "
			 "sbxrun --mode landlock-only",
			 ct);
	else if (access("/proc/self/ns/user", F_OK) < 0)
		snprintf(why, n,
			 "this kernel was built without user "
			 "namespaces (CONFIG_USER_NS)");
	else
		snprintf(why, n,
			 "cannot create a user namespace: %s failed: %s",
			 uns_step_name(r->step), strerror(r->err));
}

static int probe_userns(char *why, size_t n)
{
	struct uns_result r = uns_try();

	if (r.step == UNS_OK)
		return 1;
	uns_explain(&r, why, n);
	return 0;
}

/* ------------------------------------------------------------- seccomp */

/*
 * Filter mode: a NULL program fails with EFAULT where filters exist and
 * EINVAL where they do not (bubblewrap's check).  We also need
 * SECCOMP_RET_KILL_PROCESS (4.14) for foreign syscall ABIs.
 */
static int probe_seccomp(void)
{
	unsigned int act = SECCOMP_RET_KILL_PROCESS;

	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0)
		return 0;
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, NULL, 0, 0) == 0 ||
	    errno != EFAULT)
		return 0;
	return syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &act) == 0;
}

/*
 * The trial costs a fork (half a millisecond, most of a launch's own
 * budget).  It is skipped unless AppArmor restricts user namespaces: that
 * is the one case where creating one succeeds and the failure comes
 * later, inside, as a refused mount.  Elsewhere a user namespace that is
 * not available makes the launch's own clone() fail, before anything ran.
 */
static int userns_needs_trial(void)
{
	return geteuid() != 0 &&
	       read_sysctl(
		       "/proc/sys/kernel/apparmor_restrict_unprivileged_userns") ==
		       1;
}

void sbx_features_probe(struct sbx_features *f, int quick)
{
	memset(f, 0, sizeof *f);
	f->is_root = geteuid() == 0;
	f->landlock_abi =
		probe_landlock(f->landlock_why, sizeof f->landlock_why);
	if (quick && !userns_needs_trial())
		f->userns = f->userns_assumed = 1;
	else
		f->userns = probe_userns(f->userns_why, sizeof f->userns_why);
	f->seccomp = probe_seccomp();
}

/* ---------------------------------------------------------------- mode */

/*
 * Full mode needs user namespaces (Landlock is added when present);
 * landlock-only needs Landlock ABI >= 1.  Whether the policy's network
 * setting can be carried in the chosen mode is sbx_landlock_apply()'s
 * question, and seccomp availability is the caller's (f->seccomp): both
 * are fallback decisions, not mode decisions.  On -1 *out is untouched;
 * a caller under fallback = warn can resolve SBX_KMODE_AUTO instead.
 */
int sbx_mode_resolve(enum sbx_kmode want, const struct sbx_features *f,
		     enum sbx_kmode *out, struct sbx_err *err)
{
	switch (want) {
	case SBX_KMODE_FULL:
		if (!f->userns)
			return sbx_errf(err, 0,
					"mode full needs user namespaces:"
					" %s",
					f->userns_why);
		break;
	case SBX_KMODE_LANDLOCK:
		if (f->landlock_abi < 1)
			return sbx_errf(err, 0,
					"mode landlock-only needs Landlock:"
					" %s",
					f->landlock_why);
		break;
	case SBX_KMODE_AUTO:
		if (f->userns)
			want = SBX_KMODE_FULL;
		else if (f->landlock_abi >= 1)
			want = SBX_KMODE_LANDLOCK;
		else
			return sbx_errf(err, 0,
					"no kernel sandbox is available: "
					"user namespaces: %s; Landlock: %s",
					f->userns_why, f->landlock_why);
		break;
	}
	*out = want;
	return 0;
}

/* ---------------------------------------------------------------- plan */

/* The display labels: sbx_enf plus one for protections the launcher
 * provides from outside (before exec, or from the supervisor): not the
 * kernel, but not bypassable from inside like the shim either. */
enum plan_enf {
	P_KERNEL = SBX_ENF_KERNEL,
	P_ADVISORY = SBX_ENF_ADVISORY,
	P_NONE = SBX_ENF_NONE,
	P_LAUNCHER,
	P_PARTIAL, /* kernel-enforced, with a stated gap */
};

struct plan {
	const struct sbx_policy *p;
	int full; /* full mode, else landlock-only */
	int abi; /* Landlock ABI in use, 0 if none */
	int sc; /* seccomp available */
};

struct cell {
	enum plan_enf e;
	const char *how;
};

#define CELL(e, how) ((struct cell){ (e), (how) })

static struct cell row_hidden(const struct plan *c)
{
	if (c->full)
		return CELL(
			P_KERNEL,
			c->abi ? "mount namespace: empty tmpfs or "
				 "/dev/null over each; Landlock grants nothing there"
			       : "mount namespace: empty tmpfs or /dev/null over each");
	return CELL(P_KERNEL, "Landlock: nothing granted there; the directories"
			      " above them cannot be listed");
}

static struct cell row_hidden_meta(const struct plan *c)
{
	if (c->full)
		return CELL(P_KERNEL, "mount namespace");
	return CELL(P_NONE, "Landlock cannot hide existence, size or times "
			    "from stat(2)");
}

static struct cell row_readonly(const struct plan *c)
{
	if (c->full)
		return CELL(P_KERNEL,
			    c->abi ? "read-only bind mounts + Landlock"
				   : "read-only bind mounts");
	if (c->abi < 3)
		return CELL(P_KERNEL, "Landlock; truncate(2) is not covered "
				      "before ABI 3");
	return CELL(P_KERNEL,
		    "Landlock: no write rights outside writable roots");
}

static struct cell row_attrs(const struct plan *c)
{
	if (c->full)
		return CELL(P_KERNEL, "read-only mounts: EROFS");
	return CELL(P_ADVISORY, "shim only: Landlock has no attribute rights");
}

static struct cell row_writable(const struct plan *c)
{
	if (c->full)
		return CELL(P_KERNEL,
			    c->abi ? "read-write bind mounts + Landlock"
				   : "read-write bind mounts");
	if (c->abi < 2)
		return CELL(P_KERNEL, "Landlock; ABI 1 refuses every rename or "
				      "link across directories with EXDEV");
	return CELL(P_KERNEL, "Landlock write rights");
}

static struct cell row_protect(const struct plan *c)
{
	if (c->full)
		return CELL(P_PARTIAL,
			    "read-only bind mounts for the ones that "
			    "exist at launch; created later or in nested "
			    "repositories/submodules: not enforced, reported "
			    "at exit");
	return CELL(P_ADVISORY,
		    "shim only: Landlock cannot make a read-only "
		    "hole in a writable tree; created later: reported at exit");
}

static struct cell row_devices(const struct plan *c)
{
	if (c->full)
		return CELL(P_KERNEL, "minimal /dev with a private devpts and "
				      "/dev/shm; ipc namespace for SysV IPC");
	return CELL(P_KERNEL,
		    "Landlock: /dev/pts (but the command's own "
		    "terminal) and /dev/shm hidden; seccomp refuses SysV IPC");
}

static struct cell row_nproc(const struct plan *c)
{
	if (c->p->limits.nproc == 0)
		return CELL(P_NONE, "limits.nproc is 0");
	return CELL(P_PARTIAL,
		    "RLIMIT_NPROC; the kernel exempts a caller "
		    "running as root (uid 0): the timeout still ends a fork "
		    "bomb");
}

static struct cell row_tmp(const struct plan *c)
{
	if (c->full)
		return CELL(P_KERNEL, "tmpfs in the mount namespace");
	return CELL(P_NONE, "the host's /tmp is shared, with its sockets");
}

static struct cell row_net_closed(const struct plan *c)
{
	if (!c->sc)
		return c->abi >= 4
			       ? CELL(P_NONE,
				      "only TCP is refused (Landlock); UDP, ICMP "
				      "and raw sockets need seccomp")
			       : CELL(P_NONE,
				      "no seccomp and no Landlock TCP rules");
	if (c->abi >= 4)
		return CELL(P_KERNEL, "seccomp: only AF_UNIX sockets; Landlock "
				      "refuses TCP bind and connect");
	return CELL(P_KERNEL, "seccomp: only AF_UNIX sockets; Landlock TCP "
			      "rules need ABI 4");
}

static struct cell row_net(const struct plan *c)
{
	switch (c->p->net) {
	case SBX_NET_OFF: return row_net_closed(c);
	case SBX_NET_LOOPBACK:
		if (c->full)
			return CELL(P_KERNEL, "private network namespace with "
					      "loopback only");
		return CELL(P_NONE,
			    "needs a network namespace: host loopback "
			    "and internet reachable; sbxrun refuses to run so");
	case SBX_NET_FILTERED:
		if (c->full)
			return CELL(P_KERNEL,
				    "network namespace without a route: "
				    "the allow-list proxy is not implemented "
				    "yet, so nothing is reachable");
		return row_net_closed(c);
	case SBX_NET_ON: break;
	}
	if (c->sc)
		return CELL(P_KERNEL,
			    "network on; seccomp refuses packet, raw, "
			    "MPTCP and SCTP sockets");
	return CELL(P_NONE, "network on");
}

static struct cell row_unix_path(const struct plan *c)
{
	/* Only sockets under /run, /tmp and hidden directories leave the
	 * view; a socket elsewhere in a readable tree stays connectable
	 * until Landlock ABI 9 checks connect(2). */
	if (c->full)
		return CELL(P_PARTIAL,
			    "mount namespace hides /run (docker, "
			    "D-Bus, agents), /tmp and hidden dirs; sockets "
			    "elsewhere in readable trees stay reachable "
			    "before Landlock ABI 9");
	return CELL(P_NONE, "Landlock before ABI 9 does not check connect(): "
			    "docker.sock, agents and D-Bus are reachable");
}

static struct cell row_unix_abstract(const struct plan *c)
{
	int netns = c->full && (c->p->net == SBX_NET_LOOPBACK ||
				c->p->net == SBX_NET_FILTERED);

	if (c->abi >= 6)
		return CELL(P_PARTIAL,
			    "Landlock abstract-socket scope: the "
			    "sandbox cannot connect out; without a network "
			    "namespace a name it binds is visible outside");
	if (netns)
		return CELL(P_KERNEL, "private network namespace");
	return CELL(P_NONE, "X11 and D-Bus abstract sockets are reachable; "
			    "needs Landlock ABI 6");
}

static struct cell row_signals(const struct plan *c)
{
	if (c->full)
		return CELL(P_KERNEL, c->abi >= 6 ? "pid namespace + Landlock "
						    "signal scope"
						  : "pid namespace");
	if (c->abi >= 6)
		return CELL(P_KERNEL, "Landlock signal scope");
	return CELL(P_NONE, "same uid: kill(2) reaches the user's processes; "
			    "needs Landlock ABI 6");
}

static struct cell row_ptrace(const struct plan *c)
{
	if (c->sc)
		return CELL(
			P_KERNEL,
			c->full ? "seccomp: ptrace, process_vm_*, "
				  "pidfd_getfd denied; pid namespace"
				: "seccomp: ptrace, process_vm_*, pidfd_getfd "
				  "denied; Landlock ptrace scoping");
	if (c->full || c->abi)
		return CELL(P_KERNEL, c->full ? "pid namespace"
					      : "Landlock ptrace scoping");
	return CELL(P_NONE, "no seccomp");
}

static struct cell row_proc(const struct plan *c)
{
	if (c->full)
		return CELL(P_KERNEL, "pid namespace with a fresh /proc");
	return CELL(P_KERNEL,
		    "Landlock ptrace scoping hides environ, mem, fd "
		    "and root; the process list and cmdlines stay visible");
}

static struct cell row_tiocsti(const struct plan *c)
{
	if (c->sc)
		return CELL(P_KERNEL, "seccomp, comparing the low 32 bits");
	return CELL(P_NONE, "no seccomp");
}

static struct cell row_nested(const struct plan *c)
{
	if (c->sc)
		return CELL(P_KERNEL,
			    "seccomp: unshare, setns, mount, namespace "
			    "clone flags; clone3 and the new mount API get "
			    "ENOSYS");
	return CELL(P_NONE, "no seccomp");
}

static struct cell row_surface(const struct plan *c)
{
	if (c->sc)
		return CELL(P_KERNEL, "seccomp deny list; syscalls newer than "
				      "the filter are allowed");
	return CELL(P_NONE, "no seccomp");
}

static struct cell row_outlive(const struct plan *c)
{
	if (c->full)
		return CELL(P_KERNEL, "pid namespace: all die with its pid 1");
	if (c->abi >= 6)
		return CELL(P_LAUNCHER,
			    "child subreaper: the supervisor kills "
			    "what is left; Landlock signal scope shields it");
	return CELL(P_NONE, "the sandbox can kill the supervisor first: same "
			    "uid, no signal scope before Landlock ABI 6");
}

static struct cell row_env(const struct plan *c)
{
	return CELL(P_LAUNCHER, "built from env.keep and env.drop before exec");
}

static struct cell row_suffix(const struct plan *c)
{
	if (c->p->limits.fsize)
		return CELL(P_ADVISORY, "shim only; RLIMIT_FSIZE caps every "
					"file (kernel)");
	return CELL(P_ADVISORY, "shim only: static programs and raw syscalls "
				"bypass it");
}

static struct cell row_exec(const struct plan *c)
{
	return CELL(P_ADVISORY, "shim only: static programs and raw execve(2) "
				"bypass it");
}

static const struct plan_row {
	const char *what;
	struct cell (*fn)(const struct plan *);
} plan_rows[] = {
	{ "hidden paths (contents)", row_hidden },
	{ "hidden paths (names, stat metadata)", row_hidden_meta },
	{ "read-only system", row_readonly },
	{ "chmod/chown/xattr/utimes outside rw roots", row_attrs },
	{ "writable roots", row_writable },
	{ "protected paths inside writable roots", row_protect },
	{ "private /tmp", row_tmp },
	{ "other terminals, shared memory, SysV IPC", row_devices },
	{ "process count (fork bombs)", row_nproc },
	{ "network", row_net },
	{ "pathname unix sockets", row_unix_path },
	{ "abstract unix sockets", row_unix_abstract },
	{ "signals to outside processes", row_signals },
	{ "ptrace/memory of outside processes", row_ptrace },
	{ "/proc of outside processes", row_proc },
	{ "terminal injection (TIOCSTI, TIOCLINUX)", row_tiocsti },
	{ "nested namespaces, mount", row_nested },
	{ "kernel attack surface (bpf, keyctl, ...)", row_surface },
	{ "processes outliving the command", row_outlive },
	{ "environment scrubbing", row_env },
	{ "suffix and size rules", row_suffix },
	{ "exec deny rules", row_exec },
};

static const char *plan_label(enum plan_enf e)
{
	switch (e) {
	case P_KERNEL: return "kernel";
	case P_ADVISORY: return "advisory";
	case P_NONE: return "not enforced";
	case P_LAUNCHER: return "launcher";
	case P_PARTIAL: return "partial";
	}
	return "?";
}

/* Is any hidden path below a writable root?  Landlock-only mode then
 * takes the right to create entries from the directories above it. */
static int plan_hide_in_rw(const struct sbx_policy *p)
{
	for (size_t i = 0; i < p->nrules; i++)
		for (size_t j = 0; j < p->nrules; j++)
			if (p->rules[i].mode == SBX_HIDE &&
			    p->rules[j].mode == SBX_RW &&
			    p->rules[i].rootlen > p->rules[j].rootlen &&
			    sbx_path_within(p->rules[i].root, p->rules[j].root,
					    p->rules[j].rootlen))
				return 1;
	return 0;
}

static void plan_notes(FILE *fp, const struct plan *c,
		       const struct sbx_features *f)
{
	if (f && !f->landlock_abi)
		fprintf(fp, "  note: Landlock: %s\n", f->landlock_why);
	if (f && !f->userns)
		fprintf(fp, "  note: user namespaces: %s\n", f->userns_why);
	if (f && !f->seccomp)
		fprintf(fp, "  note: seccomp filters are not available\n");
	if (!c->full && c->abi < 4 &&
	    (c->p->net == SBX_NET_OFF || c->p->net == SBX_NET_FILTERED))
		fprintf(fp,
			"  note: Landlock ABI %d has no TCP rules: "
			"sbx_landlock_apply() refuses network = %s in "
			"landlock-only mode; only the seccomp socket filter "
			"would hold\n",
			c->abi, sbx_net_name(c->p->net));
	if (!c->full && plan_hide_in_rw(c->p))
		fprintf(fp, "  note: directories on the way to a hidden path "
			    "inside a writable root accept no new entries in "
			    "landlock-only mode\n");
}

void sbx_plan_print(FILE *fp, const struct sbx_policy *p, enum sbx_kmode mode,
		    const struct sbx_features *f)
{
	struct sbx_err err;
	struct plan c;

	if (mode == SBX_KMODE_AUTO && f &&
	    sbx_mode_resolve(SBX_KMODE_AUTO, f, &mode, &err) < 0) {
		fprintf(fp, "kernel plan: none: %s\n", err.msg);
		return;
	}
	c.p = p;
	c.full = mode == SBX_KMODE_FULL;
	/* Without a probe assume the least the mode can run with. */
	c.abi = f ? f->landlock_abi : !c.full;
	c.sc = f ? f->seccomp : 1;
	fprintf(fp,
		"kernel plan: mode %s; Landlock ABI %d; seccomp %s; "
		"user namespaces %s\n",
		c.full ? "full" : "landlock-only", c.abi, c.sc ? "yes" : "no",
		f ? (f->userns ? "yes" : "no") : "unknown");
	for (size_t i = 0; i < sizeof plan_rows / sizeof plan_rows[0]; i++) {
		struct cell x = plan_rows[i].fn(&c);

		fprintf(fp, "  %-42s %s (%s)\n", plan_rows[i].what,
			plan_label(x.e), x.how);
	}
	plan_notes(fp, &c, f);
}
