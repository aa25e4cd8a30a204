/*
 * conftree.c - see conftree.h.  A fresh parse is turned into the blob
 * first and read back through the same checks as a kept one, so both
 * take one path to the tree conf.c applies.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "conftree.h"

#define CT_MAGIC "sbxct01"
#define CT_NONE 0xffffffffu
#define CT_MAX_NODES (1u << 22)
#define CT_STR2(x) #x
#define CT_STR(x) CT_STR2(x)
#define CT_LIBCONFIG                \
	CT_STR(LIBCONFIG_VER_MAJOR) \
	"." CT_STR(LIBCONFIG_VER_MINOR) "." CT_STR(LIBCONFIG_VER_REVISION)

struct ct_hdr {
	char magic[8];
	uint32_t nnodes, strbytes;
	unsigned char key[16];
	uint64_t check; /* XXH3-64 of what follows the header */
};

struct ct_rec {
	uint32_t name, str, parent, first, n, type, line, pad;
	int64_t ival;
};

void sbx_ct_key(const char *text, uint64_t build, unsigned char key[16])
{
	static const char ver[] = CT_MAGIC "/libconfig " CT_LIBCONFIG;
	XXH128_hash_t h = XXH3_128bits_withSeed(
		text, strlen(text),
		XXH3_64bits_withSeed(ver, sizeof(ver), build));

	XXH128_canonicalFromHash((XXH128_canonical_t *)key, h);
}

/* ------------------------------------------------------------ building */

struct build {
	struct ct_rec *rec;
	char *strs;
	uint32_t nodes, next, soff;
};

static void count(const config_setting_t *s, struct build *b)
{
	const char *v = config_setting_name(s);
	int n = config_setting_is_aggregate(s) ? config_setting_length(s) : 0;

	b->nodes++;
	b->soff += v ? (uint32_t)strlen(v) + 1 : 0;
	if (config_setting_type(s) == CONFIG_TYPE_STRING)
		b->soff += (uint32_t)strlen(config_setting_get_string(s)) + 1;
	for (int i = 0; i < n; i++)
		count(config_setting_get_elem(s, (unsigned)i), b);
}

static uint32_t put_str(struct build *b, const char *v)
{
	uint32_t at = b->soff;
	size_t n;

	if (!v)
		return CT_NONE;
	n = strlen(v) + 1;
	memcpy(b->strs + at, v, n);
	b->soff += (uint32_t)n;
	return at;
}

/* s at index i: its children get the next free indexes, together. */
static void place(const config_setting_t *s, uint32_t i, uint32_t parent,
		  struct build *b)
{
	struct ct_rec *r = &b->rec[i];
	int n = config_setting_is_aggregate(s) ? config_setting_length(s) : 0;

	r->type = (uint32_t)config_setting_type(s);
	r->line = (uint32_t)config_setting_source_line(s);
	r->parent = parent;
	r->name = put_str(b, config_setting_name(s));
	r->str = r->type == CONFIG_TYPE_STRING
			 ? put_str(b, config_setting_get_string(s))
			 : CT_NONE;
	if (r->type == CONFIG_TYPE_INT || r->type == CONFIG_TYPE_INT64)
		r->ival = config_setting_get_int64(s);
	else if (r->type == CONFIG_TYPE_BOOL)
		r->ival = config_setting_get_bool(s);
	r->first = n ? b->next : CT_NONE;
	r->n = (uint32_t)n;
	b->next += (uint32_t)n;
	for (int k = 0; k < n; k++)
		place(config_setting_get_elem(s, (unsigned)k), r->first + k, i,
		      b);
}

int sbx_ct_from_config(struct sbx_ct *t, const config_t *c,
		       const unsigned char key[16], const char *file)
{
	const config_setting_t *root = config_root_setting(c);
	struct build b = { 0 };
	struct ct_hdr *h;
	size_t len;
	char *blob;

	count(root, &b);
	len = sizeof(*h) + b.nodes * sizeof(struct ct_rec) + b.soff;
	blob = calloc(1, len);
	if (!blob)
		return -1;
	h = (struct ct_hdr *)blob;
	b.rec = (struct ct_rec *)(h + 1);
	b.strs = (char *)(b.rec + b.nodes);
	memcpy(h->magic, CT_MAGIC, sizeof(h->magic));
	memcpy(h->key, key, sizeof(h->key));
	h->nnodes = b.nodes;
	h->strbytes = b.soff;
	b.soff = 0;
	b.next = 1;
	place(root, 0, CT_NONE, &b);
	h->check = XXH3_64bits(h + 1, len - sizeof(*h));
	return sbx_ct_load(t, blob, len, key, file);
}

/* ------------------------------------------------------------ reading */

static int type_ok(uint32_t t)
{
	return t == CONFIG_TYPE_GROUP || t == CONFIG_TYPE_INT ||
	       t == CONFIG_TYPE_INT64 || t == CONFIG_TYPE_FLOAT ||
	       t == CONFIG_TYPE_STRING || t == CONFIG_TYPE_BOOL ||
	       t == CONFIG_TYPE_ARRAY || t == CONFIG_TYPE_LIST;
}

