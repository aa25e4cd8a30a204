/*
 * explain.c - the one explanation format (see explain.h).  Everything
 * goes through the bounded builder of sb.h: no stdio, no allocation, so
 * the shim can build these lines inside a hook.
 */
#include <string.h>
#include <sys/socket.h>

#include "explain.h"

#define WRITABLE_SHOWN 5
#define ALLOW_SHOWN 8

static const char *str(const struct sbx_cpol *v, uint32_t off)
{
	return sbx_cpol_str(v, off);
}

const char *sbx_op_word(enum sbx_op op)
{
	return op == SBX_OP_WRITE  ? "write"
	       : op == SBX_OP_EXEC ? "run"
				   : "read";
}

const char *sbx_verdict_kind(enum sbx_verdict v)
{
	switch (v) {
	case SBX_DENY_HIDDEN: return "hidden";
	case SBX_DENY_READONLY: return "read-only";
	case SBX_DENY_SUFFIX: return "suffix";
	case SBX_DENY_SIZE: return "size";
	case SBX_DENY_NOTCOVERED: return "not-covered";
	case SBX_ALLOW: break;
	}
	return "";
}

/* ------------------------------------------------------------ pieces */

void sbx_put_src(struct sb *b, const char *file, uint32_t line)
{
	sb_putq(b, file && *file ? file : "built-in");
	if (file && *file && line) {
		sb_putc(b, ':');
		sb_putu(b, line);
	}
}

void sbx_src_format(char *buf, size_t sz, struct sbx_src src)
{
	struct sb b;

	sb_init(&b, buf, sz);
	sbx_put_src(&b, src.file, src.line > 0 ? (uint32_t)src.line : 0);
}

/* A root as people write it: "~/.ssh" under the home directory. */
static void put_root(struct sb *b, const struct sbx_cpol *v, const char *root)
{
	const char *home = str(v, v->hdr->home);
	size_t hl = strlen(home);

	if (hl > 1 && strncmp(root, home, hl) == 0 &&
	    (root[hl] == '/' || root[hl] == '\0')) {
		sb_putc(b, '~');
		sb_putq(b, root + hl);
		return;
	}
	sb_putq(b, root);
}

/* "rule ROOT from FILE:LINE" */
static void put_rule(struct sb *b, const struct sbx_cpol *v,
		     const struct sbx_cpol_rule *r)
{
	sb_put(b, "rule ");
	put_root(b, v, str(v, r->root));
	sb_put(b, " from ");
	sbx_put_src(b, str(v, r->src_file), r->src_line);
}

static int is_writable(const struct sbx_cpol_rule *r)
{
	return r->mode == SBX_RW && !(r->flags & SBX_RF_PROTECT);
}

/* A writable root inside another writable root adds nothing to the list
 * (notes/ inside the project); the project itself is always listed. */
static int inside_writable(const struct sbx_cpol *v,
			   const struct sbx_cpol_rule *r)
{
	for (uint32_t i = 0; i < v->hdr->nrules; i++) {
		const struct sbx_cpol_rule *o = &v->rules[i];

		if (o != r && is_writable(o) && o->rootlen < r->rootlen &&
		    sbx_path_within(str(v, r->root), str(v, o->root),
				    o->rootlen))
			return 1;
	}
	return 0;
}

/* "writable: ROOT, ROOT", the project first, at most WRITABLE_SHOWN. */
static void put_writable(struct sb *b, const struct sbx_cpol *v)
{
	unsigned shown = 0;

	sb_put(b, "writable: ");
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < v->hdr->nrules; i++) {
			const struct sbx_cpol_rule *r = &v->rules[i];
			int project = (r->flags & SBX_RF_PROJECT) != 0;

			if (!is_writable(r) || project != (pass == 0) ||
			    (!project && inside_writable(v, r)))
				continue;
			if (shown++ == WRITABLE_SHOWN) {
				sb_put(b, ", ...");
				return;
			}
			if (shown > 1)
				sb_put(b, ", ");
			sb_putq(b, str(v, r->root));
		}
	}
	if (!shown)
		sb_put(b, "none");
}

