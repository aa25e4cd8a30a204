/*
 * text.h - a growing string for the text libsbx hands back (--dry-run,
 * --status, the refusal summary).  The library never prints: it builds
 * the text and the caller decides where it goes.
 */
#ifndef SBX_TEXT_H
#define SBX_TEXT_H

#include <stddef.h>

struct sbx_text {
	char *s;
	size_t len, cap;
	int bad; /* out of memory: sbx_text_take() gives NULL */
};

void sbx_text_add(struct sbx_text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The text (malloc'ed, the caller frees it), or NULL when out of memory;
 * t is empty again. */
char *sbx_text_take(struct sbx_text *t);

#endif
