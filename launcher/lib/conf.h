/*
 * conf.h - loading the policy from profiles and conf files (libconfig),
 * in the precedence order of DESIGN 6, and managing the per-project conf.
 */
#ifndef SBX_CONF_H
#define SBX_CONF_H

#include <limits.h>

#include "policy.h"
#include "sbx.h"
#include "sbx_cli.h"

/* struct sbx_locs, where the confs of one project live: sbx_cli.h. */
int sbx_locs_init(struct sbx_locs *l, const struct sbx_opts *o,
		  struct sbx_err *err);

/* Load every tier (not the overrides) into p. */
int sbx_conf_load(struct sbx_policy *p, const struct sbx_locs *l,
		  const struct sbx_opts *o, struct sbx_err *err);
/* envhide.c: hide what XDG_* and credential variables (AWS_*_FILE,
 * KUBECONFIG, GNUPGHOME, DOCKER_CONFIG, ...) point at (review W-21). */
int sbx_env_hides(struct sbx_policy *p, struct sbx_err *err);
/* The variables it reads, by index; NULL past the last (tests unset them
 * for reproducible policies). */
const char *sbx_env_hide_var(size_t i);
/* Where other accounts' homes are read (/etc/passwd; tests: none). */
void sbx_env_hide_passwd(const char *path);
/* Apply one "name=value" override (command-line tier). */
int sbx_conf_override(struct sbx_policy *p, const char *ov,
		      struct sbx_err *err);
/* Load one conf file into p (no profile recursion); for tests/fuzzing. */
int sbx_conf_load_file(struct sbx_policy *p, const char *path,
		       struct sbx_err *err);
int sbx_conf_load_string(struct sbx_policy *p, const char *text,
			 const char *name, struct sbx_err *err);

/* Per-project conf management (runs nothing). */
int sbx_conf_add_path(const struct sbx_locs *l, const char *root,
		      const char *mode, struct sbx_err *err);
int sbx_conf_remove_path(const struct sbx_locs *l, const char *root,
			 struct sbx_err *err);
/* The trusted in-repo conf's bytes in *out (NULL: none, or untrusted,
 * with a warning); -1 when it was trusted and changed or is gone (E-17). */
int sbx_conf_inrepo_trusted(struct sbx_policy *p, const struct sbx_locs *l,
			    char **out, struct sbx_err *err);
/* -1 when a rw/ro root named inside the project resolves outside it
 * through a symlink (E-10).  res: the root as resolved for the check
 * (for sbx_policy_add_rule_norm, so the rule is what was checked), or
 * "" when it was not resolved. */
int sbx_conf_check_root_link(struct sbx_policy *p, const struct sbx_rule *r,
			     char res[PATH_MAX], struct sbx_err *err);
/* On during sbx_conf_load: the project is resolved once for every root
 * checked (off: once per check). */
void sbx_conf_project_memo(int on);
/* -1 when flag's path v, named inside the project, resolves outside it
 * through a symlink (N-11); the error names the place to give instead. */
int sbx_conf_check_flag_link(const char *project, const char *home,
			     const char *flag, const char *v,
			     const char *suffix, struct sbx_err *err);
/* Record the in-repo conf's hash: 0; 1 when the conf is gone and its
 * trust record was removed; -1. */
int sbx_conf_trust(const struct sbx_locs *l, struct sbx_err *err);
/* confread.c: a conf file read once into *text (malloc'd, NUL-ended):
 * opened with O_NOFOLLOW|O_NONBLOCK, only a regular file of the caller or
 * root that nobody else can write.  0, 1 when it does not exist, or -1. */
int sbx_conf_read(const char *path, char **text, struct sbx_err *err);
/* XXH3-128 of bytes as 32 hex digits (the trust record). */
void sbx_hash128_hex(const void *buf, size_t len, char out[33]);
int sbx_mkdirs(const char *dir, int mode);
int sbx_mkpath_nofollow(const char *path, int dir);

#endif
