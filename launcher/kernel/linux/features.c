/*
 * features.c - what this machine's kernel offers and which mode that
 * gives.
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
#include "linux.h"

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

/* User notification (5.0), for the supervisor's listener (notif.c). */
static int probe_seccomp_notif(void)
{
	unsigned int act = SECCOMP_RET_USER_NOTIF;

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
	f->seccomp_notif = f->seccomp && probe_seccomp_notif();
	f->seccomp_filtered = prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 2;
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
