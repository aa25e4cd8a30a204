/*
 * confmgmt.c - where confs live (locations), trust records, editing the
 * per-project conf, and command-line overrides.  Everything here runs
 * outside the sandbox and runs nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <libconfig.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#define XXH_INLINE_ALL

#include "conf.h"

int sbx_mkdirs(const char *dir, int mode)
{
	char buf[PATH_MAX];
	size_t n = strlen(dir);

	if (n >= sizeof(buf))
		return errno = ENAMETOOLONG, -1;
	memcpy(buf, dir, n + 1);
	for (char *s = buf + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(buf, (mode_t)mode) < 0 && errno != EEXIST)
			return -1;
		*s = '/';
	}
	if (mkdir(buf, (mode_t)mode) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

/* N-11: make path (a directory when dir, else an empty file) and the
 * directories above it, walking from / without following any symlink:
 * a component that is a link (planted by a run since the path was
 * resolved) fails with ELOOP/ENOTDIR instead of creating outside. */
int sbx_mkpath_nofollow(const char *path, int dir)
{
	char buf[PATH_MAX];
	char *c, *sl;
	int fd, nfd, r = -1;

	if (path[0] != '/' || strlen(path) >= sizeof(buf))
		return errno = EINVAL, -1;
	strcpy(buf, path);
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (c = buf + 1; fd >= 0 && *c; c = sl + 1) {
		if (!(sl = strchr(c, '/')))
			break; /* c: the last component */
		*sl = '\0';
		if (*c && mkdirat(fd, c, 0755) < 0 && errno != EEXIST)
			goto out;
		nfd = *c ? openat(fd, c,
				  O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
			 : dup(fd);
		close(fd);
		fd = nfd;
	}
	if (fd < 0 || !*c)
		goto out;
	if (dir)
		r = mkdirat(fd, c, 0777);
	else if ((nfd = openat(fd, c,
			       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				       O_CLOEXEC,
			       0666)) >= 0)
		r = close(nfd);
out:
	if (fd >= 0)
		close(fd);
	return r;
}

/*
 * $HOME, else the home in /etc/passwd, read with fgetpwent: sbxrun is
 * linked statically and does not load NSS modules.  NULL when neither
 * exists: guessing ("/") would leave the real home's secrets unhidden.
 */
static const char *account_home(void)
{
	static char pwhome[PATH_MAX];
	struct passwd *pw;
	FILE *fp;

	if (pwhome[0])
		return pwhome;
	fp = fopen("/etc/passwd", "re");
	while (fp && (pw = fgetpwent(fp))) {
		if (pw->pw_uid == getuid() && pw->pw_dir &&
		    pw->pw_dir[0] == '/') {
			snprintf(pwhome, sizeof(pwhome), "%s", pw->pw_dir);
			break;
		}
	}
	if (fp)
		fclose(fp);
	return pwhome[0] ? pwhome : NULL;
}

static const char *home_dir(const struct sbx_opts *o)
{
	const char *h = o && o->home ? o->home : getenv("HOME");

	if (h && h[0] == '/')
		return h;
	return account_home();
}

/* SEC-11: the account's home too, when HOME names another place. */
static void set_account_home(struct sbx_locs *l)
{
	const char *a = account_home();
	char n[PATH_MAX];

	if (a && sbx_path_norm(a, "/", NULL, 1, n, sizeof(n)) == 0 &&
	    strcmp(n, l->home) != 0 && strcmp(n, "/") != 0)
		snprintf(l->account_home, sizeof(l->account_home), "%s", n);
}

/* Shipped profiles: an explicit dir, $SBXRUN_PROFILE_DIR, next to an
 * installed binary (../share/sbxrun/profiles) or in the source tree when
 * running from build/ (../profiles). */
static void find_profile_dir(char *out, size_t outsz, const struct sbx_opts *o)
{
	char exe[PATH_MAX], *slash;
	ssize_t n;
	const char *env = getenv("SBXRUN_PROFILE_DIR");

	if (o && o->profile_dir) {
		snprintf(out, outsz, "%s", o->profile_dir);
		return;
	}
	if (env && *env) {
		snprintf(out, outsz, "%s", env);
		return;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	snprintf(out, outsz, "%s/../share/sbxrun/profiles", exe);
	if (access(out, R_OK) == 0)
		return;
	snprintf(out, outsz, "%s/../profiles", exe);
	if (access(out, R_OK) == 0)
		return;
	snprintf(out, outsz, "%s", SBX_DATADIR "/profiles");
}

int sbx_locs_init(struct sbx_locs *l, const struct sbx_opts *o,
		  struct sbx_err *err)
{
	char cwd[PATH_MAX], cfg[PATH_MAX];
	const char *xdg = o && o->config_home ? o->config_home
					      : getenv("XDG_CONFIG_HOME");
	const char *proj = o && o->project_dir ? o->project_dir : NULL;
	const char *home = home_dir(o);

	memset(l, 0, sizeof(*l));
	if (!home)
		return sbx_errf(
			err, 0,
			"HOME is not set and user %u has no home in "
			"/etc/passwd: set HOME (the secrets hidden under "
			"it depend on it)",
			(unsigned)getuid());
	if (sbx_path_norm(home, "/", NULL, 1, l->home, sizeof(l->home)) < 0)
		return sbx_errf(err, 0, "bad home directory '%s'", home);
	set_account_home(l);
	if (!proj && !getcwd(cwd, sizeof(cwd)))
		return sbx_errf(err, errno,
				"cannot find the current directory");
	if (!realpath(proj ? proj : cwd, l->project))
		return sbx_errf(err, errno, "project directory '%s'",
				proj ? proj : cwd);
	/* Leave room for the longest name built below, so nothing is cut. */
	if (strlen(l->home) > PATH_MAX - 128 ||
	    strlen(l->project) > PATH_MAX - 128 ||
	    (xdg && strlen(xdg) > PATH_MAX - 128))
		return sbx_errf(err, 0,
				"home, project or config directory path is "
				"too long");
	if (xdg && xdg[0] == '/')
		snprintf(cfg, sizeof(cfg), "%s", xdg);
	else
		snprintf(cfg, sizeof(cfg), "%s/.config", l->home);
	if (sbx_path_norm(cfg, "/", NULL, 1, cfg, sizeof(cfg)) < 0)
		return sbx_errf(err, 0, "bad config directory '%s'", cfg);
	snprintf(l->config_dir, sizeof(l->config_dir), "%s/sbxrun", cfg);
	snprintf(l->system_conf, sizeof(l->system_conf), "%s",
		 o && o->system_conf ? o->system_conf : "/etc/sbxrun/config");
	snprintf(l->project_hash, sizeof(l->project_hash), "%016llx",
		 (unsigned long long)XXH3_64bits(l->project,
						 strlen(l->project)));
	snprintf(l->project_conf, sizeof(l->project_conf),
		 "%s/projects/%s.conf", l->config_dir, l->project_hash);
	snprintf(l->inrepo_conf, sizeof(l->inrepo_conf), "%s/.sbxrun.conf",
		 strcmp(l->project, "/") ? l->project : "");
	snprintf(l->trust_file, sizeof(l->trust_file), "%s/trust/%s",
		 l->config_dir, l->project_hash);
	snprintf(l->cache_dir, sizeof(l->cache_dir),
		 "%s/.cache/sbxrun/build/%s", l->home, l->project_hash);
	find_profile_dir(l->profile_dir, sizeof(l->profile_dir), o);
	return 0;
}

/* Write a file atomically (temp + rename) with mode 0600. */
static int write_atomic(const char *path, const char *data, size_t len,
			struct sbx_err *err)
{
	char tmp[PATH_MAX + 16];
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.tmp%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
		  0600);
	if (fd < 0)
		return sbx_errf(err, errno, "%s", tmp);
	if (write(fd, data, len) != (ssize_t)len || fsync(fd) < 0) {
		close(fd);
		unlink(tmp);
		return sbx_errf(err, errno, "%s", tmp);
	}
	close(fd);
	if (rename(tmp, path) < 0) {
		unlink(tmp);
		return sbx_errf(err, errno, "%s", path);
	}
	return 0;
}

/* The hash recorded by sbxrun --trust for this project, or "". */
static void trusted_hash(const struct sbx_locs *l, char *want, size_t sz)
{
	FILE *f = fopen(l->trust_file, "re");

	want[0] = '\0';
	if (f) {
		if (!fgets(want, (int)sz, f))
			want[0] = '\0';
		fclose(f);
		want[strcspn(want, "\n")] = '\0';
	}
}

/* The in-repo conf counts only when the hash of the bytes read is the one
 * trusted; those same bytes are then parsed (CONF-01).  It is the one conf
 * the sandbox may have made (when none existed at launch): an untrusted one,
 * or anything but a regular file of ours, is ignored with a warning, never
 * waited on (CONF-03).  A conf that WAS trusted and no longer matches (a
 * git pull, a checkout, a write from a landlock-only run) or is gone
 * refuses the run (E-17): dropping it would silently drop its hide and
 * read-only rules; sbxrun --trust reviews it (or forgets a deleted one). */
int sbx_conf_inrepo_trusted(struct sbx_policy *p, const struct sbx_locs *l,
			    char **out, struct sbx_err *err)
{
	char have[33], want[40];
	struct sbx_err e = { "" };
	struct sbx_src src = { l->inrepo_conf, 0 };
	char *text = NULL;
	int r = sbx_conf_read(l->inrepo_conf, &text, &e);

	*out = NULL;
	trusted_hash(l, want, sizeof(want));
	if (r == 1 && want[0])
		return sbx_errf(err, 0,
				"%s was trusted but is gone; its rules would "
				"silently stop applying: put it back, or run "
				"sbxrun --trust to forget it",
				l->inrepo_conf);
	if (r == 1)
		return 0;
	if (r < 0 && want[0])
		return sbx_errf(err, 0, "%s was trusted but %s", l->inrepo_conf,
				e.msg);
	if (r < 0) {
		const char *why = strncmp(e.msg, l->inrepo_conf,
					  strlen(l->inrepo_conf)) == 0
					  ? e.msg + strlen(l->inrepo_conf) + 2
					  : e.msg;
		sbx_policy_warn(p, src, "%s; ignored", why);
		return 0;
	}
	sbx_hash128_hex(text, strlen(text), have);
	if (strcmp(have, want) == 0) {
		*out = text;
		return 0;
	}
	free(text);
	if (want[0])
		return sbx_errf(err, 0,
				"%s changed since you trusted it; refusing to "
				"run without its rules (they may hide or "
				"protect paths): review it and run: sbxrun "
				"--trust",
				l->inrepo_conf);
	sbx_policy_warn(p, src,
			"not trusted, ignored; review it and run: sbxrun "
			"--trust");
	return 0;
}

/* Is path at or under dir (both normalised)? */
static int under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1)
		return 1;
	return strncmp(path, dir, n) == 0 &&
	       (path[n] == '\0' || path[n] == '/');
}

