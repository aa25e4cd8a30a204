/*
 * test_path.c - path normalisation: sbx_path_lex (lexical, the shim's) and
 * sbx_path_norm (with '~', a base, and symlink resolution of the existing
 * prefix), plus sbx_path_within.
 *
 * The lexical cases are a table run through both functions, so the shim
 * and the launcher agree on every row.  The symlink cases use a fixture
 * tree created in a mkdtemp directory and removed afterwards.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy.h"

/* ------------------------------------------------------------ tables */

/* in, base, expected (NULL: error with errno err) */
struct lexcase {
	const char *in;
	const char *base;
	const char *want;
	int err;
};

static const struct lexcase lex_cases[] = {
	/* plain and repeated slashes */
	{ "/", NULL, "/", 0 },
	{ "//", NULL, "/", 0 },
	{ "///a//b///", NULL, "/a/b", 0 },
	{ "/a/b/", NULL, "/a/b", 0 },
	/* "." */
	{ "/a/./b", NULL, "/a/b", 0 },
	{ "/./././a", NULL, "/a", 0 },
	{ "/a/.", NULL, "/a", 0 },
	{ "/.", NULL, "/", 0 },
	/* ".." including above "/" (stays at "/", as the kernel does) */
	{ "/a/b/..", NULL, "/a", 0 },
	{ "/a/b/../..", NULL, "/", 0 },
	{ "/a/b/../../..", NULL, "/", 0 },
	{ "/..", NULL, "/", 0 },
	{ "/../../x", NULL, "/x", 0 },
	{ "/a/../b/../c", NULL, "/c", 0 },
	{ "/a/b/../../../../etc/passwd", NULL, "/etc/passwd", 0 },
	/* names that only look like dots */
	{ "/a/...", NULL, "/a/...", 0 },
	{ "/a/..b", NULL, "/a/..b", 0 },
	{ "/a/.b", NULL, "/a/.b", 0 },
	{ "/a/b..", NULL, "/a/b..", 0 },
	/* relative to base */
	{ "x/y", "/base", "/base/x/y", 0 },
	{ ".", "/base/dir", "/base/dir", 0 },
	{ "..", "/base/dir", "/base", 0 },
	{ "../../../..", "/base/dir", "/", 0 },
	{ "a/../../b", "/base/dir", "/base/b", 0 },
	{ "x", "/", "/x", 0 },
	{ "x", "//b//c/", "/b/c/x", 0 },
	{ "x", "/b/../c", "/c/x", 0 }, /* the base is normalised too */
	{ "/abs", "/ignored", "/abs", 0 },
	/* errors */
	{ "", "/b", NULL, EINVAL },
	{ "rel", NULL, NULL, EINVAL },
	{ "rel", "relbase", NULL, EINVAL },
	/* bytes that need no escaping: kept verbatim */
	{ "/a b/c  d ", NULL, "/a b/c  d ", 0 },
	{ "/it's/\"quoted\"", NULL, "/it's/\"quoted\"", 0 },
	{ "/new\nline/x", NULL, "/new\nline/x", 0 },
	{ "/tab\there", NULL, "/tab\there", 0 },
	{ "/back\\slash", NULL, "/back\\slash", 0 },
	{ "/\xff\xfe/\xc3\x28/\x80", NULL, "/\xff\xfe/\xc3\x28/\x80", 0 },
	{ "/a/\xe2\x80\xae/..", NULL, "/a", 0 },
	{ "/*?[x]", NULL, "/*?[x]", 0 },
	{ "/a/~", NULL, "/a/~", 0 },
	{ "/-rf", NULL, "/-rf", 0 },
};