static void put_suffixes(struct sb *b, const struct sbx_cpol *v,
			 const struct sbx_cpol_rule *r)
{
	sb_put(b, "allowed: ");
	for (uint32_t i = 0; i < r->nsuffixes; i++) {
		if (i)
			sb_put(b, ", ");
		sb_putq(b, str(v, r->suffixes[i]));
	}
}

/* "suffix '.exe' not allowed", or for a name without a dot "no allowed
 * suffix in 'Makefile'". */
static void put_bad_suffix(struct sb *b, const char *abs)
{
	const char *base = sbx_basename(abs);
	const char *dot = strrchr(base, '.');

	if (dot && dot != base) {
		sb_put(b, "suffix '");
		sb_putq(b, dot);
		sb_put(b, "' not allowed");
	} else {
		sb_put(b, "no allowed suffix in '");
		sb_putq(b, base);
		sb_putc(b, '\'');
	}
}

static void put_fix(struct sb *b, const char *flag, const char *arg)
{
	sb_put(b, "; to allow: sbxrun ");
	sb_put(b, flag);
	sb_putq(b, arg);
}

static void expl_init(struct sbx_expl *e, struct sb *b, const char *op,
		      const char *kind, const char *rule)
{
	e->op = op;
	e->kind = kind;
	e->rule = rule;
	e->src[0] = '\0';
	sb_init(b, e->msg, sizeof(e->msg));
}

static void set_src(struct sbx_expl *e, const char *file, uint32_t line)
{
	struct sb s;

	sb_init(&s, e->src, sizeof(e->src));
	sbx_put_src(&s, file, line);
}

/* ------------------------------------------------------------ paths */

/* "REASON (DETAIL; rule ROOT from SRC)" for a verdict with a rule. */
static void put_path_reason(struct sb *b, const struct sbx_cpol *v,
			    const char *abs, const struct sbx_path_decision *d)
{
	const struct sbx_cpol_rule *r = d->rule;

	switch (d->verdict) {
	case SBX_DENY_HIDDEN:
		sb_put(b, "hidden by the sandbox policy (");
		if (r->flags & SBX_RF_SECRET)
			sb_put(b, "secrets; ");
		break;
	case SBX_DENY_READONLY:
		if (r->flags & SBX_RF_PROTECT) {
			sb_put(b, "protected, read-only even inside a "
				  "writable path (");
			break;
		}
		sb_put(b, "read-only in this sandbox (");
		put_writable(b, v);
		sb_put(b, "; ");
		break;
	case SBX_DENY_SUFFIX:
		put_bad_suffix(b, abs);
		sb_put(b, " (");
		put_suffixes(b, v, r);
		sb_put(b, "; ");
		break;
	case SBX_DENY_SIZE:
		sb_putu(b, (uint64_t)d->size);
		sb_put(b, " bytes, over the ");
		sb_putu(b, r->max_file_bytes);
		sb_put(b, "-byte limit (");
		break;
	case SBX_DENY_NOTCOVERED:
	case SBX_ALLOW: break;
	}
	put_rule(b, v, r);
	sb_putc(b, ')');
}

void sbx_explain_path(const struct sbx_cpol *v, const char *shown,
		      const char *abs, enum sbx_op op,
		      const struct sbx_path_decision *d, unsigned flags,
		      struct sbx_expl *e)
{
	const struct sbx_cpol_rule *r = d->rule;
	const char *fix = NULL;
	struct sb b;

