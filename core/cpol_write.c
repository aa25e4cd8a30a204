/*
 * cpol_write.c - compile an in-memory policy into the flat buffer the shim
 * reads (format in cpol.h).  Rules are sorted longest root first, and at
 * equal length strongest mode first, so the reader's first match is the
 * deciding rule.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "cpol.h"

/* The string table, each distinct string stored once (a policy names the
 * same conf file in every rule it made, and a hidden name under every
 * home): the shim reads the whole file in every process it starts,
 * so every byte saved here is saved in each of them.  set: an
 * open-addressed set of the offsets stored, keyed by the string. */
struct strtab {
	char *buf;
	size_t len, cap;
	uint32_t *set;
	size_t nset, setcap; /* setcap: a power of two, or 0 */
	int oom;
};

static size_t st_slot(const struct strtab *t, const char *s, size_t n)
{
	size_t i = (size_t)XXH3_64bits(s, n) & (t->setcap - 1);

	while (t->set[i] && strcmp(t->buf + t->set[i], s) != 0)
		i = (i + 1) & (t->setcap - 1);
	return i;
}

/* Keep the set at most half full. */
static int st_grow_set(struct strtab *t)
{
	size_t oc = t->setcap, nc = oc ? oc * 2 : 256;
	uint32_t *os = t->set, *ns = calloc(nc, sizeof(*ns));

	if (!ns)
		return -1;
	t->set = ns;
	t->setcap = nc;
	for (size_t i = 0; i < oc; i++)
		if (os[i]) {
			const char *s = t->buf + os[i];

			ns[st_slot(t, s, strlen(s))] = os[i];
		}
	free(os);
	return 0;
}

/* Append s (NUL-terminated) unless stored already and return its offset;
 * 0 is the empty string. */
static uint32_t st_add(struct strtab *t, const char *s)
{
	size_t n, slot;

	if (!s || !*s || t->oom)
		return 0;
	n = strlen(s);
	if ((t->nset + 1) * 2 > t->setcap && st_grow_set(t) < 0) {
		t->oom = 1;
		return 0;
	}
	slot = st_slot(t, s, n);
	if (t->set[slot])
		return t->set[slot];
	n++;
	if (t->len + n > t->cap) {
		size_t nc = (t->cap + n) * 2;
		char *nb = realloc(t->buf, nc);

		if (!nb) {
			t->oom = 1;
			return 0;
		}
		t->buf = nb;
		t->cap = nc;
	}
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->set[slot] = (uint32_t)(t->len - n);
	t->nset++;
	return (uint32_t)(t->len - n);
}

static int rule_order(const void *a, const void *b)
{
	const struct sbx_path_rule *x = *(const struct sbx_path_rule *const *)a;
	const struct sbx_path_rule *y = *(const struct sbx_path_rule *const *)b;

	if (x->rootlen != y->rootlen)
		return x->rootlen > y->rootlen ? -1 : 1;
	return (int)y->mode - (int)x->mode;
}

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* Add a hide rule's last component to the filter; "/" (no last
 * component) fills it. */
static void bloom_hide_root(uint64_t *bloom, const char *root)
{
	const char *base = strrchr(root, '/');

	base = base ? base + 1 : root;
	if (!*base) {
		memset(bloom, 0xff, SBX_CPOL_BLOOM_WORDS * sizeof(*bloom));
		return;
	}
	sbx_cpol_bloom_add(bloom, sbx_cpol_name_hash(base, strlen(base)));
}

