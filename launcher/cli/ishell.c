/*
 * ishell.c - the interactive sandboxed shell (`sbxrun` with no command on
 * a terminal): a marker in its prompt, and its history kept where the
 * sandbox may write it.
 *
 * The user's rc files are read-only inside, and so is ~/.bash_history:
 * without this every interactive shell ended with a refusal to save its
 * history.  Each project gets a directory of its own,
 * ~/.cache/sbxrun/shell/PROJECT-HASH, writable in the sandbox (an
 * --allow-write of that one directory): the history lives there, and so
 * does the small rc file that sources the user's own and then marks the
 * prompt.  Nothing outside a sandbox reads that directory, so what a
 * sandboxed command writes there reaches only the next sandboxed shell;
 * the rc file is made anew (never followed through a link) before each.
 *
 *   bash: bash --rcfile DIR/bashrc -i     (PS1, HISTFILE)
 *   zsh:  ZDOTDIR=DIR zsh -i              (DIR/.zshrc: PROMPT, HISTFILE)
 *   fish: XDG_CONFIG_HOME=XDG_DATA_HOME=DIR fish --init-command ...
 *         (DIR/fish/config.fish restores them and reads the user's
 *         fish config; fish_prompt wrapped; DIR/fish/fish_history)
 *   sh, dash and others: ENV=DIR/shrc    (PS1, HISTFILE where it counts)
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "die.h"
#include "sbx_cli.h"

#define MARK "(sbxrun) "

static char dir[PATH_MAX], rc[PATH_MAX + 16], hist[PATH_MAX + 16];
static char envarg[PATH_MAX + 16], histarg[PATH_MAX + 16];
static char *argv_out[8];

/* 0, or -1 with errno. */
static int mkdirs(const char *path)
{
	char p[PATH_MAX];

	snprintf(p, sizeof p, "%s", path);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0700);
			*s = '/';
		}
	return mkdir(p, 0700) < 0 && errno != EEXIST ? -1 : 0;
}

/* The rc file, new: whatever the sandbox left under that name (a link
 * to a file of the host's) is removed, never written through. */
