/*
 * conf.h - loading the policy from profiles and conf files (libconfig),
 * in the precedence order of DESIGN 6, and managing the per-project conf.
 */
#ifndef SBX_CONF_H
#define SBX_CONF_H

#include <limits.h>

#include "policy.h"
#include "sbx.h"

/* Where everything lives for one project. */
struct sbx_locs {
	char home[PATH_MAX];
	char config_dir[PATH_MAX]; /* $XDG_CONFIG_HOME/sbxrun */
	char system_conf[PATH_MAX];
	char project[PATH_MAX]; /* realpath of the project dir */
	char project_hash[17]; /* XXH3-64, 16 hex digits */
	char project_conf[PATH_MAX]; /* .../projects/<hash>.conf */
	char inrepo_conf[PATH_MAX]; /* <project>/.sbxrun.conf */
	char trust_file[PATH_MAX]; /* .../trust/<hash> */
	char cache_dir[PATH_MAX]; /* ~/.cache/sbxrun/build/<hash> */
	char profile_dir[PATH_MAX]; /* shipped profiles */
};

int sbx_locs_init(struct sbx_locs *l, const struct sbx_opts *o,
		  struct sbx_err *err);

/* Load every tier (not the overrides) into p. */
int sbx_conf_load(struct sbx_policy *p, const struct sbx_locs *l,
		  const struct sbx_opts *o, struct sbx_err *err);
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
int sbx_conf_trust(const struct sbx_locs *l, struct sbx_err *err);
/* XXH3-128 of a file as 32 hex digits. */
int sbx_file_hash128(const char *path, char out[33]);
int sbx_mkdirs(const char *dir, int mode);

#endif
