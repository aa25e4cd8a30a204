/*
 * text.c - a growing string (text.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

static int reserve(struct sbx_text *t, size_t more)
{
	size_t cap = t->cap ? t->cap : 256;
	char *n;

	while (cap < t->len + more + 1)
		cap *= 2;
	if (cap == t->cap)
		return 0;
	n = realloc(t->s, cap);
	if (!n)
		return -1;
	t->s = n;
	t->cap = cap;
	return 0;
}

void sbx_text_add(struct sbx_text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->bad)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || reserve(t, (size_t)n) < 0) {
		t->bad = 1;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
}

char *sbx_text_take(struct sbx_text *t)
{
	char *s = t->bad ? NULL : t->s;

	if (t->bad)
		free(t->s);
	else if (!s)
		s = strdup("");
	memset(t, 0, sizeof(*t));
	return s;
}
