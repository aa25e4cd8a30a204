/*
 * cpol_read.c - validate and query a compiled policy.  Runs inside every
 * sandboxed process (the shim): no allocation, no system calls, and no
 * byte of the buffer is trusted before sbx_cpol_view() has checked it.
 */
#include <stddef.h>
#include <string.h>

#include "cpol.h"

/* Section [off, off + n * sz) lies inside a buffer of size len. */
static int section_ok(uint32_t off, uint32_t n, size_t sz, size_t len)
{
	uint64_t end = (uint64_t)off + (uint64_t)n * sz;

	return (off & 7) == 0 && off >= sizeof(struct sbx_cpol_hdr) &&
	       end <= len;
}

/* A string offset names a NUL-terminated string inside the table. */
static int str_ok(const struct sbx_cpol *v, uint32_t off)
{
	return off < v->hdr->len_strings;
}

/* Every rule, in every program the shim starts: one pass, few loads.
 * Sorted means the key (root length, then mode) never grows: longest
 * root first, then strongest mode. */
static int rules_ok(const struct sbx_cpol *v)
{
	const struct sbx_cpol_hdr *h = v->hdr;
	const uint32_t len = h->len_strings, nsfx = h->nsfx;
	uint32_t prev = UINT32_MAX;

	for (uint32_t i = 0; i < nsfx; i++)
		if (v->sfx[i] >= len)
			return 0;
	for (uint32_t i = 0; i < h->nrules; i++) {
		const struct sbx_cpol_rule *r = &v->rules[i];
		uint32_t key = (uint32_t)r->rootlen << 8 | r->mode;

		if (r->root >= len || r->src_file >= len ||
		    (unsigned)(r->mode - SBX_RW) > SBX_HIDE - SBX_RW ||
		    r->nsuffixes > SBX_MAX_SUFFIXES ||
		    (uint64_t)r->suffixes + r->nsuffixes > nsfx || key > prev ||
		    v->str[r->root] != '/' ||
		    strlen(v->str + r->root) != r->rootlen)
			return 0;
		prev = key;
	}
	return 1;
}

static int exec_ok(const struct sbx_cpol *v)
{
	for (uint32_t i = 0; i < v->hdr->nexec; i++) {
		const struct sbx_cpol_exec *e = &v->exec[i];

		if (!str_ok(v, e->program) || !str_ok(v, e->reason) ||
		    !str_ok(v, e->src_file) || e->nargs > SBX_MAX_EXEC_ARGS)
			return 0;
		for (uint32_t j = 0; j < e->nargs; j++)
			if (!str_ok(v, e->args[j]))
				return 0;
	}
	for (uint32_t i = 0; i < v->hdr->nallow; i++)
		if (!str_ok(v, v->allow[i].text) ||
		    !str_ok(v, v->allow[i].host) ||
		    !str_ok(v, v->allow[i].preset) ||
		    !str_ok(v, v->allow[i].src_file) ||
		    v->allow[i].port > 65535 || v->allow[i].prefix > 128 ||
		    v->allow[i].is_cidr > 1)
			return 0;
	for (uint32_t i = 0; i < v->hdr->nsock; i++)
		if (!str_ok(v, v->sock[i]))
			return 0;
	return 1;
}

