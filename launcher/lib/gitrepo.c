/*
 * gitrepo.c - git's indirections, for the protect list (GIT-01) and the
 * report at exit (GIT-02).
 *
 * The profile protects .git/hooks, .git/config, .git/info... of the
 * project's own repository, named relative to the project.  git also
 * reads config and runs hooks from places those names do not cover:
 *
 *   - a .git file ("gitdir: PATH") sends git to another directory;
 *   - PATH/commondir sends it on to the shared repository of a linked
 *     worktree (config, hooks, info are read there);
 *   - .git/worktrees/NAME/commondir and config.worktree decide the same
 *     for each linked worktree, .git/modules/NAME/ is the whole git
 *     directory of a submodule (its own config, hooks, info, nested
 *     modules), and a submodule's checkout has a .git file of its own;
 *   - [include] and [includeIf] path = ... in any of those configs.
 *
 * sbx_git_protect() follows them from the repository as it is at launch
 * and gives every git directory it reaches the protection the policy
 * gives the project's own .git: each protect entry ".git/NAME" becomes
 * DIR/NAME there (a policy that protects nothing in .git gets nothing
 * here either); include targets are protected when config is, and
 * submodule checkouts' .git files when anything is.  Only paths inside
 * the project are added: outside it everything is read-only already.  It reads a
 * few small files and lists .git/worktrees and .git/modules: the cost
 * grows with the number of worktrees and submodules, never with the
 * files of the project.
 *
 * What it cannot see at launch is a repository created during the run
 * (git init, a nested clone, git submodule add): sbx_git_new_repos() finds
 * those at exit so the run can name them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gitrepo.h"
#include "perdir.h"

#define GIT_MAX_DEPTH 4 /* modules in modules, includes of includes */
#define GIT_MAX_SEEN 256 /* git directories walked, at most */

struct git_walk {
	struct sbx_policy *p;
	const char *project;
	size_t plen;
	const char *home;
	struct sbx_src src;
	int rc;
	char *seen[GIT_MAX_SEEN]; /* git directories walked already */
	size_t nseen;
	const char *own[16]; /* NAME of every ".git/NAME" protect entry */
	size_t nown;
	char dotgit[PATH_MAX]; /* the project's own .git: the policy's */
};

static int owns(const struct git_walk *w, const char *name)
{
	for (size_t i = 0; i < w->nown; i++)
		if (strcmp(w->own[i], name) == 0)
			return 1;
	return 0;
}

/* First visit of git directory g?  A linked worktree's commondir leads
 * back to the repository that lists it. */
static int first_visit(struct git_walk *w, const char *g)
{
	for (size_t i = 0; i < w->nseen; i++)
		if (strcmp(w->seen[i], g) == 0)
			return 0;
	if (w->nseen == GIT_MAX_SEEN || !(w->seen[w->nseen] = strdup(g)))
		return 0;
	w->nseen++;
	return 1;
}

/* Add path (absolute, canonical) when it lies inside the project. */
static void protect(struct git_walk *w, const char *path)
{
	if (w->rc < 0 || !sbx_path_within(path, w->project, w->plen) ||
	    strlen(path) == w->plen)
		return;
	for (size_t i = 0; i < w->p->protect.n; i++)
		if (strcmp(w->p->protect.v[i], path) == 0)
			return;
	if (sbx_strv_add(w->p, &w->p->protect, path, w->src) < 0)
		w->rc = -1;
}

static void protect_in(struct git_walk *w, const char *dir, const char *name)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof path, "%s/%s", dir, name) < (int)sizeof path)
		protect(w, path);
}

/* The first line of a small regular file, without its newline; NULL if
 * it is missing, not a plain file, or too large. */
static char *first_line(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	ssize_t k;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return NULL;
	}
	k = read(fd, buf, n - 1);
	close(fd);
	if (k <= 0)
		return NULL;
	buf[k] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	return buf;
}

/* base/rel, or rel when it is absolute, canonical (symlinks resolved, as
 * protect entries are); NULL if it does not resolve. */
