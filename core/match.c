/*
 * match.c - pattern matching shared by the engine and the shim: globs for
 * env and exec rules, file-name suffixes.  No allocation (glibc's fnmatch
 * may allocate in multibyte locales, and the shim calls this in vfork
 * children).
 */
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "match.h"

/* A bracket expression at p (just after '['): does c match?  *end gets the
 * position after ']'. */
static int bracket(const char *p, char c, const char **end)
{
	int neg = (*p == '!' || *p == '^'), hit = 0;

	if (neg)
		p++;
	if (!*p) { /* "[!" or "[^" ends the pattern: no set, no match */
		*end = p;
		return 0;
	}
	do {
		if (p[1] == '-' && p[2] && p[2] != ']') {
			hit |= (c >= p[0] && c <= p[2]);
			p += 3;
		} else {
			hit |= (c == *p);
			p++;
		}
	} while (*p && *p != ']');
	*end = *p ? p + 1 : p;
	return hit != neg;
}

int sbx_glob(const char *pat, const char *s)
{
	const char *star = NULL, *resume = NULL, *end;

	while (*s) {
		if (*pat == '*') {
			star = ++pat;
			resume = s;
		} else if (*pat == '?') {
			pat++;
			s++;
		} else if (*pat == '[' && pat[1] &&
			   bracket(pat + 1, *s, &end)) {
			pat = end;
			s++;
		} else if (*pat && *pat != '[' && *pat == *s) {
			pat++;
			s++;
		} else if (star) {
			pat = star;
			s = ++resume;
		} else {
			return 0;
		}
	}
	while (*pat == '*')
		pat++;
	return *pat == '\0';
}

const char *sbx_basename(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

int sbx_suffix_ok(const char *path, char *const *suffixes, size_t n)
{
	const char *b = sbx_basename(path);
	size_t bl = strlen(b);

	if (n == 0)
		return 1;
	for (size_t i = 0; i < n; i++) {
		size_t sl = strlen(suffixes[i]);

		if (sl <= bl && strcasecmp(b + bl - sl, suffixes[i]) == 0)
			return 1;
	}
	return 0;
}

/* The program pattern matches a path containing '/' against the full path,
 * otherwise the basename of both argv[0] and the resolved path. */
static int program_matches(const char *prog, const char *path,
			   const char *argv0)
{
	if (strchr(prog, '/'))
		return (path && sbx_glob(prog, path)) ||
		       (argv0 && sbx_glob(prog, argv0));
	return (path && sbx_glob(prog, sbx_basename(path))) ||
	       (argv0 && sbx_glob(prog, sbx_basename(argv0)));
}

int sbx_exec_match(const char *prog, const char *const *args, size_t nargs,
		   const char *path, char *const argv[])
{
	if (!program_matches(prog, path, argv ? argv[0] : NULL))
		return 0;
	for (size_t i = 0; i < nargs; i++) {
		int hit = 0;

		for (size_t j = 1; argv && argv[0] && argv[j] && !hit; j++)
			hit = sbx_glob(args[i], argv[j]);
		if (!hit)
			return 0;
	}
	return 1;
}
