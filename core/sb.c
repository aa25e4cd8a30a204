/*
 * sb.c - bounded string builder (see sb.h).
 */
#include <string.h>

#include "sb.h"

void sb_init(struct sb *b, char *mem, size_t cap)
{
	b->p = mem;
	b->len = 0;
	b->cap = cap;
	b->full = 0;
	mem[0] = '\0';
}

/* Mark the end of a truncated message. */
static void sb_overflow(struct sb *b)
{
	b->full = 1;
	b->len = b->cap - 1;
	if (b->cap > 4)
		memcpy(b->p + b->cap - 4, "...", 3);
	b->p[b->len] = '\0';
}

void sb_putn(struct sb *b, const char *s, size_t n)
{
	if (b->full)
		return;
	if (b->len + n + 1 > b->cap) {
		memcpy(b->p + b->len, s, b->cap - 1 - b->len);
		sb_overflow(b);
		return;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void sb_put(struct sb *b, const char *s)
{
	sb_putn(b, s, strlen(s));
}

void sb_putc(struct sb *b, char c)
{
	sb_putn(b, &c, 1);
}

void sb_putu(struct sb *b, uint64_t v)
{
	char d[24];
	size_t n = sizeof(d);

	do {
		d[--n] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	sb_putn(b, d + n, sizeof(d) - n);
}

/* The code point of a valid UTF-8 sequence of n (2..4) bytes at s, or
 * -1 (truncated, overlong, surrogate, past U+10FFFF). */
static long utf8_cp(const unsigned char *s, size_t n)
{
	static const unsigned char lead_bits[5] = { 0, 0, 0x1f, 0x0f, 0x07 };
	static const long min[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	long cp = s[0] & lead_bits[n];

	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (cp < min[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	return cp;
}

size_t sb_char(const char *s, int *unsafe)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = u[0] < 0x80	 ? 1
		   : u[0] < 0xc2 ? 0
		   : u[0] < 0xe0 ? 2
		   : u[0] < 0xf0 ? 3
		   : u[0] < 0xf5 ? 4
				 : 0;
	long cp;

	if (n == 1) {
		*unsafe = u[0] < 0x20 || u[0] == 0x7f;
		return 1;
	}
	cp = n ? utf8_cp(u, n) : -1;
	*unsafe = cp < 0 || cp < 0xa0 || cp == 0x2028 || cp == 0x2029 ||
		  (cp >= 0x202a && cp <= 0x202e) ||
		  (cp >= 0x2066 && cp <= 0x2069);
	return cp < 0 ? 1 : n;
}

void sb_putq(struct sb *b, const char *s)
{
	while (*s && !b->full) {
		int bad;
		size_t n = sb_char(s, &bad);

		if (bad)
			sb_putc(b, '?');
		else
			sb_putn(b, s, n);
		s += n;
	}
}

char *sb_clean(char *s)
{
	char *w = s;

	for (const char *r = s; *r;) {
		int bad;
		size_t n = sb_char(r, &bad);

		if (bad)
			*w++ = '?';
		else
			memmove(w, r, n), w += n;
		r += n;
	}
	*w = '\0';
	return s;
}

static void put_hex(struct sb *b, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";
	char x[4] = { '\\', 'x', hex[c >> 4], hex[c & 15] };

	sb_putn(b, x, sizeof(x));
}

void sb_putsh(struct sb *b, const char *s)
{
	static const char plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklm"
				    "nopqrstuvwxyz0123456789_@%+=:,./-";
	int odd = 0, bad;
	size_t i, n;

	for (i = 0; s[i]; i += n)
		n = sb_char(s + i, &bad), odd |= bad;
	if (*s && strspn(s, plain) == i) {
		sb_putn(b, s, i);
		return;
	}
	sb_put(b, odd ? "$'" : "'");
	for (i = 0; s[i]; i += n) {
		n = sb_char(s + i, &bad);
		if (bad)
			for (size_t k = 0; k < n; k++)
				put_hex(b, (unsigned char)s[i + k]);
		else if (s[i] == '\'')
			sb_put(b, odd ? "\\'" : "'\\''");
		else if (odd && s[i] == '\\')
			sb_put(b, "\\\\");
		else
			sb_putn(b, s + i, n);
	}
	sb_putc(b, '\'');
}
