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

void sb_putq(struct sb *b, const char *s)
{
	for (; *s && !b->full; s++) {
		unsigned char c = (unsigned char)*s;

		sb_putc(b, c < 0x20 || c == 0x7f ? '?' : (char)c);
	}
}