/* The rules in the reader's order; their suffixes end to end in sfx. */
static int fill_rules(const struct sbx_policy *p, struct sbx_cpol_rule *out,
		      uint32_t *sfx, uint64_t *bloom, struct strtab *st,
		      unsigned *flags)
{
	const struct sbx_path_rule **v = calloc(p->nrules + 1, sizeof(*v));
	uint32_t nsfx = 0;

	if (!v)
		return -1;
	for (size_t i = 0; i < p->nrules; i++)
		v[i] = &p->rules[i];
	qsort(v, p->nrules, sizeof(*v), rule_order);
	for (size_t i = 0; i < p->nrules; i++) {
		const struct sbx_path_rule *r = v[i];
		struct sbx_cpol_rule *c = &out[i];

		c->root = st_add(st, r->root);
		c->rootlen = (uint16_t)r->rootlen;
		c->mode = (uint8_t)r->mode;
		c->flags = r->flags;
		c->nsuffixes = (uint8_t)r->nsuffixes;
		c->suffixes = nsfx;
		for (size_t j = 0; j < r->nsuffixes; j++)
			sfx[nsfx++] = st_add(st, r->suffixes[j]);
		c->max_file_bytes = r->max_file_bytes;
		c->src_file = st_add(st, r->src.file);
		c->src_line = (uint32_t)(r->src.line > 0 ? r->src.line : 0);
		if (r->nsuffixes || r->max_file_bytes)
			*flags |= SBX_CPOL_F_APPRULES;
		if (r->mode == SBX_HIDE)
			bloom_hide_root(bloom, r->root);
	}
	free(v);
	return 0;
}

static void fill_exec(const struct sbx_policy *p, struct sbx_cpol_exec *out,
		      struct strtab *st)
{
	for (size_t i = 0; i < p->nexec; i++) {
		const struct sbx_exec_rule *e = &p->exec[i];

		out[i].program = st_add(st, e->program);
		out[i].nargs = (uint32_t)e->nargs;
		for (size_t j = 0; j < e->nargs; j++)
			out[i].args[j] = st_add(st, e->args[j]);
		out[i].reason = st_add(st, e->reason);
		out[i].src_file = st_add(st, e->src.file);
		out[i].src_line = (uint32_t)(e->src.line > 0 ? e->src.line : 0);
	}
}

static void fill_allow(const struct sbx_policy *p, struct sbx_cpol_allow *out,
		       uint32_t *sock, struct strtab *st)
{
	for (size_t i = 0; i < p->nallow; i++) {
		out[i].text = st_add(st, p->allow[i].text);
		out[i].host = st_add(st, p->allow[i].host);
		out[i].is_cidr = (uint32_t)p->allow[i].is_cidr;
		out[i].prefix = (uint32_t)p->allow[i].prefix;
		out[i].port = p->allow[i].port;
		out[i].preset = st_add(st, p->allow[i].preset);
		out[i].src_file = st_add(st, p->allow[i].src.file);
		out[i].src_line = (uint32_t)(p->allow[i].src.line > 0
						     ? p->allow[i].src.line
						     : 0);
	}
	for (size_t i = 0; i < p->unix_sockets.n; i++)
		sock[i] = st_add(st, p->unix_sockets.v[i]);
}

static int too_big(const struct sbx_policy *p, size_t *nsfx,
		   struct sbx_err *err)
{
	*nsfx = 0;
	for (size_t i = 0; i < p->nrules; i++) {
		if (p->rules[i].rootlen > SBX_CPOL_MAX_ROOTLEN) {
			sbx_errf(err, 0,
				 "policy too large to compile "
				 "(a path of more than %u bytes)",
				 SBX_CPOL_MAX_ROOTLEN);
			return 1;
		}
		*nsfx += p->rules[i].nsuffixes;
	}
	if (p->nrules <= SBX_CPOL_MAX_RULES && p->nexec <= SBX_CPOL_MAX_EXEC &&
	    p->nallow <= SBX_CPOL_MAX_ALLOW &&
	    p->unix_sockets.n <= SBX_CPOL_MAX_SOCK)
		return 0;
	sbx_errf(err, 0,
		 "policy too large to compile "
		 "(at most %u path rules, %u exec rules, %u allow entries)",
		 SBX_CPOL_MAX_RULES, SBX_CPOL_MAX_EXEC, SBX_CPOL_MAX_ALLOW);
	return 1;
}

