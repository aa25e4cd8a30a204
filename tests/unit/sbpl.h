/*
 * sbpl.h - a small reader and evaluator for the SBPL profiles that
 * launcher/kernel/macos/seatbelt.c writes, for test_seatbelt.c.
 * Header-only (static) so the test stays one .c file for the makefile.
 *
 * The reader is strict where the generator must be: strings follow the
 * TinyScheme reader libsandbox uses (escapes \n \t \r \" \\ and \xHH
 * with exactly two hex digits) and must hold nothing but printable ASCII
 * and well-formed UTF-8; the whole text may hold no control character
 * but newline; "#" forms (#t, #"...") are refused since the generator
 * never writes them.
 *
 * The evaluator is a model of Seatbelt for path operations: a rule
 * applies when one of its operations covers the query ("file-read*"
 * covers "file-read-data") and one of its filters matches the path
 * (subpath, literal, regex as POSIX ERE, require-all/any/not; any other
 * filter never matches a path).  It answers under three readings of
 * precedence: the last matching rule decides (what Seatbelt does), the
 * first one does, or any matching deny wins.  What the model assumes
 * about Seatbelt is checked on a Mac by the plan in HACKING.md.
 */
#ifndef SBX_TEST_SBPL_H
#define SBX_TEST_SBPL_H

#include <regex.h>
#include <stdlib.h>
#include <string.h>

enum sx_type { SX_LIST, SX_SYM, SX_STR };

/* The symbols the evaluator looks at, numbered once when read (the
 * evaluator runs millions of times in the tests). */
enum sx_id {
	ID_OTHER = 0,
	ID_ALLOW,
	ID_DENY,
	ID_DEFAULT,
	ID_SUBPATH,
	ID_LITERAL,
	ID_PATH,
	ID_REGEX,
	ID_ALL,
	ID_ANY,
	ID_NOT,
	ID_WITH,
};

static const char *const sx_ids[] = {
	"",	"allow", "deny",	"default",     "subpath",     "literal",
	"path", "regex", "require-all", "require-any", "require-not", "with",
};

struct sx {
	enum sx_type t;
	char *s; /* SYM, STR: bytes (NUL-terminated; STR may hold none) */
	size_t n; /* length of s, or number of kids */
	struct sx **kid;
	enum sx_id id; /* SYM: which known symbol, if any */
	regex_t *re; /* compiled on first use (regex strings) */
	int re_bad;
};

struct sx_reader {
	const unsigned char *p, *end;
	char err[256];
};

static void sx_free(struct sx *x)
{
	if (!x)
		return;
	for (size_t i = 0; x->t == SX_LIST && i < x->n; i++)
		sx_free(x->kid[i]);
	free(x->kid);
	free(x->s);
	if (x->re) {
		regfree(x->re);
		free(x->re);
	}
	free(x);
}

static struct sx *sx_new(enum sx_type t)
{
	struct sx *x = calloc(1, sizeof(*x));

	if (x)
		x->t = t;
	return x;
}

static int sx_fail(struct sx_reader *r, const char *what)
{
	snprintf(r->err, sizeof(r->err), "%s at byte %ld", what,
		 (long)(r->end - r->p));
	return -1;
}

/* Well-formed UTF-8 sequence length at p (RFC 3629), 0 if none. */
static size_t sx_utf8(const unsigned char *p, const unsigned char *end)
{
	size_t len = p[0] >= 0xF0 ? 4 : p[0] >= 0xE0 ? 3 : 2;
	unsigned lo = 0x80, hi = 0xBF;

	if (p[0] < 0xC2 || p[0] > 0xF4 || (size_t)(end - p) < len)
		return 0;
	lo = p[0] == 0xE0 ? 0xA0 : p[0] == 0xF0 ? 0x90 : 0x80;
	hi = p[0] == 0xED ? 0x9F : p[0] == 0xF4 ? 0x8F : 0xBF;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xBF)
			return 0;
	return len;
}

static int sx_hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static struct sx *sx_string(struct sx_reader *r)
{
	size_t cap = (size_t)(r->end - r->p) + 1, n = 0, u;
	struct sx *x = sx_new(SX_STR);
	char *b = malloc(cap);

	if (!x || !b)
		goto bad;
	r->p++; /* the opening quote */
	while (r->p < r->end && *r->p != '"') {
		unsigned char c = *r->p;

		if (c == '\\') {
			int h1, h2;

			if (r->end - r->p < 2)
				goto bad;
			c = r->p[1];
			r->p += 2;
			if (c == 'n')
				b[n++] = '\n';
			else if (c == 't')
				b[n++] = '\t';
			else if (c == 'r')
				b[n++] = '\r';
			else if (c == '"' || c == '\\')
				b[n++] = (char)c;
			else if (c == 'x' && r->end - r->p >= 2 &&
				 (h1 = sx_hex(r->p[0])) >= 0 &&
				 (h2 = sx_hex(r->p[1])) >= 0) {
				b[n++] = (char)(h1 * 16 + h2);
				r->p += 2;
			} else
				goto bad;
		} else if (c >= 0x20 && c < 0x7F) {
			b[n++] = (char)c;
			r->p++;
		} else if (c >= 0x80 && (u = sx_utf8(r->p, r->end)) > 0) {
			memcpy(b + n, r->p, u);
			n += u;
			r->p += u;
		} else {
			goto bad;
		}
	}
	if (r->p >= r->end)
		goto bad;
	r->p++;
	b[n] = '\0';
	x->s = b;
	x->n = n;
	return x;
bad:
	sx_fail(r, "bad string");
	free(b);
	sx_free(x);
	return NULL;
}

