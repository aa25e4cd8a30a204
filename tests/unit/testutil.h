/*
 * testutil.h - small helpers shared by the cmocka unit tests: where the
 * source tree is, scratch directories, writing files, and a compiled
 * policy that lives in an 8-aligned buffer.  Header-only (static inline)
 * so every test stays one .c file for the makefile.
 */
#ifndef SBX_TESTUTIL_H
#define SBX_TESTUTIL_H

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The source tree: $SBX_TOP (set by make), else found from the test
 * binary (build/tests/test_x -> ../..), else the current directory. */
static inline const char *tu_top(void)
{
	static char top[PATH_MAX];
	char exe[PATH_MAX], probe[PATH_MAX + 32];
	const char *env = getenv("SBX_TOP");
	ssize_t n;

	if (top[0])
		return top;
	if (env && *env) {
		snprintf(top, sizeof(top), "%s", env);
		return top;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		/* strip the file name and walk up until profiles/ appears */
		for (int up = 0; up < 5; up++) {
			char *s = strrchr(exe, '/');

			if (!s || s == exe)
				break;
			*s = '\0';
			snprintf(probe, sizeof(probe),
				 "%s/profiles/default.conf", exe);
			if (access(probe, R_OK) == 0) {
				snprintf(top, sizeof(top), "%s", exe);
				return top;
			}
		}
	}
	snprintf(top, sizeof(top), ".");
	return top;
}

static inline const char *tu_profile(const char *name)
{
	static char path[4][PATH_MAX + 64];
	static int slot;
	char *p = path[slot++ & 3];

	snprintf(p, PATH_MAX + 64, "%s/profiles/%s.conf", tu_top(), name);
	return p;
}

static inline const char *tu_profile_dir(void)
{
	static char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/profiles", tu_top());
	return path;
}

/* mkdtemp under /tmp; the realpath goes into out. */
static inline int tu_tmpdir(const char *tag, char *out, size_t outsz)
{
	char tmpl[128], real[PATH_MAX];

	snprintf(tmpl, sizeof(tmpl), "/tmp/sbx-test-%s-XXXXXX", tag);
	if (!mkdtemp(tmpl) || !realpath(tmpl, real))
		return -1;
	snprintf(out, outsz, "%s", real);
	return 0;
}

/* rm -rf, only of our own scratch directories. */
static inline int tu_rmrf(const char *dir)
{
	char cmd[PATH_MAX + 32];

	if (strncmp(dir, "/tmp/sbx-test-", 14) != 0 || strchr(dir, '\''))
		return -1;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static inline int tu_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* mkdir -p of the directory part of path, then write. */
static inline int tu_write_p(const char *path, const char *text)
{
	char dir[PATH_MAX];
	char *s;

	snprintf(dir, sizeof(dir), "%s", path);
	s = strrchr(dir, '/');
	if (s && s != dir) {
		*s = '\0';
		for (char *c = dir + 1; *c; c++) {
			if (*c != '/')
				continue;
			*c = '\0';
			if (mkdir(dir, 0755) < 0 && errno != EEXIST)
				return -1;
			*c = '/';
		}
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return -1;
	}
	return tu_write(path, text);
}

#endif