/* The sections' counts and offsets in h; returns where the string table
 * starts. */
static size_t layout(const struct sbx_policy *p, size_t nsfx,
		     struct sbx_cpol_hdr *h)
{
	h->off_rules = (uint32_t)align8(sizeof(*h));
	h->nrules = (uint32_t)p->nrules;
	h->off_exec = (uint32_t)align8(
		h->off_rules + p->nrules * sizeof(struct sbx_cpol_rule));
	h->nexec = (uint32_t)p->nexec;
	h->off_allow = (uint32_t)align8(
		h->off_exec + p->nexec * sizeof(struct sbx_cpol_exec));
	h->nallow = (uint32_t)p->nallow;
	h->off_sock = (uint32_t)align8(
		h->off_allow + p->nallow * sizeof(struct sbx_cpol_allow));
	h->nsock = (uint32_t)p->unix_sockets.n;
	h->off_sfx = (uint32_t)align8(h->off_sock +
				      p->unix_sockets.n * sizeof(uint32_t));
	h->nsfx = (uint32_t)nsfx;
	h->off_bloom = (uint32_t)align8(h->off_sfx + nsfx * sizeof(uint32_t));
	return h->off_bloom + SBX_CPOL_BLOOM_WORDS * sizeof(uint64_t);
}

int sbx_cpol_build(const struct sbx_policy *p, enum sbx_kmode kmode,
		   unsigned flags, void **bufp, size_t *lenp,
		   struct sbx_err *err)
{
	struct sbx_cpol_hdr h = { .magic = SBX_CPOL_MAGIC };
	struct strtab st = { 0 };
	size_t off, total, nsfx;
	unsigned char *buf;

	if (too_big(p, &nsfx, err))
		return -1;
	off = layout(p, nsfx, &h);
	buf = calloc(1, off);
	st.buf = calloc(1, 256); /* offset 0 is the empty string */
	st.cap = 256;
	st.len = 1;
	if (!buf || !st.buf)
		goto oom;
	if (fill_rules(p, (void *)(buf + h.off_rules),
		       (void *)(buf + h.off_sfx), (void *)(buf + h.off_bloom),
		       &st, &flags) < 0)
		goto oom;
	fill_exec(p, (void *)(buf + h.off_exec), &st);
	fill_allow(p, (void *)(buf + h.off_allow), (void *)(buf + h.off_sock),
		   &st);
	h.project = st_add(&st, p->project);
	h.home = st_add(&st, p->home);
	h.profile = st_add(&st, p->profile);
	h.net_src_file = st_add(&st, p->net_src.file);
	h.net_src_line = (uint32_t)(p->net_src.line > 0 ? p->net_src.line : 0);
	total = off + st.len;
	if (st.oom)
		goto oom;
	if (total > SBX_CPOL_MAX_BYTES) {
		sbx_errf(err, 0, "policy too large to compile");
		goto fail;
	}
	h.off_strings = (uint32_t)off;
	h.len_strings = (uint32_t)st.len;
	h.size = (uint32_t)total;
	h.version = SBX_CPOL_VERSION;
	h.flags = flags | (p->quiet ? SBX_CPOL_F_QUIET : 0) |
		  (p->explain_to_report_only ? SBX_CPOL_F_REPORT_ONLY : 0) |
		  (p->redirect_caches && p->cache_dir ? SBX_CPOL_F_CACHES : 0);
	h.net = p->net;
	h.kmode = kmode;
	h.fsize_limit = p->limits.fsize;
	{
		unsigned char *nb = realloc(buf, total);

		if (!nb)
			goto oom;
		buf = nb;
	}
	memcpy(buf + off, st.buf, st.len);
	free(st.set);
	memcpy(buf, &h, sizeof(h));
	free(st.buf);
	*bufp = buf;
	*lenp = total;
	return 0;
oom:
	sbx_errf(err, 0, "out of memory");
fail:
	free(buf);
	free(st.buf);
	free(st.set);
	return -1;
}
