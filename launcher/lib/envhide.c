/*
 * envhide.c - secrets outside the places the profile names: credentials
 * that variables move (review W-21) and other accounts' (W-03).
 *
 * The hide list names secrets where tools keep them by default.  A
 * variable moves them: XDG_CONFIG_HOME=~/xdg puts gh's token in
 * ~/xdg/gh/hosts.yml, AWS_SHARED_CREDENTIALS_FILE=~/creds/aws the AWS
 * keys anywhere.  At launch, every hide rule under ~/.config,
 * ~/.local/share, ~/.cache and ~/.local/state is added again under the
 * directory its XDG variable names, and the file or directory each
 * credential variable names is hidden (the default profile drops those
 * variables, so the command does not even learn the place).
 *
 * A value that is "/", holds the home or the project, or lies inside the
 * project is skipped: hiding it would hide the work itself, and what is
 * in the project is the command's already.
 */
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

/* Credential variables: the place they name, or a file below it. */
static const struct {
	const char *var;
	const char *sub; /* NULL: the value itself */
	int list; /* 1: a ':'-separated list (KUBECONFIG); 2: a Kerberos
		   * name, TYPE:RESIDUAL */
} cred_vars[] = {
	{ "AWS_SHARED_CREDENTIALS_FILE", NULL, 0 },
	{ "AWS_CONFIG_FILE", NULL, 0 },
	{ "KUBECONFIG", NULL, 1 },
	{ "GNUPGHOME", NULL, 0 },
	{ "DOCKER_CONFIG", NULL, 0 },
	{ "CLOUDSDK_CONFIG", NULL, 0 },
	{ "GOOGLE_APPLICATION_CREDENTIALS", NULL, 0 },
	{ "AZURE_CONFIG_DIR", NULL, 0 },
	{ "GH_CONFIG_DIR", NULL, 0 },
	{ "NETRC", NULL, 0 },
	{ "PGPASSFILE", NULL, 0 },
	{ "VAULT_CONFIG_PATH", NULL, 0 },
	{ "NPM_CONFIG_USERCONFIG", NULL, 0 },
	{ "npm_config_userconfig", NULL, 0 },
	{ "TF_CLI_CONFIG_FILE", NULL, 0 },
	{ "BOTO_CONFIG", NULL, 0 },
	{ "RCLONE_CONFIG", NULL, 0 },
	{ "PASSWORD_STORE_DIR", NULL, 0 },
	{ "HF_TOKEN_PATH", NULL, 0 },
	{ "HF_HOME", "token", 0 },
	{ "CARGO_HOME", "credentials.toml", 0 },
	{ "CARGO_HOME", "credentials", 0 },
	{ "GRADLE_USER_HOME", "gradle.properties", 0 },
	{ "PULUMI_HOME", "credentials.json", 0 },
	/* Kerberos (N-31): "FILE:path", "DIR:path" or a path; KCM:,
	 * KEYRING: and MEMORY: caches are not files */
	{ "KRB5CCNAME", NULL, 2 },
	{ "KRB5_KTNAME", NULL, 2 },
	{ "KRB5_CLIENT_KTNAME", NULL, 2 },
};

/* XDG base directories and where they are under the home by default. */
static const struct {
	const char *var, *sub;
} xdg_dirs[] = {
	{ "XDG_CONFIG_HOME", ".config" },
	{ "XDG_DATA_HOME", ".local/share" },
	{ "XDG_CACHE_HOME", ".cache" },
	{ "XDG_STATE_HOME", ".local/state" },
};

/* A place worth hiding: not "/", not holding the home or the project,
 * not inside the project.  norm gets the normalised path. */
static int hideable(const struct sbx_policy *p, const char *val, char *norm,
		    size_t sz)
{
	char own[PATH_MAX];
	size_t n;

	if (!val || !*val ||
	    sbx_path_norm(val, p->project, p->home, 1, norm, sz) < 0)
		return 0;
	n = strlen(norm);
	/* the caches sbxrun points tools at (a nested run inherits the outer
	 * run's variables): sandbox-made, never the host's credentials */
	snprintf(own, sizeof own, "%s/.cache/sbxrun/build", p->home);
	if (sbx_path_within(norm, own, strlen(own)))
		return 0;
	return strcmp(norm, "/") != 0 && !sbx_path_within(p->home, norm, n) &&
	       !sbx_path_within(p->project, norm, n) &&
	       !sbx_path_within(norm, p->project, strlen(p->project));
}

static int hide(struct sbx_policy *p, const char *path, const char *var,
		struct sbx_err *err)
{
	char src[64];

	/* the variable, or the file the place came from */
	if (var[0] == '/')
		snprintf(src, sizeof src, "%s", var);
	else
		snprintf(src, sizeof src, "$%s", var);
	return sbx_policy_add_path(
		p, path, SBX_HIDE, 0,
		(struct sbx_src){ sbx_policy_intern(p, src), 0 }, err);
}