	expl_init(e, &b, sbx_op_word(op), sbx_verdict_kind(d->verdict),
		  r ? str(v, r->root) : "");
	if (r)
		set_src(e, str(v, r->src_file), r->src_line);
	sb_put(&b, "sbxrun: cannot ");
	sb_put(&b, sbx_op_word(op));
	sb_put(&b, " '");
	sb_putq(&b, shown);
	sb_put(&b, "': ");
	if (d->verdict == SBX_DENY_NOTCOVERED || !r)
		sb_put(&b, "not covered by any rule of the sandbox policy");
	else
		put_path_reason(&b, v, abs, d);
	if (d->verdict == SBX_DENY_HIDDEN || d->verdict == SBX_DENY_NOTCOVERED)
		fix = op == SBX_OP_WRITE ? "--allow-write " : "--allow-read ";
	else if (d->verdict == SBX_DENY_READONLY)
		fix = "--allow-write ";
	if (fix && !(flags & SBX_EXPL_NO_FIX))
		put_fix(&b, fix, abs);
}

void sbx_explain_allowed(const struct sbx_cpol *v, const char *abs,
			 enum sbx_op op, const struct sbx_path_decision *d,
			 char *buf, size_t sz)
{
	const struct sbx_cpol_rule *r = d->rule;
	struct sb b;

	sb_init(&b, buf, sz);
	sb_putc(&b, '\'');
	sb_putq(&b, abs);
	sb_put(&b, op == SBX_OP_WRITE  ? "' can be written: "
		   : op == SBX_OP_EXEC ? "' can be run: "
				       : "' can be read: ");
	if (!r) /* only an allowed decision without a rule: none today */
		return;
	sb_put(&b, r->mode == SBX_RW ? "writable (rule " : "read-only (rule ");
	sb_putq(&b, str(v, r->root));
	sb_put(&b, r->mode == SBX_RW ? " rw from " : " ro from ");
	sbx_put_src(&b, str(v, r->src_file), r->src_line);
	sb_putc(&b, ')');
}

/* ------------------------------------------------------------ programs */

void sbx_explain_exec(const struct sbx_cpol *v, const char *shown,
		      const struct sbx_cpol_exec *x, unsigned flags,
		      struct sbx_expl *e)
{
	struct sb b;

	(void)flags; /* no flag lifts an exec deny rule */
	expl_init(e, &b, "exec", "exec-denied", str(v, x->program));
	set_src(e, str(v, x->src_file), x->src_line);
	sb_put(&b, "sbxrun: refused to run '");
	sb_putq(&b, shown);
	sb_put(&b, "': ");
	sb_putq(&b, *str(v, x->reason) ? str(v, x->reason)
				       : "denied by the sandbox policy");
	sb_put(&b, " (rule ");
	sb_putq(&b, str(v, x->program));
	sb_put(&b, " from ");
	sb_put(&b, e->src);
	sb_putc(&b, ')');
}

/* ------------------------------------------------------------ network */

static const char *net_rule(uint32_t net)
{
	switch (net) {
	case SBX_NET_OFF: return "network off";
	case SBX_NET_LOOPBACK: return "network loopback";
	case SBX_NET_FILTERED: return "network filtered";
	default: return "network on";
	}
}

static void put_hex16(struct sb *b, unsigned x)
{
	static const char hex[] = "0123456789abcdef";
	char d[4];
	int n = 0;

	do {
		d[n++] = hex[x & 15];
		x >>= 4;
	} while (x);
	while (n)
		sb_putc(b, d[--n]);
}

/* RFC 5952 style: the longest run of two or more zero groups is "::". */
static void put_ip6(struct sb *b, const unsigned char *a)
{
	unsigned g[8];
	int best = -1, bestlen = 1;

	for (int i = 0; i < 8; i++)
		g[i] = (unsigned)a[2 * i] << 8 | a[2 * i + 1];
	for (int i = 0, run; i < 8; i += run ? run : 1) {
		for (run = 0; i + run < 8 && g[i + run] == 0; run++)
			;
		if (run > bestlen) {
			best = i;
			bestlen = run;
		}
	}
	for (int i = 0; i < 8; i++) {
		if (i == best) {
			sb_put(b, "::");
			i += bestlen - 1;
			continue;
		}
		if (i && i != best + bestlen)
			sb_putc(b, ':');
		put_hex16(b, g[i]);
	}
}

