/*
 * selfcheck.c - nothing that decides a later run is writable inside this
 * one (THREATS CONF-02, CONF-04).
 *
 * A conf or profile file under a writable root (a trusted in-repo conf
 * naming "profile = \"tools/sbx.conf\"", a vendored profile directory) and
 * sbxrun's own binary, library or shim there (a vendored build, a copy
 * under a writable ~/.local) could be rewritten from inside: the next run
 * would be weaker, or no sandbox at all.  sbxrun then runs nothing.  The
 * question is the one decider's, over the run's compiled policy: a write
 * that the policy allows, or that only the shim would refuse (a static
 * program is not asked), counts as writable.  The trusted in-repo conf is
 * not on the list: trust binds its bytes, a change makes it untrusted.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "decide.h"
#include "selfcheck.h"

static int writable(const struct sbx_cpol *v, const char *path,
		    const struct sbx_cpol_rule **rule)
{
	struct sbx_path_decision d = sbx_decide(v, path, SBX_OP_WRITE, -1);

	*rule = d.rule;
	/* Full mode's /tmp is a private tmpfs: a host file under /tmp (a
	 * checkout in /tmp, CI's usual place) is not even visible inside. */
	if (d.rule && (d.rule->flags & SBX_RF_TMP) &&
	    v->hdr->kmode == SBX_KMODE_FULL)
		return 0;
	return d.verdict == SBX_ALLOW || d.app;
}

static int refuse(const struct sbx_cpol *v, const char *what, const char *path,
		  const struct sbx_cpol_rule *r, const char *fix,
		  struct sbx_err *err)
{
	char from[PATH_MAX + 64] = "";

	if (r)
		snprintf(from, sizeof(from), " (rule %s from %s:%u)",
			 sbx_cpol_str(v, r->root), sbx_cpol_str(v, r->src_file),
			 (unsigned)r->src_line);
	return sbx_errf(err, 0,
			"%s '%s' would be writable inside the sandbox%s: a "
			"command could rewrite it and weaken every later run; "
			"%s",
			what, path, from, fix);
}

static int check_file(const struct sbx_cpol *v, const char *what,
		      const char *path, const char *fix, struct sbx_err *err)
{
	char real[PATH_MAX];
	const struct sbx_cpol_rule *r;

	if (!path || !realpath(path, real))
		return 0; /* gone since: nothing to rewrite */
	if (!writable(v, real, &r))
		return 0;
	return refuse(v, what, real, r, fix, err);
}

/* sbxrun's own conf directory, read by the next run whether or not it
 * exists now (E-19: XDG_CONFIG_HOME inside the project).  Present, it
 * is a protected path (conf.c); refused when it is missing together with
 * its parent under a writable directory: a protected path whose parent
 * exists at launch is moved aside at exit if the run made it (plant.c),
 * one deeper is not watched and nothing holds it.  Exceptions below. */
static int contains(const char *dir, const char *path)
{
	size_t n = strlen(dir);

	return n == 1 || (strncmp(path, dir, n) == 0 &&
			  (path[n] == '\0' || path[n] == '/'));
}

static int check_dir(const struct sbx_cpol *v, const char *dir,
		     const char *home, struct sbx_err *err)
{
	static const char fix[] = "set XDG_CONFIG_HOME to a directory "
				  "outside the writable paths";
	char probe[PATH_MAX + 16], up[PATH_MAX];
	const struct sbx_cpol_rule *r;
	struct stat st;
	char *slash;

	if (!dir || !*dir)
		return 0;
	if (stat(dir, &st) == 0)
		return 0; /* present: a protected path (conf.c) */
	snprintf(up, sizeof(up), "%s", dir);
	if ((slash = strrchr(up, '/')) == NULL)
		return 0;
	*slash = '\0';
	if (up[0] && stat(up, &st) == 0)
		return 0; /* plant.c moves a planted one aside at exit */
	while ((slash = strrchr(up, '/')) != NULL && slash != up) {
		*slash = '\0';
		if (stat(up, &st) == 0)
			break;
	}
	snprintf(probe, sizeof(probe), "%s/%s", up, "sbxrun-probe");
	/* Not when the whole home is writable anyway (--unsafe-project on
	 * $HOME; a home under the host's /tmp in landlock-only, E-01): the
	 * user chose that, and ~/.bashrc is as writable.  Nor under the
	 * built-in /tmp: private in full mode. */
	if (writable(v, probe, &r) && !(r && (r->flags & SBX_RF_TMP)) &&
	    !(r && home && contains(sbx_cpol_str(v, r->root), home)))
		return refuse(v, "sbxrun's own conf directory (missing)", dir,
			      r, fix, err);
	return 0;
}

/* libsbx itself when it is a shared library, else the program it is
 * linked into (the static sbxrun). */
static const char *self_path(char *buf, size_t sz)
{
	Dl_info info;

	if (dladdr((void *)sbx_selfcheck, &info) && info.dli_fname &&
	    strchr(info.dli_fname, '/') && strstr(info.dli_fname, "libsbx"))
		return snprintf(buf, sz, "%s", info.dli_fname) < (int)sz ? buf
									 : NULL;
	return realpath("/proc/self/exe", buf) ? buf : NULL;
}

int sbx_selfcheck(const struct sbx_policy *loaded, const struct sbx_cpol *v,
		  const char *shim, const char *config_dir, struct sbx_err *err)
{
	static const char conf_fix[] =
		"keep conf and profile files outside the writable paths";
	static const char self_fix[] =
		"install sbxrun outside the writable paths (make install), "
		"or run a copy that lies outside them";
	char self[PATH_MAX];

	for (size_t i = 0; i < loaded->conf_files.n; i++)
		if (check_file(v, "the conf file", loaded->conf_files.v[i],
			       conf_fix, err) < 0)
			return -1;
	if (check_dir(v, config_dir, loaded->home, err) < 0)
		return -1;
	if (check_file(v, "sbxrun's own program", self_path(self, sizeof(self)),
		       self_fix, err) < 0 ||
	    check_file(v, "sbxrun's shim", shim, self_fix, err) < 0)
		return -1;
	return 0;
}
