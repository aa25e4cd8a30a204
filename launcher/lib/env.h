/*
 * env.h - the environment a sandboxed command sees (DESIGN §6): the
 * caller's, scrubbed by the policy's env.keep and env.drop, plus the
 * sandbox's own variables.  The one place that builds it; the kernel
 * backend passes it to execve as it is.
 */
#ifndef SBX_ENV_H
#define SBX_ENV_H

#include <stddef.h>

#include "policy.h"

/* The sandbox's own variables, besides SBXRUN=1 and SBXRUN_NET. */
struct sbx_env_vars {
	const char *shim; /* libsbxshim.so: LD_PRELOAD, or NULL */
	const char *policy_file; /* SBXRUN_POLICY, or NULL */
	const char *report_addr; /* SBXRUN_REPORT, or NULL */
	/* --shim-only: no sandbox; SBXRUN=advisory and SBXRUN_NET=on say
	 * so (the network is the host's) */
	int advisory;
	/* network = filtered: the proxy (HTTP_PROXY and the rest), or
	 * proxy_addr NULL.  The secret, when not "", goes into the URLs. */
	const char *proxy_addr;
	unsigned proxy_port;
	const char *proxy_secret;
	int proxy_direct_loopback; /* NO_PROXY for the loopback (full) */
};

struct sbx_env {
	char **v; /* NULL-terminated, for execve */
	char **own; /* the strings made here */
	size_t n, nown;
	/* names of the caller's variables withheld, by name or by value;
	 * NULL-terminated, or NULL (at most SBX_ENV_MAX_WITHHELD) */
	char **withheld;
	size_t nwithheld;
	/* those of them withheld for their value alone (pointers into
	 * withheld): the run says so, and how to pass one */
	const char **by_value;
	size_t nby_value;
};
#define SBX_ENV_MAX_WITHHELD 256

/*
 * Build it from the caller's environment (from; NULL: none):
 *   - each NAME=value of from that the policy passes (sbx_policy_env_pass)
 *     and whose value carries no credential (sbx_env_secret_value; a
 *     variable env.keep names is passed as it is),
 *     except the variables set below, which replace inherited ones (a
 *     nested sbxrun must not pass the outer sandbox's on as its own);
 *   - with redirect_caches, the tools' cache variables, pointed at
 *     p->cache_dir (CARGO_HOME only when the host's holds no config);
 *   - SBXRUN=1, SBXRUN_NET=off|on|filtered (what the internet is to the
 *     command: loopback is "off"), SBXRUN_REPORT, SBXRUN_POLICY;
 *   - LD_PRELOAD with the shim first, then any preloads the policy kept;
 *   - network = filtered: the proxy variables (env.c lists them and
 *     why), which replace inherited ones.
 * 0, or -1 with err (out of memory).
 */
int sbx_env_build(struct sbx_env *e, const struct sbx_policy *p,
		  char *const *from, const struct sbx_env_vars *x,
		  struct sbx_err *err);
void sbx_env_free(struct sbx_env *e);

/* SEC-12: does a value carry a credential whatever its name?  A URL with
 * a password (postgres://u:pw@h, http://u:pw@proxy) or a token as its
 * user, or a word with a well-known token prefix (ghp_, github_pat_,
 * glpat-, sk-, xox?-, AKIA..., npm_, pypi-, hf_, AIza...). */
int sbx_env_secret_value(const char *value);

/* With redirect_caches, is CARGO_HOME left as it is (the caller's, or
 * ~/.cargo, holds cargo's config and the project is not under the home)?
 * from: the caller's environment. */
int sbx_env_cargo_kept(const struct sbx_policy *p, char *const *from);

/* The value of SBXRUN_NET for a network mode. */
const char *sbx_env_net(enum sbx_net net);

#endif