/* Every hide rule under ~/SUB (~ itself when SUB is "") again under dir. */
static int xdg_rehome(struct sbx_policy *p, const char *sub, const char *dir,
		      const char *var, struct sbx_err *err)
{
	char base[PATH_MAX], to[PATH_MAX];
	size_t bl, n = p->nrules;
	char **roots = calloc(n ? n : 1, sizeof *roots);
	size_t k = 0;
	int r = 0;

	if (!roots)
		return sbx_errf(err, 0, "out of memory");
	snprintf(base, sizeof base, "%s%s%s", p->home, *sub ? "/" : "", sub);
	bl = strlen(base);
	for (size_t i = 0; i < n; i++) {
		const struct sbx_path_rule *x = &p->rules[i];

		if (x->mode == SBX_HIDE && (x->flags & SBX_RF_HOMEREL) &&
		    x->rootlen > bl && sbx_path_within(x->root, base, bl))
			roots[k++] = strdup(x->root + bl);
	}
	for (size_t i = 0; i < k && r == 0; i++) {
		if (!roots[i])
			r = sbx_errf(err, 0, "out of memory");
		else if ((size_t)snprintf(to, sizeof to, "%s%s", dir,
					  roots[i]) < sizeof to)
			r = hide(p, to, var, err);
	}
	for (size_t i = 0; i < k; i++)
		free(roots[i]);
	free(roots);
	return r;
}

/* A Kerberos cache or keytab name's file: "FILE:/x", "WRFILE:/x",
 * "DIR:/x" or "/x"; NULL for the kinds that are no file (KCM:, KEYRING:,
 * MEMORY:, API:). */
static const char *krb5_file(const char *v)
{
	static const char *const kinds[] = { "FILE:", "WRFILE:", "DIR:" };

	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
		if (strncmp(v, kinds[k], strlen(kinds[k])) == 0)
			return v + strlen(kinds[k]);
	return strchr(v, ':') ? NULL : v;
}

static int cred_var(struct sbx_policy *p, size_t i, struct sbx_err *err)
{
	const char *v = getenv(cred_vars[i].var);
	char *copy, *tok, *save = NULL;
	char norm[PATH_MAX], path[PATH_MAX];
	int r = 0;

	if (!v || !*v || !(copy = strdup(v)))
		return v && *v ? sbx_errf(err, 0, "out of memory") : 0;
	for (tok = cred_vars[i].list == 1   ? strtok_r(copy, ":", &save)
		   : cred_vars[i].list == 2 ? (char *)krb5_file(copy)
					    : copy;
	     tok && r == 0;
	     tok = cred_vars[i].list == 1 ? strtok_r(NULL, ":", &save) : NULL) {
		if (cred_vars[i].sub)
			snprintf(path, sizeof path, "%s/%s", tok,
				 cred_vars[i].sub);
		else
			snprintf(path, sizeof path, "%s", tok);
		/* not in /tmp: full mode's /tmp is private (the host's is
		 * out of sight), and in landlock-only a hide there would
		 * take /tmp away (Landlock cannot hide in a writable tree);
		 * SECURITY.md declares it */
		if (hideable(p, path, norm, sizeof norm) &&
		    !sbx_path_within(norm, "/tmp", 4))
			r = hide(p, norm, cred_vars[i].var, err);
	}
	free(copy);
	return r;
}

/*
 * W-03: other accounts' secrets.  Their homes are read-only like the rest
 * of /, and their permissions are all that protects a world-readable
 * ~/.aws/credentials there.  Every ~ hide is added under the home of
 * root and of every account from uid 1000 (nobody's aside) whose home
 * is a directory that does not hold the project.  Read with fgetpwent:
 * sbxrun is static and loads no NSS module, so only /etc/passwd's
 * accounts are known.
 */
static const char *passwd_file = "/etc/passwd";

void sbx_env_hide_passwd(const char *path)
{
	passwd_file = path;
}

static int other_homes(struct sbx_policy *p, struct sbx_err *err)
{
	char norm[PATH_MAX];
	struct passwd *pw;
	struct stat st;
	FILE *fp = fopen(passwd_file, "re");
	int r = 0;

	while (fp && r == 0 && (pw = fgetpwent(fp))) {
		if ((pw->pw_uid != 0 && pw->pw_uid < 1000) ||
		    pw->pw_uid == 65534 || !pw->pw_dir ||
		    pw->pw_dir[0] != '/' ||
		    !hideable(p, pw->pw_dir, norm, sizeof norm) ||
		    (p->home_pw && strcmp(norm, p->home_pw) == 0) ||
		    stat(norm, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		r = xdg_rehome(p, "", norm, "/etc/passwd", err);
	}
	if (fp)
		fclose(fp);
	return r;
}

int sbx_env_hides(struct sbx_policy *p, struct sbx_err *err)
{
	char norm[PATH_MAX], def[PATH_MAX];

	for (size_t i = 0; i < sizeof xdg_dirs / sizeof xdg_dirs[0]; i++) {
		const char *v = getenv(xdg_dirs[i].var);

		snprintf(def, sizeof def, "%s/%s", p->home, xdg_dirs[i].sub);
		if (v && hideable(p, v, norm, sizeof norm) &&
		    strcmp(norm, def) != 0 &&
		    xdg_rehome(p, xdg_dirs[i].sub, norm, xdg_dirs[i].var, err) <
			    0)
			return -1;
	}
	for (size_t i = 0; i < sizeof cred_vars / sizeof cred_vars[0]; i++)
		if (cred_var(p, i, err) < 0)
			return -1;
	return other_homes(p, err);
}

const char *sbx_env_hide_var(size_t i)
{
	size_t nx = sizeof xdg_dirs / sizeof xdg_dirs[0];

	if (i < nx)
		return xdg_dirs[i].var;
	i -= nx;
	return i < sizeof cred_vars / sizeof cred_vars[0] ? cred_vars[i].var
							  : NULL;
}