static char *resolve(const char *base, const char *rel, char out[PATH_MAX])
{
	char joined[PATH_MAX];

	if (rel[0] == '/')
		snprintf(joined, sizeof joined, "%s", rel);
	else if (snprintf(joined, sizeof joined, "%s/%s", base, rel) >=
		 (int)sizeof joined)
		return NULL;
	return realpath(joined, out);
}

/* As resolve(), but a missing last component is kept (an optional
 * include file the sandbox could create, GIT-01): its directory must
 * resolve. */
static char *resolve_maybe(const char *base, const char *rel,
			   char out[PATH_MAX])
{
	char joined[PATH_MAX], dir[PATH_MAX], *slash;

	if (resolve(base, rel, out))
		return out;
	if (errno != ENOENT)
		return NULL;
	if (rel[0] == '/')
		snprintf(joined, sizeof joined, "%s", rel);
	else if (snprintf(joined, sizeof joined, "%s/%s", base, rel) >=
		 (int)sizeof joined)
		return NULL;
	slash = strrchr(joined, '/');
	if (!slash[1] || !strcmp(slash + 1, ".") || !strcmp(slash + 1, ".."))
		return NULL;
	*slash = '\0';
	if (!realpath(joined[0] ? joined : "/", dir) ||
	    snprintf(out, PATH_MAX, "%s/%s", strcmp(dir, "/") ? dir : "",
		     slash + 1) >= PATH_MAX)
		return NULL;
	return out;
}

static void walk_gitdir(struct git_walk *w, const char *g, int depth);

/* The value of a "KEY = VALUE" line, unquoted and trimmed; NULL if s is
 * not KEY (case-insensitive) or has no value. */
static char *config_value(char *s, const char *key)
{
	size_t k = strlen(key);
	char *v;

	if (strncasecmp(s, key, k) != 0)
		return NULL;
	v = s + k + strspn(s + k, " \t");
	if (*v++ != '=')
		return NULL;
	v += strspn(v, " \t");
	if (*v == '"') {
		v++;
		v[strcspn(v, "\"")] = '\0';
	}
	v[strcspn(v, "#;")] = '\0';
	while (*v && strchr(" \t", v[strlen(v) - 1]))
		v[strlen(v) - 1] = '\0';
	return *v ? v : NULL;
}

/* A path value of a config: ~/ is the home, a relative one is relative
 * to base.  A missing file is kept when its directory exists. */
static char *config_path(const struct git_walk *w, const char *base,
			 const char *v, char real[PATH_MAX])
{
	if (v[0] == '~' && v[1] == '/') {
		char h[PATH_MAX];

		if (!w->home || snprintf(h, sizeof h, "%s/%s", w->home,
					 v + 2) >= (int)sizeof h)
			return NULL;
		return resolve_maybe("/", h, real);
	}
	return resolve_maybe(base, v, real);
}

/* The section a "[...]" line opens, lower case, without its
 * subsection: "[diff \"x\"]" is diff, "[core]" core. */
static void config_section(const char *s, char sec[32])
{
	size_t n = strcspn(s + 1, " \t\".]");

	n = n < 31 ? n : 31;
	for (size_t i = 0; i < n; i++)
		sec[i] = (char)(s[1 + i] | 0x20);
	sec[n] = '\0';
}

/*
 * Does KEY of section sec name a command git runs (N-42)?  Their
 * scripts run like hooks, outside, on the next git status, log, fetch,
 * diff, commit; [alias] and [pager] values are commands only when they
 * start with "!" (alias) or name a program (pager): all are taken.
 */
static int command_key(const char *sec, const char *key)
{
	static const char *const keys[] = {
		"core.fsmonitor",  "core.pager",     "core.sshcommand",
		"core.editor",	   "core.askpass",   "core.gitproxy",
		"sequence.editor", "diff.external",  "diff.textconv",
		"diff.command",	   "merge.driver",   "filter.clean",
		"filter.smudge",   "filter.process", "credential.helper",
		"gpg.program",	   "difftool.cmd",   "mergetool.cmd",
	};
	char k[96];

	if (!strcmp(sec, "alias") || !strcmp(sec, "pager"))
		return 1;
	snprintf(k, sizeof k, "%s.%s", sec, key);
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (!strcasecmp(keys[i], k))
			return 1;
	return 0;
}

