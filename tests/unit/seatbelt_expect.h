/*
 * seatbelt_expect.h - for test_seatbelt.c: generate a profile, check its
 * shape, and compare every decision it makes with an independent
 * statement of what the policy says (header-only, static).
 */
#ifndef SBX_TEST_SEATBELT_EXPECT_H
#define SBX_TEST_SEATBELT_EXPECT_H

#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "policy.h"
#include "macos/seatbelt.h"
#include "sbpl.h"

/* ------------------------------------------------------------ helpers */

static char *gen(const struct sbx_policy *p, const struct sbx_seatbelt_opts *o,
		 size_t *len)
{
	struct sbx_err err = { "" };
	char *out = NULL;
	size_t n = 0;

	if (sbx_seatbelt_profile(p, o, &out, &n, &err) != 0)
		fail_msg("seatbelt: %s", err.msg);
	assert_non_null(out);
	assert_int_equal(strlen(out), n);
	if (len)
		*len = n;
	return out;
}

static int has_sym(const struct sx *x, const char *sym)
{
	if (sx_is(x, sym))
		return 1;
	for (size_t i = 0; x->t == SX_LIST && i < x->n; i++)
		if (has_sym(x->kid[i], sym))
			return 1;
	return 0;
}

/* Parse and check the shape every profile must have (MAC-01). */
static struct sx *parse_checked(const char *text, size_t len)
{
	char err[256];
	struct sx *top = sx_parse(text, len, err, sizeof(err));

	if (!top)
		fail_msg("profile does not parse: %s", err);
	assert_true(top->n > 2);
	assert_true(top->kid[0]->n == 2 &&
		    sx_is(top->kid[0]->kid[0], "version") &&
		    sx_is(top->kid[0]->kid[1], "1"));
	assert_true(top->kid[1]->n == 2 && sx_is(top->kid[1]->kid[0], "deny") &&
		    sx_is(top->kid[1]->kid[1], "default"));
	for (size_t i = 2; i < top->n; i++) {
		struct sx *x = top->kid[i];
		size_t filters = 0;
		int ioctl = 0;

		assert_int_equal(x->t, SX_LIST);
		assert_true(sx_is(x->kid[0], "allow") ||
			    sx_is(x->kid[0], "deny"));
		assert_false(sx_is(x->kid[1], "default"));
		for (size_t k = 1; k < x->n; k++) {
			ioctl |= sx_is(x->kid[k], "file-ioctl");
			filters += x->kid[k]->t == SX_LIST;
		}
		if (sx_is(x->kid[0], "allow") && ioctl)
			assert_true(filters > 0);
	}
	assert_false(has_sym(top, "no-sandbox"));
	return top;
}

/* Every regex in the profile compiles as a POSIX ERE. */
static void regex_compiles(void *ctx, const struct sx *s)
{
	regex_t re;

	(void)ctx;
	if (regcomp(&re, s->s, REG_EXTENDED | REG_NOSUB) != 0)
		fail_msg("regex does not compile: %s", s->s);
	regfree(&re);
}

/* ------------------------------------------------------------ expectation
 * An independent statement of what the profile must decide: the
 * policy's longest-root rule (plus the generator's documented additions:
 * /dev, the private temporary directory, the macOS secrets), except that
 * a deny root also denies every case variant of its subtree, unless an
 * allow root strictly inside it holds the exact path.
 */
struct xrule {
	char root[PATH_MAX];
	enum sbx_pmode mode;
};

struct expect {
	struct xrule *r;
	size_t n;
	const struct sbx_policy *p;
};

static void x_add(struct expect *e, const char *root, enum sbx_pmode mode)
{
	for (size_t i = 0; i < e->n; i++)
		if (strcmp(e->r[i].root, root) == 0)
			return;
	e->r = realloc(e->r, (e->n + 1) * sizeof(*e->r));
	assert_non_null(e->r);
	snprintf(e->r[e->n].root, PATH_MAX, "%s", root);
	e->r[e->n++].mode = mode;
}