/* 1 when v, named inside the project (relative to it, or absolute below
 * it), resolves outside it: it goes through a symlink in the project,
 * which an earlier run may have made (out -> ~).  res gets the resolved
 * path, link the first component of v that is a link. */
/* The project resolved, once per conf load (sbx_conf_load: every root
 * of its files is checked against one resolution, not one each). */
static __thread struct {
	int on;
	char in[PATH_MAX], out[PATH_MAX];
} projmemo;

void sbx_conf_project_memo(int on)
{
	projmemo.on = on;
	projmemo.in[0] = '\0';
}

static int project_real(const char *project, char out[PATH_MAX])
{
	if (projmemo.on && projmemo.in[0] && !strcmp(projmemo.in, project)) {
		memcpy(out, projmemo.out, PATH_MAX);
		return 0;
	}
	if (sbx_path_norm(project, "/", NULL, 1, out, PATH_MAX) < 0)
		return -1;
	if (projmemo.on && strlen(project) < PATH_MAX) {
		snprintf(projmemo.in, PATH_MAX, "%s", project);
		memcpy(projmemo.out, out, PATH_MAX);
	}
	return 0;
}

/* res[0] is '\0' unless v was resolved into it (lexically in the
 * project). */
static int leaves_project(const char *v, const char *project, const char *home,
			  char res[PATH_MAX], char link[PATH_MAX])
{
	char lex[PATH_MAX], proj[PATH_MAX];

	res[0] = '\0';
	/* lexically outside the project: nothing to resolve (issue 17: a
	 * resolution is a syscall or more per root) */
	if (!project || sbx_path_norm(v, project, home, 0, lex, PATH_MAX) < 0 ||
	    project_real(project, proj) < 0 ||
	    !(under(lex, proj) || under(lex, project)))
		return 0; /* the caller says what is wrong with it */
	if (sbx_path_norm(v, project, home, 1, res, PATH_MAX) < 0) {
		res[0] = '\0';
		return 0;
	}
	if (under(res, proj))
		return 0;
	snprintf(link, PATH_MAX, "%s", lex);
	for (char *c = link + strlen(under(lex, proj) ? proj : project) + 1;
	     c && *c;) {
		struct stat st;
		char *sl = strchr(c, '/');

		if (sl)
			*sl = '\0';
		if (lstat(link, &st) == 0 && S_ISLNK(st.st_mode))
			break;
		if (sl)
			*sl = '/';
		c = sl ? sl + 1 : NULL;
	}
	return 1;
}