static const char *header_problem(const struct sbx_cpol_hdr *h, size_t len)
{
	if (len < sizeof(*h) || len > SBX_CPOL_MAX_BYTES)
		return "bad size";
	if (memcmp(h->magic, SBX_CPOL_MAGIC, sizeof(h->magic)) != 0)
		return "bad magic";
	if (h->version != SBX_CPOL_VERSION)
		return "unsupported version";
	if (h->size != len)
		return "size mismatch";
	if ((h->flags & ~SBX_CPOL_F_ALL) || h->net > SBX_NET_FILTERED ||
	    h->kmode > SBX_KMODE_LANDLOCK || h->reserved2 != 0)
		return "bad header field";
	if (h->nrules > SBX_CPOL_MAX_RULES || h->nexec > SBX_CPOL_MAX_EXEC ||
	    h->nallow > SBX_CPOL_MAX_ALLOW || h->nsock > SBX_CPOL_MAX_SOCK ||
	    h->nsfx > SBX_CPOL_MAX_SFX)
		return "too many entries";
	if (!section_ok(h->off_rules, h->nrules, sizeof(struct sbx_cpol_rule),
			len) ||
	    !section_ok(h->off_exec, h->nexec, sizeof(struct sbx_cpol_exec),
			len) ||
	    !section_ok(h->off_allow, h->nallow, sizeof(struct sbx_cpol_allow),
			len) ||
	    !section_ok(h->off_sock, h->nsock, sizeof(uint32_t), len) ||
	    !section_ok(h->off_sfx, h->nsfx, sizeof(uint32_t), len) ||
	    !section_ok(h->off_bloom, SBX_CPOL_BLOOM_WORDS, sizeof(uint64_t),
			len) ||
	    h->reserved != 0 ||
	    !section_ok(h->off_strings, h->len_strings, 1, len) ||
	    h->len_strings == 0)
		return "section out of bounds";
	return NULL;
}

int sbx_cpol_view(const void *buf, size_t len, struct sbx_cpol *v,
		  const char **why)
{
	const unsigned char *b = buf;
	const struct sbx_cpol_hdr *h = buf;
	const char *problem;

	memset(v, 0, sizeof(*v));
	if (!buf || ((uintptr_t)buf & 7)) {
		*why = "misaligned buffer";
		return -1;
	}
	problem = header_problem(h, len);
	if (!problem && b[h->off_strings + h->len_strings - 1] != '\0')
		problem = "string table not terminated";
	if (problem) {
		*why = problem;
		return -1;
	}
	v->base = b;
	v->hdr = h;
	v->rules = (const void *)(b + h->off_rules);
	v->exec = (const void *)(b + h->off_exec);
	v->allow = (const void *)(b + h->off_allow);
	v->sock = (const void *)(b + h->off_sock);
	v->sfx = (const void *)(b + h->off_sfx);
	v->bloom = (const void *)(b + h->off_bloom);
	v->str = (const char *)(b + h->off_strings);
	if (!str_ok(v, h->project) || !str_ok(v, h->home) ||
	    !str_ok(v, h->profile) || !str_ok(v, h->net_src_file) ||
	    !rules_ok(v) || !exec_ok(v)) {
		memset(v, 0, sizeof(*v));
		*why = "bad entry";
		return -1;
	}
	return 0;
}

/* The first rule whose root is no longer than n: the rules are sorted
 * longest root first (checked by rules_ok()). */
static uint32_t first_fitting(const struct sbx_cpol *v, size_t n)
{
	uint32_t lo = 0, hi = v->hdr->nrules;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (v->rules[mid].rootlen > n)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Every decision walks the rules (hundreds: every hidden name under every
 * home), so a rule is compared only when path can hold it: at least as
 * long as its root (a binary search skips the longer ones) and with a
 * component boundary where the root ends.  Exact: a validated root has
 * no NUL inside, so a shorter path never matches, and sbx_path_within()
 * wants that boundary too.
 */
const struct sbx_cpol_rule *sbx_cpol_match(const struct sbx_cpol *v,
					   const char *path)
{
	size_t n;

	if (!v->hdr)
		return NULL;
	n = strlen(path);
	for (uint32_t i = first_fitting(v, n); i < v->hdr->nrules; i++) {
		const struct sbx_cpol_rule *r = &v->rules[i];

		if (r->rootlen != 1 && path[r->rootlen] != '/' &&
		    path[r->rootlen] != '\0')
			continue;
		if (sbx_path_within(path, v->str + r->root, r->rootlen))
			return r;
	}
	return NULL;
}
