/*
 * perdir.c - protected names that tools read in every directory, not
 * only at the project root (review N-38).
 *
 * cargo reads .cargo/config.toml in every ancestor of its directory, npm
 * and yarn the .npmrc and .yarnrc of the package they run in, direnv and
 * mise the .envrc and mise.toml of every directory a shell enters, an
 * editor the .vscode of whatever folder it opens.  The profile's protect
 * entries name them at the project root; these names are protected below
 * it too:
 *
 *   - at launch, in the directories the bounded walk of gitrepo.c reads
 *     for nested repositories (3 levels, 2 for directories without
 *     subdirectories, 1,000 directories): an existing
 *     one gets the protect entries of the root's (read-only), an absent
 *     one under an existing .cargo or .vscode is watched (plant.c);
 *   - at exit, the walk for repositories made during the run (5,000
 *     directories, any depth) also finds these names created during the
 *     run, and they are moved aside like other planted paths.
 *
 * An existing one deeper than the launch walk reaches is not protected
 * (--dry-run says so).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "aside.h"
#include "perdir.h"

#define NAME(s)                 \
	{                       \
		s, sizeof s - 1 \
	}
static const struct {
	const char *s;
	size_t n;
} names[] = {
	NAME(".cargo"), /* config.toml: rustc-wrapper, runner */
	NAME(".npmrc"), /* script-shell, node-options */
	NAME(".yarnrc"), /* yarn 1: yarn-path */
	NAME(".yarnrc.yml"), /* yarnPath, plugins */
	NAME(".pnpmfile.cjs"), /* pnpm install hooks */
	NAME("pnpm-workspace.yaml"), /* pnpm >= 10: scriptShell and the rest */
	NAME("bunfig.toml"), /* bun preload */
	NAME(".envrc"), /* direnv */
	NAME("mise.toml"),
	NAME(".mise.toml"),
	NAME("mise.local.toml"),
	NAME(".mise.local.toml"),
	NAME(".bazelrc"), /* workspace_status_command */
	NAME(".vscode"), /* tasks.json: runOn folderOpen */
	NAME(".idea"),
	NAME(".zed"),
	NAME(".nvim.lua"),
	NAME(".nvimrc"),
	NAME(".exrc"), /* Vim/Neovim exrc */
};
#undef NAME

/* Asked for every entry of every directory the walks of gitrepo.c read
 * (twice per entry at exit): told apart by length and first byte before
 * any string comparison. */
int sbx_perdir_name(const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].n == n && names[i].s[0] == name[0] &&
		    memcmp(names[i].s, name, n) == 0)
			return 1;
	return 0;
}

int sbx_perdir_protected(const struct sbx_policy *p, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < p->protect.n; i++) {
		const char *e = p->protect.v[i];

		if (strncmp(e, name, n) == 0 && (e[n] == '\0' || e[n] == '/'))
			return 1;
	}
	return 0;
}

int sbx_perdir_planted(const struct sbx_policy *p, const char *path,
		       void (*warn)(void *ctx, const char *line), void *ctx)
{
	const char *name = strrchr(path, '/') + 1;
	char dir[PATH_MAX], out[PATH_MAX], line[3 * PATH_MAX];
	int dfd, rc;

	/* One protected at launch was put back (guard.c) or is watched
	 * (plant.c): a new inode, not a plant.  One the profile does not
	 * protect at the root is not protected below either. */
	for (size_t i = 0; i < p->protect.n; i++) {
		const char *e = p->protect.v[i];

		if (!strncmp(e, path, strlen(path)) &&
		    (!e[strlen(path)] || e[strlen(path)] == '/'))
			return 0; /* it, or a .cargo holding one: old */
	}
	if (!sbx_perdir_protected(p, name))
		return 0;

	snprintf(dir, sizeof dir, "%.*s", (int)(name - 1 - path), path);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	rc = dfd < 0 ? SBX_ASIDE_FAILED : sbx_aside(dfd, name, out, sizeof out);
	if (rc == SBX_ASIDE_MOVED)
		snprintf(line, sizeof line,
			 "'%s' was created during the run; it is protected "
			 "in every directory because it can run code outside "
			 "the sandbox later, so it was moved aside to "
			 "'%s/%s': review it, and move it back only if you "
			 "trust it",
			 path, dir, out);
	else if (rc == SBX_ASIDE_REMOVED)
		snprintf(line, sizeof line,
			 "'%s' was created during the run; it is protected "
			 "in every directory because it can run code outside "
			 "the sandbox later, and it could not be moved aside, "
			 "so it was removed",
			 path);
	else
		snprintf(line, sizeof line,
			 "ERROR: '%s' was created during the run; it is "
			 "protected in every directory because it can run "
			 "code outside the sandbox later, and it could be "
			 "neither moved aside nor removed (%s): remove it "
			 "before using it outside",
			 path, strerror(errno));
	if (dfd >= 0)
		close(dfd);
	warn(ctx, line);
	return rc == SBX_ASIDE_FAILED ? -1 : 0;
}
