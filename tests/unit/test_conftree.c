/*
 * test_conftree.c - the kept conf tree (launcher/lib/conftree.c, issue 17)
 * fails safe: a blob is taken only when every part of it checks out.
 *
 *  - a parse read back from its blob is the same tree (names, types,
 *    values, lines, parents);
 *  - the wrong key, any truncation, any flipped byte: refused;
 *  - blobs whose checksum was made to match (what a writer of the state
 *    directory could do) but whose structure is bad (a parent after its
 *    child, a child outside its parent's range, a string running past the
 *    end, a bad type, a member without a name): refused, never read out
 *    of bounds (run under ASan by make check-asan).
 *
 * The blob's layout is conftree.c's: a 40-byte header (magic[8],
 * nnodes, strbytes, key[16], check = XXH3-64 of the rest), 40-byte
 * records (name, str, parent, first, n, type, line, pad, int64 ival),
 * then the strings.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <libconfig.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "conftree.h"

#define HDR 40
#define REC 40

static const char text[] = "profile = \"default\";\n"
			   "paths = (\n"
			   "  { root = \"~/x\"; mode = \"ro\"; },\n"
			   "  { root = \"/srv\"; mode = \"rw\"; "
			   "max_file_bytes = 4096; }\n"
			   ");\n"
			   "network = { allow = [ \"a.example:443\" ]; };\n"
			   "redirect_caches = true;\n";

/* A fresh blob of text (malloc'd copy) and its key. */
static char *fresh(size_t *len, unsigned char key[16])
{
	config_t c;
	struct sbx_ct t;
	char *copy;

	config_init(&c);
	assert_true(config_read_string(&c, text));
	sbx_ct_key(text, 0, key);
	assert_int_equal(sbx_ct_from_config(&t, &c, key, "t.conf"), 0);
	config_destroy(&c);
	*len = t.blob_len;
	copy = malloc(*len);
	memcpy(copy, t.blob, *len);
	sbx_ct_free(&t);
	return copy;
}

static uint32_t get32(const char *b, size_t off)
{
	uint32_t v;

	memcpy(&v, b + off, 4);
	return v;
}

static void put32(char *b, size_t off, uint32_t v)
{
	memcpy(b + off, &v, 4);
}

/* Make the checksum match again, as a forger would. */
static void reseal(char *b, size_t len)
{
	uint64_t h = XXH3_64bits(b + HDR, len - HDR);

	memcpy(b + 32, &h, 8);
}

/* sbx_ct_load of a copy of b (it takes the blob over): 0 or -1. */
static int load(const char *b, size_t len, const unsigned char key[16])
{
	char *c = malloc(len ? len : 1);
	struct sbx_ct t;
	int r;

	memcpy(c, b, len);
	r = sbx_ct_load(&t, c, len, key, "t.conf");
	if (r == 0)
		sbx_ct_free(&t);
	return r;
}

static void test_round_trip(void **state)
{
	unsigned char key[16];
	size_t len;
	char *b = fresh(&len, key);
	struct sbx_ct t;
	const struct sbx_ctn *r, *paths, *e, *m;

	(void)state;
	assert_int_equal(sbx_ct_load(&t, b, len, key, "t.conf"), 0);
	r = sbx_ct_root(&t);
	assert_int_equal(r->type, CONFIG_TYPE_GROUP);
	assert_int_equal(r->n, 4);
	assert_string_equal(sbx_ct_member(r, "profile")->str, "default");
	paths = sbx_ct_member(r, "paths");
	assert_int_equal(paths->type, CONFIG_TYPE_LIST);
	assert_int_equal(paths->n, 2);
	assert_int_equal(paths->line, 2);
	e = sbx_ct_elem(paths, 1);
	assert_null(e->name);
	assert_ptr_equal(e->parent, paths);
	m = sbx_ct_member(e, "max_file_bytes");
	assert_int_equal(m->type, CONFIG_TYPE_INT);
	assert_int_equal(m->ival, 4096);
	assert_int_equal(m->line, 4);
	assert_string_equal(m->file, "t.conf");
	assert_string_equal(sbx_ct_member(e, "root")->str, "/srv");
	assert_null(sbx_ct_elem(paths, 2));
	assert_null(sbx_ct_member(e, "nope"));
	m = sbx_ct_member(r, "redirect_caches");
	assert_int_equal(m->type, CONFIG_TYPE_BOOL);
	assert_int_equal(m->ival, 1);
	e = sbx_ct_elem(sbx_ct_member(sbx_ct_member(r, "network"), "allow"), 0);
	assert_string_equal(e->str, "a.example:443");
	sbx_ct_free(&t);
}

static void test_damage_refused(void **state)
{
	unsigned char key[16], other[16];
	size_t len;
	char *b = fresh(&len, key);

	(void)state;
	assert_int_equal(load(b, len, key), 0);
	memcpy(other, key, 16);
	other[3] ^= 1;
	assert_int_equal(load(b, len, other), -1); /* a foreign tree */
	for (size_t n = 0; n < len; n++)
		assert_int_equal(load(b, n, key), -1); /* truncated */
	for (size_t i = 0; i < len; i++) {
		b[i] ^= 0x20;
		assert_int_equal(load(b, len, key), -1);
		b[i] ^= 0x20;
	}
	free(b);
}

/* Structure broken under a matching checksum: each edit on a fresh copy. */
static void test_forged_refused(void **state)
{
	unsigned char key[16];
	size_t len;
	char *b0 = fresh(&len, key), *b = malloc(len);
	uint32_t nn = get32(b0, 8), sb = get32(b0, 12);
	size_t strs = HDR + (size_t)nn * REC;
	struct {
		size_t off;
		uint32_t val;
	} edits[] = {
		{ HDR + 1 * REC + 8, 5 }, /* node 1's parent after it */
		{ HDR + 1 * REC + 8, 2 }, /* a parent that is no aggregate */
		{ HDR + 0 * REC + 16,
		  99 }, /* the root's children past the end */
		{ HDR + 0 * REC + 12, 2 }, /* the root's children not at 1 */
		{ HDR + 1 * REC + 20, 77 }, /* a type libconfig has not */
		{ HDR + 1 * REC + 0, 0xffffffffu }, /* a member without name */
		{ HDR + 1 * REC + 4, sb }, /* a string at the end */
		{ HDR + 1 * REC + 4, 0xfffffff0u }, /* far past it */
		{ HDR + 0 * REC + 8, 0 }, /* the root with a parent */
		{ 8, nn + 1 }, /* more nodes than the blob holds */
		{ 8, 0 }, /* none */
		{ 12, sb + 1 }, /* more string bytes */
	};

	(void)state;
	for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
		memcpy(b, b0, len);
		put32(b, edits[i].off, edits[i].val);
		reseal(b, len);
		assert_int_equal(load(b, len, key), -1);
	}
	/* strings that do not end inside the blob */
	memcpy(b, b0, len);
	b[strs + sb - 1] = 'x';
	reseal(b, len);
	assert_int_equal(load(b, len, key), -1);
	/* unchanged but resealed: still good (the edits above are why) */
	memcpy(b, b0, len);
	reseal(b, len);
	assert_int_equal(load(b, len, key), 0);
	free(b);
	free(b0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_damage_refused),
		cmocka_unit_test(test_forged_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