static void x_init(struct expect *e, const struct sbx_policy *p,
		   const char *tmpdir)
{
	char path[PATH_MAX];

	memset(e, 0, sizeof(*e));
	e->p = p;
	for (size_t i = 0; i < p->nrules; i++) {
		const struct sbx_path_rule *r = &p->rules[i];

		if (sbx_path_within(r->root, "/dev", 4) ||
		    (tmpdir && (r->flags & SBX_RF_TMP)))
			continue;
		x_add(e, r->root, r->mode);
	}
	x_add(e, "/dev", SBX_HIDE);
	if (tmpdir)
		x_add(e, tmpdir, SBX_RW);
	for (size_t i = 0; sbx_seatbelt_home_hides[i]; i++) {
		snprintf(path, sizeof(path), "%s/%s", p->home,
			 sbx_seatbelt_home_hides[i]);
		x_add(e, path, SBX_HIDE);
	}
}

static int x_allows(enum sbx_pmode m, int write)
{
	return write ? m == SBX_RW : m != SBX_HIDE;
}

static int fold_in(const char *path, const char *root)
{
	size_t n = strlen(root);

	return strcmp(root, "/") == 0 || (strncasecmp(path, root, n) == 0 &&
					  (path[n] == '\0' || path[n] == '/'));
}

static int x_decide(const struct expect *e, const char *path, int write)
{
	const struct xrule *best = NULL;

	for (size_t i = 0; i < e->n; i++) {
		const struct xrule *r = &e->r[i];

		if (sbx_path_within(path, r->root, strlen(r->root)) &&
		    (!best || strlen(r->root) > strlen(best->root)))
			best = r;
	}
	if (!best || !x_allows(best->mode, write))
		return 0;
	for (size_t i = 0; i < e->n; i++) {
		const struct xrule *d = &e->r[i];
		int lifted = 0;

		if (x_allows(d->mode, write) || !fold_in(path, d->root))
			continue;
		for (size_t j = 0; j < e->n && !lifted; j++) {
			const struct xrule *a = &e->r[j];

			lifted =
				x_allows(a->mode, write) &&
				strcmp(a->root, d->root) != 0 &&
				sbx_path_within(a->root, d->root,
						strlen(d->root)) &&
				sbx_path_within(path, a->root, strlen(a->root));
		}
		if (!lifted)
			return 0;
	}
	return 1;
}

/* Exec: readable and no exec rule without arguments matches the name
 * in any ASCII case. */
static int x_exec(const struct expect *e, const char *path)
{
	char name[PATH_MAX], pat[PATH_MAX];

	if (!x_decide(e, path, 0))
		return 0;
	for (size_t i = 0; i < e->p->nexec; i++) {
		const struct sbx_exec_rule *r = &e->p->exec[i];
		const char *subject =
			strchr(r->program, '/') ? path : sbx_basename(path);

		if (r->nargs)
			continue;
		snprintf(name, sizeof(name), "%s", subject);
		snprintf(pat, sizeof(pat), "%s", r->program);
		for (char *c = name; *c; c++)
			*c = (char)((*c >= 'A' && *c <= 'Z') ? *c | 0x20 : *c);
		for (char *c = pat; *c; c++)
			*c = (char)((*c >= 'A' && *c <= 'Z') ? *c | 0x20 : *c);
		if (sbx_glob(pat, name))
			return 0;
	}
	return 1;
}

/* One probe: reads, writes and exec agree with the expectation under
 * both readings of precedence (and the first-match one for the path
 * rules, which never overlap). */
