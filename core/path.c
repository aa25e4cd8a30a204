/*
 * path.c - path normalisation with symlink resolution, for the launcher and
 * the query API (not the shim: it uses the lexical form only).
 *
 * Components are walked one by one: while the prefix exists, a symlink is
 * spliced in (at most SBX_MAXLINKS times, then ELOOP) and ".." goes to the
 * physical parent; from the first component that does not exist on, the
 * rest is kept lexically.  This is what the kernel would resolve if the
 * missing tail were created as plain directories.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "policy.h"

#define SBX_MAXLINKS 40

struct walk {
	char out[PATH_MAX]; /* resolved so far, absolute */
	size_t len;
	char todo[PATH_MAX * 2]; /* remaining components, '/'-separated */
	int exists; /* the prefix in out exists */
	int links;
};

/* dir "/" rest into buf (dir NULL: rest alone); a copy, not snprintf:
 * every rule of a profile comes through here (~800 instructions each). */
static int join(char *buf, size_t bufsz, const char *dir, const char *rest)
{
	size_t d = dir ? strlen(dir) : 0, r = strlen(rest);

	if (d + (dir != NULL) + r >= bufsz)
		return errno = ENAMETOOLONG, -1;
	if (dir) {
		memcpy(buf, dir, d);
		buf[d++] = '/';
	}
	memcpy(buf + d, rest, r + 1);
	return 0;
}

static int expand_input(const char *in, const char *base, const char *home,
			char *buf, size_t bufsz)
{
	if (in[0] == '~' && (in[1] == '/' || in[1] == '\0')) {
		if (!home || home[0] != '/')
			return errno = EINVAL, -1;
		return join(buf, bufsz, home, in + 1);
	}
	if (in[0] == '/')
		return join(buf, bufsz, NULL, in);
	if (!base || base[0] != '/')
		return errno = EINVAL, -1;
	return join(buf, bufsz, base, in);
}

static void go_parent(struct walk *w)
{
	while (w->len > 1 && w->out[w->len - 1] != '/')
		w->len--;
	if (w->len > 1)
		w->len--;
	w->out[w->len] = '\0';
}

/* Splice the target of the symlink at w->out + "/" + comp in front of the
 * remaining components. */
static int splice_link(struct walk *w, const char *rest)
{
	char target[PATH_MAX], next[PATH_MAX * 2];
	ssize_t n = readlink(w->out, target, sizeof(target) - 1);
	int m;

	if (n < 0)
		return -1;
	target[n] = '\0';
	if (++w->links > SBX_MAXLINKS)
		return errno = ELOOP, -1;
	go_parent(w);
	if (target[0] == '/') {
		w->len = 1;
		w->out[0] = '/';
		w->out[1] = '\0';
	}
	m = snprintf(next, sizeof(next), "%s%s%s", target, *rest ? "/" : "",
		     rest);
	if (m < 0 || (size_t)m >= sizeof(next))
		return errno = ENAMETOOLONG, -1;
	memcpy(w->todo, next, (size_t)m + 1);
	return 0;
}

static int append(struct walk *w, const char *c, size_t n)
{
	if (w->len + n + 2 > sizeof(w->out))
		return errno = ENAMETOOLONG, -1;
	if (w->len > 1)
		w->out[w->len++] = '/';
	memcpy(w->out + w->len, c, n);
	w->len += n;
	w->out[w->len] = '\0';
	return 0;
}

/* Take one component off w->todo and apply it. */
static int step(struct walk *w)
{
	char *p = w->todo, comp[NAME_MAX + 1], rest[PATH_MAX * 2];
	size_t n;
	struct stat st;

	while (*p == '/')
		p++;
	n = strcspn(p, "/");
	if (n > NAME_MAX)
		return errno = ENAMETOOLONG, -1;
	memcpy(comp, p, n);
	comp[n] = '\0';
	p += n;
	while (*p == '/')
		p++;
	memmove(rest, p, strlen(p) + 1);
	memcpy(w->todo, rest, strlen(rest) + 1);
	if (n == 0 || (n == 1 && comp[0] == '.'))
		return 0;
	if (n == 2 && comp[0] == '.' && comp[1] == '.') {
		go_parent(w);
		return 0;
	}
	if (append(w, comp, n) < 0)
		return -1;
	if (!w->exists || lstat(w->out, &st) < 0) {
		w->exists = 0;
		return 0;
	}
	if (S_ISLNK(st.st_mode))
		return splice_link(w, rest);
	return 0;
}