/* E-10: a rw or ro root named inside the project ("out", "dist") that
 * resolves outside it through a link: the trusted text would mean
 * something else.  Refused, with the link and the fix; a root meant to be
 * elsewhere is written as its target. */
int sbx_conf_check_root_link(struct sbx_policy *p, const struct sbx_rule *r,
			     char res[PATH_MAX], struct sbx_err *err)
{
	char link[PATH_MAX];

	res[0] = '\0';
	if (r->mode == SBX_HIDE ||
	    !leaves_project(r->root, p->project, p->home, res, link))
		return 0;
	return sbx_errf(err, 0,
			"root '%s' is in the project but resolves to '%s' "
			"through the symlink '%s', which a command in an "
			"earlier run may have made; refusing (remove the "
			"link: rm '%s'; or, if you mean '%s', write that "
			"in the conf)",
			r->root, res, link, link, res);
}

/* N-11: the same for --allow-read/--allow-write/--add-path PATH: a path
 * named in the project that a planted link carries outside it (./cfg ->
 * ~/.config, then --allow-write ./cfg/systemd/user/) is refused, naming
 * the place it reaches; the user who means that place names it. */
int sbx_conf_check_flag_link(const char *project, const char *home,
			     const char *flag, const char *v,
			     const char *suffix, struct sbx_err *err)
{
	char res[PATH_MAX], link[PATH_MAX];

	size_t n = strlen(v);

	if (!leaves_project(v, project, home, res, link))
		return 0;
	return sbx_errf(err, 0,
			"%s %s: it is in the project but leads through the "
			"symlink '%s' to '%s', outside it; a command in an "
			"earlier run may have made that link, so sbxrun does "
			"not follow it: to allow that place, name it: %s "
			"%s%s%s",
			flag, v, link, res, flag, res,
			n > 1 && v[n - 1] == '/' ? "/" : "", suffix);
}