static void probe(struct sx *top, const struct expect *e, const char *path)
{
	static const char *const q[2] = { "file-read-data", "file-write-data" };
	int got[3], want;

	if (sbx_path_within(path, "/dev", 4))
		return;
	for (int w = 0; w < 2; w++) {
		want = x_decide(e, path, w);
		sb_decide_all(top, q[w], path, got);
		if (got[SB_LAST] != want || got[SB_DENY_WINS] != want ||
		    got[SB_FIRST] != want)
			fail_msg("%s of \"%s\": want %s", q[w], path,
				 want ? "allow" : "deny");
	}
	want = x_exec(e, path);
	sb_decide_all(top, "process-exec", path, got);
	if (got[SB_LAST] != want || got[SB_DENY_WINS] != want)
		fail_msg("exec of \"%s\": want %s", path,
			 want ? "allow" : "deny");
}

static void flip_case(char *s, int all)
{
	for (; *s; s++)
		if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')) {
			*s ^= 0x20;
			if (!all)
				return;
		}
}

/* Probe each root, below it, beside it, above it, and case variants. */
static void probe_all(struct sx *top, const struct expect *e)
{
	char path[PATH_MAX + 8];

	for (size_t i = 0; i < e->n; i++) {
		const char *r = e->r[i].root;
		char *slash;

		probe(top, e, r);
		snprintf(path, sizeof(path), "%s/x", strcmp(r, "/") ? r : "");
		probe(top, e, path);
		snprintf(path, sizeof(path), "%sx", r);
		if (strcmp(r, "/"))
			probe(top, e, path);
		snprintf(path, sizeof(path), "%s", r);
		slash = strrchr(path, '/');
		if (slash && slash != path) {
			*slash = '\0';
			probe(top, e, path);
		}
		for (int all = 0; all < 2; all++) {
			snprintf(path, sizeof(path), "%s/x", r);
			flip_case(path, all);
			probe(top, e, path);
			path[strlen(path) - 2] = '\0';
			probe(top, e, path);
		}
	}
}

/* Programs the exec rules name, as the kernel would see them. */
static void probe_exec(struct sx *top, const struct expect *e)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < e->p->nexec; i++) {
		const char *prog = e->p->exec[i].program;

		snprintf(path, sizeof(path), "%s%s",
			 strchr(prog, '/') ? "" : "/usr/bin/", prog);
		probe(top, e, path);
		flip_case(path, 1);
		probe(top, e, path);
	}
}

/* Renames: every writable directory above a write-denied root is
 * refused file-write-unlink in any case; a writable directory with
 * nothing protected below it is not. */
static void probe_unlink(struct sx *top, const struct expect *e)
{
	char dir[PATH_MAX];

	for (size_t i = 0; i < e->n; i++) {
		char *s;

		if (x_allows(e->r[i].mode, 1) ||
		    sbx_path_within(e->r[i].root, "/dev", 4))
			continue;
		snprintf(dir, sizeof(dir), "%s", e->r[i].root);
		while ((s = strrchr(dir, '/')) && s != dir) {
			*s = '\0';
			if (!x_decide(e, dir, 1))
				continue;
			assert_int_equal(sb_decide(top, "file-write-unlink",
						   dir, SB_LAST),
					 0);
			assert_int_equal(sb_decide(top, "file-write-unlink",
						   dir, SB_DENY_WINS),
					 0);
			flip_case(dir, 1);
			assert_int_equal(sb_decide(top, "file-write-unlink",
						   dir, SB_LAST),
					 0);
			flip_case(dir, 1);
		}
	}
}

/* Every root appears as an exact string in a subpath filter. */
struct roots_seen {
	const struct expect *e;
	unsigned char *seen;
};

static void mark_root(void *ctx, const struct sx *s)
{
	struct roots_seen *rs = ctx;

	for (size_t i = 0; i < rs->e->n; i++)
		if (strlen(rs->e->r[i].root) == s->n &&
		    memcmp(rs->e->r[i].root, s->s, s->n) == 0)
			rs->seen[i] = 1;
}