static void test_lex_table(void **state)
{
	char out[PATH_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(lex_cases) / sizeof(lex_cases[0]); i++) {
		const struct lexcase *c = &lex_cases[i];
		int r;

		errno = 0;
		r = sbx_path_lex(c->in, c->base, out, sizeof(out));
		if (c->want) {
			if (r != 0 || strcmp(out, c->want) != 0)
				fail_msg("row %zu: lex('%s', '%s') = %d '%s', "
					 "want '%s'",
					 i, c->in, c->base ? c->base : "(null)",
					 r, r == 0 ? out : "", c->want);
		} else if (r != -1 || errno != c->err) {
			fail_msg("row %zu: lex('%s') = %d errno %d, want -1 "
				 "errno %d",
				 i, c->in, r, errno, c->err);
		}
	}
}

/* The same table through sbx_path_norm with resolve = 0: the launcher and
 * the shim must agree on every lexical row. */
static void test_norm_lexical_agrees(void **state)
{
	char out[PATH_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(lex_cases) / sizeof(lex_cases[0]); i++) {
		const struct lexcase *c = &lex_cases[i];
		int r;

		errno = 0;
		r = sbx_path_norm(c->in, c->base, "/home/u", 0, out,
				  sizeof(out));
		if (c->want) {
			if (r != 0 || strcmp(out, c->want) != 0)
				fail_msg("row %zu: norm('%s') = %d '%s', want "
					 "'%s'",
					 i, c->in, r, r == 0 ? out : "",
					 c->want);
		} else if (r != -1 || errno != c->err) {
			fail_msg("row %zu: norm('%s') = %d errno %d, want "
				 "errno %d",
				 i, c->in, r, errno, c->err);
		}
	}
}