void sbx_put_net_addr(struct sb *b, const struct sbx_net_addr *a)
{
	if (a->family == AF_INET) {
		for (int i = 0; i < 4; i++) {
			if (i)
				sb_putc(b, '.');
			sb_putu(b, a->addr[i]);
		}
		return;
	}
	sb_putc(b, '[');
	put_ip6(b, a->addr);
	sb_putc(b, ']');
}

static void put_allow_list(struct sb *b, const struct sbx_cpol *v)
{
	for (uint32_t i = 0; i < v->hdr->nallow && i < ALLOW_SHOWN; i++) {
		if (i)
			sb_put(b, ", ");
		sb_putq(b, str(v, v->allow[i].text));
	}
	if (v->hdr->nallow > ALLOW_SHOWN)
		sb_put(b, ", ...");
}

/* "REASON (DETAIL; rule network MODE from SRC)" */
static void put_net_reason(struct sb *b, const struct sbx_cpol *v,
			   const struct sbx_cnet_decision *d,
			   const struct sbx_expl *e)
{
	switch (d->verdict) {
	case SBX_NET_DENY_OFF:
		sb_put(b, "network access is off in this sandbox (");
		break;
	case SBX_NET_DENY_LOOPBACK:
		sb_put(b, "only loopback is reachable in this sandbox (");
		break;
	case SBX_NET_DENY_UNLISTED:
		sb_put(b, "not in the network allow-list of this sandbox (");
		put_allow_list(b, v);
		sb_put(b, "; ");
		break;
	case SBX_NET_DENY_FORBIDDEN:
		sb_put(b, "link-local and cloud metadata addresses are never "
			  "reachable from the sandbox (");
		break;
	case SBX_NET_ALLOW: break;
	}
	sb_put(b, "rule ");
	sb_put(b, e->rule);
	sb_put(b, " from ");
	sb_put(b, e->src);
	sb_putc(b, ')');
}

static const char *net_op(const char *verb)
{
	return verb[0] == 'c' ? "connect" : verb[0] == 's' ? "send" : "resolve";
}

void sbx_explain_net(const struct sbx_cpol *v, const char *verb,
		     const char *host, uint16_t port,
		     const struct sbx_net_addr *a,
		     const struct sbx_cnet_decision *d, unsigned flags,
		     struct sbx_expl *e)
{
	struct sb b;

	expl_init(e, &b, net_op(verb), "network-off", net_rule(v->hdr->net));
	set_src(e, str(v, v->hdr->net_src_file), v->hdr->net_src_line);
	sb_put(&b, "sbxrun: cannot ");
	sb_put(&b, verb);
	if (strcmp(verb, "resolve") != 0) {
		sb_putc(&b, ' ');
		sb_putq(&b, host);
		sb_putc(&b, ':');
		sb_putu(&b, port);
	} else {
		sb_put(&b, " '");
		sb_putq(&b, host);
		sb_putc(&b, '\'');
	}
	sb_put(&b, ": ");
	put_net_reason(&b, v, d, e);
	if ((flags & SBX_EXPL_NO_FIX) || d->verdict == SBX_NET_DENY_FORBIDDEN)
		return;
	if (a && a->family && a->loopback)
		put_fix(&b, "--net ", "loopback");
	else
		put_fix(&b, "--net allow:", host);
}

void sbx_explain_socket(const struct sbx_cpol *v, int family, unsigned flags,
			struct sbx_expl *e)
{
	struct sb b;

	expl_init(e, &b, "socket", "network-off", net_rule(v->hdr->net));
	set_src(e, str(v, v->hdr->net_src_file), v->hdr->net_src_line);
	(void)family;
	sb_put(&b, "sbxrun: cannot open a network socket: network access "
		   "is off in this sandbox (rule ");
	sb_put(&b, e->rule);
	sb_put(&b, " from ");
	sb_put(&b, e->src);
	sb_putc(&b, ')');
	if (!(flags & SBX_EXPL_NO_FIX))
		put_fix(&b, "--net ", "on");
}
