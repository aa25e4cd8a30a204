/*
 * envfix.c - putting the shim's variables back into an exec's
 * environment (DESIGN 8: programs wipe environments, `env -i`,
 * `subprocess(env={})`), so the shim and its policy reach grandchildren.
 *
 * Only variables captured at init are put back, with the values captured
 * then; a variable the program set to something else is left alone,
 * except LD_PRELOAD, which gets our entry prepended when it lacks it.
 * The caller provides the memory (SHIM_ENV_FIX allocas it), the given
 * array is never written, and nothing here allocates or locks: the exec
 * wrappers run this in vfork children.
 */
#include <string.h>

#include "shim.h"

static int is_our_entry(const char *s, size_t n)
{
	static const char me[] = "libsbxshim";
	const char *base = s;

	for (size_t i = 0; i < n; i++)
		if (s[i] == '/')
			base = s + i + 1;
	return (size_t)(s + n - base) >= sizeof(me) - 1 &&
	       memcmp(base, me, sizeof(me) - 1) == 0;
}

int shim_preload_find(const char *v, const char **start, size_t *len)
{
	while (*v) {
		size_t n = strcspn(v, ": ");

		if (n && is_our_entry(v, n)) {
			*start = v;
			*len = n;
			return 0;
		}
		v += n;
		v += strspn(v, ": ");
	}
	return -1;
}

/* Which captured variable is this "NAME=value" entry, or -1. */
static int which_var(const char *e)
{
	if (e[0] != 'L' && e[0] != 'S')
		return -1;
	for (int i = 0; i < SHIM_NVARS; i++) {
		const struct shim_var_copy *c = &shim_g.var[i];

		if (c->present && strncmp(e, c->name, c->namelen) == 0 &&
		    e[c->namelen] == '=')
			return i;
	}
	return -1;
}

unsigned shim_env_missing(char *const envp[], size_t *n, size_t *ldlen)
{
	unsigned have = 0, miss = 0;
	const char *ld = NULL, *s;
	size_t count = 0, sl;

	for (; envp && envp[count] && count < SHIM_ENV_MAX; count++) {
		int v = which_var(envp[count]);

		if (v >= 0 && !(have & (1u << v))) {
			have |= 1u << v;
			if (v == SHIM_VAR_PRELOAD)
				ld = envp[count] + sizeof("LD_PRELOAD=") - 1;
		}
	}
	*n = count;
	for (int i = 0; i < SHIM_NVARS; i++)
		if (shim_g.var[i].present && !(have & (1u << i)))
			miss |= 1u << i;
	if (ld && shim_g.preload_entry && shim_preload_find(ld, &s, &sl) < 0) {
		miss |= SHIM_LD_MERGE;
		*ldlen = sizeof("LD_PRELOAD=") + strlen(shim_g.preload_entry) +
			 1 + strlen(ld);
	}
	return miss;
}

/* "LD_PRELOAD=<ours>:<theirs>" into ld. */
static char *merge_preload(char *ld, const char *theirs)
{
	size_t ml = strlen(shim_g.preload_entry), tl = strlen(theirs);
	char *p = ld;

	memcpy(p, "LD_PRELOAD=", sizeof("LD_PRELOAD=") - 1);
	p += sizeof("LD_PRELOAD=") - 1;
	memcpy(p, shim_g.preload_entry, ml);
	p += ml;
	if (tl)
		*p++ = ':';
	memcpy(p, theirs, tl + 1);
	return ld;
}

char **shim_env_fill(char *const envp[], char **out, unsigned miss, char *ld)
{
	size_t k = 0;
	int merged = 0;

	for (size_t i = 0; envp && envp[i]; i++) {
		if ((miss & SHIM_LD_MERGE) && !merged &&
		    which_var(envp[i]) == SHIM_VAR_PRELOAD) {
			out[k++] = merge_preload(
				ld, envp[i] + sizeof("LD_PRELOAD=") - 1);
			merged = 1;
			continue;
		}
		out[k++] = envp[i];
	}
	for (int v = 0; v < SHIM_NVARS; v++)
		if (miss & (1u << v))
			out[k++] = shim_g.var[v].text;
	out[k] = NULL;
	return out;
}
