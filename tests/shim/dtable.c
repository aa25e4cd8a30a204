/*
 * dtable - the decision table (tests/unit/decide_table.h) as real files,
 * so that tests/shim/decide.bats can ask every caller of the one decider
 * about every row: sbxrun --check, libsbx (sbx_check) and the shim in a
 * real sandbox run.
 *
 *   dtable setup BASE      write each scenario under BASE/<scenario>/:
 *                            profiles/<name>.conf  the first conf file of
 *                                                  the scenario (its rules
 *                                                  on the lines the table
 *                                                  gives them), the profile
 *                            xdg/sbxrun/config     the second file, if any
 *                                                  (the user's global conf)
 *                            profile, flags        the profile's name; the
 *                                                  overrides, one a line
 *                                                  ("allow-read=PATH": the
 *                                                  flag --allow-read PATH)
 *                            sbxt/...              /sbxt of the table, with
 *                                                  every row's path made
 *                                                  (file or directory)
 *                          and print the rows, one a line, tab-separated:
 *                            row scenario op path size want object
 *                          op: read | write | run; want: the verdict
 *                          (allowed, hidden, read-only, ...) the row has
 *                          once real (see real_want); object: file, dir
 *                          or host (a path outside /sbxt, not made).
 *   dtable check OP PATH PROFILE [OVERRIDE...]
 *                          libsbx's answer, loaded as sbxrun loads it (the
 *                          environment's HOME, XDG_CONFIG_HOME,
 *                          SBXRUN_PROFILE_DIR; the cwd is the project):
 *                            verdict US rule US source US reason
 *                          (US: the unit separator, \x1f: fields may be
 *                          empty)
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "explain.h"
#include "sbx.h"

#include "../unit/decide_table.h"

static void die(const char *what, const char *arg)
{
	fprintf(stderr, "dtable: %s: %s: %s\n", what, arg, strerror(errno));
	exit(2);
}

/* /sbxt/... -> BASE/<scenario>/sbxt/...; anything else as it is. */
static const char *map(const char *base, const struct scenario *s,
		       const char *p, char *out, size_t sz)
{
	if (strncmp(p, "/sbxt", 5) == 0 && (!p[5] || p[5] == '/'))
		snprintf(out, sz, "%s/%s%s", base, s->name, p);
	else
		snprintf(out, sz, "%s", p);
	return out;
}

static void mkdirs(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			die("mkdir", buf);
		*p = '/';
	}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		die("mkdir", buf);
}

static FILE *create(const char *path)
{
	char dir[PATH_MAX], *slash;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	*slash = '\0';
	mkdirs(dir);
	if (!(f = fopen(path, "w")))
		die("create", path);
	return f;
}

/* Is another row's path of the scenario below this one? Then it is a
 * directory. */
static int has_below(int s, const char *p)
{
	size_t n = strlen(p);

	for (size_t i = 0; i < DT_NROWS; i++)
		if ((int)rows[i].s == s && strncmp(rows[i].path, p, n) == 0 &&
		    (p[n - 1] == '/' || rows[i].path[n] == '/'))
			return 1;
	return 0;
}

/* One conf file: the scenario's rules from file, each on its line. */
static void write_conf(const char *base, const struct scenario *s,
		       const char *file, const char *path, int protect)
{
	FILE *f = create(path);
	char m[PATH_MAX];
	int line = 1, open = 0;

	for (const struct rspec *r = s->rules; r->root; r++) {
		if (strcmp(r->file, file) != 0)
			continue;
		for (; line < r->line; line++)
			fputs("# -\n", f);
		fprintf(f, "%s{ root = \"%s\"; mode = \"%s\";",
			open ? ", " : "paths = ( ",
			map(base, s, r->root, m, sizeof(m)), r->mode);
		for (int k = 0; k < 4 && r->sfx[k]; k++)
			fprintf(f, "%s\"%s\"%s", k ? ", " : " suffixes = [ ",
				r->sfx[k],
				k == 3 || !r->sfx[k + 1] ? " ];" : "");
		if (r->max)
			fprintf(f, " max_file_bytes = %llu;",
				(unsigned long long)r->max);
		fputs(" }\n", f);
		open = 1;
		line++;
	}
	if (open)
		fputs(");\n", f);
	for (size_t i = 0; protect && s->protect && s->protect[i]; i++)
		fprintf(f, "%s\"%s\"%s", i ? ", " : "protect = [ ",
			map(base, s, s->protect[i], m, sizeof(m)),
			s->protect[i + 1] ? "" : " ];\n");
	fclose(f);
}

/* The conf files of a scenario in order of first appearance: the first
 * is the profile, the second the user's global conf. */
static int conf_files(const struct scenario *s, const char *out[2])
{
	int n = 0;

	for (const struct rspec *r = s->rules; r->root; r++)
		if (!(n > 0 && !strcmp(out[0], r->file)) &&
		    !(n > 1 && !strcmp(out[1], r->file))) {
			if (n == 2)
				return -1;
			out[n++] = r->file;
		}
	return n;
}