/* The paths a command value names inside the project: its program
 * (relative to the work tree, as git runs it there; kept when absent, as
 * the sandbox could create it) and every later word that is an existing
 * file ("sh tools/x.sh"); words without a "/" are looked up in PATH by
 * the shell, not in the project. */
static void command_paths(struct git_walk *w, const char *wt, char *v)
{
	char real[PATH_MAX], *tok, *save = NULL;
	int first = 1;

	if (*v == '!')
		v++;
	for (tok = strtok_r(v, " \t;&|()<>'\"", &save); tok;
	     tok = strtok_r(NULL, " \t;&|()<>'\"", &save), first = 0) {
		if (!strchr(tok, '/'))
			continue;
		if (first ? config_path(w, wt, tok, real) != NULL
			  : resolve(wt, tok, real) != NULL)
			protect(w, real);
	}
}

/* The KEY of a "KEY = VALUE" line, lower case; 0 if none. */
static int config_key(const char *s, char key[64])
{
	size_t n = strcspn(s, " \t=");

	if (!n || n > 63)
		return 0;
	memcpy(key, s, n);
	key[n] = '\0';
	return 1;
}

/*
 * path = VALUE of [include] and [includeIf "..."] sections (whatever
 * the condition: it may hold later), core.hooksPath (PER-02), whose
 * hooks run like .git/hooks, and the scripts of command_key() (N-42); a
 * relative one is relative to the work tree (wt: the repository's, or
 * the project for a global config).
 */
static void walk_includes(struct git_walk *w, const char *config,
			  const char *wt, int depth)
{
	FILE *f = fopen(config, "re");
	char line[PATH_MAX + 64], dir[PATH_MAX], real[PATH_MAX], *s, *v;
	char sec[32] = "", key[64];

	if (!f)
		return;
	snprintf(dir, sizeof dir, "%s", config);
	*strrchr(dir, '/') = '\0';
	while (fgets(line, sizeof line, f)) {
		s = line + strspn(line, " \t");
		s[strcspn(s, "\r\n")] = '\0';
		if (*s == '[') {
			config_section(s, sec);
			continue;
		}
		if (!config_key(s, key))
			continue;
		if (!strcmp(sec, "core") && owns(w, "hooks") &&
		    (v = config_value(s, "hooksPath")) &&
		    config_path(w, wt, v, real))
			protect(w, real);
		if (command_key(sec, key) && (v = config_value(s, key)))
			command_paths(w, wt, v);
		if (strcmp(sec, "include") && strcmp(sec, "includeif"))
			continue;
		if (!(v = config_value(s, "path")) ||
		    !config_path(w, dir, v, real))
			continue;
		protect(w, real);
		if (depth < GIT_MAX_DEPTH)
			walk_includes(w, real, wt, depth + 1);
	}
	fclose(f);
}

/* Every subdirectory of dir, each with fn. */
static void each_subdir(struct git_walk *w, const char *dir, int depth,
			void (*fn)(struct git_walk *, const char *, int))
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char sub[PATH_MAX];

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' ||
		    (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN))
			continue;
		if (snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name) <
		    (int)sizeof sub)
			fn(w, sub, depth);
	}
	closedir(d);
}

/* .git/worktrees/NAME: where that worktree's git finds its config. */
static void walk_worktree(struct git_walk *w, const char *wt, int depth)
{
	char buf[PATH_MAX], common[PATH_MAX], path[PATH_MAX];

	if (owns(w, "commondir"))
		protect_in(w, wt, "commondir");
	if (owns(w, "config.worktree"))
		protect_in(w, wt, "config.worktree");
	snprintf(path, sizeof path, "%s/config.worktree", wt);
	if (owns(w, "config.worktree"))
		walk_includes(w, path, w->project, 1);
	snprintf(path, sizeof path, "%s/commondir", wt);
	if (first_line(path, buf, sizeof buf) && resolve(wt, buf, common))
		walk_gitdir(w, common, depth + 1);
}

