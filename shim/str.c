/*
 * str.c - the string and memory functions the shim (and the core code
 * linked into it) calls, defined here rather than imported from libc.
 *
 * Why: the shim is linked with -z now, so every libc symbol it imports
 * is a symbol lookup by the dynamic loader in every program started in
 * the sandbox (~950 instructions each, issue 17), needed or not.  These
 * sixteen were most of the imports.  The definitions are hidden (the
 * version script exports only the hooks), so they bind inside the shim
 * and never interpose the program's own calls.  The strings the shim
 * handles are paths, names and short messages: plain byte loops, no
 * vector code, and no locale (strcasecmp folds ASCII only, which is what
 * the callers compare: host names, "localhost").
 *
 * GCC turns a copying or filling loop into a call to memcpy or memset;
 * here that call would be the function itself, so the pattern pass is
 * off in this file.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-loop-distribute-patterns")
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "shim.h"

/* A block at a time (the validation of the policy measures every rule's
 * root in every program): aligned blocks only, and an aligned block
 * never crosses a page, so reading bytes around the string inside one is
 * safe.  Without SSE2, words: the bytes before s in the first word are
 * made non-zero; the lowest flagged byte is the first NUL (a borrow only
 * flags bytes above a real zero). */
typedef uint64_t __attribute__((__may_alias__)) word_t;
#define ONES 0x0101010101010101ull
#define HAS_ZERO(x) (((x)-ONES) & ~(x) & (ONES * 128))

size_t strlen(const char *s)
{
#if defined(__SSE2__)
	/* 16 bytes at a time, from the aligned block holding s; bits for
	 * the bytes before s are shifted out of the first mask */
	unsigned skip = (unsigned)((uintptr_t)s & 15);
	const __m128i *b = (const __m128i *)(const void *)(s - skip);
	const __m128i zero = _mm_setzero_si128();
	unsigned m = (unsigned)_mm_movemask_epi8(
			     _mm_cmpeq_epi8(_mm_load_si128(b), zero)) >>
		     skip;

	if (m)
		return (size_t)__builtin_ctz(m);
	do
		m = (unsigned)_mm_movemask_epi8(
			_mm_cmpeq_epi8(_mm_load_si128(++b), zero));
	while (!m);
	return (size_t)((const char *)b - s) + (size_t)__builtin_ctz(m);
#elif __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	unsigned skip = (unsigned)((uintptr_t)s & 7);
	const word_t *w = (const word_t *)(const void *)(s - skip);
	uint64_t x = *w | (skip ? ~0ull >> (64 - 8 * skip) : 0);

	while (!HAS_ZERO(x))
		x = *++w;
	return (size_t)((const char *)w - s) +
	       (size_t)(__builtin_ctzll(HAS_ZERO(x)) / 8);
#else
	const char *p = s;

	while (*p)
		p++;
	return (size_t)(p - s);
#endif
}

size_t strnlen(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && s[i])
		i++;
	return i;
}

int strcmp(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a;
	const unsigned char *y = (const unsigned char *)b;

	while (*x && *x == *y)
		x++, y++;
	return *x - *y;
}

int strncmp(const char *a, const char *b, size_t n)
{
	const unsigned char *x = (const unsigned char *)a;
	const unsigned char *y = (const unsigned char *)b;

	for (; n; n--, x++, y++)
		if (*x != *y || !*x)
			return *x - *y;
	return 0;
}

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

int strcasecmp(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a;
	const unsigned char *y = (const unsigned char *)b;

	while (*x && lower(*x) == lower(*y))
		x++, y++;
	return lower(*x) - lower(*y);
}

char *strchrnul(const char *s, int c)
{
	while (*s && *s != (char)c)
		s++;
	return (char *)s;
}

char *strchr(const char *s, int c)
{
	s = strchrnul(s, c);
	return *s == (char)c ? (char *)s : NULL;
}

char *strrchr(const char *s, int c)
{
	const char *last = NULL;

	do
		if (*s == (char)c)
			last = s;
	while (*s++);
	return (char *)last;
}

/* In set: c (not NUL) is one of set's characters. */
static int in_set(const char *set, char c)
{
	while (*set && *set != c)
		set++;
	return *set != '\0';
}

size_t strspn(const char *s, const char *set)
{
	size_t i = 0;

	while (s[i] && in_set(set, s[i]))
		i++;
	return i;
}

size_t strcspn(const char *s, const char *set)
{
	size_t i = 0;

	while (s[i] && !in_set(set, s[i]))
		i++;
	return i;
}

char *strpbrk(const char *s, const char *set)
{
	s += strcspn(s, set);
	return *s ? (char *)s : NULL;
}

char *strstr(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	if (!n)
		return (char *)hay;
	for (; *hay; hay++)
		if (*hay == *needle && !strncmp(hay, needle, n))
			return (char *)hay;
	return NULL;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	while (n--)
		*d++ = *s++;
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d < s)
		while (n--)
			*d++ = *s++;
	else
		while (n--)
			d[n] = s[n];
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;

	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

/* environ is imported anyway (the exec hooks pass it on). */
extern char **environ;

char *getenv(const char *name)
{
	size_t n = strlen(name);
	char **e = __atomic_load_n(&environ, __ATOMIC_ACQUIRE);

	for (; e && *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}