int sbx_conf_trust(const struct sbx_locs *l, struct sbx_err *err)
{
	char h[33], dir[PATH_MAX], line[40], *text = NULL;
	int r = sbx_conf_read(l->inrepo_conf, &text, err);

	if (r == 1 && unlink(l->trust_file) == 0)
		return 1; /* a trusted conf that is gone: forgotten (E-17) */
	if (r == 1)
		return sbx_errf(err, ENOENT, "%s: cannot read", l->inrepo_conf);
	if (r < 0)
		return -1;
	/* Check it parses before trusting it: the very bytes hashed. */
	{
		struct sbx_policy p;

		sbx_policy_init(&p);
		p.project = strdup(l->project);
		p.home = strdup(l->home);
		r = sbx_conf_load_string(&p, text, l->inrepo_conf, err);
		sbx_policy_free(&p);
	}
	sbx_hash128_hex(text, strlen(text), h);
	free(text);
	if (r < 0)
		return -1;
	snprintf(dir, sizeof(dir), "%s/trust", l->config_dir);
	if (sbx_mkdirs(dir, 0700) < 0)
		return sbx_errf(err, errno, "%s", dir);
	snprintf(line, sizeof(line), "%s\n", h);
	return write_atomic(l->trust_file, line, strlen(line), err);
}

/* ------------------------------------------------------------ editing */

static int load_project_conf(const struct sbx_locs *l, config_t *c,
			     struct sbx_err *err)
{
	char *text = NULL;
	int r;

	config_init(c);
	r = sbx_conf_read(l->project_conf, &text, err);
	if (r == 1)
		return 0;
	if (r == 0 && !config_read_string(c, text)) {
		sbx_errf(err, 0, "%s:%d: %s", l->project_conf,
			 config_error_line(c), config_error_text(c));
		r = -1;
	}
	free(text);
	if (r < 0)
		config_destroy(c);
	return r < 0 ? -1 : 0;
}

static int save_project_conf(const struct sbx_locs *l, config_t *c,
			     struct sbx_err *err)
{
	char dir[PATH_MAX], *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int r;

	snprintf(dir, sizeof(dir), "%s/projects", l->config_dir);
	if (!mem || sbx_mkdirs(dir, 0700) < 0) {
		if (mem)
			fclose(mem);
		free(buf);
		return sbx_errf(err, errno, "%s", dir);
	}
	fprintf(mem,
		"# sbxrun per-project conf for %s\n"
		"# (edited by sbxrun --add-path/--remove-path; see "
		"conf/project.conf for the keys)\n",
		l->project);
	config_write(c, mem);
	fclose(mem);
	r = write_atomic(l->project_conf, buf, len, err);
	free(buf);
	return r;
}