static int sx_delim(int c)
{
	return c == '(' || c == ')' || c == '"' || c == ';' || c == ' ' ||
	       c == '\n';
}

static void sx_skip(struct sx_reader *r)
{
	while (r->p < r->end) {
		if (*r->p == ' ' || *r->p == '\n')
			r->p++;
		else if (*r->p == ';')
			while (r->p < r->end && *r->p != '\n')
				r->p++;
		else
			break;
	}
}

static struct sx *sx_read(struct sx_reader *r, int depth);

static struct sx *sx_list(struct sx_reader *r, int depth)
{
	struct sx *x = sx_new(SX_LIST), *k;
	size_t cap = 0;

	if (!x)
		return NULL;
	r->p++;
	for (;;) {
		sx_skip(r);
		if (r->p >= r->end) {
			sx_fail(r, "unclosed list");
			goto bad;
		}
		if (*r->p == ')') {
			r->p++;
			return x;
		}
		k = sx_read(r, depth + 1);
		if (!k)
			goto bad;
		if (x->n == cap) {
			struct sx **nk;

			cap = cap ? cap * 2 : 8;
			nk = realloc(x->kid, cap * sizeof(*nk));
			if (!nk) {
				sx_free(k);
				goto bad;
			}
			x->kid = nk;
		}
		x->kid[x->n++] = k;
	}
bad:
	sx_free(x);
	return NULL;
}

static struct sx *sx_read(struct sx_reader *r, int depth)
{
	const unsigned char *s;
	struct sx *x;

	if (depth > 64)
		return sx_fail(r, "too deep"), NULL;
	sx_skip(r);
	if (r->p >= r->end)
		return sx_fail(r, "unexpected end"), NULL;
	if (*r->p == '(')
		return sx_list(r, depth);
	if (*r->p == '"')
		return sx_string(r);
	if (*r->p == ')' || *r->p == '#')
		return sx_fail(r, "unexpected ')' or '#'"), NULL;
	for (s = r->p; r->p < r->end && !sx_delim(*r->p); r->p++)
		if (*r->p < 0x21 || *r->p > 0x7E)
			return sx_fail(r, "bad byte in a symbol"), NULL;
	x = sx_new(SX_SYM);
	if (!x)
		return NULL;
	x->n = (size_t)(r->p - s);
	x->s = strndup((const char *)s, x->n);
	for (size_t i = 1; x->s && i < sizeof(sx_ids) / sizeof(sx_ids[0]); i++)
		if (strcmp(x->s, sx_ids[i]) == 0)
			x->id = (enum sx_id)i;
	return x;
}

/* The whole text as one list of top-level forms; NULL with err filled. */
static struct sx *sx_parse(const char *text, size_t len, char *err,
			   size_t errlen)
{
	struct sx_reader r = { (const unsigned char *)text,
			       (const unsigned char *)text + len, "" };
	struct sx *top = sx_new(SX_LIST), *k;
	size_t cap = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		if ((c < 0x20 && c != '\n') || c == 0x7F) {
			snprintf(err, errlen, "control byte 0x%02x at %zu", c,
				 i);
			sx_free(top);
			return NULL;
		}
	}
	while (top) {
		sx_skip(&r);
		if (r.p >= r.end)
			return top;
		k = sx_read(&r, 0);
		if (!k)
			break;
		if (top->n == cap) {
			cap = cap ? cap * 2 : 64;
			top->kid = realloc(top->kid, cap * sizeof(*top->kid));
		}
		top->kid[top->n++] = k;
	}
	snprintf(err, errlen, "%s", r.err[0] ? r.err : "out of memory");
	sx_free(top);
	return NULL;
}

static int sx_is(const struct sx *x, const char *sym)
{
	return x && x->t == SX_SYM && strcmp(x->s, sym) == 0;
}

static enum sx_id sx_id_of(const struct sx *x)
{
	return x && x->t == SX_SYM ? x->id : ID_OTHER;
}

/* ------------------------------------------------------------ evaluator */