static int aggregate(uint32_t t)
{
	return t == CONFIG_TYPE_GROUP || t == CONFIG_TYPE_ARRAY ||
	       t == CONFIG_TYPE_LIST;
}

/* Record i is well formed against the blob's sizes and its parent. */
static int rec_ok(const struct ct_rec *rec, uint32_t i, uint32_t nn,
		  uint32_t sb)
{
	const struct ct_rec *r = &rec[i], *p;

	if (!type_ok(r->type) || (r->name != CT_NONE && r->name >= sb) ||
	    (r->str != CT_NONE && r->str >= sb) ||
	    ((r->type == CONFIG_TYPE_STRING) != (r->str != CT_NONE)))
		return 0;
	if (!i) /* the root: a group, no parent, no name */
		return r->type == CONFIG_TYPE_GROUP && r->parent == CT_NONE &&
		       r->name == CT_NONE;
	/* a parent comes first and lists i among its children; a group's
	 * members have names, list and array elements none */
	if (r->parent >= i)
		return 0;
	p = &rec[r->parent];
	if (!aggregate(p->type) || p->first == CT_NONE || i < p->first ||
	    i - p->first >= p->n ||
	    (p->type == CONFIG_TYPE_GROUP) != (r->name != CT_NONE))
		return 0;
	if (r->n == 0)
		return r->first == CT_NONE;
	return aggregate(r->type) && r->first != CT_NONE && r->first > i &&
	       r->first < nn && r->n <= nn - r->first;
}

static int blob_ok(const char *blob, size_t len, const unsigned char key[16])
{
	const struct ct_hdr *h = (const void *)blob;
	const struct ct_rec *rec = (const void *)(h + 1);
	const char *strs;

	if (len < sizeof(*h) || memcmp(h->magic, CT_MAGIC, sizeof(h->magic)) ||
	    memcmp(h->key, key, sizeof(h->key)) || h->nnodes == 0 ||
	    h->nnodes > CT_MAX_NODES || h->strbytes > len ||
	    len != sizeof(*h) + (size_t)h->nnodes * sizeof(*rec) +
			    h->strbytes ||
	    h->check != XXH3_64bits(h + 1, len - sizeof(*h)))
		return 0;
	strs = (const char *)(rec + h->nnodes);
	if (h->strbytes && strs[h->strbytes - 1] != '\0')
		return 0; /* every string ends inside the blob */
	if (rec[0].n && rec[0].first != 1)
		return 0;
	for (uint32_t i = 0; i < h->nnodes; i++)
		if (!rec_ok(rec, i, h->nnodes, h->strbytes))
			return 0;
	/* each child's parent is the node whose range holds it */
	for (uint32_t i = 0; i < h->nnodes; i++)
		for (uint32_t k = 0; k < rec[i].n; k++)
			if (rec[rec[i].first + k].parent != i)
				return 0;
	return 1;
}

int sbx_ct_load(struct sbx_ct *t, char *blob, size_t len,
		const unsigned char key[16], const char *file)
{
	const struct ct_hdr *h = (const void *)blob;
	const struct ct_rec *rec = (const void *)(h + 1);
	const char *strs;

	memset(t, 0, sizeof(*t));
	if (!blob_ok(blob, len, key) ||
	    !(t->nodes = calloc(h->nnodes, sizeof(*t->nodes)))) {
		free(blob);
		errno = EINVAL;
		return -1;
	}
	strs = (const char *)(rec + h->nnodes);
	for (uint32_t i = 0; i < h->nnodes; i++) {
		struct sbx_ctn *d = &t->nodes[i];
		const struct ct_rec *r = &rec[i];

		d->name = r->name == CT_NONE ? NULL : strs + r->name;
		d->str = r->str == CT_NONE ? NULL : strs + r->str;
		d->file = file;
		d->parent = i ? &t->nodes[r->parent] : NULL;
		d->kids = r->n ? &t->nodes[r->first] : NULL;
		d->ival = r->ival;
		d->type = (int)r->type;
		d->line = (int)r->line;
		d->n = (int)r->n;
	}
	t->blob = blob;
	t->blob_len = len;
	return 0;
}

void sbx_ct_free(struct sbx_ct *t)
{
	free(t->nodes);
	free(t->blob);
	memset(t, 0, sizeof(*t));
}

const struct sbx_ctn *sbx_ct_elem(const struct sbx_ctn *s, int i)
{
	return s && i >= 0 && i < s->n ? &s->kids[i] : NULL;
}

const struct sbx_ctn *sbx_ct_member(const struct sbx_ctn *s, const char *name)
{
	if (!s || s->type != CONFIG_TYPE_GROUP)
		return NULL;
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->kids[i].name, name))
			return &s->kids[i];
	return NULL;
}
