/*
 * sb.h - a bounded string builder over caller-provided (stack) memory,
 * for the explanations (explain.c), which the shim builds inside hooks:
 * no stdio, no allocation, always NUL-terminated, and a message that does
 * not fit ends in "..." instead of overflowing.
 */
#ifndef SBX_SB_H
#define SBX_SB_H

#include <stddef.h>
#include <stdint.h>

struct sb {
	char *p;
	size_t len, cap; /* cap includes the NUL */
	int full;
};

void sb_init(struct sb *b, char *mem, size_t cap);
void sb_putn(struct sb *b, const char *s, size_t n);
void sb_put(struct sb *b, const char *s);
void sb_putc(struct sb *b, char c);
void sb_putu(struct sb *b, uint64_t v);
/* A name from the program (path, host): control bytes become '?', so
 * the message stays one line. */
void sb_putq(struct sb *b, const char *s);

#endif
