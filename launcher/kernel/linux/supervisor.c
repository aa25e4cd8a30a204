/*
 * supervisor.c - sbx_linux_launch(): the parent side of one sandboxed command
 * (spawn.h).  It opens the channel, the capture pipes and a signalfd,
 * starts pid 1 (full mode: a raw clone into new namespaces; pid 1 writes
 * its own id maps) or the keeper (landlock-only), and loops until the
 * tree is gone: poll on the signalfd (SIGCHLD, and
 * SIGINT/SIGTERM/SIGHUP to forward), the channel, the report socket, the
 * capture pipes and the stdin feed, with the timeout as the deadline.
 *
 * Library caveats: while a launch runs it blocks SIGCHLD, SIGINT,
 * SIGTERM, SIGHUP and SIGPIPE in the calling thread, sets SIGCHLD to its
 * default action, and in landlock-only mode becomes a child subreaper; all
 * restored before it returns.  It expects to be called from a
 * single-threaded process (the CLI is), and in landlock-only mode treats
 * any child of the caller started after the launch as part of the sandbox.
 *
 * One cleanup idiom in this file: goto out.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compat.h"
#include "spawn.h"

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
static const int fwd_signals[3] = { SIGINT, SIGTERM, SIGHUP };

/* A shell starts background jobs with SIGINT ignored, and an ignored
 * signal never reaches the signalfd (nor, inherited, the command): with
 * no terminal, kill -INT would do nothing.  While blocked, SIG_DFL is
 * safe; the caller's disposition comes back afterwards. */
static int take_signals(struct sup *s)
{
	struct sigaction dfl, cur;
	sigset_t set;

	sbx_waited_signals(&set);
	sigaddset(&set, SIGPIPE);
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL; /* SIG_IGN would auto-reap */
	if (sigaction(SIGCHLD, &dfl, &s->oldchld) < 0 ||
	    sigprocmask(SIG_BLOCK, &set, &s->oldmask) < 0)
		return sbx_errf(s->err, 0, "launch: signals: %m");
	s->signals_set = 1;
	for (int i = 0; i < 3; i++)
		if (sigaction(fwd_signals[i], NULL, &cur) == 0 &&
		    cur.sa_handler == SIG_IGN &&
		    sigaction(fwd_signals[i], &dfl, &s->oldign[i]) == 0)
			s->ignored |= 1 << i;
	sigdelset(&set, SIGPIPE);
	s->fd[P_SIG] = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (s->fd[P_SIG] < 0 || lift(&s->fd[P_SIG]) < 0)
		return sbx_errf(s->err, 0, "launch: signalfd: %m");
	return 0;
}

/* sync[1] stays open until the cleanup: pid 1 reads its end's hang-up as
 * "the supervisor is gone" (reaper.c). */
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
	int loop = s->l->pol->net == SBX_NET_LOOPBACK ||
		   s->l->pol->net == SBX_NET_FILTERED;
	pid_t pid;

	if (loop)
		fl |= CLONE_NEWNET;
	/* A fork-like raw clone (no new stack): the child is pid 1 of the
	 * new pid namespace.  We are single-threaded, so it may use libc. */
	pid = (pid_t)syscall(SYS_clone, fl | SIGCHLD, NULL, NULL, NULL, NULL);
	if (pid == 0)
		sbx_pid1_main(s);
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
	return 0; /* pid 1 writes its own id maps (child.c) */
}

/* Landlock-only: the keeper does the work (keeper_main); we are a child
 * subreaper as well, so that if the keeper itself is killed, what it
 * leaves reparents to us and sbx_kill_tree() still finds it. */
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
		sbx_keeper_main(s);
	if (pid < 0)
		return sbx_errf(s->err, 0, "launch: fork: %m");
	s->child = pid;
	s->fd[P_CHILD] = (int)syscall(SYS_pidfd_open, pid, 0);
	if (sbx_proc_stat(pid, &pp, &s->child_start) < 0)
		s->child_start = 0;
	close_child_ends(s);
	return 0;
}