static void walk_module(struct git_walk *w, const char *m, int depth)
{
	walk_gitdir(w, m, depth + 1);
}

/* A git directory: its own files, the shared one it names, its linked
 * worktrees and its submodules' git directories. */
static void walk_gitdir(struct git_walk *w, const char *g, int depth)
{
	char buf[PATH_MAX], path[PATH_MAX], common[PATH_MAX], wt[PATH_MAX];

	if (w->rc < 0 || depth > GIT_MAX_DEPTH || !first_visit(w, g))
		return;
	for (size_t i = 0; i < w->nown && strcmp(g, w->dotgit) != 0; i++)
		protect_in(w, g, w->own[i]);
	snprintf(wt, sizeof wt, "%s", g);
	if (strlen(wt) > 5 && strcmp(wt + strlen(wt) - 5, "/.git") == 0)
		wt[strlen(wt) - 5] = '\0';
	else
		snprintf(wt, sizeof wt, "%s", w->project);
	snprintf(path, sizeof path, "%s/config", g);
	if (owns(w, "config"))
		walk_includes(w, path, wt, 1);
	snprintf(path, sizeof path, "%s/config.worktree", g);
	if (owns(w, "config.worktree"))
		walk_includes(w, path, wt, 1);
	snprintf(path, sizeof path, "%s/commondir", g);
	if (first_line(path, buf, sizeof buf) && resolve(g, buf, common))
		walk_gitdir(w, common, depth + 1);
	snprintf(path, sizeof path, "%s/worktrees", g);
	each_subdir(w, path, depth, walk_worktree);
	snprintf(path, sizeof path, "%s/modules", g);
	each_subdir(w, path, depth, walk_module);
}

/* The git directory a .git file points at ("gitdir: PATH"). */
static char *gitfile_target(const char *dotgit, char out[PATH_MAX])
{
	char buf[PATH_MAX], dir[PATH_MAX];

	if (!first_line(dotgit, buf, sizeof buf) ||
	    strncmp(buf, "gitdir:", 7) != 0)
		return NULL;
	snprintf(dir, sizeof dir, "%s", dotgit);
	*strrchr(dir, '/') = '\0';
	return resolve(dir, buf + 7 + strspn(buf + 7, " \t"), out);
}

/* The checkouts of submodules named in .gitmodules: their .git files
 * decide where git goes when run inside them. */
static void walk_gitmodules(struct git_walk *w)
{
	char path[PATH_MAX], line[PATH_MAX + 64], real[PATH_MAX], *v;
	FILE *f;

	snprintf(path, sizeof path, "%s/.gitmodules", w->project);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		v = line + strspn(line, " \t");
		if (strncmp(v, "path", 4) != 0)
			continue;
		v += 4 + strspn(v + 4, " \t");
		if (*v++ != '=')
			continue;
		v += strspn(v, " \t");
		v[strcspn(v, "\r\n")] = '\0';
		if (!*v || !resolve(w->project, v, real) ||
		    !sbx_path_within(real, w->project, w->plen))
			continue;
		if (strlen(real) + 5 < sizeof real) {
			struct stat st;

			strcat(real, "/.git");
			if (lstat(real, &st) == 0 && S_ISREG(st.st_mode))
				protect(w, real);
		}
	}
	fclose(f);
}

/*
 * The user's global configs (GIT-01): an include or includeIf target, or
 * a core.hooksPath, that lies in the project is read by every git run
 * outside.  The system config is root's, and only names paths in the
 * project if root put them there; it is read too.
 */
