/*
 * tty.c - the interactive shell's terminal and its job control.
 *
 * The interactive shell (keep_tty) keeps the caller's terminal (TIOCSTI
 * and TIOCLINUX stay refused by seccomp) and leads a process group of its
 * own, the terminal's foreground group while the run is in the
 * foreground.  Left in the caller's group, the shell in a pid namespace
 * saw that group as 0 (it lives outside the namespace): dash set it back
 * as the foreground group on exit and failed ("Cannot set tty process
 * group", exit 2), and Ctrl-C reached the supervisor's group as well.
 * The group is made in the command, inside the namespace, so the shell
 * sees its own pid in tcgetpgrp().
 *
 * Started in the background (`sbxrun &`), the shell gets its group but
 * not the terminal, and stops itself (SIGTTIN) as shells do; pid 1 or the
 * keeper tells the supervisor, which stops too (sbx_tty_stopped) until
 * the caller's shell brings it to the foreground.  At the end the supervisor gives the terminal back to its own group, but
 * only if the foreground group is then empty (the sandbox's): a caller's
 * shell that took it back keeps it.  SIGTTOU is blocked around each
 * tcsetpgrp() from the background.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "spawn.h"

static void set_fg(pid_t pgrp)
{
	sigset_t ttou, old;

	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, &old);
	(void)tcsetpgrp(STDIN_FILENO, pgrp);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* Failing is harmless: the shell runs without job control, and says so. */
void sbx_tty_take(const struct sup *s)
{
	if (setpgid(0, 0) == 0 && s->tty_pgrp > 0)
		set_fg(getpid());
}

void sbx_tty_give_back(struct sup *s)
{
	pid_t fg = s->tty_pgrp > 0 ? tcgetpgrp(STDIN_FILENO) : -1;

	if (fg <= 0 || fg == s->tty_pgrp || kill(-fg, 0) == 0 || errno != ESRCH)
		return;
	set_fg(s->tty_pgrp);
}

/* The command: the first child of pid 1 or the keeper (orphans that
 * reparent to them come after it), as the host numbers it. */
static pid_t command_pid(const struct sup *s)
{
	char path[64];
	long pid = -1;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)s->child,
		 (int)s->child);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &pid) != 1)
		pid = -1;
	fclose(f);
	return (pid_t)pid;
}

/* As sudo does: the caller's shell sees its job (us) stop, and its fg
 * gives our group the terminal and continues us (it sends no SIGCONT to
 * a job it believes is running, so stopping is how we learn of fg).
 * Then the command's group gets the terminal, if we have it, and goes
 * on; continued in the background (bg), it asks again. */
void sbx_tty_stopped(struct sup *s)
{
	pid_t cmd = command_pid(s);

	if (!s->l->keep_tty || cmd <= 0 || s->child_done)
		return;
	kill(getpid(), SIGSTOP);
	if (tcgetpgrp(STDIN_FILENO) == getpgrp() && getpgid(cmd) == cmd) {
		s->tty_pgrp = getpgrp();
		set_fg(cmd);
	}
	kill(-cmd, SIGCONT);
}