static config_setting_t *paths_list(config_t *c, struct sbx_err *err)
{
	config_setting_t *root = config_root_setting(c);
	config_setting_t *ps = config_setting_get_member(root, "paths");

	if (!ps)
		ps = config_setting_add(root, "paths", CONFIG_TYPE_LIST);
	if (!ps || config_setting_type(ps) != CONFIG_TYPE_LIST) {
		sbx_errf(err, 0,
			 "'paths' in the per-project conf is not a list");
		return NULL;
	}
	return ps;
}

int sbx_conf_add_path(const struct sbx_locs *l, const char *root,
		      const char *mode, struct sbx_err *err)
{
	config_t c;
	config_setting_t *ps, *g, *s;
	enum sbx_pmode m;
	char norm[PATH_MAX], sfx[16];
	int r = -1;

	snprintf(sfx, sizeof(sfx), "=%s", mode);
	if (sbx_parse_pmode(mode, &m) < 0)
		return sbx_errf(err, 0, "mode must be rw, ro or hide, not '%s'",
				mode);
	if (sbx_path_norm(root, l->project, l->home, 1, norm, sizeof(norm)) < 0)
		return sbx_errf(err, errno, "bad path '%s'", root);
	if (m != SBX_HIDE &&
	    sbx_conf_check_flag_link(l->project, l->home, "--add-path", root,
				     strcmp(mode, "rw") ? sfx : "", err) < 0)
		return -1;
	if (load_project_conf(l, &c, err) < 0)
		return -1;
	sbx_conf_remove_path(l, norm, err); /* replace, don't duplicate */
	config_destroy(&c);
	if (load_project_conf(l, &c, err) < 0 || !(ps = paths_list(&c, err)))
		goto out;
	g = config_setting_add(ps, NULL, CONFIG_TYPE_GROUP);
	s = g ? config_setting_add(g, "root", CONFIG_TYPE_STRING) : NULL;
	if (!s || !config_setting_set_string(s, norm))
		goto oom;
	s = config_setting_add(g, "mode", CONFIG_TYPE_STRING);
	if (!s || !config_setting_set_string(s, mode))
		goto oom;
	r = save_project_conf(l, &c, err);
	goto out;
oom:
	sbx_errf(err, 0, "cannot add '%s' to %s", norm, l->project_conf);
out:
	config_destroy(&c);
	return r;
}

int sbx_conf_remove_path(const struct sbx_locs *l, const char *root,
			 struct sbx_err *err)
{
	config_t c;
	config_setting_t *ps;
	char norm[PATH_MAX], en[PATH_MAX];
	int found = 0, r;

	if (sbx_path_norm(root, l->project, l->home, 1, norm, sizeof(norm)) < 0)
		return sbx_errf(err, errno, "bad path '%s'", root);
	if (load_project_conf(l, &c, err) < 0)
		return -1;
	ps = config_lookup(&c, "paths");
	for (int i = ps ? config_setting_length(ps) - 1 : -1; i >= 0; i--) {
		config_setting_t *g = config_setting_get_elem(ps, (unsigned)i);
		const char *v = NULL;

		if (!config_setting_lookup_string(g, "root", &v) ||
		    sbx_path_norm(v, l->project, l->home, 1, en, sizeof(en)) <
			    0 ||
		    strcmp(en, norm) != 0)
			continue;
		config_setting_remove_elem(ps, (unsigned)i);
		found = 1;
	}
	if (!found) {
		config_destroy(&c);
		return sbx_errf(err, 0,
				"'%s' is not in the per-project conf %s", norm,
				l->project_conf);
	}
	r = save_project_conf(l, &c, err);
	config_destroy(&c);
	return r;
}

/* ------------------------------------------------------------ overrides */

/* W-12: --allow-read notes.txt where notes.txt is a link (planted by an
 * earlier run) into a hidden root would lift the hide on the target
 * without the user ever naming it.  Refused, naming the target: the user
 * who means it writes the target itself. */
