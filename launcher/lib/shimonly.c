/*
 * shimonly.c - sbxrun --shim-only: the shim and a compiled policy, no
 * sandbox (sbx_cli.h).
 *
 * For machines where no sandbox can be made or nested (some containers
 * and CI runners: no user namespaces, no Landlock, seccomp refused).  The
 * command runs on the host as it is, with the shim preloaded: what the
 * shim owns still holds for the programs that load it (file suffixes,
 * size limits, exec rules, protected paths, attribute changes outside the
 * writable roots), and each refusal is explained as in a sandbox.  What
 * only the kernel holds (hidden secrets, read-only paths, the network)
 * does not: the CLI says so on stderr before the command starts, and
 * --dry-run says so first.  Advisory: a static program, a raw system
 * call or a cleared LD_PRELOAD goes around all of it.
 *
 * The policy is compiled as for landlock-only mode
 * (SBX_CPOL_F_SHIM_PROTECT: the shim holds the protect rules and
 * attribute changes, which the kernel would hold in full mode) and
 * stored in the run directory like any run's; the descriptor that holds
 * its lock is kept open across the exec, so the file is not swept while
 * the command runs.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "env.h"
#include "rundir.h"
#include "sbx_cli.h"

extern char **environ;

static int prepare(sbx_t *s, struct sbx_cli_shim *out, struct sbx_err *err)
{
	struct sbx_run_adj adj = { 0 };
	struct sbx_policy pol;
	struct sbx_rundir rd;
	struct sbx_env_vars vars = { 0 };
	struct sbx_env env;
	void *buf = NULL;
	size_t len = 0;
	char shim[PATH_MAX];
	int r = -1;

	if (sbx_find_shim(shim, sizeof shim) < 0)
		return sbx_errf(err, 0,
				"libsbxshim.so not found: without it "
				"--shim-only has nothing to enforce");
	if (sbx_policy_for_run(&pol, &s->pol, &adj, err) < 0)
		return -1;
	if (sbx_cpol_build(&pol, SBX_KMODE_LANDLOCK, SBX_CPOL_F_SHIM_PROTECT,
			   &buf, &len, err) < 0)
		goto out;
	/* no sandbox: nothing keeps the command from any place, so the
	 * store is where a sandboxed run would keep it */
	if (sbx_rundir_create(&rd, s->pol.home, NULL, NULL, err) < 0)
		goto out;
	if (sbx_rundir_put(&rd, buf, len, err) < 0) {
		sbx_rundir_release(&rd);
		goto out;
	}
	vars.shim = shim;
	vars.policy_file = rd.path;
	vars.advisory = 1;
	if (sbx_env_build(&env, &pol, environ, &vars, err) < 0) {
		sbx_rundir_release(&rd);
		goto out;
	}
	/* the lock goes along into the command; env's strings stay for
	 * the exec (the caller's process is replaced or ends) */
	fcntl(rd.fd, F_SETFD, 0);
	out->envp = env.v;
	out->lock_fd = rd.fd;
	snprintf(out->policy_file, sizeof out->policy_file, "%s", rd.path);
	snprintf(out->shim, sizeof out->shim, "%s", shim);
	r = 0;
out:
	free(buf);
	sbx_policy_free(&pol);
	return r;
}

int sbx_cli_shim_only(sbx_t *s, struct sbx_cli_shim *out, char *eb, size_t el)
{
	struct sbx_err err;

	memset(out, 0, sizeof *out);
	out->lock_fd = -1;
	if (prepare(s, out, &err) == 0)
		return 0;
	sbx_err_out(&err, eb, el);
	return -1;
}