static int sb_op_covers(const char *op, const char *q)
{
	size_t n = strlen(op);

	if (strcmp(op, q) == 0)
		return 1;
	return n && op[n - 1] == '*' && strncmp(op, q, n - 1) == 0;
}

static int sb_subpath(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return path[0] == '/';
	return strncmp(path, root, n) == 0 &&
	       (path[n] == '\0' || path[n] == '/');
}

static int sb_regex(struct sx *s, const char *path)
{
	if (!s->re && !s->re_bad) {
		s->re = malloc(sizeof(*s->re));
		if (!s->re ||
		    regcomp(s->re, s->s, REG_EXTENDED | REG_NOSUB) != 0) {
			free(s->re);
			s->re = NULL;
			s->re_bad = 1;
		}
	}
	return s->re && regexec(s->re, path, 0, NULL, 0) == 0;
}

/* Does filter f match path?  -1: a regex that does not compile. */
static int sb_filter(struct sx *f, const char *path)
{
	enum sx_id h;

	if (f->t != SX_LIST || f->n == 0)
		return 0;
	h = sx_id_of(f->kid[0]);
	if (h >= ID_SUBPATH && h <= ID_REGEX &&
	    (f->n != 2 || f->kid[1]->t != SX_STR))
		return 0;
	switch (h) {
	case ID_SUBPATH: return sb_subpath(path, f->kid[1]->s);
	case ID_LITERAL:
	case ID_PATH: return strcmp(path, f->kid[1]->s) == 0;
	case ID_REGEX: {
		int m = sb_regex(f->kid[1], path);

		return f->kid[1]->re_bad ? -1 : m;
	}
	case ID_NOT: return f->n == 2 ? !sb_filter(f->kid[1], path) : 0;
	case ID_ALL:
	case ID_ANY:
		for (size_t i = 1; i < f->n; i++)
			if (sb_filter(f->kid[i], path) != (h == ID_ALL))
				return h != ID_ALL;
		return h == ID_ALL;
	default: return 0;
	}
}

/* Does rule form x apply to (op, path)?  Filters are alternatives; a
 * rule without any applies to every path. */
static int sb_applies(struct sx *x, const char *op, const char *path)
{
	int covers = 0, filters = 0;

	for (size_t i = 1; i < x->n; i++) {
		struct sx *k = x->kid[i];

		if (k->t == SX_SYM)
			covers |= sb_op_covers(k->s, op);
		else if (k->t == SX_LIST && k->n &&
			 sx_id_of(k->kid[0]) != ID_WITH)
			filters++;
	}
	if (!covers)
		return 0;
	if (!filters)
		return 1;
	for (size_t i = 1; i < x->n; i++) {
		struct sx *k = x->kid[i];

		if (k->t == SX_LIST && k->n && sx_id_of(k->kid[0]) != ID_WITH &&
		    sb_filter(k, path) == 1)
			return 1;
	}
	return 0;
}

enum sb_prec { SB_LAST, SB_FIRST, SB_DENY_WINS };

/* The decision under each reading of precedence at once, indexed by
 * enum sb_prec: 1 allowed, 0 denied. */
static void sb_decide_all(struct sx *top, const char *op, const char *path,
			  int out[3])
{
	int dflt = 0, last = -1, first = -1, any_deny = 0, any_allow = 0;

	for (size_t i = 0; i < top->n; i++) {
		struct sx *x = top->kid[i];
		int allow;

		if (x->t != SX_LIST || x->n < 2)
			continue;
		allow = sx_id_of(x->kid[0]) == ID_ALLOW;
		if (!allow && sx_id_of(x->kid[0]) != ID_DENY)
			continue;
		if (sx_id_of(x->kid[1]) == ID_DEFAULT) {
			dflt = allow;
			continue;
		}
		if (!sb_applies(x, op, path))
			continue;
		last = allow;
		if (first < 0)
			first = allow;
		any_deny |= !allow;
		any_allow |= allow;
	}
	out[SB_LAST] = last >= 0 ? last : dflt;
	out[SB_FIRST] = first >= 0 ? first : dflt;
	out[SB_DENY_WINS] = any_deny ? 0 : any_allow ? 1 : dflt;
}

static int sb_decide(struct sx *top, const char *op, const char *path,
		     enum sb_prec prec)
{
	int out[3];

	sb_decide_all(top, op, path, out);
	return out[prec];
}

/* Call fn on every string in a (kind "...") filter anywhere in x. */
static void sx_each_filter(const struct sx *x, const char *kind,
			   void (*fn)(void *ctx, const struct sx *s), void *ctx)
{
	if (x->t != SX_LIST)
		return;
	if (x->n == 2 && sx_is(x->kid[0], kind) && x->kid[1]->t == SX_STR)
		fn(ctx, x->kid[1]);
	for (size_t i = 0; i < x->n; i++)
		sx_each_filter(x->kid[i], kind, fn, ctx);
}

#endif
