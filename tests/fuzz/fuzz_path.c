/*
 * fuzz_path.c - libFuzzer target for path normalisation.  The input is
 * split at its first NUL into path and base (a third part, after a second
 * NUL, is the home).  sbx_path_lex and sbx_path_norm (resolve 0 and 1)
 * must never crash, and what they return must be normalised: absolute, no
 * empty, "." or ".." components, no trailing slash, stable when
 * normalised again, and the same for the lexical and resolve=0 paths.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

static void check_normal(const char *s)
{
	size_t n = strlen(s);
	char again[PATH_MAX];

	if (s[0] != '/')
		abort();
	if (n > 1 && s[n - 1] == '/')
		abort();
	if (strstr(s, "//") || strstr(s, "/./") || strstr(s, "/../"))
		abort();
	if ((n >= 2 && strcmp(s + n - 2, "/.") == 0) ||
	    (n >= 3 && strcmp(s + n - 3, "/..") == 0))
		abort();
	if (sbx_path_lex(s, NULL, again, sizeof(again)) != 0 ||
	    strcmp(again, s) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 3);
	const char *path, *base, *home;
	char lex[PATH_MAX], norm[PATH_MAX], res[PATH_MAX], small[16];
	int rl, rn;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = buf[size + 1] = buf[size + 2] = '\0';
	path = buf;
	base = path + strlen(path) + 1;
	home = base + strlen(base) + 1;
	if (base > buf + size)
		base = "/fuzz/base";
	if (home > buf + size || home[0] != '/')
		home = "/fuzz/home";

	rl = sbx_path_lex(path, base, lex, sizeof(lex));
	if (rl == 0)
		check_normal(lex);
	else if (errno != EINVAL && errno != ENAMETOOLONG)
		abort();
	/* a tiny output buffer: refused or fits, never overflows */
	if (sbx_path_lex(path, base, small, sizeof(small)) == 0) {
		check_normal(small);
		if (rl != 0 || strcmp(small, lex) != 0)
			abort();
	}

	rn = sbx_path_norm(path, base, home, 0, norm, sizeof(norm));
	if (rn == 0) {
		check_normal(norm);
		/* without '~' the launcher and the shim agree */
		if (path[0] != '~' && rl == 0 && strcmp(lex, norm) != 0)
			abort();
	}
	if (sbx_path_norm(path, base, home, 1, res, sizeof(res)) == 0)
		check_normal(res);
	free(buf);
	return 0;
}