static int write_rc_at(int dfd, const char *path, const char *text)
{
	size_t len = strlen(text);
	int fd;

	if (unlinkat(dfd, path, 0) < 0 && errno != ENOENT)
		return -1;
	fd = openat(dfd, path,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (write(fd, text, len) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static int write_rc(const char *path, const char *text)
{
	return write_rc_at(AT_FDCWD, path, text);
}

/* Without its directory the shell runs as it is, said once. */
static char **plain(const char *what)
{
	warning("the interactive shell runs without its own history and "
		"prompt mark: %s %s: %s",
		what, dir, strerror(errno));
	return NULL;
}

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* s in fish's single quotes (only \\ and \' are escapes there). */
static void fish_quoted(char *out, size_t n, const char *s)
{
	size_t o = 0;

	if (o + 1 < n)
		out[o++] = '\'';
	for (; *s && o + 4 < n; s++) {
		if (*s == '\'' || *s == '\\')
			out[o++] = '\\';
		out[o++] = *s;
	}
	out[o++] = '\'';
	out[o] = '\0';
}

/* `set -gx NAME 'value'`, or `set -e NAME` when the caller had none: the
 * commands fish runs see the caller's XDG directories, not ours. */
static void fish_restore(char *out, size_t n, const char *name)
{
	const char *v = getenv(name);
	char q[PATH_MAX + 64];

	if (!v) {
		snprintf(out, n, "set -e %s\n", name);
		return;
	}
	fish_quoted(q, sizeof q, v);
	snprintf(out, n, "set -gx %s %s\n", name, q);
}

/* DIR/fish, a directory of ours, open (-1 on error): whatever the
 * sandbox left under that name (a link to the host's ~/.config/fish) is
 * removed, never entered; what is made in it is made through this
 * descriptor. */
static int fish_dir(char *path, size_t n)
{
	struct stat st;
	int dfd;

	snprintf(path, n, "%s/fish", dir);
	if (lstat(path, &st) == 0 && !S_ISDIR(st.st_mode) && unlink(path) < 0)
		return -1;
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return -1;
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	/* Without it, fish's first prompt starts fish_update_completions,
	 * which writes to the caller's data dir: a refusal on each
	 * project's first shell. */
	(void)mkdirat(dfd, "generated_completions", 0700);
	return dfd;
}

/*
 * fish reads and writes its config dir ($XDG_CONFIG_HOME/fish: universal
 * variables) and its data dir (history), both read-only in the sandbox
 * under ~.  Both point at DIR for fish itself: DIR/fish/config.fish (made
 * anew each time) puts the caller's XDG variables back for the commands
 * it runs, then reads the user's own fish configuration (functions,
 * completions, conf.d, config.fish); the history goes to
 * DIR/fish/fish_history.
 */
static char **fish(const char *sh)
{
	static char cfg_env[PATH_MAX + 32], data_env[PATH_MAX + 32];
	char sub[PATH_MAX + 8], text[4 * PATH_MAX + 1024], r1[PATH_MAX + 96],
		r2[PATH_MAX + 96], user[PATH_MAX + 16], uq[PATH_MAX + 64];
	const char *x = getenv("XDG_CONFIG_HOME");
	int dfd = fish_dir(sub, sizeof sub), r;

	if (dfd < 0)
		return plain("cannot make the fish directory in");
	fish_restore(r1, sizeof r1, "XDG_CONFIG_HOME");
	fish_restore(r2, sizeof r2, "XDG_DATA_HOME");
	if (x && *x == '/')
		snprintf(user, sizeof user, "%s/fish", x);
	else
		snprintf(user, sizeof user, "%s/.config/fish",
			 getenv("HOME") ? getenv("HOME") : "");
	fish_quoted(uq, sizeof uq, user);
	snprintf(text, sizeof text,
		 "# made by sbxrun for its interactive shell\n%s%s"
		 "set -l u %s\n"
		 "test -d $u/functions; and set -a fish_function_path "
		 "$u/functions\n"
		 "test -d $u/completions; and set -a fish_complete_path "
		 "$u/completions\n"
		 "for f in $u/conf.d/*.fish; source $f; end\n"
		 "test -f $u/config.fish; and source $u/config.fish\n",
		 r1, r2, uq);
	r = write_rc_at(dfd, "config.fish", text);
	close(dfd);
	if (r < 0)
		return plain("cannot write the rc file in");
	snprintf(cfg_env, sizeof cfg_env, "XDG_CONFIG_HOME=%s", dir);
	snprintf(data_env, sizeof data_env, "XDG_DATA_HOME=%s", dir);
	/* fish's history starts empty, and fish then imports $HISTFILE or
	 * ~/.bash_history (hidden: a refusal).  HISTFILE names the
	 * sandboxed bash's history in DIR, which a bash started in fish
	 * also keeps. */
	snprintf(histarg, sizeof histarg, "HISTFILE=%s/bash_history", dir);
	argv_out[0] = (char *)"/usr/bin/env";
	argv_out[1] = cfg_env;
	argv_out[2] = data_env;
	argv_out[3] = histarg;
	argv_out[4] = (char *)sh;
	argv_out[5] = (char *)"--init-command";
	argv_out[6] = (char *)"functions -q fish_prompt; and functions "
			      "-c fish_prompt _sbxrun_prompt; function "
			      "fish_prompt; echo -n '" MARK
			      "'; _sbxrun_prompt; end";
	argv_out[7] = NULL;
	return argv_out;
}

/* sh is the user's shell (absolute); returns the argv to run, and adds
 * the history directory to c's overrides.  NULL: run sh as it is. */
char **cli_ishell(struct cli *c, const char *sh)
{
	struct sbx_locs l;
	char err[1200], text[2 * PATH_MAX + 512];
	const char *b = base(sh);

	if (sbx_cli_locate(&l, &c->opts, err, sizeof err) < 0)
		return NULL; /* the run itself will say why */
	snprintf(dir, sizeof dir, "%s/.cache/sbxrun/shell/%s", l.home,
		 l.project_hash);
	if (mkdirs(dir) < 0)
		return plain("cannot make");
	if (c->noverrides >= CLI_MAX_OVERRIDES ||
	    asprintf(&c->owned[c->noverrides], "allow-write=%s", dir) < 0)
		return NULL;
	c->overrides[c->noverrides] = c->owned[c->noverrides];
	c->overrides[++c->noverrides] = NULL;
	c->opts.overrides = c->overrides;
	snprintf(hist, sizeof hist, "%s/%s_history", dir, b);
	if (!strcmp(b, "bash")) {
		snprintf(rc, sizeof rc, "%s/bashrc", dir);
		snprintf(text, sizeof text,
			 "# made by sbxrun for its interactive shell\n"
			 "[ -f /etc/bash.bashrc ] && . /etc/bash.bashrc\n"
			 "[ -f ~/.bashrc ] && . ~/.bashrc\n"
			 "PS1='" MARK "'\"$PS1\"\nHISTFILE='%s'\n",
			 hist);
		if (write_rc(rc, text) < 0)
			return plain("cannot write the rc file in");
		argv_out[0] = (char *)sh;
		argv_out[1] = (char *)"--rcfile";
		argv_out[2] = rc;
		argv_out[3] = (char *)"-i";
		argv_out[4] = NULL;
		return argv_out;
	}
	if (!strcmp(b, "fish"))
		return fish(sh);
	if (!strcmp(b, "zsh")) {
		snprintf(rc, sizeof rc, "%s/.zshrc", dir);
		snprintf(text, sizeof text,
			 "# made by sbxrun for its interactive shell\n"
			 "[ -f ~/.zshrc ] && . ~/.zshrc\n"
			 "PROMPT='" MARK "'\"$PROMPT\"\nHISTFILE='%s'\n",
			 hist);
		if (write_rc(rc, text) < 0)
			return plain("cannot write the rc file in");
		snprintf(envarg, sizeof envarg, "ZDOTDIR=%s", dir);
	} else {
		snprintf(rc, sizeof rc, "%s/shrc", dir);
		snprintf(text, sizeof text,
			 "# made by sbxrun for its interactive shell\n"
			 "PS1='" MARK "'\"${PS1:-$ }\"\nHISTFILE='%s'\n",
			 hist);
		if (write_rc(rc, text) < 0)
			return plain("cannot write the rc file in");
		snprintf(envarg, sizeof envarg, "ENV=%s", rc);
	}
	snprintf(histarg, sizeof histarg, "HISTFILE=%s", hist);
	argv_out[0] = (char *)"/usr/bin/env";
	argv_out[1] = envarg;
	argv_out[2] = histarg;
	argv_out[3] = (char *)sh;
	argv_out[4] = (char *)"-i";
	argv_out[5] = NULL;
	return argv_out;
}