#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#define SBX_RESOLVE_NO_SYMLINKS 0x04

struct sbx_how { /* struct open_how */
	uint64_t flags, mode, resolve;
};

/* Does the absolute path have a "." or ".." component? */
static int has_dots(const char *abs)
{
	for (const char *p = abs + 1; *p; p++)
		if (p[0] == '.' && (p[-1] == '/') &&
		    (p[1] == '/' || p[1] == '\0' ||
		     (p[1] == '.' && (p[2] == '/' || p[2] == '\0'))))
			return 1;
	return 0;
}

/* A component longer than NAME_MAX, which the walk refuses even past a
 * missing one (the kernel would stop at the missing one first). */
static int long_name(const char *p)
{
	while (*p) {
		size_t n;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n > NAME_MAX)
			return 1;
		p += n;
	}
	return 0;
}

/*
 * The common case in one lookup: a path that exists and has no symlink
 * anywhere resolves to itself (with repeated slashes collapsed), which is
 * what the walk below would find with one lstat per component.  openat2
 * with RESOLVE_NO_SYMLINKS proves both at once, and a missing component
 * proves as much (below); on any other failure (a link, no openat2, no
 * search permission) the walk decides.  Only
 * for paths without "." or "..": the walk applies ".." after the links
 * before it, which a lexical pass would not.  Returns 0 with out filled,
 * or -1 to take the walk.
 */
static int norm_fast(const char *abs, char *out, size_t outsz)
{
	struct sbx_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = SBX_RESOLVE_NO_SYMLINKS,
	};
	int fd;

	if (has_dots(abs) || sbx_path_lex(abs, NULL, out, outsz) < 0 ||
	    long_name(out))
		return -1;
	/* missing or out of reach (EACCES: the walk's lstat fails there
	 * too, and keeps the rest lexically), no link on the way */
	if (sbx_dircache_absent(out))
		return 0;
	fd = (int)syscall(SYS_openat2, AT_FDCWD, out, &how, sizeof(how));
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	/* A missing component (a secret that is not there, the usual case
	 * for most of a profile's): the lookup went left to right and would
	 * have stopped with ELOOP at a link, so everything before it exists
	 * and is no link, and nothing after it exists to be one.  The walk
	 * would find the lexical path too. */
	return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
}

int sbx_path_norm(const char *in, const char *base, const char *home,
		  int resolve, char *out, size_t outsz)
{
	struct walk w;
	char buf[PATH_MAX * 2];
	int e = errno;

	if (!in || !*in)
		return errno = EINVAL, -1;
	if (expand_input(in, base, home, buf, sizeof(buf)) < 0)
		return -1;
	if (!resolve)
		return sbx_path_lex(buf, NULL, out, outsz);
	if (norm_fast(buf, out, outsz) == 0)
		return errno = e, 0;
	errno = e;
	w.len = 1;
	w.out[0] = '/';
	w.out[1] = '\0';
	w.exists = 1;
	w.links = 0;
	memcpy(w.todo, buf, strlen(buf) + 1);
	while (w.todo[0] != '\0')
		if (step(&w) < 0)
			return -1;
	if (w.len + 1 > outsz)
		return errno = ENAMETOOLONG, -1;
	memcpy(out, w.out, w.len + 1);
	return 0;
}

/* '/' below every other byte, '\0' below '/': see policy.h. */
static int tree_rank(unsigned char c)
{
	return c == '\0' ? 0 : c == '/' ? 1 : (int)c + 1;
}

int sbx_path_cmp(const char *a, const char *b)
{
	for (; *a == *b; a++, b++)
		if (!*a)
			return 0;
	return tree_rank((unsigned char)*a) < tree_rank((unsigned char)*b) ? -1
									   : 1;
}
