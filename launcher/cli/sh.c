/*
 * sh.c - sbxrun-sh: /bin/sh for tools that spawn shells (make's SHELL,
 * npm's script-shell, a CI step's shell, a git hook's interpreter).
 *
 * Its arguments are the shell's, unchanged (sh -c 'cmd', sh -e file,
 * sh file args).  Outside a sandbox the shell runs in one of its own,
 * under the policy of the current directory's project, as `sbxrun --
 * /bin/sh ARGS` would; inside one (sbx_inside(): the kernel's word, not
 * an environment variable a Makefile could export) it runs the shell as
 * it is, so `sbxrun -- make` with SHELL=sbxrun-sh does not nest.  The
 * conf's `inject = "tool"` asks for the whole tool in one sandbox: then
 * sbxrun-sh outside a sandbox runs nothing and says how to.
 *
 * SBXRUN_SH names another shell (an absolute path, e.g. /bin/bash); it
 * runs in the sandbox like the default does, so it widens nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "die.h"
#include "sbx_cli.h"

static const char *real_shell(void)
{
	const char *sh = getenv("SBXRUN_SH");

	return sh && sh[0] == '/' ? sh : "/bin/sh";
}

/* The parent's command line, for "run it as: sbxrun -- ...": each
 * argument one shell word (N-36: `make 'FOO=$(id)'` was pasted raw, so
 * following the advice ran $(id) outside), a login shell's "-sh" as
 * "sh".  "" when it cannot be read whole. */
static void parent_command(char *buf, size_t n)
{
	char path[64], raw[4096];
	const char *args[256];
	size_t na = 0;
	ssize_t len;
	int fd;

	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)getppid());
	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	len = read(fd, raw, sizeof raw);
	close(fd);
	if (len <= 0 || (size_t)len >= sizeof raw || raw[len - 1] != '\0')
		return;
	for (ssize_t i = 0; i < len && na < 256; i += strlen(raw + i) + 1)
		args[na++] = raw + i;
	if (na == 256)
		return;
	if (args[0][0] == '-')
		args[0]++;
	if (sbx_cli_sh_words(args, na, buf, n) < 0)
		buf[0] = '\0';
}

int cli_sh(struct cli *c)
{
	const char *sh = real_shell(), *b = strrchr(sh, '/') + 1;
	struct sbx_cli_info info;
	size_t n = 0;
	char **v;
	sbx_t *s;

	while (c->argv && c->argv[n])
		n++;
	v = calloc(n + 2, sizeof *v);
	if (!v)
		die("out of memory");
	if (n)
		memcpy(v + 1, c->argv, n * sizeof *v);
	if (sbx_inside()) {
		v[0] = (char *)b;
		execv(sh, v);
		note("cannot run '%s': %s", sh, strerror(errno));
		free(v);
		return errno == ENOENT ? SBX_EXIT_NOTFOUND : SBX_EXIT_NOEXEC;
	}
	s = cli_open_policy(c);
	sbx_cli_info(s, &info);
	if (info.inject == SBX_CLI_INJECT_SHIM)
		c->shim_only = 1;
	if (info.inject == SBX_CLI_INJECT_TOOL) {
		char parent[8192];

		parent_command(parent, sizeof parent);
		sbx_close(s);
		free(v);
		die("this project runs a tool whole in one sandbox "
		    "(inject = \"tool\" from %s), not each shell it starts; "
		    "run the tool in one: sbxrun -- %s",
		    info.inject_src, parent[0] ? parent : "TOOL ARGS");
	}
	v[0] = (char *)sh;
	c->argv = v;
	c->interactive = n == 0 && isatty(STDIN_FILENO);
	n = (size_t)cli_run(c, s);
	free(v);
	c->argv = NULL;
	return (int)n;
}