static void file_of(const char *path, int64_t size, int exec)
{
	FILE *f;

	if (access(path, F_OK) == 0)
		return;
	f = create(path);
	if (exec)
		fputs("#!/bin/sh\nexit 0\n", f);
	fclose(f);
	if (exec && chmod(path, 0755) < 0)
		die("chmod", path);
	if (!exec && size > 0 && size < (1 << 20) && truncate(path, size) < 0)
		die("truncate", path);
}

/*
 * The verdict a row has on real files.  The table asks about paths that
 * do not exist, so a suffix rule applies to every write; once the path
 * is a directory the decider is told so (libsbx stats it, the shim
 * stats the object) and a directory has no suffix.
 */
static const char *real_want(const struct row *w, int dir)
{
	if (w->want == SBX_DENY_SUFFIX && dir)
		return "allowed";
	return w->want == SBX_ALLOW ? "allowed" : sbx_verdict_kind(w->want);
}

static void setup_scenario(const char *base, int si)
{
	const struct scenario *s = &scen[si];
	const char *files[2];
	char path[PATH_MAX], m[PATH_MAX];
	FILE *f;
	int n = conf_files(s, files);

	if (n < 1)
		die("scenario has no conf file", s->name);
	snprintf(path, sizeof(path), "%s/%s/profiles/%.*s.conf", base, s->name,
		 (int)(strlen(files[0]) - 5), files[0]);
	write_conf(base, s, files[0], path, 1);
	if (n > 1) {
		snprintf(path, sizeof(path), "%s/%s/xdg/sbxrun/config", base,
			 s->name);
		write_conf(base, s, files[1], path, 0);
	}
	snprintf(path, sizeof(path), "%s/%s/profile", base, s->name);
	f = create(path);
	fprintf(f, "%.*s\n", (int)(strlen(files[0]) - 5), files[0]);
	fclose(f);
	snprintf(path, sizeof(path), "%s/%s/flags", base, s->name);
	f = create(path);
	for (size_t i = 0; s->overrides && s->overrides[i]; i++) {
		const char *eq = strchr(s->overrides[i], '=');

		fprintf(f, "%.*s=%s\n", (int)(eq - s->overrides[i]),
			s->overrides[i], map(base, s, eq + 1, m, sizeof(m)));
	}
	fclose(f);
	mkdirs(map(base, s, PROJ, m, sizeof(m)));
	mkdirs(map(base, s, HOME, m, sizeof(m)));
}

static int setup(const char *base)
{
	char m[PATH_MAX];

	for (int s = 0; s < NSCEN; s++)
		setup_scenario(base, s);
	/* directories first, so that a file never takes a directory's place */
	for (size_t i = 0; i < DT_NROWS; i++)
		if (has_below(rows[i].s, rows[i].path) &&
		    !strncmp(rows[i].path, "/sbxt", 5))
			mkdirs(map(base, &scen[rows[i].s], rows[i].path, m,
				   sizeof(m)));
	for (size_t i = 0; i < DT_NROWS; i++) {
		const struct row *w = &rows[i];
		int dir = has_below(w->s, w->path), host;

		map(base, &scen[w->s], w->path, m, sizeof(m));
		host = strcmp(m, w->path) == 0;
		if (!host && !dir)
			file_of(m, w->size, w->op == SBX_OP_EXEC);
		if (!host && dir)
			mkdirs(m);
		printf("%zu\t%s\t%s\t%s\t%lld\t%s\t%s\n", i, scen[w->s].name,
		       sbx_op_word(w->op), m, (long long)w->size,
		       real_want(w, !host && dir),
		       host  ? "host"
		       : dir ? "dir"
			     : "file");
	}
	return 0;
}

static int check(int argc, char **argv)
{
	struct sbx_opts o = { 0 };
	struct sbx_answer a;
	char err[1200];
	enum sbx_access acc;
	sbx_t *s;
	int rc;

	if (argc < 5)
		return 2;
	acc = !strcmp(argv[2], "write") ? SBX_ACCESS_WRITE
	      : !strcmp(argv[2], "run") ? SBX_ACCESS_EXEC
					: SBX_ACCESS_READ;
	o.profile = argv[4];
	o.overrides = (const char *const *)(argv + 5);
	if (sbx_open(&s, &o, err, sizeof(err)) != SBX_OK) {
		fprintf(stderr, "dtable: %s\n", err);
		return 2;
	}
	rc = sbx_check(s, argv[3], acc, -1, &a);
	if (rc == SBX_OK)
		printf("%s\x1f%s\x1f%s\x1f%s\n", a.verdict, a.rule, a.source,
		       a.reason);
	sbx_close(s);
	return rc == SBX_OK ? 0 : 2;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "setup"))
		return setup(argv[2]);
	if (argc >= 2 && !strcmp(argv[1], "check"))
		return check(argc, argv);
	fprintf(stderr, "usage: dtable setup BASE | dtable check OP PATH "
			"PROFILE [OVERRIDE...]\n");
	return 2;
}
