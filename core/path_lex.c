/*
 * path_lex.c - lexical path normalisation.  No allocation and no system
 * calls: the shim runs this inside every process, on its hot path.
 */
#include <errno.h>
#include <string.h>

#include "policy.h"

/* Append component [s, s+n) to out (length *len), handling "." and "..".
 * ".." above "/" stays at "/", as the kernel does. */
static int push_component(char *out, size_t outsz, size_t *len, const char *s,
			  size_t n)
{
	if (n == 0 || (n == 1 && s[0] == '.'))
		return 0;
	if (n == 2 && s[0] == '.' && s[1] == '.') {
		while (*len > 1 && out[*len - 1] != '/')
			(*len)--;
		if (*len > 1)
			(*len)--; /* drop the slash too, unless root */
		out[*len] = '\0';
		return 0;
	}
	if (*len + (*len > 1) + n + 1 > outsz)
		return -1;
	if (*len > 1)
		out[(*len)++] = '/';
	memcpy(out + *len, s, n);
	*len += n;
	out[*len] = '\0';
	return 0;
}

static int push_all(char *out, size_t outsz, size_t *len, const char *p)
{
	while (*p) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (push_component(out, outsz, len, p, n) < 0)
			return -1;
		p += n;
		while (*p == '/')
			p++;
	}
	return 0;
}

int sbx_path_lex(const char *in, const char *base, char *out, size_t outsz)
{
	size_t len = 1;

	if (!in || !*in || outsz < 2) {
		errno = EINVAL;
		return -1;
	}
	out[0] = '/';
	out[1] = '\0';
	if (in[0] != '/') {
		if (!base || base[0] != '/') {
			errno = EINVAL;
			return -1;
		}
		if (push_all(out, outsz, &len, base) < 0)
			goto toolong;
	}
	if (push_all(out, outsz, &len, in) < 0)
		goto toolong;
	return 0;
toolong:
	errno = ENAMETOOLONG;
	return -1;
}

int sbx_path_within(const char *path, const char *root, size_t rootlen)
{
	if (rootlen == 1 && root[0] == '/')
		return path[0] == '/';
	if (strncmp(path, root, rootlen) != 0)
		return 0;
	return path[rootlen] == '\0' || path[rootlen] == '/';
}
