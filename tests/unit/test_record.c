/*
 * test_record.c - refusal records (core/record.c): encode/decode round
 * trips with awkward bytes, the size boundary, and malformed datagrams.
 * Buffers are heap-allocated at their exact size so ASan catches a read
 * or write one byte out.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "sb.h"

static const char *const sample[SBX_REC_NFIELDS] = {
	"write",
	"/home/u/.ssh/id_ed25519",
	"hidden",
	"/home/u/.ssh",
	"default.conf:22",
	"python3",
	"sbxrun: cannot write '/home/u/.ssh/id_ed25519': hidden",
};

static size_t need(const char *const f[SBX_REC_NFIELDS])
{
	size_t n = 0;

	for (int i = 0; i < SBX_REC_NFIELDS; i++)
		n += strlen(f[i] ? f[i] : "") + 1;
	return n;
}

/* Decode a copy of [rec, rec+len) in an exact-size buffer (len + 1 for
 * the terminator decode adds) and compare with want (NULL = ""). */
static void roundtrip_check(const char *rec, size_t len,
			    const char *const want[SBX_REC_NFIELDS])
{
	char *copy = malloc(len + 1);
	const char *f[SBX_REC_NFIELDS];

	assert_non_null(copy);
	memcpy(copy, rec, len);
	assert_int_equal(sbx_rec_decode(copy, len, f), 0);
	for (int i = 0; i < SBX_REC_NFIELDS; i++)
		assert_string_equal(f[i], want[i] ? want[i] : "");
	free(copy);
}

static void test_roundtrip(void **state)
{
	char buf[SBX_REC_MAX];
	size_t n;

	(void)state;
	n = sbx_rec_encode(buf, sizeof(buf), sample);
	assert_int_equal(n, need(sample));
	roundtrip_check(buf, n, sample);
}

static void test_null_and_empty_fields(void **state)
{
	const char *const f[SBX_REC_NFIELDS] = { "exec", NULL, "",  NULL,
						 NULL,	 NULL, NULL };
	const char *const none[SBX_REC_NFIELDS] = { 0 };
	char buf[64];
	size_t n;

	(void)state;
	n = sbx_rec_encode(buf, sizeof(buf), f);
	assert_int_equal(n, 5 + SBX_REC_NFIELDS - 1);
	roundtrip_check(buf, n, f);
	/* every field empty: seven NULs */
	n = sbx_rec_encode(buf, sizeof(buf), none);
	assert_int_equal(n, SBX_REC_NFIELDS);
	roundtrip_check(buf, n, none);
}

/* Tabs, newlines, quotes and non-UTF-8 bytes need no escaping. */
static void test_awkward_bytes(void **state)
{
	const char *const f[SBX_REC_NFIELDS] = {
		"read",
		"/a\tb/new\nline/\"q\"/'s'/\xff\xfe\x80",
		"read-only",
		"/",
		"x.conf:1",
		"we\x1b[31mird",
		"sbxrun: \xc3\x28 \\ %s %n",
	};
	char buf[512];
	size_t n;

	(void)state;
	n = sbx_rec_encode(buf, sizeof(buf), f);
	assert_int_not_equal(n, 0);
	roundtrip_check(buf, n, f);
}

/* Exactly enough room fits; one byte less returns 0. */
static void test_size_boundary(void **state)
{
	size_t n = need(sample);
	char *buf;

	(void)state;
	for (size_t sz = 0; sz <= n + 1; sz++) {
		buf = malloc(sz ? sz : 1);
		assert_non_null(buf);
		if (sz < n)
			assert_int_equal(sbx_rec_encode(buf, sz, sample), 0);
		else
			assert_int_equal(sbx_rec_encode(buf, sz, sample), n);
		free(buf);
	}
}

/* A message as long as a record can carry, and one byte longer. */
static void test_too_long(void **state)
{
	char *big = malloc(SBX_REC_MAX + 1);
	char *buf = malloc(SBX_REC_MAX);
	const char *f[SBX_REC_NFIELDS] = { "write", "/x", "hidden", "/",
					   "a:1",   "c",  NULL };
	size_t fixed;

	(void)state;
	assert_non_null(big);
	assert_non_null(buf);
	fixed = need(f); /* with an empty message (its NUL included) */
	memset(big, 'm', SBX_REC_MAX);
	big[SBX_REC_MAX - fixed] = '\0';
	f[SBX_REC_MSG] = big;
	assert_int_equal(sbx_rec_encode(buf, SBX_REC_MAX, f), SBX_REC_MAX);
	roundtrip_check(buf, SBX_REC_MAX, f);
	big[SBX_REC_MAX - fixed] = 'm';
	big[SBX_REC_MAX - fixed + 1] = '\0';
	assert_int_equal(sbx_rec_encode(buf, SBX_REC_MAX, f), 0);
	free(big);
	free(buf);
}

