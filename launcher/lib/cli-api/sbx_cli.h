/*
 * sbx_cli.h - the libsbx entry points only the sbxrun CLI uses.
 *
 * The CLI (launcher/cli) is built on include/sbx.h and this header alone:
 * its include path has no core/, library or kernel folder, so it cannot
 * reach policy internals (tests/cli/layout.bats checks that a CLI file
 * including one does not compile).  What sbxrun shows or manages beyond
 * the public API comes from here: the text of --list-paths, --dry-run and
 * --status, the per-project conf (--add-path, --remove-path, --trust,
 * --edit), and the refusal summary and JSON report file.
 *
 * Same conventions as sbx.h: errors go to a caller's errbuf, text comes
 * back malloc'ed (the caller frees it; NULL: out of memory), nothing is
 * printed.  Not exported from libsbx.so: the CLI links libsbx.a.
 */
#ifndef SBX_CLI_API_H
#define SBX_CLI_API_H

#include <limits.h>
#include <stddef.h>

#include "sbx.h"

/* ------------------------------------------------------------ showing */

/* --list-paths: every effective path rule, sorted, with its source. */
char *sbx_cli_list_paths(const sbx_t *s);
/* --dry-run: the effective policy and the kernel plan. */
char *sbx_cli_dry_run(const sbx_t *s);
/* --status: the kernel features, the mode opts would get, and (when
 * there is one and the policy loads) its plan.  Returns 0, or -1 when no
 * mode is available (the text says why); *text is NULL without memory. */
int sbx_cli_status(const struct sbx_opts *opts, char **text);

/* inject = "each", "tool", "shim-only" (sbxrun.conf(5)). */
#define SBX_CLI_INJECT_EACH 0
#define SBX_CLI_INJECT_TOOL 1
#define SBX_CLI_INJECT_SHIM 2

/* What the CLI says about a loaded policy. */
struct sbx_cli_info {
	const char *profile; /* the profile in force */
	const char *project; /* the project directory */
	const char *cache_dir; /* redirect_caches: where caches go, or NULL */
	int inject; /* SBX_CLI_INJECT_*: the conf's inject */
	char inject_src[600]; /* "file:line" of the inject setting, or "" */
};
void sbx_cli_info(const sbx_t *s, struct sbx_cli_info *info);
/* The n strings at args as a command a user can paste into a shell: each
 * one shell word, quoted as the explainer quotes its advice (N-36).  In
 * buf; 0, or -1 when it does not fit (buf then holds nothing usable). */
int sbx_cli_sh_words(const char *const *args, size_t n, char *buf, size_t sz);

/* ------------------------------------------------------ per-project conf */

/* Where the confs of one project live. */
struct sbx_locs {
	char home[PATH_MAX];
	/* the account's home in /etc/passwd when it is not home (HOME unset
	 * or changed): secrets are hidden under both (SEC-11); else "" */
	char account_home[PATH_MAX];
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

/* Each returns 0, or -1 with errbuf filled. */
int sbx_cli_locate(struct sbx_locs *l, const struct sbx_opts *opts,
		   char *errbuf, size_t errlen);
/* Add root with mode (rw, ro, hide) to the per-project conf, replacing
 * an entry for the same root. */
int sbx_cli_add_path(const struct sbx_locs *l, const char *root,
		     const char *mode, char *errbuf, size_t errlen);
int sbx_cli_remove_path(const struct sbx_locs *l, const char *root,
			char *errbuf, size_t errlen);
/* Trust the in-repo .sbxrun.conf as it is now (it must parse). */
/* 1: the in-repo conf is gone and its trust record was forgotten. */
int sbx_cli_trust(const struct sbx_locs *l, char *errbuf, size_t errlen);
/* --edit: create the per-project conf with text unless it exists. */
int sbx_cli_conf_create(const struct sbx_locs *l, const char *text,
			char *errbuf, size_t errlen);

/* ----------------------------------------------------------- shim only */

/* --shim-only: what the command is started with, on the host, no sandbox
 * (shimonly.c says what holds then and what does not). */
struct sbx_cli_shim {
	char **envp; /* the command's environment (LD_PRELOAD, SBXRUN_POLICY,
		      * SBXRUN=advisory) */
	int lock_fd; /* holds the policy file; kept open across the exec */
	char policy_file[PATH_MAX];
	char shim[PATH_MAX];
};
/* 0, or -1 with errbuf filled (no shim: nothing would be enforced). */
int sbx_cli_shim_only(sbx_t *s, struct sbx_cli_shim *out, char *errbuf,
		      size_t errlen);

/* --check: how a write to path that the policy refuses as read-only is
 * held in the mode a run here gets, with a note in buf ("" for the
 * kernel's; review W-17). */
enum { SBX_HOLD_KERNEL, SBX_HOLD_ABSENT, SBX_HOLD_SHIM };
int sbx_cli_check_hold(sbx_t *s, const char *path, char *buf, size_t sz);

/* -------------------------------------------------------------- report */

/* The stderr summary of a run's refusals; "" when there were none. */
char *sbx_cli_summary(const struct sbx_result *r);
/*
 * The --report file (review W-15, THREATS FS-13).  Opened before the run,
 * so an unwritable report fails the run before the command starts; its
 * directory held open.  The command may write the project, where the
 * report often lives: it can replace the file by a symlink to a secret
 * (the harness that reads the report would read the secret) or keep
 * writing to it.  So a regular file is written last as a new file of
 * ours (O_EXCL in the held directory) renamed over the path, which
 * replaces whatever the command put there; a fifo or device is written
 * through the fd opened at the start, and only while the path still
 * names it.  "-" is standard error.
 */
struct sbx_cli_report {
	int fd, dirfd; /* -1 when unused; dirfd -1 for "-" */
	int regular; /* the path was a regular file (or was created) */
	unsigned long long dev, ino, ddev, dino;
	char dir[PATH_MAX], base[NAME_MAX + 1];
};
/* 0, or -1 with errno (nothing is left open). */
int sbx_cli_report_open(struct sbx_cli_report *rp, const char *path);
void sbx_cli_report_close(struct sbx_cli_report *rp);
/* The JSON report, or for sbx_cli_report_failure (sbxrun failed, exit
 * 125) one with sbxrun_failed true and the reason, so that a command's
 * own 125 cannot be mistaken for it.  0; 1 when the path had been
 * replaced during the run (the report was written in its place, and says
 * so in "warnings"); -1 with why filled (nothing usable at the path). */
int sbx_cli_report_write(struct sbx_cli_report *rp, const struct sbx_result *r,
			 char *const argv[], char *why, size_t whysz);
int sbx_cli_report_failure(struct sbx_cli_report *rp, const char *error,
			   char *const argv[], char *why, size_t whysz);

#endif
