/*
 * spawn.h - starting one command in the sandbox and supervising its whole
 * tree (DESIGN §7 layers 1 and 4, §9 exit codes): what the three parts of
 * sbx_linux_launch() share.
 *
 * Process shapes:
 *
 *   full mode       supervisor ── pid 1 (new user+mount+pid+ipc[+net] ns)
 *                                   └── command
 *   landlock-only   supervisor ── keeper (child subreaper)
 *                                   └── command
 *
 *   supervisor.c  the parent: prepares descriptors and signals, starts
 *                 pid 1 or the keeper, and runs the loop until the tree is
 *                 gone (sbx_linux_launch);
 *   reaper.c      pid 1 and the keeper: fork the command, reap, forward
 *                 signals, pass its wait status up;
 *   child.c       everything in the children before exec: pid 1's mount
 *                 view, descriptors, limits, capabilities, Landlock, the
 *                 report socket, seccomp, exec;
 *   proctree.c    finding and killing the sandbox's processes where no
 *                 pid namespace does it (landlock-only mode).
 *
 * The command process does the same in both modes: setsid, limits,
 * no_new_privs, capabilities dropped, Landlock, seccomp, exec.  pid 1
 * builds the mount view first.  pid 1 and the keeper start the command
 * (clone with CLONE_VM|CLONE_VFORK, reaper.c) and reap; when the command
 * exits they pass its wait status up and exit.  In full mode pid 1 first
 * kills and reaps whatever is left in the pid namespace (MSG_GONE: the
 * supervisor need not wait for pid 1's exit, which tears the namespaces
 * down, before its exit repair; settle() waits for it after);
 * the keeper, a child subreaper that every orphan reparents to, kills the
 * rest itself (then MSG_GONE too, once it has no child left), and does so
 * too when the supervisor dies.  Either way
 * nothing the command started survives it (PRC-03, PRC-04).
 *
 * Everything the children have to say before exec travels over one
 * SOCK_SEQPACKET socketpair, the channel: a layer that failed (fail closed:
 * nothing runs and the launch returns -1), a layer that is missing under
 * fallback = warn, the errno of a failed exec, the reaper's report of the
 * command's wait status, and the bound report socket (SCM_RIGHTS).  The
 * children's end is close-on-exec, so the command never holds it.
 */
#ifndef SBX_SPAWN_H
#define SBX_SPAWN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "linux.h"

/* Channel messages, children -> supervisor. */
enum {
	MSG_FAIL = 1, /* text: layer and reason; nothing will run */
	MSG_WARN, /* text: what is not enforced (fallback warn) */
	MSG_EXEC, /* val: errno of the failed exec */
	MSG_STATUS, /* val: the command's wait status, from pid 1 */
	MSG_REPORT, /* SCM_RIGHTS: the bound report socket */
	MSG_NETPROXY, /* SCM_RIGHTS: the proxy's listening socket (full) */
	MSG_NOTIF, /* SCM_RIGHTS: the seccomp listener (notif.c) */
	MSG_STOPPED, /* val: the signal that stopped the command (keep_tty) */
	MSG_GONE, /* val: the command's wait status, from pid 1 or the
		   * keeper, which has killed and reaped every other process
		   * of the tree: the tree is gone (reaper.c) */
};

struct chan_msg {
	int kind;
	int val;
	char text[960];
};

/* The supervisor's poll set, one fixed slot each; -1 = inactive. */
/* P_CHILD is a pidfd of our child: SIGCHLD is process-directed, and with
 * sbx_run() in several threads another thread's signalfd may take it. */
enum { P_SIG, P_CHAN, P_REPORT, P_IN, P_OUT, P_ERR, P_CHILD, P_NOTIF, P_N };

struct sbx_notif;