struct bad {
	const char *bytes;
	size_t len;
};

static void test_malformed(void **state)
{
	static const struct bad rows[] = {
		{ "", 0 }, /* empty datagram */
		{ "write", 5 }, /* one field, no NUL */
		{ "write\0", 6 }, /* one field */
		{ "a\0b\0c\0d\0e\0f\0", 12 }, /* six fields */
		{ "a\0b\0c\0d\0e\0f\0g", 13 }, /* last not terminated */
		{ "a\0b\0c\0d\0e\0f\0g\0\0", 15 }, /* eight fields */
		{ "a\0b\0c\0d\0e\0f\0g\0trailing", 22 },
		{ "\0\0\0\0\0\0", 6 }, /* six empty fields */
		{ "\0\0\0\0\0\0\0\0", 8 }, /* eight empty fields */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *buf = malloc(rows[i].len + 1);
		const char *f[SBX_REC_NFIELDS];

		assert_non_null(buf);
		memcpy(buf, rows[i].bytes, rows[i].len);
		if (sbx_rec_decode(buf, rows[i].len, f) != -1)
			fail_msg("malformed row %zu accepted", i);
		free(buf);
	}
	{
		/* exactly seven fields, the shortest valid record */
		char *buf = malloc(8);
		const char *f[SBX_REC_NFIELDS];

		assert_non_null(buf);
		memcpy(buf, "\0\0\0\0\0\0\0", 7);
		assert_int_equal(sbx_rec_decode(buf, 7, f), 0);
		free(buf);
	}
}

/* Random datagrams: decode never reads past buf[len] and, when it
 * accepts, re-encoding gives the same bytes back. */
static void test_random_decode(void **state)
{
	unsigned seed = 12345;

	(void)state;
	for (int iter = 0; iter < 20000; iter++) {
		size_t len = (size_t)(rand_r(&seed) % 64);
		char *buf = malloc(len + 1), *re = malloc(len + 1);
		const char *f[SBX_REC_NFIELDS];

		assert_non_null(buf);
		assert_non_null(re);
		for (size_t i = 0; i < len; i++) {
			int r = rand_r(&seed) % 4;

			buf[i] = r == 0 ? '\0' : (char)('a' + r);
		}
		if (sbx_rec_decode(buf, len, f) == 0) {
			assert_int_equal(sbx_rec_encode(re, len + 1, f), len);
			assert_memory_equal(re, buf, len);
		}
		free(buf);
		free(re);
	}
}

/* Names shown to a terminal (W-05) and pasted into a shell (W-06). */
static void test_shown_names(void **state)
{
	static const struct {
		const char *in, *q, *sh;
	} c[] = {
		{ "/home/a/x.txt", "/home/a/x.txt", "/home/a/x.txt" },
		{ "/h/a;id", "/h/a;id", "'/h/a;id'" },
		{ "/h/q'x", "/h/q'x", "'/h/q'\\''x'" },
		{ "/h/\033]0;T\007", "/h/?]0;T?", "$'/h/\\x1b]0;T\\x07'" },
		{ "/h/n\nl'\\", "/h/n?l'\\", "$'/h/n\\x0al\\'\\\\'" },
		{ "/h/\xc2\x9b"
		  "2J",
		  "/h/?2J", "$'/h/\\xc2\\x9b2J'" },
		{ "/h/\xe2\x80\xae"
		  "evil",
		  "/h/?evil", "$'/h/\\xe2\\x80\\xaeevil'" },
		{ "/h/caf\xc3\xa9", "/h/caf\xc3\xa9", "'/h/caf\xc3\xa9'" },
		{ "/h/\xff\xc3", "/h/??", "$'/h/\\xff\\xc3'" },
		{ "/h/\xe0\x80\x80", "/h/???", "$'/h/\\xe0\\x80\\x80'" },
		{ "", "", "''" },
	};
	char mem[256], cl[256];
	struct sb b;

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		sb_init(&b, mem, sizeof(mem));
		sb_putq(&b, c[i].in);
		assert_string_equal(mem, c[i].q);
		snprintf(cl, sizeof(cl), "%s", c[i].in);
		assert_string_equal(sb_clean(cl), c[i].q);
		sb_init(&b, mem, sizeof(mem));
		sb_putsh(&b, c[i].in);
		assert_string_equal(mem, c[i].sh);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_shown_names),
		cmocka_unit_test(test_null_and_empty_fields),
		cmocka_unit_test(test_awkward_bytes),
		cmocka_unit_test(test_size_boundary),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_random_decode),
	};

	return cmocka_run_group_tests_name("record", tests, NULL, NULL);
}
