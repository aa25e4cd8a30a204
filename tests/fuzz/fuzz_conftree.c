/*
 * fuzz_conftree.c - libFuzzer target: bytes -> a kept conf tree blob
 * (launcher/lib/conftree.c, issue 17) -> sbx_ct_load, then every node
 * walked (names, strings, children, parents).
 *
 * The input's own key is the one asked for and its checksum is made to
 * match before loading, as a writer of the state directory could do, so
 * the structural checks are what is fuzzed: whatever they accept must be
 * a tree whose every pointer stays inside it (ASan, UBSan).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "conftree.h"

#define HDR 40 /* conftree.c: magic[8], nnodes, strbytes, key[16], check */

static size_t walk(const struct sbx_ctn *n, int depth)
{
	size_t sum = (n->name ? strlen(n->name) : 0) +
		     (n->str ? strlen(n->str) : 0) + (size_t)n->type +
		     (size_t)n->line + (n->file ? 1 : 0);

	if (depth > 10000)
		abort(); /* children come after their parent: no cycle */
	for (int i = 0; i < n->n; i++) {
		const struct sbx_ctn *k = sbx_ct_elem(n, i);

		if (!k || k->parent != n)
			abort();
		if (k->name)
			(void)sbx_ct_member(n, k->name);
		sum += walk(k, depth + 1);
	}
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char key[16];
	struct sbx_ct t;
	char *blob;

	if (size < HDR || size > (1u << 20))
		return 0;
	blob = malloc(size);
	if (!blob)
		return 0;
	memcpy(blob, data, size);
	memcpy(key, blob + 16, sizeof(key));
	{
		uint64_t h = XXH3_64bits(blob + HDR, size - HDR);

		memcpy(blob + 32, &h, sizeof(h));
	}
	if (sbx_ct_load(&t, blob, size, key, "fuzz.conf") == 0) { /* owns */
		volatile size_t s = walk(sbx_ct_root(&t), 0);

		(void)s;
		sbx_ct_free(&t);
	}
	return 0;
}