static void walk_global(struct git_walk *w)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	char path[PATH_MAX];

	if (!owns(w, "config"))
		return;
	walk_includes(w, "/etc/gitconfig", w->project, 1);
	if (xdg && *xdg == '/')
		snprintf(path, sizeof path, "%s/git/config", xdg);
	else if (w->home)
		snprintf(path, sizeof path, "%s/.config/git/config", w->home);
	else
		path[0] = '\0';
	if (path[0])
		walk_includes(w, path, w->project, 1);
	if (w->home) {
		snprintf(path, sizeof path, "%s/.gitconfig", w->home);
		walk_includes(w, path, w->project, 1);
	}
}

/* Nested repositories that exist at launch (PER-02: "every repo
 * in the workspace"): a workspace of clones, a vendored clone.  A
 * bounded walk of directories only: GIT_SCAN_DEPTH levels, at most
 * GIT_SCAN_DIRS directories (at the cap 1-3 ms), .git and
 * not_scanned() ones not entered. */
#define GIT_SCAN_DEPTH 3
#define GIT_SCAN_DIRS 1000 /* looked at; leaves only stat()ed */

/* Trees of packages and build output, large and never a user's clone. */
static int not_scanned(const char *name)
{
	static const char *const skip[] = { "node_modules", ".venv",
					    "__pycache__", "target" };

	for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++)
		if (name[0] == skip[i][0] && !strcmp(name, skip[i]))
			return 1;
	return 0;
}

static void found_nested(struct git_walk *w, const char *dotgit, int isdir)
{
	char g[PATH_MAX];

	if (isdir) {
		walk_gitdir(w, dotgit, 0);
		return;
	}
	protect(w, dotgit); /* a gitfile redirects git */
	if (gitfile_target(dotgit, g))
		walk_gitdir(w, g, 0);
}

/* A per-directory name (perdir.c, N-38) in a directory below the
 * project (buf, its name at off): the root's protect entries for it,
 * here. */
static void found_perdir(struct git_walk *w, const char *buf, size_t off)
{
	const char *name = buf + off;
	size_t n0 = w->p->protect.n, k = strlen(name);
	char path[PATH_MAX];

	for (size_t i = 0; i < n0; i++) {
		const char *e = w->p->protect.v[i];

		if (strncmp(e, name, k) != 0 || (e[k] && e[k] != '/') ||
		    snprintf(path, sizeof path, "%.*s%s", (int)off, buf, e) >=
			    (int)sizeof path)
			continue;
		protect(w, path);
	}
}

static void scan_nested(struct git_walk *w, char *buf, size_t len, int depth,
			size_t *dirs)
{
	DIR *d;
	struct dirent *e;

	if (depth > GIT_SCAN_DEPTH || *dirs > GIT_SCAN_DIRS)
		return;
	d = opendir(buf);
	if (!d)
		return;
	while (w->rc == 0 && (e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		unsigned char t = e->d_type;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    not_scanned(e->d_name) || len + n + 2 > PATH_MAX)
			continue;
		buf[len] = '/';
		memcpy(buf + len + 1, e->d_name, n + 1);
		if (t == DT_UNKNOWN)
			t = lstat(buf, &st) < 0	  ? DT_UNKNOWN
			    : S_ISDIR(st.st_mode) ? DT_DIR
			    : S_ISREG(st.st_mode) ? DT_REG
						  : DT_UNKNOWN;
		if (depth > 0 && sbx_perdir_name(e->d_name))
			found_perdir(w, buf, len + 1);
		if (!strcmp(e->d_name, ".git")) {
			if (depth > 0 && (t == DT_DIR || t == DT_REG))
				found_nested(w, buf, t == DT_DIR);
		} else if (t == DT_DIR && depth < GIT_SCAN_DEPTH &&
			   ++*dirs <= GIT_SCAN_DIRS &&
			   (depth + 1 < GIT_SCAN_DEPTH || lstat(buf, &st) < 0 ||
			    st.st_nlink != 2)) {
			/* two links: no subdirectory, so no .git directory
			 * (a gitfile of a worktree or submodule is found
			 * through .git/worktrees and .gitmodules); read
			 * anyway in the first two levels for per-directory
			 * names (N-38: packages/a/.npmrc), not in the third
			 * (the bulk of a large tree: 5 ms at the cap) */
			scan_nested(w, buf, len + 1 + n, depth + 1, dirs);
		}
		buf[len] = '\0';
	}
	closedir(d);
}