static void test_null_input(void **state)
{
	char out[64];

	(void)state;
	errno = 0;
	assert_int_equal(sbx_path_lex(NULL, "/", out, sizeof(out)), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(sbx_path_norm(NULL, "/", "/h", 0, out, sizeof(out)),
			 -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(sbx_path_norm("", "/", "/h", 1, out, sizeof(out)), -1);
	assert_int_equal(errno, EINVAL);
	/* an output buffer that cannot even hold "/" */
	errno = 0;
	assert_int_equal(sbx_path_lex("/", NULL, out, 1), -1);
	assert_int_equal(errno, EINVAL);
}

/* ------------------------------------------------------------ tilde */

struct tcase {
	const char *in;
	const char *home;
	const char *want; /* NULL: EINVAL */
};

static const struct tcase tilde_cases[] = {
	{ "~", "/home/u", "/home/u" },
	{ "~/", "/home/u", "/home/u" },
	{ "~/x/y", "/home/u", "/home/u/x/y" },
	{ "~//x", "/home/u", "/home/u/x" },
	{ "~/..", "/home/u", "/home" },
	{ "~/../../../..", "/home/u", "/" },
	{ "~", "/home/u/", "/home/u" },
	{ "~", "/", "/" },
	{ "~/.ssh", "//home//u", "/home/u/.ssh" },
	/* "~user" is not expanded: it is a relative name under the base */
	{ "~user/x", "/home/u", "/base/~user/x" },
	{ "~~", "/home/u", "/base/~~" },
	{ "x/~", "/home/u", "/base/x/~" },
	/* no usable home */
	{ "~", NULL, NULL },
	{ "~/x", "", NULL },
	{ "~/x", "relative/home", NULL },
};

static void test_tilde(void **state)
{
	char out[PATH_MAX];

	(void)state;
	for (int resolve = 0; resolve <= 1; resolve++) {
		for (size_t i = 0;
		     i < sizeof(tilde_cases) / sizeof(tilde_cases[0]); i++) {
			const struct tcase *c = &tilde_cases[i];
			int r;

			/* with resolve=1 the fixture paths don't exist, so
			 * the result is lexical there too (unless "/home"
			 * or "/" are symlinks, which we don't assume away:
			 * only "/" rows are compared then). */
			if (resolve && c->want && strcmp(c->want, "/") != 0)
				continue;
			errno = 0;
			r = sbx_path_norm(c->in, "/base", c->home, resolve, out,
					  sizeof(out));
			if (c->want) {
				if (r != 0 || strcmp(out, c->want) != 0)
					fail_msg(
						"row %zu resolve %d: '%s' home "
						"'%s' -> %d '%s', want '%s'",
						i, resolve, c->in,
						c->home ? c->home : "(null)", r,
						r == 0 ? out : "", c->want);
			} else if (r != -1 || errno != EINVAL) {
				fail_msg(
					"row %zu: '%s' without a home: %d errno "
					"%d, want EINVAL",
					i, c->in, r, errno);
			}
		}
	}
}

/* ------------------------------------------------------------ lengths */

static char *repeat(const char *unit, size_t times, const char *prefix)
{
	size_t ul = strlen(unit), pl = strlen(prefix);
	char *s = malloc(pl + ul * times + 1);

	assert_non_null(s);
	memcpy(s, prefix, pl);
	for (size_t i = 0; i < times; i++)
		memcpy(s + pl + i * ul, unit, ul);
	s[pl + ul * times] = '\0';
	return s;
}

static void test_lex_outsz_boundary(void **state)
{
	char out[8];

	(void)state;
	/* "/abc" needs 5 bytes with the NUL */
	assert_int_equal(sbx_path_lex("/abc", NULL, out, 5), 0);
	assert_string_equal(out, "/abc");
	errno = 0;
	assert_int_equal(sbx_path_lex("/abc", NULL, out, 4), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	/* "/a/b" needs 5: the separator counts */
	assert_int_equal(sbx_path_lex("/a/b", NULL, out, 5), 0);
	assert_string_equal(out, "/a/b");
	errno = 0;
	assert_int_equal(sbx_path_lex("/a/bc", NULL, out, 5), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	/* the base counts too */
	errno = 0;
	assert_int_equal(sbx_path_lex("c", "/abcdef", out, sizeof(out)), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	/* sbx_path_norm with a short output buffer */
	errno = 0;
	assert_int_equal(sbx_path_norm("/abcdefgh", NULL, NULL, 0, out,
				       sizeof(out)),
			 -1);
	assert_int_equal(errno, ENAMETOOLONG);
	errno = 0;
	assert_int_equal(sbx_path_norm("/proc/self/../self/abcdefgh", NULL,
				       NULL, 1, out, sizeof(out)),
			 -1);
	assert_int_equal(errno, ENAMETOOLONG);
}

static void test_long_paths(void **state)
{
	char *out = malloc(PATH_MAX * 4);
	char *s;

	(void)state;
	assert_non_null(out);
	/* Longer than PATH_MAX after normalisation: refused by both. */
	s = repeat("/abcdefghi", PATH_MAX / 10 + 10, "");
	errno = 0;
	assert_int_equal(sbx_path_lex(s, NULL, out, PATH_MAX), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	errno = 0;
	assert_int_equal(sbx_path_norm(s, NULL, NULL, 0, out, PATH_MAX), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	errno = 0;
	assert_int_equal(sbx_path_norm(s, NULL, NULL, 1, out, PATH_MAX), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	free(s);

	/* A long input that normalises to something short is fine for the
	 * lexical code (it has no input limit) ... */
	s = repeat("/a/..", 5000, "");
	assert_int_equal(sbx_path_lex(s, NULL, out, PATH_MAX), 0);
	assert_string_equal(out, "/");
	/* ... while sbx_path_norm bounds its input at 2 * PATH_MAX. */
	errno = 0;
	assert_int_equal(sbx_path_norm(s, NULL, NULL, 0, out, PATH_MAX), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	free(s);
	s = repeat("/a/..", 1000, ""); /* 5000 bytes < 2 * PATH_MAX */
	assert_int_equal(sbx_path_norm(s, NULL, NULL, 1, out, PATH_MAX), 0);
	assert_string_equal(out, "/");
	free(s);

	/* One component longer than NAME_MAX: resolve mode refuses it even
	 * where it does not exist. */
	s = repeat("x", NAME_MAX + 1, "/nonexistent-sbx-dir/");
	errno = 0;
	assert_int_equal(sbx_path_norm(s, NULL, NULL, 1, out, PATH_MAX), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	free(s);
	s = repeat("x", NAME_MAX, "/nonexistent-sbx-dir/");
	assert_int_equal(sbx_path_norm(s, NULL, NULL, 1, out, PATH_MAX), 0);
	assert_int_equal(strlen(out),
			 strlen("/nonexistent-sbx-dir/") + NAME_MAX);
	free(s);

	/* A huge home or base makes the input too long. */
	s = repeat("h", 2 * PATH_MAX, "/");
	errno = 0;
	assert_int_equal(sbx_path_norm("~/x", NULL, s, 0, out, PATH_MAX), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	errno = 0;
	assert_int_equal(sbx_path_norm("x", s, NULL, 1, out, PATH_MAX), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	free(s);
	free(out);
}

/* ------------------------------------------------------------ within */

static void test_within(void **state)
{
	static const struct {
		const char *path, *root;
		int want;
	} rows[] = {
		{ "/a/b", "/a", 1 },
		{ "/a", "/a", 1 },
		{ "/ab", "/a", 0 },
		{ "/a-b/c", "/a", 0 },
		{ "/a", "/a/b", 0 },
		{ "/", "/", 1 },
		{ "/anything/at/all", "/", 1 },
		{ "/home/u/.ssh", "/home/u/.ssh", 1 },
		{ "/home/u/.sshx", "/home/u/.ssh", 0 },
		{ "/home/u/.ssh/id", "/home/u/.ssh", 1 },
		{ "relative", "/", 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (sbx_path_within(rows[i].path, rows[i].root,
				    strlen(rows[i].root)) != rows[i].want)
			fail_msg("row %zu: within('%s', '%s') != %d", i,
				 rows[i].path, rows[i].root, rows[i].want);
}

/* ------------------------------------------------------------ symlinks */

static char fx[PATH_MAX]; /* realpath of the fixture dir */

static void mk(const char *rel, int dir)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", fx, rel);
	if (dir) {
		assert_int_equal(mkdir(p, 0755), 0);
		return;
	}
	f = fopen(p, "w");
	assert_non_null(f);
	fputs("x\n", f);
	fclose(f);
}

static void ln(const char *target, const char *rel)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", fx, rel);
	if (symlink(target, p) != 0)
		fail_msg("symlink %s -> %s: %s", p, target, strerror(errno));
}

static int setup_tree(void **state)
{
	char tmpl[] = "/tmp/sbx-test-path-XXXXXX", abs[PATH_MAX];

	(void)state;
	if (!mkdtemp(tmpl) || !realpath(tmpl, fx))
		return -1;
	mk("a", 1);
	mk("a/b", 1);
	mk("a/file", 0);
	mk("other", 1);
	mk("other/deep", 1);
	mk("sp ace", 1);
	mk("new\nline", 1);
	mk("\xff\xfe", 1);
	snprintf(abs, sizeof(abs), "%s/a", fx);
	ln(abs, "link_abs"); /* -> FX/a */
	ln("a/b", "link_rel"); /* -> FX/a/b */
	ln("..", "a/b/up"); /* -> FX/a */
	snprintf(abs, sizeof(abs), "%s/other/deep", fx);
	ln(abs, "a/b/jump"); /* -> FX/other/deep */
	ln("/", "rootlink");
	ln("loop2", "loop1");
	ln("loop1", "loop2");
	ln("self", "self");
	ln("nonexistent/x", "dangling");
	ln("link_rel", "chain2"); /* two hops */
	ln("sp ace", "to_space");
	ln("new\nline", "to_newline");
	ln("\xff\xfe", "to_bytes");
	/* a chain of 40 links (the kernel's limit) and one of 41 */
	for (int n = 1; n <= 41; n++) {
		char name[32], target[32];

		snprintf(name, sizeof(name), "c%d", n);
		if (n == 41)
			snprintf(target, sizeof(target), "a");
		else
			snprintf(target, sizeof(target), "c%d", n + 1);
		ln(target, name);
	}
	return 0;
}

static int teardown_tree(void **state)
{
	char cmd[PATH_MAX + 32];

	(void)state;
	if (strncmp(fx, "/tmp/sbx-test-path-", 19) != 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx);
	return system(cmd) == 0 ? 0 : -1;
}

/* rel under the fixture, expected result relative to the fixture (a
 * leading '/' means an absolute expectation), or NULL with errno. */
struct rcase {
	const char *in;
	const char *want;
	int err;
};

static const struct rcase resolve_cases[] = {
	{ "a/b", "a/b", 0 },
	{ "link_abs", "a", 0 },
	{ "link_abs/b", "a/b", 0 },
	{ "link_rel", "a/b", 0 },
	{ "chain2/x/y", "a/b/x/y", 0 },
	/* the existing prefix resolves, the missing tail stays lexical */
	{ "link_rel/new/tail", "a/b/new/tail", 0 },
	{ "link_rel/new/../tail", "a/b/tail", 0 },
	{ "link_abs/missing/../../x", "x", 0 },
	/* ".." after a symlink goes to the physical parent */
	{ "a/b/jump/..", "other", 0 },
	{ "a/b/jump/../z", "other/z", 0 },
	{ "link_rel/..", "a", 0 },
	{ "a/b/up/file", "a/file", 0 },
	{ "a/b/up/b/up/b", "a/b", 0 },
	/* a dangling link: the target is spliced in and kept lexically */
	{ "dangling", "nonexistent/x", 0 },
	{ "dangling/more/..", "nonexistent/x", 0 },
	/* a file used as a directory is "does not exist" from there */
	{ "a/file/x", "a/file/x", 0 },
	{ "rootlink", "/", 0 },
	{ "rootlink/..", "/", 0 },
	/* special bytes, both in link names and targets */
	{ "sp ace", "sp ace", 0 },
	{ "to_space/f", "sp ace/f", 0 },
	{ "to_newline/f", "new\nline/f", 0 },
	{ "to_bytes/f", "\xff\xfe/f", 0 },
	/* 40 links resolve, 41 are a loop */
	{ "c2", "a", 0 },
	{ "c1", NULL, ELOOP },
	{ "loop1", NULL, ELOOP },
	{ "loop2/x/y", NULL, ELOOP },
	{ "self", NULL, ELOOP },
	{ "a/../self/..", NULL, ELOOP },
};

static void test_resolve_table(void **state)
{
	char in[PATH_MAX], want[PATH_MAX], out[PATH_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(resolve_cases) / sizeof(resolve_cases[0]);
	     i++) {
		const struct rcase *c = &resolve_cases[i];
		int r;

		snprintf(in, sizeof(in), "%s/%s", fx, c->in);
		errno = 0;
		r = sbx_path_norm(in, NULL, NULL, 1, out, sizeof(out));
		if (!c->want) {
			if (r != -1 || errno != c->err)
				fail_msg("row %zu: '%s' -> %d errno %d, want "
					 "errno %d",
					 i, c->in, r, errno, c->err);
			continue;
		}
		if (c->want[0] == '/')
			snprintf(want, sizeof(want), "%s", c->want);
		else
			snprintf(want, sizeof(want), "%s/%s", fx, c->want);
		if (r != 0 || strcmp(out, want) != 0)
			fail_msg("row %zu: '%s' -> %d '%s', want '%s' (errno "
				 "%d)",
				 i, c->in, r, r == 0 ? out : "", want, errno);
	}
}

/* The same table with missing names answered from directory listings
 * (dircache.c): the answers do not change. */
static void test_resolve_table_cached(void **state)
{
	int dc = sbx_dircache_begin();

	assert_int_equal(dc, 1);
	assert_int_equal(sbx_dircache_begin(), 0); /* nested: the outer's */
	test_resolve_table(state);
	sbx_dircache_end(dc);
}

static int absent(const char *rel)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", fx, rel);
	return sbx_dircache_absent(p);
}

/* Only absence is claimed, and only what the lookup would say; a name
 * listed or a link on the way is left to the kernel; a name made after
 * the scope is seen by the next one. */
static void test_dircache(void **state)
{
	char p[PATH_MAX];
	int dc, fd;

	(void)state;
	assert_int_equal(absent("a/nothere"), 0); /* no scope: ask */
	dc = sbx_dircache_begin();
	/* the first name asked in a directory is looked up, not listed */
	assert_int_equal(absent("a/nothere"), 0);
	assert_int_equal(absent("a/nothere"), ENOENT);
	assert_int_equal(absent("a/b"), 0);
	assert_int_equal(absent("a/file"), 0);
	assert_int_equal(absent("a/file/x"), 0);
	assert_int_equal(absent("a/file/x"), ENOTDIR);
	assert_int_equal(absent("a/file/x/y"), ENOTDIR);
	assert_int_equal(absent("nodir"), ENOENT); /* the fixture: listed */
	assert_int_equal(absent("nodir/x/y"), ENOENT);
	assert_int_equal(absent("dangling"), 0);
	assert_int_equal(absent("link_abs/nothere"), 0);
	assert_int_equal(absent("link_abs/nothere"), 0);
	/* other spellings: the kernel resolves the directory's */
	assert_int_equal(absent("a//nothere"), 0);
	assert_int_equal(absent("a//nothere"), ENOENT);
	assert_int_equal(absent("a/../a"), 0);
	assert_int_equal(absent("a/../nothere"), ENOENT);
	assert_int_equal(absent("nodir/.."), ENOENT);
	assert_int_equal(absent("link_rel/.."), 0);
	assert_int_equal(absent("a/nothere/"), 0);
	assert_int_equal(absent("late"), ENOENT);
	sbx_dircache_end(dc);
	snprintf(p, sizeof(p), "%s/late", fx);
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);
	dc = sbx_dircache_begin();
	assert_int_equal(absent("late"), 0);
	assert_int_equal(absent("late"), 0);
	assert_int_equal(absent("late2"), ENOENT);
	sbx_dircache_end(dc);
	assert_int_equal(unlink(p), 0);
	/* no listing: only a missing directory answers */
	dc = sbx_dircache_begin_nolist();
	assert_int_equal(absent("a/nothere"), 0);
	assert_int_equal(absent("a/nothere"), 0);
	assert_int_equal(absent("nodir/x"), 0);
	assert_int_equal(absent("nodir/y"), ENOENT);
	assert_int_equal(absent("a/file/x"), 0);
	assert_int_equal(absent("a/file/y"), ENOTDIR);
	assert_int_equal(absent("link_abs/x"), 0);
	assert_int_equal(absent("link_abs/y"), 0);
	sbx_dircache_end(dc);
}

/* Relative input against a base inside the tree, and "~" against a home
 * that is a symlink. */
static void test_resolve_base_and_home(void **state)
{
	char base[PATH_MAX], home[PATH_MAX], want[PATH_MAX], out[PATH_MAX];

	(void)state;
	snprintf(base, sizeof(base), "%s/link_rel", fx);
	assert_int_equal(
		sbx_path_norm("up/file", base, NULL, 1, out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "%s/a/file", fx);
	assert_string_equal(out, want);
	/* the same lexically keeps the symlink names */
	assert_int_equal(
		sbx_path_norm("up/file", base, NULL, 0, out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "%s/link_rel/up/file", fx);
	assert_string_equal(out, want);

	snprintf(home, sizeof(home), "%s/link_abs", fx);
	assert_int_equal(
		sbx_path_norm("~/b/.ssh", "/", home, 1, out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "%s/a/b/.ssh", fx);
	assert_string_equal(out, want);
	assert_int_equal(sbx_path_norm("~", "/", home, 1, out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "%s/a", fx);
	assert_string_equal(out, want);
}

/* A resolved path is a fixed point: normalising it again changes nothing,
 * lexically or with resolution. */
static void test_resolve_idempotent(void **state)
{
	char in[PATH_MAX], once[PATH_MAX], twice[PATH_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(resolve_cases) / sizeof(resolve_cases[0]);
	     i++) {
		if (!resolve_cases[i].want)
			continue;
		snprintf(in, sizeof(in), "%s/%s", fx, resolve_cases[i].in);
		assert_int_equal(sbx_path_norm(in, NULL, NULL, 1, once,
					       sizeof(once)),
				 0);
		assert_int_equal(sbx_path_norm(once, NULL, NULL, 1, twice,
					       sizeof(twice)),
				 0);
		if (strcmp(once, twice) != 0)
			fail_msg("row %zu: '%s' -> '%s' -> '%s'", i, in, once,
				 twice);
		assert_int_equal(sbx_path_lex(once, NULL, twice, sizeof(twice)),
				 0);
		assert_string_equal(once, twice);
	}
}

/* A link whose target is too long to splice: ENAMETOOLONG, not a crash
 * or a truncated path. */
static void test_resolve_long_target(void **state)
{
	char in[PATH_MAX], out[PATH_MAX], *target;

	(void)state;
	target = repeat("/d", PATH_MAX / 2 - 8, "");
	ln(target, "longlink");
	snprintf(in, sizeof(in), "%s/longlink/x", fx);
	errno = 0;
	/* readlink succeeds (target < PATH_MAX) but the walk goes through
	 * "/d/d/..." which does not exist, so the tail is lexical and fits. */
	assert_int_equal(sbx_path_norm(in, NULL, NULL, 1, out, sizeof(out)), 0);
	assert_int_equal(strlen(out), strlen(target) + 2);
	free(target);

	/* target + remaining components longer than the walk allows */
	target = repeat("/e", PATH_MAX / 2 - 8, "");
	ln(target, "longlink2");
	{
		char *tail = repeat("/f", PATH_MAX / 2, "");
		char *big = malloc(strlen(fx) + strlen(tail) + 16);

		assert_non_null(big);
		sprintf(big, "%s/longlink2%s", fx, tail);
		errno = 0;
		assert_int_equal(sbx_path_norm(big, NULL, NULL, 1, out,
					       sizeof(out)),
				 -1);
		assert_int_equal(errno, ENAMETOOLONG);
		free(big);
		free(tail);
	}
	free(target);
}

/* Tree order: everything below a path follows it directly, so sorting
 * roots groups each subtree (landlock.c and the engine rely on it). */
static void test_tree_order(void **state)
{
	static const char *const sorted[] = {
		"/",	 "/a",	 "/a/b", "/a/b/c", "/a/b-c",
		"/a/bc", "/a-b", "/a.b", "/ab",	   "/b",
	};
	size_t n = sizeof(sorted) / sizeof(sorted[0]);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(sbx_path_cmp(sorted[i], sorted[i]), 0);
		for (size_t j = i + 1; j < n; j++) {
			assert_true(sbx_path_cmp(sorted[i], sorted[j]) < 0);
			assert_true(sbx_path_cmp(sorted[j], sorted[i]) > 0);
		}
	}
}

int main(void)
{
	const struct CMUnitTest lexical[] = {
		cmocka_unit_test(test_lex_table),
		cmocka_unit_test(test_norm_lexical_agrees),
		cmocka_unit_test(test_null_input),
		cmocka_unit_test(test_tilde),
		cmocka_unit_test(test_lex_outsz_boundary),
		cmocka_unit_test(test_long_paths),
		cmocka_unit_test(test_within),
		cmocka_unit_test(test_tree_order),
	};
	const struct CMUnitTest resolving[] = {
		cmocka_unit_test(test_resolve_table),
		cmocka_unit_test(test_resolve_table_cached),
		cmocka_unit_test(test_dircache),
		cmocka_unit_test(test_resolve_base_and_home),
		cmocka_unit_test(test_resolve_idempotent),
		cmocka_unit_test(test_resolve_long_target),
	};
	int fails = 0;

	fails += cmocka_run_group_tests_name("path_lexical", lexical, NULL,
					     NULL);
	fails += cmocka_run_group_tests_name("path_resolve", resolving,
					     setup_tree, teardown_tree);
	return fails ? 1 : 0;
}
