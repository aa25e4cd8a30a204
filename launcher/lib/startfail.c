/*
 * startfail.c - the launcher's explanation of a kernel refusal: the
 * command itself could not be started (execve failed in the sandbox),
 * and no shim was there to say why, since the launcher's child runs
 * without one.  The decision and the words are the one decider's and the
 * one explainer's (core/decide.h, core/explain.h), so the line reads
 * exactly as the shim would print it for a program inside:
 *
 *   sbxrun: cannot run '/home/ada/.ssh/tool': hidden by the sandbox policy (secrets; rule ~/.ssh from .../default.conf:16); to allow: sbxrun --allow-read /home/ada/.ssh/tool
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpol.h"
#include "decide.h"
#include "explain.h"
#include "record.h"
#include "startfail.h"

static const char *env_path(char *const envp[])
{
	for (size_t i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], "PATH=", 5) == 0)
			return envp[i] + 5;
	return "/usr/local/bin:/usr/bin:/bin"; /* as the launcher's exec */
}

/* What the command names, as the host sees it: a path with a '/'
 * against the working directory, a bare name through the command's PATH
 * (the first candidate that exists here: inside, the kernel may not let
 * the sandbox see it at all). */
static int command_path(const struct sbx_policy *pol, const char *argv0,
			const char *workdir, char *const envp[], char *out,
			size_t sz)
{
	const char *p, *q;
	char cand[PATH_MAX];
	struct stat st;

	if (strchr(argv0, '/'))
		return sbx_path_norm(argv0, workdir, pol->home, 1, out, sz);
	for (p = env_path(envp);; p = q + 1) {
		size_t dl;

		q = strchrnul(p, ':');
		dl = (size_t)(q - p);
		if (dl + strlen(argv0) + 2 < sizeof(cand)) {
			memcpy(cand, p, dl);
			cand[dl] = '\0';
			strcat(dl ? strcat(cand, "/") : cand, argv0);
			if (stat(cand, &st) == 0 &&
			    sbx_path_norm(cand, workdir, pol->home, 1, out,
					  sz) == 0)
				return 0;
		}
		if (!*q)
			return -1;
	}
}

static void put_record(const struct sbx_expl *e, const char *target,
		       void (*rec)(void *ctx, const char **f), void *ctx);

int sbx_explain_start(const struct sbx_launch *l, unsigned cflags, int err,
		      void (*rec)(void *ctx, const char **f), void *ctx)
{
	const struct sbx_policy *pol = l->pol;
	char *const *argv = l->argv;
	char target[PATH_MAX];
	const char *why;
	struct sbx_path_decision d;
	struct sbx_cpol v;
	struct sbx_err cerr;
	struct sbx_expl e;
	void *buf;
	size_t len;
	int explained = 0;

	if (!argv || !argv[0] || !*argv[0] ||
	    command_path(pol, argv[0], l->workdir, l->envp, target,
			 sizeof(target)) < 0)
		return 0;
	if (sbx_cpol_build(pol, l->mode, cflags, &buf, &len, &cerr) < 0)
		return 0;
	if (sbx_cpol_view(buf, len, &v, &why) == 0) {
		d = sbx_decide_failure(&v, target, SBX_OP_EXEC, err);
		explained = d.verdict != SBX_ALLOW;
	}
	if (explained) {
		sbx_explain_path(&v, argv[0], target, SBX_OP_EXEC, &d, 0, &e);
		put_record(&e, target, rec, ctx);
	}
	free(buf);
	return explained;
}

/* The directories directly below "/" (decide.h: a recursive rm of them
 * all is "rm -r /"). */
size_t sbx_root_dirs(char *buf, size_t sz)
{
	DIR *d = opendir("/");
	struct dirent *e;
	size_t used = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name) + 1;

		if (e->d_type != DT_DIR)
			continue;
		if (used + l > sz) {
			used = 0;
			break;
		}
		memcpy(buf + used, e->d_name, l);
		used += l;
	}
	closedir(d);
	return used;
}

static void put_record(const struct sbx_expl *e, const char *target,
		       void (*rec)(void *ctx, const char **f), void *ctx)
{
	const char *f[SBX_REC_NFIELDS];

	f[SBX_REC_OP] = e->op;
	f[SBX_REC_TARGET] = target;
	f[SBX_REC_KIND] = e->kind;
	f[SBX_REC_RULE] = e->rule;
	f[SBX_REC_SRC] = e->src;
	f[SBX_REC_COMM] = "sbxrun";
	f[SBX_REC_MSG] = e->msg;
	rec(ctx, f);
}

int sbx_check_start(const struct sbx_launch *l, const void *cpol,
		    size_t cpol_len, void (*rec)(void *ctx, const char **f),
		    void *ctx)
{
	char *const *argv = l->argv;
	char target[PATH_MAX];
	const struct sbx_cpol_exec *x = NULL;
	struct sbx_exec_q q = { NULL, argv, l->workdir, sbx_root_dirs };
	struct sbx_cpol v;
	struct sbx_expl e;
	const char *why;
	size_t at = 0;

	if (!argv || !argv[0] || !*argv[0])
		return 0;
	/* not found: it fails to start on its own (127), as inside */
	if (command_path(l->pol, argv[0], l->workdir, l->envp, target,
			 sizeof(target)) < 0 ||
	    access(target, F_OK) < 0)
		return 0;
	q.path = target;
	/* the policy written for this run, validated already */
	if (sbx_cpol_view(cpol, cpol_len, &v, &why) == 0 &&
	    (x = sbx_decide_exec_q(&v, &q, &at))) {
		sbx_explain_exec(&v, argv[at], x, 0, &e);
		put_record(&e, q.path, rec, ctx);
	}
	return x != NULL;
}
