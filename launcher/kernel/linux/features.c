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

/* Inside another sbxrun sandbox (its variables, under a seccomp filter):
 * its layers stay in force around whatever we make. */
static int in_sbxrun(void)
{
	const char *v = getenv("SBXRUN");

	return v && !strcmp(v, "1") && getenv("SBXRUN_POLICY") &&
	       under_seccomp_filter();
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

/*
 * SBXRUN_TEST_LANDLOCK_ABI=N: use at most ABI N (0: as if Landlock were
 * missing), so the tests can show what each older kernel gets.  It can
 * only lower the ABI, never raise it, and every run under it says so
 * (the result is a weaker sandbox, reported like any other).
 */
static void landlock_cap(struct sbx_features *f)
{
	const char *v = getenv("SBXRUN_TEST_LANDLOCK_ABI");
	char *end;
	long cap;

	if (!v || !*v)
		return;
	errno = 0;
	cap = strtol(v, &end, 10);
	if (errno || *end || cap < 0 || cap >= f->landlock_abi)
		return;
	f->landlock_abi = (int)cap;
	f->landlock_capped = 1;
	if (cap == 0)
		snprintf(f->landlock_why, sizeof f->landlock_why,
			 "disabled by SBXRUN_TEST_LANDLOCK_ABI=0 (a test "
			 "setting): unset it");
}

/* ------------------------------------------------------ user namespaces */

enum { UNS_OK, UNS_FORK, UNS_UNSHARE, UNS_UIDMAP, UNS_MOUNT };

struct uns_result {
	int step; /* the first step that failed, UNS_OK if none */
	int err;
	int proc_masked; /* the user namespace works, a fresh /proc not */
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
 * In the trial's namespaces: would pid 1 of a new pid namespace get a
 * fresh /proc?  The kernel refuses it (EPERM) while parts of the
 * current /proc are covered by other mounts (mount_too_revealing()).
 */
static int proc_refused(void)
{
	int st = 0;
	pid_t pid;

	if (unshare(CLONE_NEWPID) < 0)
		return 0; /* the launch will say why */
	pid = fork();
	if (pid == 0)
		_exit(mount("proc", "/proc", "proc",
			    MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0 &&
				      errno == EPERM
			      ? 3
			      : 0);
	if (pid < 0)
		return 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 3;
}

/*
 * The child: do what full mode will do, up to a mount.  The mount matters
 * because Ubuntu's AppArmor restriction lets unshare() succeed and then
 * withholds the capabilities inside.  Only async-signal-safe calls: the
 * caller may be multi-threaded.
 */
static void uns_child(int wfd, const char *map)
{
	struct uns_result r = { UNS_OK, 0, 0 };

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		r = (struct uns_result){ UNS_UNSHARE, errno, 0 };
	else if (write_str("/proc/self/setgroups", "deny") < 0 &&
		 errno != ENOENT)
		r = (struct uns_result){ UNS_UIDMAP, errno, 0 };
	else if (write_str("/proc/self/uid_map", map) < 0)
		r = (struct uns_result){ UNS_UIDMAP, errno, 0 };
	else if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		r = (struct uns_result){ UNS_MOUNT, errno, 0 };
	else
		r.proc_masked = proc_refused();
	if (write(wfd, &r, sizeof r) != (ssize_t)sizeof r)
		_exit(2);
	_exit(0);
}

static struct uns_result uns_try(void)
{
	struct uns_result r = { UNS_FORK, 0, 0 };
	char map[64];
	int pfd[2];
	pid_t pid;

	snprintf(map, sizeof map, "0 %u 1\n", (unsigned)geteuid());
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return (struct uns_result){ UNS_FORK, errno, 0 };
	pid = fork();
	if (pid == 0)
		uns_child(pfd[1], map);
	if (pid < 0)
		r.err = errno;
	close(pfd[1]);
	if (pid > 0 && read(pfd[0], &r, sizeof r) != (ssize_t)sizeof r)
		r = (struct uns_result){ UNS_FORK, ECHILD, 0 };
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
	else if (r->step == UNS_MOUNT)
		snprintf(why, n,
			 "user namespaces are created but mounts in them are "
			 "refused (%s): an LSM (AppArmor, SELinux) or a "
			 "seccomp filter on mount(2)%s; fix: allow mount in "
			 "new user namespaces there, or run sbxrun --mode "
			 "landlock-only",
			 strerror(r->err),
			 ct ? ", the container runtime's" : "");
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

static int probe_userns(struct sbx_features *f)
{
	struct uns_result r = uns_try();

	if (r.step == UNS_OK) {
		f->proc_masked = r.proc_masked;
		return 1;
	}
	uns_explain(&r, f->userns_why, sizeof f->userns_why);
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
	landlock_cap(f);
	f->nested = in_sbxrun();
	if (f->nested) /* its seccomp filter refuses new namespaces */
		snprintf(f->userns_why, sizeof f->userns_why,
			 "inside another sbxrun sandbox, whose seccomp filter "
			 "refuses new namespaces: the inner sandbox is "
			 "landlock-only, stacked on the outer one's layers");
	/* Without Landlock full mode is weaker and says so before it
	 * starts: try first, so that a refused clone does not leave a
	 * warning about a mode that never ran. */
	else if (quick && !userns_needs_trial() && f->landlock_abi >= 1)
		f->userns = f->userns_assumed = 1;
	else
		f->userns = probe_userns(f);
	f->seccomp = probe_seccomp();
	f->seccomp_filtered = prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 2;
	/* Inside another sbxrun, whose filter refuses a listener (and
	 * whose own listener would explain the trial as a refusal). */
	f->seccomp_in_sbxrun = f->seccomp_filtered && getenv("SBXRUN");
	f->seccomp_notif = f->seccomp && !f->seccomp_in_sbxrun &&
			   probe_seccomp_notif();
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

/* ------------------------------------------------------------ strength */

const char sbx_proc_masked_fix[] =
	"parts of this /proc are covered by other mounts (a container's "
	"masked paths), so the kernel refuses the sandbox a fresh /proc; "
	"fix: start the container with its /proc unmasked (docker: "
	"--security-opt systempaths=unconfined; podman: --security-opt "
	"unmask=ALL; bwrap: --bind /proc /proc instead of --proc /proc)";

__attribute__((format(printf, 3, 4))) static void add(char *buf, size_t n,
						      const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	if (len >= n)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, n - len, fmt, ap);
	va_end(ap);
}

int sbx_mode_weaker(const struct sbx_policy *p, enum sbx_kmode asked,
		    enum sbx_kmode mode, const struct sbx_features *f,
		    char *why, size_t n)
{
	why[0] = '\0';
	/* nested: the outer sandbox's namespaces hold around us */
	if (mode == SBX_KMODE_LANDLOCK && asked != SBX_KMODE_LANDLOCK &&
	    !f->nested)
		add(why, n,
		    "landlock-only mode, because user namespaces are not "
		    "available: %s; weaker than full mode: stat(2) sees "
		    "hidden names, /tmp and /proc/net are the host's, no pid "
		    "namespace (see sbxrun --dry-run); ",
		    f->userns_why);
	if (f->landlock_abi < 1)
		add(why, n,
		    "no Landlock (%s): a secret created or renamed into "
		    "place during the run is readable; ",
		    f->landlock_why);
	if (mode == SBX_KMODE_LANDLOCK && f->landlock_abi >= 1 &&
	    f->landlock_abi < 4 && p->net == SBX_NET_OFF)
		add(why, n,
		    "network = off is held by the seccomp socket filter "
		    "alone (Landlock ABI %d has no TCP rules; fix: Linux 6.7 "
		    "or later); ",
		    f->landlock_abi);
	if (!f->seccomp)
		add(why, n,
		    "no seccomp filters: nested namespaces, ptrace, "
		    "TIOCSTI and the kernel's attack surface are open; fix: "
		    "a kernel with CONFIG_SECCOMP_FILTER; ");
	if (mode == SBX_KMODE_FULL && f->proc_masked)
		add(why, n,
		    "the host's /proc instead of a fresh one (the process "
		    "list and command lines of outside processes are "
		    "visible; their memory and environment are not): %s; ",
		    sbx_proc_masked_fix);
	if (!why[0])
		return 0;
	if (strlen(why) >= 2 && strlen(why) < n)
		why[strlen(why) - 2] = '\0';
	return 1;
}
