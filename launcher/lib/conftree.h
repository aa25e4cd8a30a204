/*
 * conftree.h - a conf file's settings as libconfig parsed them, in a flat
 * form that conf.c applies and that can be kept (confcache.c, issue 17).
 *
 * libconfig's parse (the lexer, the setting tree, its destruction) was a
 * third of the launcher's instructions.  The tree it makes depends on the
 * conf's bytes alone, so it is kept by their hash: a later run that reads
 * the same bytes (from the same file name) takes the tree back instead of
 * parsing them again.  Applying the tree to the policy (path resolution,
 * links, the rules' merge) is done on every run, as before.
 *
 * A kept tree is a blob: a header, the nodes, then the strings.  Every
 * node's children are contiguous and come after it; sbx_ct_load() checks
 * all of that (sizes, offsets, types, parent links, the checksum) and
 * refuses anything else, so a corrupt or foreign blob is parsed anew.
 */
#ifndef SBX_CONFTREE_H
#define SBX_CONFTREE_H

#include <libconfig.h>
#include <stddef.h>
#include <stdint.h>

/* One setting.  type is libconfig's CONFIG_TYPE_*; name is NULL for the
 * root and for list and array elements; str is set for strings only. */
struct sbx_ctn {
	const char *name;
	const char *str;
	const char *file; /* the conf's name, for file:line */
	const struct sbx_ctn *parent;
	const struct sbx_ctn *kids;
	long long ival; /* integers and booleans */
	int type;
	int line;
	int n; /* children */
};

struct sbx_ct {
	struct sbx_ctn *nodes; /* nodes[0]: the root group */
	char *blob; /* header, nodes and strings: what is kept */
	size_t blob_len;
};

/* The tree of a parsed config_t, its blob keyed by key (sbx_ct_key of
 * the bytes parsed); file must outlive the tree. */
int sbx_ct_from_config(struct sbx_ct *t, const config_t *c,
		       const unsigned char key[16], const char *file);
/* The tree of a kept blob (taken over: freed with the tree) for the bytes
 * whose key is key; -1 (blob freed) when it is not a valid one. */
int sbx_ct_load(struct sbx_ct *t, char *blob, size_t len,
		const unsigned char key[16], const char *file);
/* The key of a conf's bytes: XXH3-128 of them, of the format's and
 * libconfig's versions and of build, the identity of the program or
 * library that parses (confcache.c): the parse's inputs. */
void sbx_ct_key(const char *text, uint64_t build, unsigned char key[16]);
void sbx_ct_free(struct sbx_ct *t);

static inline const struct sbx_ctn *sbx_ct_root(const struct sbx_ct *t)
{
	return &t->nodes[0];
}

const struct sbx_ctn *sbx_ct_elem(const struct sbx_ctn *s, int i);
const struct sbx_ctn *sbx_ct_member(const struct sbx_ctn *s, const char *name);

#endif