/* A full-mode start that could not make its namespaces is handed back to
 * the caller (SBX_LAUNCH_RETRY) rather than retried here: landlock-only
 * mode needs its own policy (hidden /dev/pts and /dev/shm, protect rules
 * in the shim), which the caller builds. */
static int sup_start(struct sup *s)
{
	if (s->mode == SBX_KMODE_LANDLOCK)
		return start_landlock(s);
	return start_full(s);
}

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
	s->reaped = 1;
	s->child_status = st;
	if (s->mode == SBX_KMODE_LANDLOCK)
		sbx_kill_tree(s->self, s->child_start, 0, got_child, s);
	child_finished(s);
}

static void kill_all(struct sup *s);

/* pid 1 or the keeper forwards it to the command's process group.  A
 * second one kills the whole tree: a command that ignores the first
 * does not keep the run alive. */
static void relay(struct sup *s, int sig)
{
	if (!s->got_sig)
		s->got_sig = sig;
	if (++s->nsig >= 2 && !s->child_done) {
		s->sig_killed = 1;
		kill_all(s);
		return;
	}
	kill(s->child, sig);
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

/* Kill the whole tree: in full mode SIGKILL to pid 1 is enough, the
 * kernel takes the pid namespace down with it. */
static void kill_all(struct sup *s)
{
	if (s->mode == SBX_KMODE_FULL) {
		kill(s->child, SIGKILL);
		return;
	}
	sbx_kill_tree(s->self, s->child_start, 0, got_child, s);
	child_finished(s);
}

static void check_timeout(struct sup *s)
{
	if (!s->deadline || s->timed_out || now_ns() < s->deadline)
		return;
	s->timed_out = 1;
	kill_all(s);
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

/* The filtering proxy (network = filtered) could not start: the network
 * the command was promised is not there, so nothing runs. */
static void proxy_start(struct sup *s, int fd)
{
	if (sbx_supnet_start(s, fd) == 0)
		return;
	s->failed = 1;
	if (s->mode == SBX_KMODE_FULL)
		kill(s->child, SIGKILL);
	else
		sbx_kill_tree(s->self, s->child_start, 0, got_child, s);
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
		/* pid 1's first mount refused: the namespaces were granted
		 * in name only; nothing ran (a full probe will say why). */
		if (m->val == 1)
			s->clone_failed = 1;
		break;
	case MSG_WARN:
		if (s->l->on_warning)
			s->l->on_warning(s->l->warning_ctx, m->text);
		break;
	case MSG_EXEC: s->exec_errno = m->val; break;
	case MSG_STOPPED: sbx_tty_stopped(s); break;
	case MSG_STATUS:
		s->cmd_status = m->val;
		s->cmd_status_known = 1;
		break;
	case MSG_GONE: /* pid 1 or the keeper reaped the whole tree */
		s->cmd_status = m->val;
		s->cmd_status_known = 1;
		if (!s->child_done) {
			s->tree_gone = 1;
			child_finished(s);
		}
		break;
	case MSG_NOTIF:
		if (*fd < 0 || s->fd[P_NOTIF] >= 0)
			break;
		s->fd[P_NOTIF] = *fd;
		*fd = -1;
		break;
	case MSG_NETPROXY:
		if (*fd >= 0 && s->mode == SBX_KMODE_FULL &&
		    s->l->pol->net == SBX_NET_FILTERED)
			proxy_start(s, *fd);
		*fd = -1;
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

/* RPT-01: a record counts only from the caller's own uid, as the kernel
 * attests it (SO_PASSCRED; a sandbox's uid maps back to the caller's):
 * another local user who finds the abstract name is not heard.  Not the
 * parent chain: a process is often gone before its record is read. */
static int from_sandbox(const struct ucred *cr)
{
	return cr->uid == getuid() && cr->pid > 0;
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
	if (!from_sandbox(&cr)) {
		s->foreign_records++;
		return 1;
	}
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
	/* First: a refused call waits for our answer. */
	if (p[P_NOTIF].revents & POLLIN)
		sbx_notif_serve(s);
	else if (p[P_NOTIF].revents) /* no process left to notify */
		close_fd(&s->fd[P_NOTIF]);
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

static int notif_pending(struct sup *s)
{
	struct pollfd p = { .fd = s->fd[P_NOTIF], .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

/* After the tree is gone every writer is gone: what is queued is all. */
static void drain(struct sup *s)
{
	while (s->fd[P_CHAN] >= 0 && on_chan(s))
		;
	while (s->fd[P_NOTIF] >= 0 && notif_pending(s) && sbx_notif_serve(s))
		;
	while (s->fd[P_REPORT] >= 0 && on_report(s))
		;
	while (s->fd[P_OUT] >= 0 && on_output(s, P_OUT))
		;
	while (s->fd[P_ERR] >= 0 && on_output(s, P_ERR))
		;
}

/* The poll set is P_N slots and, last, the proxy's (supnet.c owns its
 * descriptor, which is why it is not in s->fd). */
static int sup_loop(struct sup *s)
{
	struct pollfd p[P_N + 1];
	int i, r;

	while (!s->child_done) {
		for (i = 0; i < P_N; i++) {
			p[i].fd = s->fd[i];
			p[i].events = i == P_IN ? POLLOUT : POLLIN;
			p[i].revents = 0;
		}
		p[P_N].fd = sbx_supnet_fd(s);
		p[P_N].events = POLLIN;
		p[P_N].revents = 0;
		r = poll(p, P_N + 1, sbx_supnet_timeout(s, poll_timeout(s)));
		if (r < 0 && errno != EINTR)
			return sbx_errf(s->err, 0, "supervisor: poll: %m");
		if (r > 0)
			dispatch(s, p);
		sbx_supnet_run(s);
		check_timeout(s);
	}
	drain(s);
	if (s->foreign_records && s->l->on_warning) {
		char m[200];

		snprintf(m, sizeof m,
			 "%lu refusal records from another user were ignored "
			 "(someone outside the sandbox wrote to its report "
			 "socket)",
			 s->foreign_records);
		s->l->on_warning(s->l->warning_ctx, m);
	}
	return 0;
}

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
	} else if (s->sig_killed) { /* the signal sbxrun was sent */
		x->sig = s->got_sig;
		x->code = 128 + x->sig;
	} else if (WIFSIGNALED(st)) {
		x->sig = WTERMSIG(st);
		x->code = 128 + x->sig;
	} else {
		x->code = x->status = sbx_exit_code(st);
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
		sbx_kill_tree(s->self, s->child_start, 0, got_child, s);
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
	for (int i = 0; i < 3; i++)
		if (s->ignored & (1 << i))
			sigaction(fwd_signals[i], &s->oldign[i], NULL);
}

/* The tree is gone (MSG_GONE) and pid 1 is still exiting: its pidfd goes
 * to settle(), which the library calls after its exit repair, so that
 * the two overlap; without a pidfd, wait here. */
static void hand_settle(struct sup *s)
{
	int st;

	if (!s->tree_gone || s->reaped)
		return;
	if (s->fd[P_CHILD] >= 0) {
		s->x->settle_fd = s->fd[P_CHILD];
		s->x->settle_pid = s->child;
		s->fd[P_CHILD] = -1;
		return;
	}
	while (waitpid(s->child, &st, __WALL) < 0 && errno == EINTR)
		;
}

void sbx_linux_settle(struct sbx_exit *x)
{
	struct pollfd p = { .fd = x->settle_fd, .events = POLLIN };
	int st;

	if (x->settle_fd < 0)
		return;
	while (poll(&p, 1, -1) < 0 && errno == EINTR)
		;
	(void)waitpid(x->settle_pid, &st, WNOHANG | __WALL);
	close(x->settle_fd);
	x->settle_fd = -1;
}

static void sup_cleanup(struct sup *s)
{
	int i;

	if (s->child > 0 && !s->child_done)
		abort_child(s);
	hand_settle(s);
	sbx_supnet_stop(s);
	if (s->l->proxy)
		close_fd(&s->l->proxy->fd);
	for (i = 0; i < P_N; i++)
		close_fd(&s->fd[i]);
	sbx_notif_free(s);
	s->l->report_fd = -1;
	s->chan[0] = -1; /* was fd[P_CHAN] */
	close_fd(&s->chan[1]);
	close_fd(&s->sync[0]);
	close_fd(&s->sync[1]);
	for (i = 0; i < 3; i++)
		close_fd(&s->cpipe[i]);
	sbx_tty_give_back(s);
	restore_signals(s);
	if (s->old_dumpable >= 0)
		prctl(PR_SET_DUMPABLE, s->old_dumpable, 0, 0, 0);
	if (s->subreaper_set)
		prctl(PR_SET_CHILD_SUBREAPER, s->old_subreaper, 0, 0, 0);
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
	s->uid = geteuid();
	s->gid = getegid();
	s->old_dumpable = -1;
	s->chan[0] = s->chan[1] = s->sync[0] = s->sync[1] = -1;
	for (i = 0; i < 3; i++)
		s->cfd[i] = s->cpipe[i] = -1;
	for (i = 0; i < P_N; i++)
		s->fd[i] = -1;
	l->report_fd = -1;
	memset(x, 0, sizeof *x);
	x->settle_fd = -1;
	err->msg[0] = '\0';
}

int sbx_linux_launch(struct sbx_launch *l, struct sbx_exit *x,
		     struct sbx_err *err)
{
	struct sup s;
	int rc = -1;

	sup_init(&s, l, x, err);
	if (!l->pol || !l->argv || !l->argv[0])
		return sbx_errf(err, 0, "launch: no command");
	if (l->mode != SBX_KMODE_FULL && l->mode != SBX_KMODE_LANDLOCK)
		return sbx_errf(err, 0, "launch: kernel mode not resolved");
	/* The report channel is an abstract socket: \0 + the name after @
	 * (backend.c's report_addr). */
	if (!l->report_addr || l->report_addr[0] != '@' ||
	    strlen(l->report_addr) >= sizeof s.report_name)
		return sbx_errf(err, 0, "launch: no report channel address");
	snprintf(s.report_name, sizeof s.report_name, "%s", l->report_addr + 1);
	if (open_channels(&s) < 0 || take_signals(&s) < 0)
		goto out;
	if (l->keep_tty && tcgetpgrp(STDIN_FILENO) == getpgrp())
		s.tty_pgrp = getpgrp(); /* tty.c */
	s.t0 = now_ns();
	if (l->pol->limits.timeout)
		s.deadline =
			s.t0 + (l->pol->limits.timeout > 1000000000u
					? UINT64_MAX / 2
					: l->pol->limits.timeout * 1000000000u);
	if (sup_start(&s) < 0) {
		if (s.clone_failed)
			rc = SBX_LAUNCH_RETRY;
		goto out;
	}
	/* landlock-only: the proxy listens on the socket the library made
	 * (the command's environment names its port); started after the
	 * fork so the children do not inherit its raised descriptor limit */
	if (l->proxy && l->proxy->fd >= 0 && s.mode == SBX_KMODE_LANDLOCK &&
	    l->pol->net == SBX_NET_FILTERED) {
		int fd = l->proxy->fd;

		l->proxy->fd = -1;
		proxy_start(&s, fd);
	}
	/* PROC-04: from here on nothing of the user's (the command
	 * included) may ptrace us or read our memory or descriptors. */
	s.old_dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
#ifdef __GLIBC__
	/* the set-up's garbage (conf text, parse trees, build buffers) back to
	 * the system: the supervisor idles for the whole run */
	malloc_trim(0);
#endif
	if (sup_loop(&s) < 0)
		goto out;
	rc = sup_finish(&s);
	if (rc < 0 && s.clone_failed)
		rc = SBX_LAUNCH_RETRY;
out:
	sup_cleanup(&s);
	return rc;
}