int sbx_git_protect(struct sbx_policy *p, const char *project, const char *home)
{
	struct git_walk w = { .p = p,
			      .project = project,
			      .plen = strlen(project),
			      .home = home,
			      .src = { "git repository layout", 0 } };
	char *dotgit = w.dotgit, g[PATH_MAX];
	struct stat st;
	int have;

	for (size_t i = 0; i < p->protect.n && w.nown < 16; i++)
		if (strncmp(p->protect.v[i], ".git/", 5) == 0 &&
		    p->protect.v[i][5] && !strchr(p->protect.v[i] + 5, '/'))
			w.own[w.nown++] = p->protect.v[i] + 5;
	if (!w.nown ||
	    snprintf(dotgit, PATH_MAX, "%s/.git", project) >= PATH_MAX)
		return 0;
	have = lstat(dotgit, &st) == 0; /* one lookup, not one per kind */
	if (have && S_ISDIR(st.st_mode))
		walk_gitdir(&w, dotgit, 0);
	else if (have && S_ISREG(st.st_mode) && gitfile_target(dotgit, g))
		walk_gitdir(&w, g, 0);
	walk_gitmodules(&w);
	walk_global(&w);
	if (strlen(project) < sizeof g) {
		size_t dirs = 0;

		snprintf(g, sizeof g, "%s", project);
		scan_nested(&w, g, strlen(project), 0, &dirs);
	}
	for (size_t i = 0; i < w.nseen; i++)
		free(w.seen[i]);
	return w.rc;
}

/* ------------------------------------------------------------ at exit */

struct new_repos {
	struct timespec since;
	const char *own; /* the project's own .git: protected, skipped */
	size_t dirs, max_dirs;
	void (*fn)(void *ctx, const char *path, const char *what);
	void *ctx;
	int truncated;
};

static int after(const struct statx_timestamp *t, const struct timespec *s)
{
	return t->tv_sec > s->tv_sec ||
	       (t->tv_sec == s->tv_sec && t->tv_nsec >= s->tv_nsec);
}

/* Was path made, or its status changed, since the run started?  Birth
 * time where the filesystem keeps one, else the change time (which a
 * repository merely used during the run also moves). */
static int born_after(const char *path, const struct timespec *since,
		      int *changed)
{
	struct statx sx;

	if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW,
		  STATX_BTIME | STATX_CTIME, &sx) < 0)
		return 0;
	*changed = after(&sx.stx_ctime, since);
	if (sx.stx_mask & STATX_BTIME)
		return after(&sx.stx_btime, since);
	return *changed;
}

/* A .git found below the project: new, or an old one whose hooks or
 * config changed during the run.  hooks/ changes its own times when a
 * hook is added or removed; a hook rewritten in place changes its file. */
static void check_repo(struct new_repos *n, char *path, size_t len)
{
	static const char *const parts[] = { "/config", "/hooks", "/info" };
	struct timespec *s = &n->since;
	int changed = 0;
	DIR *d;
	struct dirent *e;

	if (born_after(path, s, &changed)) {
		n->fn(n->ctx, path, "created");
		return;
	}
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
		if (len + strlen(parts[i]) >= PATH_MAX)
			return;
		strcpy(path + len, parts[i]);
		if (born_after(path, s, &changed) || changed) {
			path[len] = '\0';
			n->fn(n->ctx, path, "changed");
			return;
		}
	}
	strcpy(path + len, "/hooks");
	d = opendir(path);
	while (d && (e = readdir(d)) != NULL) {
		size_t k = strlen(e->d_name);

		if (e->d_name[0] == '.' || len + 7 + k >= PATH_MAX)
			continue;
		path[len + 6] = '/';
		memcpy(path + len + 7, e->d_name, k + 1);
		if (born_after(path, s, &changed) || changed) {
			path[len] = '\0';
			n->fn(n->ctx, path, "changed");
			break;
		}
	}
	if (d)
		closedir(d);
	path[len] = '\0';
}