static int lifts_hide_via_link(struct sbx_policy *p, const char *v,
			       const char *flag, struct sbx_err *err)
{
	char lex[PATH_MAX], res[PATH_MAX];
	const struct sbx_path_rule *h;

	if (sbx_path_norm(v, p->project, p->home, 0, lex, sizeof(lex)) < 0 ||
	    sbx_path_norm(v, p->project, p->home, 1, res, sizeof(res)) < 0 ||
	    strcmp(lex, res) == 0)
		return 0;
	h = sbx_policy_match(p, res);
	if (!h || h->mode != SBX_HIDE || sbx_policy_match(p, lex) == h)
		return 0;
	return sbx_errf(err, 0,
			"%s %s: it leads through a symlink to '%s', inside "
			"the hidden '%s' (%s:%u); a command may have planted "
			"that link, so the hide is not lifted through it: to "
			"allow the target, name it: %s %s",
			flag, v, res, h->root, h->src.file, h->src.line, flag,
			res);
}

static int ov_path(struct sbx_policy *p, const char *v, enum sbx_pmode m,
		   struct sbx_err *err)
{
	struct sbx_src src = { m == SBX_RW   ? "--allow-write"
			       : m == SBX_RO ? "--allow-read"
					     : "--hide",
			       0 };

	size_t n = strlen(v);
	unsigned dir = m == SBX_RW && n > 1 && v[n - 1] == '/' ? SBX_RF_MKDIR
							       : 0;

	if (m != SBX_HIDE &&
	    (lifts_hide_via_link(p, v, src.file, err) < 0 ||
	     sbx_conf_check_flag_link(p->project, p->home, src.file, v, "",
				      err) < 0))
		return -1;
	return sbx_policy_add_path(p, v, m, SBX_RF_FLAG | dir, src, err);
}

static int ov_net(struct sbx_policy *p, const char *v, struct sbx_err *err)
{
	struct sbx_src src = { "--net", 0 };
	char *copy, *save = NULL;
	int r = 0;

	p->net_src.file = sbx_policy_intern(p, "--net");
	p->net_src.line = 0;
	if (strncmp(v, "allow:", 6) != 0) {
		if (sbx_parse_net(v, &p->net) < 0 || p->net == SBX_NET_FILTERED)
			return sbx_errf(err, 0,
					"--net takes off, loopback, on or "
					"allow:HOST[,HOST...], not '%s'",
					v);
		return 0;
	}
	p->net = SBX_NET_FILTERED;
	copy = strdup(v + 6);
	for (char *e = strtok_r(copy, ",", &save); e && r == 0;
	     e = strtok_r(NULL, ",", &save))
		r = sbx_policy_add_allow(p, e, src, err);
	free(copy);
	return r;
}

static int ov_timeout(struct sbx_policy *p, const char *v, struct sbx_err *err)
{
	char *end;
	unsigned long long t;

	errno = 0;
	t = strtoull(v, &end, 10);
	if (errno || end == v || *end || v[0] == '-')
		return sbx_errf(err, 0,
				"--timeout takes whole seconds, not '%s'", v);
	p->limits.timeout = t;
	return 0;
}

/* --caches on|off: redirect_caches for this run. */
static int ov_caches(struct sbx_policy *p, const char *v, struct sbx_err *err)
{
	if (strcmp(v, "on") && strcmp(v, "off"))
		return sbx_errf(err, 0, "--caches takes on or off, not '%s'",
				v);
	p->redirect_caches = !strcmp(v, "on");
	return 0;
}

int sbx_conf_override(struct sbx_policy *p, const char *ov, struct sbx_err *err)
{
	const char *eq = strchr(ov, '=');
	size_t n = eq ? (size_t)(eq - ov) : strlen(ov);
	const char *v = eq ? eq + 1 : "";

	if (!eq || !*v)
		return sbx_errf(err, 0, "override '%s' needs a value", ov);
	if (n == 10 && strncmp(ov, "allow-read", n) == 0)
		return ov_path(p, v, SBX_RO, err);
	if (n == 11 && strncmp(ov, "allow-write", n) == 0)
		return ov_path(p, v, SBX_RW, err);
	if (n == 4 && strncmp(ov, "hide", n) == 0)
		return ov_path(p, v, SBX_HIDE, err);
	if (n == 3 && strncmp(ov, "net", n) == 0)
		return ov_net(p, v, err);
	if (n == 7 && strncmp(ov, "timeout", n) == 0)
		return ov_timeout(p, v, err);
	if (n == 6 && strncmp(ov, "caches", n) == 0)
		return ov_caches(p, v, err);
	if (n == 8 && strncmp(ov, "env-keep", n) == 0)
		return sbx_strv_add(p, &p->env_keep, v,
				    (struct sbx_src){ "--env-keep", 0 });
	return sbx_errf(err, 0, "unknown override '%s'", ov);
}
