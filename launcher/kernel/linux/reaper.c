/*
 * reaper.c - pid 1 of full mode and the keeper of landlock-only mode
 * (spawn.h): the process between the supervisor and the command that
 * reaps everything, forwards signals, passes the command's wait status up
 * and, without a pid namespace, takes the rest of the tree down with it.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"
#include "watch.h"

int sbx_exit_code(int st)
{
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 125;
}

static void forward(pid_t pid, int sig)
{
	/* The command leads its own process group: after setsid(), or
	 * with keep_tty after setpgid() (tty.c's sbx_tty_take); should
	 * that have failed, only the process itself is signalled. */
	if (kill(-pid, sig) < 0)
		kill(pid, sig);
}

/* The signals the supervisor and the in-sandbox reaper wait for. */
void sbx_waited_signals(sigset_t *set)
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
/* The next of the signals in set.  While pid 1 watches protected paths
 * (watch.c), it also waits for the mount table to change, and handles
 * that in between. */
static int next_signal(const sigset_t *set, siginfo_t *si)
{
	static int sfd = -1;
	struct signalfd_siginfo ss;
	struct pollfd pf[2];

	if (!sbx_watching())
		return sigwaitinfo(set, si);
	if (sfd < 0 && (sfd = signalfd(-1, set, SFD_CLOEXEC)) < 0)
		return sigwaitinfo(set, si);
	pf[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	pf[1] = (struct pollfd){ .fd = sbx_watch_fd(), .events = POLLPRI };
	if (poll(pf, 2, -1) < 0)
		return -1;
	if (pf[1].revents)
		sbx_watch_events();
	if (!(pf[0].revents & POLLIN) ||
	    read(sfd, &ss, sizeof ss) != (ssize_t)sizeof ss)
		return -1;
	memset(si, 0, sizeof *si);
	si->si_signo = (int)ss.ssi_signo;
	si->si_code = ss.ssi_code;
	return si->si_signo;
}

/*
 * Full mode, the command has exited: the kernel would kill what is left
 * of the pid namespace when we exit, but only after tearing down our
 * namespaces (the mount table, the network), which the supervisor would
 * wait for before its exit repair.  So kill and reap it ourselves first:
 * every process of the namespace is one of ours once orphaned, and kill
 * -1 in a pid namespace reaches exactly the namespace's processes but
 * us (all of the caller's uid, the only one mapped).  Then MSG_GONE says
 * the tree is gone, and the supervisor repairs while our exit runs on.
 * Only as pid 1 (never kill -1 outside a namespace of our own).
 * 1 when every process was reaped.
 */
static int end_tree(void)
{
	int st;

	if (getpid() != 1)
		return 0;
	/* No child: nothing is left (every process of the namespace is
	 * ours once orphaned), and kill -1 walks every process of the
	 * machine */
	if (waitpid(-1, &st, WNOHANG | __WALL) < 0 && errno == ECHILD)
		return 1;
	for (;;) { /* again after each reaped one: a fork in flight */
		if (kill(-1, SIGKILL) < 0 && errno != ESRCH)
			return 0;
		if (waitpid(-1, &st, __WALL) < 0 && errno != EINTR)
			return errno == ECHILD;
	}
}

/* The keeper's end (landlock-only): the whole tree below it killed and
 * reaped (proctree.c), and 1 when it has no child left: every process of
 * the tree descends from it (a child subreaper: orphans come to it), so
 * none is left, and MSG_GONE lets the supervisor repair while we exit. */
static int keeper_end(void)
{
	int st;

	sbx_kill_tree(getpid(), 0, 1, NULL, NULL);
	return waitpid(-1, &st, WNOHANG | __WALL) < 0 && errno == ECHILD;
}

static void __attribute__((noreturn))
reaper_loop(const struct sup *s, pid_t cmd, int keeper)
{
	sigset_t set;
	siginfo_t si;
	int flags = WNOHANG | __WALL | (s->l->keep_tty ? WUNTRACED : 0);
	pid_t p;
	int st;

	sbx_waited_signals(&set);
	if (keeper)
		sigaddset(&set, SIGUSR2);
	for (;;) {
		if (next_signal(&set, &si) < 0)
			continue;
		if (keeper &&
		    (si.si_signo == SIGUSR2 || getppid() != s->self)) {
			sbx_kill_tree(getpid(), 0, 1, NULL, NULL);
			_exit(125);
		}
		if (si.si_signo != SIGCHLD) {
			if (si.si_code != SI_KERNEL)
				forward(cmd, si.si_signo);
			continue;
		}
		while ((p = waitpid(-1, &st, flags)) > 0) {
			if (p != cmd)
				continue;
			if (WIFSTOPPED(st)) { /* keep_tty: tty.c */
				sbx_chan_put(s->chan[1], MSG_STOPPED,
					     WSTOPSIG(st), NULL);
				continue;
			}
			sbx_chan_put(s->chan[1],
				     (keeper ? keeper_end() : end_tree())
					     ? MSG_GONE
					     : MSG_STATUS,
				     st, NULL);
			_exit(sbx_exit_code(st));
		}
	}
}

struct cmd_arg {
	const struct sup *s;
	int keeper;
};

static int cmd_entry(void *p)
{
	const struct cmd_arg *a = p;

	if (a->keeper) /* the keeper killed: the command with it */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
	sbx_cmd_main(a->s);
}

/* The command's own stack while it shares our memory: ample for its
 * layers (Landlock, libseccomp, the PATH search), a guard page below. */
#define CMD_STACK (2u << 20)

/*
 * The command process, as posix_spawn(3) makes one: it shares our memory
 * (CLONE_VM) and we sleep (CLONE_VFORK) until it execs or exits, so no
 * page table is copied and no page faulted in twice: the fork of pid 1 or
 * the keeper cost 0.15 ms, and the copy-on-write faults on both sides
 * after it more.  Safe here because nothing runs beside it: we are
 * single-threaded and stopped, it has its own stack, descriptor table,
 * credentials, limits, signal mask and handlers (none of CLONE_FILES,
 * CLONE_FS, CLONE_SIGHAND, CLONE_THREAD), and it leaves only by exec or
 * _exit.  What it writes to the heap (Landlock's and libseccomp's
 * buffers) stays ours, unused.  Its layers (Landlock, seccomp,
 * no_new_privs, capabilities) are per task, and untrusted code runs only
 * after exec, in a memory of its own.  An ASan build forks: the
 * sanitizer keeps per-thread state a shared-memory child would corrupt.
 */
static pid_t spawn_cmd(const struct sup *s, int keeper)
{
	struct cmd_arg a = { s, keeper };
	long pg = sysconf(_SC_PAGESIZE);
	char *stk;
	pid_t pid;

#if !defined(__SANITIZE_ADDRESS__)
	stk = mmap(NULL, CMD_STACK, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1,
		   0);
	if (stk != MAP_FAILED) {
		if (mprotect(stk, (size_t)(pg > 0 ? pg : 4096), PROT_NONE) ==
		    0) {
			pid = clone(cmd_entry, stk + CMD_STACK,
				    CLONE_VM | CLONE_VFORK | SIGCHLD, &a);
			munmap(stk, CMD_STACK);
			return pid;
		}
		munmap(stk, CMD_STACK);
	}
#else
	(void)pg;
	(void)stk;
#endif
	pid = fork();
	if (pid == 0)
		cmd_entry(&a);
	return pid;
}

void sbx_pid1_main(const struct sup *s)
{
	struct pollfd p = { .fd = s->sync[0], .events = POLLIN };
	struct sbx_err e;
	pid_t cmd;

	/* Die with the supervisor.  getppid() is 0 across a pid namespace,
	 * so it cannot tell whether the supervisor died before this was
	 * armed; the sync pipe can: the supervisor holds its write end
	 * until the end, so a hang-up means it is gone (no wait: nothing
	 * is ever written). */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || sbx_child_fds(s, 1) < 0 ||
	    poll(&p, 1, 0) < 0 || (p.revents & (POLLHUP | POLLERR)))
		_exit(125);
	close(s->sync[0]);
	if (sbx_pid1_maps(s, &e) < 0) { /* refused: SBX_LAUNCH_RETRY */
		char m[sizeof e.msg + 16];

		snprintf(m, sizeof m, "namespaces: %s", e.msg);
		sbx_chan_put(s->chan[1], MSG_FAIL, 1, m);
		_exit(125);
	}
	/* The maps are written; from now on no process outside may open
	 * our /proc entries (root, fd, mem) or ptrace us. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	sbx_pid1_setup(s);
	cmd = spawn_cmd(s, 0);
	if (cmd < 0) {
		sbx_chan_say(s->chan[1], MSG_FAIL, "sandbox: fork: %m");
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
void sbx_keeper_main(const struct sup *s)
{
	sigset_t usr2;
	pid_t cmd;

	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	if (sigprocmask(SIG_BLOCK, &usr2, NULL) < 0 ||
	    prctl(PR_SET_PDEATHSIG, SIGUSR2) < 0 || getppid() != s->self ||
	    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0 ||
	    sbx_child_fds(s, 0) < 0)
		_exit(125);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	cmd = spawn_cmd(s, 1);
	if (cmd < 0) {
		sbx_chan_say(s->chan[1], MSG_FAIL, "sandbox: fork: %m");
		_exit(125);
	}
	reaper_loop(s, cmd, 1);
}