/*
 * Could directory name (in dfd) hold something new?  A directory whose
 * link count says it has no subdirectory (2: "." and its entry in the
 * parent) and whose contents did not change since the run started holds
 * no new .git and nothing to descend into: no need to read it.  Trees of
 * packages are mostly such leaves.  Filesystems that count directory
 * links differently (btrfs says 1) are always read.  The change time,
 * not the modification time, which the run can set back (touch -d).
 */
static int worth_reading(int dfd, const char *name, const struct timespec *s)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISDIR(st.st_mode))
		return 0;
	return st.st_nlink != 2 || st.st_ctim.tv_sec > s->tv_sec ||
	       (st.st_ctim.tv_sec == s->tv_sec &&
		st.st_ctim.tv_nsec >= s->tv_nsec);
}

/* A per-directory name below the project root made during the run
 * (N-38): fn moves it aside. */
static void new_perdir(struct new_repos *n, const char *path)
{
	int changed;

	if (born_after(path, &n->since, &changed))
		n->fn(n->ctx, path, "planted");
}

/*
 * Depth first over the directories below the project (path in buf, len
 * bytes), never into .git directories.  d_type spares a stat per file:
 * only directories and .git entries are looked at.
 */
static void scan(struct new_repos *n, char *buf, size_t len)
{
	DIR *d;
	struct dirent *e;

	if (n->truncated)
		return;
	d = opendir(buf);
	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		size_t k = strlen(e->d_name);

		if (strcmp(e->d_name, ".") == 0 ||
		    strcmp(e->d_name, "..") == 0 || len + 1 + k >= PATH_MAX ||
		    (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN &&
		     strcmp(e->d_name, ".git") != 0 &&
		     !sbx_perdir_name(e->d_name)))
			continue;
		buf[len] = '/';
		memcpy(buf + len + 1, e->d_name, k + 1);
		if (len + 5 != strlen(n->own) && sbx_perdir_name(e->d_name))
			new_perdir(n, buf);
		if (strcmp(e->d_name, ".git") == 0) {
			if (strcmp(buf, n->own) != 0)
				check_repo(n, buf, len + 1 + k);
		} else if (n->dirs++ >= n->max_dirs) {
			n->truncated = 1;
		} else if (worth_reading(dirfd(d), e->d_name, &n->since)) {
			scan(n, buf, len + 1 + k);
		}
		buf[len] = '\0';
	}
	closedir(d);
}

/* The project's own .git/modules: submodules added during the run. */
static void new_modules(struct new_repos *n)
{
	char path[PATH_MAX];
	DIR *d;
	struct dirent *e;
	int changed;

	snprintf(path, sizeof path, "%s/modules", n->own);
	d = opendir(path);
	while (d && (e = readdir(d)) != NULL) {
		char m[PATH_MAX];

		if (e->d_name[0] == '.' || snprintf(m, sizeof m, "%s/%s", path,
						    e->d_name) >= (int)sizeof m)
			continue;
		if (born_after(m, &n->since, &changed))
			n->fn(n->ctx, m, "created");
	}
	if (d)
		closedir(d);
}

int sbx_git_new_repos(const char *project, const struct timespec *since,
		      size_t max_dirs,
		      void (*fn)(void *ctx, const char *path, const char *what),
		      void *ctx)
{
	struct new_repos n = { *since, NULL, 0, max_dirs, fn, ctx, 0 };
	char buf[PATH_MAX], own[PATH_MAX];
	size_t len = strlen(project);

	if (len >= sizeof buf ||
	    snprintf(own, sizeof own, "%s/.git", project) >= (int)sizeof own)
		return 0;
	n.own = own;
	memcpy(buf, project, len + 1);
	scan(&n, buf, len);
	new_modules(&n);
	return n.truncated;
}
