/*
 * seatbelt_esc.c - literals for SBPL: strings, path regexes, and the exec
 * rules' globs as regexes.
 *
 * SBPL is read by the TinyScheme reader inside libsandbox.  In a string
 * literal only '"' and '\' are special; a backslash starts an escape (\n,
 * \t, \r, \" \\ and \xHH with exactly two hex digits).  Everything a path
 * may contain that is not printable is written as an escape, so a
 * profile is printable ASCII plus well-formed UTF-8: no raw newline can
 * end a comment early, no stray byte (0xFF reads as EOF in a reader with
 * signed chars) can end the text.  A regular expression is written as an
 * ordinary string literal holding the regex text (not Apple's #"..."
 * form, which has no way to contain a '"').
 *
 * The regexes are POSIX extended: the characters ^.[$()|*+?{\ are
 * escaped with a backslash (well defined for exactly these), everything
 * else stands for itself, ASCII letters become [xX].  Regexes only ever
 * widen a deny or an exclusion from an allow (seatbelt.c), so matching a
 * little more than the exact path is the safe direction.
 */
#include <stdlib.h>
#include <string.h>

#include "seatbelt.h"

/* Length of the well-formed UTF-8 sequence at s (n bytes left), 0 if
 * there is none (RFC 3629: shortest form, no surrogates, <= U+10FFFF). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned lo = 0x80, hi = 0xBF;

	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		len = 2;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		len = 3;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		len = 4;
	else
		return 0;
	if (len > n)
		return 0;
	if (s[0] == 0xE0)
		lo = 0xA0;
	else if (s[0] == 0xED)
		hi = 0x9F;
	else if (s[0] == 0xF0)
		lo = 0x90;
	else if (s[0] == 0xF4)
		hi = 0x8F;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return len;
}

void sbx_sbpl_string(FILE *f, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, u;

	fputc('"', f);
	while (i < n) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc(c, f);
		} else if (c == '\n') {
			fputs("\\n", f);
		} else if (c == '\t') {
			fputs("\\t", f);
		} else if (c == '\r') {
			fputs("\\r", f);
		} else if (c >= 0x20 && c < 0x7F) {
			fputc(c, f);
		} else if (c >= 0x80 && (u = utf8_len(s + i, n - i)) > 0) {
			fwrite(s + i, 1, u, f);
			i += u;
			continue;
		} else {
			fprintf(f, "\\x%02X", c);
		}
		i++;
	}
	fputc('"', f);
}

/* One byte of a regex that must match that byte literally (or, for an
 * ASCII letter, either case of it). */
static void re_byte(FILE *f, unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
		fprintf(f, "[%c%c]", c | 0x20, c & ~0x20);
	else if (c && strchr("^.[$()|*+?{\\", c))
		fprintf(f, "\\%c", c);
	else
		fputc(c, f);
}

/* Close a memstream and hand over its buffer, or NULL on any error. */
static char *ms_done(FILE *f, char **buf)
{
	int bad = ferror(f);

	if (fclose(f) != 0 || bad) {
		free(*buf);
		return NULL;
	}
	return *buf;
}

char *sbx_sbpl_path_regex(const char *path, int subtree)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fputc('^', f);
	if (strcmp(path, "/") == 0) {
		/* "/" and everything below it; alone it is just "/" */
		fputs(subtree ? "/" : "/$", f);
		return ms_done(f, &buf);
	}
	for (const char *p = path; *p; p++)
		re_byte(f, (unsigned char)*p);
	/* ($|/): the path itself or something below it, never a sibling
	 * that merely starts with the same bytes ("/a/b" is not "/a/bc"). */
	fputs(subtree ? "($|/)" : "$", f);
	return ms_done(f, &buf);
}

/*
 * The extent of a bracket expression starting just after '[' at p,
 * scanned exactly as match.c's bracket() does: an optional '!' or '^',
 * then at least one member (so "[]]" holds ']'), up to the next ']' or the
 * end of the pattern.  Returns the position after it.
 */
static const char *bracket_end(const char *p)
{
	if (*p == '!' || *p == '^')
		p++;
	if (!*p)
		return p;
	do {
		if (p[1] == '-' && p[2] && p[2] != ']')
			p += 3;
		else
			p++;
	} while (*p && *p != ']');
	return *p ? p + 1 : p;
}

/* A letter's other case, or c itself. */
static int other_case(int c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
		return c ^ 0x20;
	return c;
}

/*
 * A bracket expression as the set of bytes it matches, decided by
 * sbx_glob() itself on each byte, so no corner of its syntax can be read
 * differently here; widened to both cases of every letter; '/' left out
 * for a basename.  Written as an alternation of single bytes, or, when
 * the set holds nearly everything ("[!a-z]"), as "[^...]" of the few
 * bytes it lacks if none of them is special inside brackets.  Returns
 * the number of bytes in the set.
 */
static int re_bracket(FILE *f, const char *open, const char *end, int basename)
{
	char pat[1024], one[2] = { 0, 0 };
	size_t n = (size_t)(end - open);
	unsigned char in[256] = { 0 };
	int count = 0, first = 1, plain = 1;

	if (n >= sizeof(pat))
		n = sizeof(pat) - 1;
	memcpy(pat, open, n);
	pat[n] = '\0';
	for (int c = 1; c < 256; c++) {
		one[0] = (char)c;
		if (sbx_glob(pat, one))
			in[c] = in[other_case(c)] = 1;
	}
	if (basename)
		in['/'] = 0;
	for (int c = 1; c < 256; c++) {
		count += in[c];
		if (!in[c] && strchr("]^-\\[", c))
			plain = 0;
	}
	if (!count)
		return 0;
	if (count > 128 && plain) {
		fputs("[^", f);
		for (int c = 1; c < 256; c++)
			if (!in[c])
				fputc(c, f);
		fputc(']', f);
		return count;
	}
	fputc('(', f);
	for (int c = 1; c < 256; c++) {
		/* re_byte() writes both cases of a letter: one is enough */
		if (!in[c] || (c >= 'A' && c <= 'Z'))
			continue;
		if (!first)
			fputc('|', f);
		first = 0;
		re_byte(f, (unsigned char)c);
	}
	fputc(')', f);
	return count;
}

char *sbx_sbpl_glob_regex(const char *glob, int *never)
{
	int basename = strchr(glob, '/') == NULL;
	const char *any = basename ? "[^/]*" : ".*";
	const char *one = basename ? "[^/]" : ".";
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	*never = 0;
	f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	/* A basename pattern matches the last component of the path. */
	fputs(basename ? "/" : "^", f);
	for (const char *p = glob; *p;) {
		if (*p == '*') {
			fputs(any, f);
			p++;
		} else if (*p == '?') {
			fputs(one, f);
			p++;
		} else if (*p == '[' && p[1]) {
			const char *end = bracket_end(p + 1);

			if (!re_bracket(f, p, end, basename))
				goto nothing;
			p = end;
		} else if (*p == '[') {
			/* a '[' that starts no set never matches (match.c) */
			goto nothing;
		} else {
			re_byte(f, (unsigned char)*p++);
		}
	}
	fputc('$', f);
	return ms_done(f, &buf);
nothing:
	fclose(f);
	free(buf);
	*never = 1;
	return NULL;
}
