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
 * Started in the background (`sbxrun &`), the shell is left in the
 * caller's group, as before: in landlock-only mode it stops the whole run
 * (SIGTTIN) until `fg`; in full mode it sees group 0 = foreground 0,
 * believes it is in the foreground and takes the terminal (known gap: a
 * fix stops the supervisor when the command stops, as sudo does).  At
 * the end the supervisor gives the terminal back to its own group, but
 * only if the foreground group is then empty (the sandbox's): a caller's
 * shell that took it back keeps it.  SIGTTOU is blocked around each
 * tcsetpgrp() from the background.
 */
#include <errno.h>
#include <signal.h>
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
	if (s->tty_pgrp > 0 && setpgid(0, 0) == 0)
		set_fg(getpid());
}

void sbx_tty_give_back(struct sup *s)
{
	pid_t fg = s->tty_pgrp > 0 ? tcgetpgrp(STDIN_FILENO) : -1;

	if (fg <= 0 || fg == s->tty_pgrp || kill(-fg, 0) == 0 ||
	    errno != ESRCH)
		return;
	set_fg(s->tty_pgrp);
}