/* s escaped as the generator escapes strings: for the comment lines. */
static char *x_escaped(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	sbx_sbpl_string(f, s, strlen(s));
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* A root that decides differently from the one above it has a rule; one
 * that does not is at least named in a comment ("; "/root" mode"). */
static void roots_round_trip(struct sx *top, const struct expect *e,
			     const char *text)
{
	struct roots_seen rs = { e, calloc(e->n + 1, 1) };

	assert_non_null(rs.seen);
	sx_each_filter(top, "subpath", mark_root, &rs);
	for (size_t i = 0; i < e->n; i++) {
		char *lit, *line;

		if (rs.seen[i] || strcmp(e->r[i].root, "/dev") == 0)
			continue;
		lit = x_escaped(e->r[i].root);
		assert_true(asprintf(&line, "\n; %s %s", lit,
				     sbx_pmode_name(e->r[i].mode)) > 0);
		if (!strstr(text, line))
			fail_msg("root %s is not in the profile", lit);
		free(line);
		free(lit);
	}
	free(rs.seen);
}

/* Generate, parse, and check everything above for one policy. */
static void check_policy(const struct sbx_policy *p,
			 const struct sbx_seatbelt_opts *o)
{
	struct expect e;
	size_t len;
	char *text = gen(p, o, &len);
	struct sx *top = parse_checked(text, len);

	x_init(&e, p, o ? o->tmpdir : NULL);
	sx_each_filter(top, "regex", regex_compiles, NULL);
	roots_round_trip(top, &e, text);
	probe_all(top, &e);
	probe_exec(top, &e);
	probe_unlink(top, &e);
	free(e.r);
	sx_free(top);
	free(text);
}

/* ------------------------------------------------------------ escaping */

static char *esc(const char *s, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	sbx_sbpl_string(f, s, n);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* Escape s, read it back with the reader, compare. */
static void round_trip(const char *s, size_t n)
{
	char *lit = esc(s, n), err[256];
	struct sx *top = sx_parse(lit, strlen(lit), err, sizeof(err));

	if (!top)
		fail_msg("%s: %s", lit, err);
	assert_int_equal(top->n, 1);
	assert_int_equal(top->kid[0]->t, SX_STR);
	assert_int_equal(top->kid[0]->n, n);
	assert_memory_equal(top->kid[0]->s, s, n);
	sx_free(top);
	free(lit);
}

/* The regex, read back from a literal as the profile would hold it. */
static regex_t *path_re(const char *path, int subtree)
{
	char *re = sbx_sbpl_path_regex(path, subtree), *lit, err[256];
	struct sx *top;
	regex_t *r = malloc(sizeof(*r));

	assert_non_null(re);
	lit = esc(re, strlen(re));
	top = sx_parse(lit, strlen(lit), err, sizeof(err));
	assert_non_null(top);
	assert_string_equal(top->kid[0]->s, re);
	if (regcomp(r, top->kid[0]->s, REG_EXTENDED | REG_NOSUB) != 0)
		fail_msg("does not compile: %s", re);
	sx_free(top);
	free(lit);
	free(re);
	return r;
}

static int rx_match(regex_t *r, const char *s)
{
	return regexec(r, s, 0, NULL, 0) == 0;
}

static void check_path_regex(const char *path)
{
	char buf[PATH_MAX + 8];
	regex_t *sub = path_re(path, 1), *one = path_re(path, 0);

	assert_true(rx_match(sub, path));
	assert_true(rx_match(one, path));
	snprintf(buf, sizeof(buf), "%s/x", strcmp(path, "/") ? path : "");
	assert_true(rx_match(sub, buf));
	if (strcmp(path, "/") != 0) {
		assert_false(rx_match(one, buf));
		snprintf(buf, sizeof(buf), "%sx", path);
		assert_false(rx_match(sub, buf));
		assert_false(rx_match(one, buf));
		snprintf(buf, sizeof(buf), "/x%s", path);
		assert_false(rx_match(sub, buf));
	}
	snprintf(buf, sizeof(buf), "%s", path);
	flip_case(buf, 1);
	assert_true(rx_match(sub, buf));
	assert_true(rx_match(one, buf));
	regfree(sub);
	regfree(one);
	free(sub);
	free(one);
}

#endif