/* One launch.  The children get a copy (fork) and only read it. */
struct sup {
	struct sbx_launch *l;
	struct sbx_exit *x;
	struct sbx_err *err;
	enum sbx_kmode mode;
	char report_name[64];
	int chan[2]; /* [0] supervisor, [1] children until exec */
	int sync[2]; /* full mode: [1] open while the supervisor lives */
	uid_t uid; /* the caller's effective ids, mapped to themselves */
	gid_t gid;
	int cfd[3]; /* dup'ed onto 0, 1, 2 in the child, or -1 */
	int cpipe[3]; /* our pipe ends that belong to the child */
	int fd[P_N];
	sigset_t oldmask;
	struct sigaction oldchld;
	struct sigaction oldign[3]; /* SIGINT, SIGTERM, SIGHUP when ignored */
	int ignored; /* bit i: fwd_signals[i] was SIG_IGN, now SIG_DFL */
	int signals_set;
	int got_sig, nsig; /* the first of them we relayed, how many */
	int sig_killed; /* a second one: the whole tree was killed */
	int old_dumpable, old_subreaper, subreaper_set;
	pid_t tty_pgrp; /* keep_tty in the foreground: our group, which
			 * the command's replaces on the terminal until
			 * the end (tty.c); else 0 */
	pid_t self, child;
	unsigned long foreign_records; /* RPT-01: not from the sandbox */
	unsigned long long child_start; /* clock ticks since boot */
	int child_done, child_status;
	int tree_gone; /* MSG_GONE: pid 1 may still be exiting */
	int reaped; /* the child was waited for */
	int cmd_status_known, cmd_status;
	int failed, clone_failed, exec_errno, timed_out;
	size_t in_off;
	uint64_t t0, t_end, deadline;
	struct supnet *net; /* network = filtered: the proxy (supnet.c) */
	struct sbx_notif *notif; /* the listener's state, notif.c */
};

/* ------------------------------------------------------------- tty.c */

/* The interactive shell's terminal: in the command before exec, when
 * s->tty_pgrp says we have the terminal, its own process group as the
 * foreground one. */
void sbx_tty_take(const struct sup *s);
/* The supervisor, at the end: the terminal back to the caller's group. */
void sbx_tty_give_back(struct sup *s);
/* The command stopped (a shell started in the background asks for the
 * terminal with SIGTTIN): stop too, and on fg hand it the terminal. */
void sbx_tty_stopped(struct sup *s);

/* ----------------------------------------------------------- child.c */

/* One message on the channel; errno is preserved. */
void sbx_chan_put(int fd, int kind, int val, const char *text);
void sbx_chan_say(int fd, int kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A layer could not be applied: under fallback = warn say what is not
 * enforced and go on, otherwise fail closed (the child exits 125). */
void sbx_layer_failed(const struct sup *s, const char *layer,
		      const struct sbx_err *e);
/* Stdio onto 0-2, every other descriptor closed but the channel (and,
 * with keep_sync, pid 1's sync pipe). */
int sbx_child_fds(const struct sup *s, int keep_sync);
/* pid 1, first: its user namespace's id maps; 0, or -1 with e. */
int sbx_pid1_maps(const struct sup *s, struct sbx_err *e);
/* pid 1's set-up: mount view, loopback, capabilities dropped. */
void sbx_pid1_setup(const struct sup *s);
/* The command process: the layers, then exec; never returns. */
void sbx_cmd_main(const struct sup *s) __attribute__((noreturn));

/* ---------------------------------------------------------- supnet.c */

/* Serve the filtering proxy on the listening socket fd (taken over, even
 * on failure); 0, or -1 with s->err. */
int sbx_supnet_start(struct sup *s, int fd);
/* What to poll for the proxy (-1: nothing), the poll timeout t bounded by
 * its deadlines, and its work after each poll. */
int sbx_supnet_fd(const struct sup *s);
int sbx_supnet_timeout(const struct sup *s, int t);
void sbx_supnet_run(struct sup *s);
void sbx_supnet_stop(struct sup *s);

/* ---------------------------------------------------------- reaper.c */

/* What sbxrun exits with for a wait status (128 + signal, or the code). */
int sbx_exit_code(int st);
/* The signals the supervisor and the in-sandbox reaper wait for. */
void sbx_waited_signals(sigset_t *set);
void sbx_pid1_main(const struct sup *s) __attribute__((noreturn));
void sbx_keeper_main(const struct sup *s) __attribute__((noreturn));

/* ----------------------------------------------------------- notif.c */

/* Answer and explain every notification waiting on fd[P_NOTIF]; 0 when
 * none was.  Never lets a call through. */
int sbx_notif_serve(struct sup *s);
void sbx_notif_free(struct sup *s);

/* -------------------------------------------------------- proctree.c */

/* Fields 4 (ppid) and 22 (starttime) of /proc/PID/stat. */
int sbx_proc_stat(pid_t pid, pid_t *ppid, unsigned long long *start);
/* Kill every process of the sandbox below root (see proctree.c);
 * reaped (may be NULL) hears about each child of root it reaps. */
void sbx_kill_tree(pid_t root, unsigned long long min_start, int all_ours,
		   void (*reaped)(struct sup *, pid_t, int), struct sup *s);

#endif
