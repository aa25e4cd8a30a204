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
/*
 * Names the sandbox chose (paths, hosts) are never printed raw: a
 * character that a terminal would act on becomes one '?', so a line
 * stays one line and cannot set a title, clear the screen or fake
 * another line (review W-05).  Unsafe: C0 and C1 controls, DEL, bytes
 * that are no valid UTF-8, line and paragraph separators and the
 * bidirectional overrides.  sb_char says how many bytes the character at
 * s takes (1 for an invalid byte) and sets *unsafe.
 */
size_t sb_char(const char *s, int *unsafe);
/* s made printable into the builder, with sb_char. */
void sb_putq(struct sb *b, const char *s);
/* s made printable in place (never longer); returns s.  For the
 * library's warnings and summaries, which are not built with sb. */
char *sb_clean(char *s);
/*
 * s as one shell word a user can paste (the "; to allow: ..." advice,
 * review W-06): as it is when every byte is in [A-Za-z0-9_@%+=:,./-],
 * else in single quotes ('\'' for a quote), else, when it holds a
 * character sb_char calls unsafe, ANSI-C quoted ($'...', \xHH for
 * those bytes), which bash, zsh, ksh and POSIX.1-2024 sh read back to
 * the same bytes, and which stays printable.
 */
void sb_putsh(struct sb *b, const char *s);

#endif
