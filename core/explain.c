/*
 * explain.c - the one explanation format (see explain.h).  Everything
 * goes through the bounded builder of sb.h: no stdio, no allocation, so
 * the shim can build these lines inside a hook.
 */
#include <string.h>
#include <sys/socket.h>

#include "explain.h"
#include "record.h"

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
	case SBX_DENY_SHARED: return "hard-link";
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
			    (r->flags & SBX_RF_CACHE) ||
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
		sb_putq(b, sbx_cpol_suffix(v, r, i));
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
	sb_putsh(b, arg);
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

/* A shell's startup file in the home directory: a write there persists
 * beyond the sandbox (it runs in every later shell). */
static int startup_file(const struct sbx_cpol *v, const char *abs)
{
	static const char *const names[] = {
		".bashrc",	".bash_profile",
		".bash_login",	".profile",
		".bash_logout", ".zshrc",
		".zshenv",	".zprofile",
		".zlogin",	".kshrc",
		".cshrc",	".tcshrc",
		".login",	".config/fish/config.fish",
	};
	const char *home = str(v, v->hdr->home);
	size_t hl = strlen(home);

	if (hl < 2 || strncmp(abs, home, hl) != 0 || abs[hl] != '/')
		return 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(abs + hl + 1, names[i]))
			return 1;
	return 0;
}

/* A build tool's cache in the home directory, which redirect_caches
 * (--caches on, the default) moves to the project's own sandbox cache
 * (launcher/lib/env.c): the tool's name, or NULL. */
static const char *cache_tool(const struct sbx_cpol *v, const char *abs)
{
	static const char *const caches[][2] = {
		{ ".npm", "npm" },	     { ".cache/pip", "pip" },
		{ ".cache/go-build", "go" }, { "go/pkg/mod", "go" },
		{ ".cargo", "cargo" },	     { ".cache/yarn", "yarn" },
		{ ".gradle", "gradle" },     { ".local/share/pnpm", "pnpm" },
		{ ".cache/pnpm", "pnpm" },   { ".ccache", "ccache" },
		{ ".cache", "a tool" },
	};
	const char *home = str(v, v->hdr->home);
	size_t hl = strlen(home);

	if (hl < 2 || strncmp(abs, home, hl) != 0 || abs[hl] != '/')
		return NULL;
	for (size_t i = 0; i < sizeof(caches) / sizeof(caches[0]); i++) {
		size_t n = strlen(caches[i][0]);

		if (!strncmp(abs + hl + 1, caches[i][0], n) &&
		    (abs[hl + 1 + n] == '/' || !abs[hl + 1 + n]))
			return caches[i][1];
	}
	return NULL;
}

/* The run's tools were pointed at the project's own sandbox cache. */
static int caches_redirected(const struct sbx_cpol *v)
{
	return (v->hdr->flags & SBX_CPOL_F_CACHES) != 0;
}

/* A name that will not come again: a tool's timestamped file (npm's
 * ~/.npm/_logs/2026-01-02T03_04_05_678Z-debug-0.log) starts with a date.
 * Its directory is what to allow. */
static int dated_name(const char *abs)
{
	const char *b = strrchr(abs, '/');

	if (!b)
		return 0;
	b++;
	for (int i = 0; i < 10; i++)
		if (i == 4 || i == 7 ? b[i] != '-' : (b[i] < '0' || b[i] > '9'))
			return 0;
	return 1;
}

/* "; to allow: sbxrun FLAG PATH": a dated file's directory, and a
 * directory the call makes, written with a '/' so that --allow-write
 * makes it when it is missing.  PATH is one shell word (sb_putsh). */
static void put_path_fix(struct sb *b, const char *flag, const char *abs,
			 unsigned flags)
{
	const char *slash = strrchr(abs, '/');
	size_t n = strlen(abs);
	char w[4098];

	sb_put(b, "; to allow: sbxrun ");
	sb_put(b, flag);
	if (slash && slash != abs && dated_name(abs))
		n = (size_t)(slash - abs) + 1;
	else if (!(flags & SBX_EXPL_DIR) || !strcmp(abs, "/") ||
		 n + 2 > sizeof(w)) {
		sb_putsh(b, abs);
		return;
	}
	if (n + 2 > sizeof(w)) {
		sb_putsh(b, abs);
		return;
	}
	memcpy(w, abs, n);
	if (abs[n - 1] != '/')
		w[n++] = '/';
	w[n] = '\0';
	sb_putsh(b, w);
}

/* "REASON (DETAIL; rule ROOT from SRC)" for a verdict with a rule. */
static void put_path_reason(struct sb *b, const struct sbx_cpol *v,
			    const char *abs, const struct sbx_path_decision *d)
{
	const struct sbx_cpol_rule *r = d->rule;
	const char *tool;

	switch (d->verdict) {
	case SBX_DENY_HIDDEN:
		sb_put(b, "hidden by the sandbox policy (");
		if (r->flags & SBX_RF_SECRET)
			sb_put(b, "secrets; ");
		break;
	case SBX_DENY_READONLY:
		if (r->flags & SBX_RF_PROTECT) {
			sb_put(b, "protected, read-only even inside a "
				  "writable path: it can make programs run "
				  "outside the sandbox later (");
			break;
		}
		sb_put(b, "read-only in this sandbox (");
		if (startup_file(v, abs))
			sb_put(b, "a shell startup file: what is written "
				  "there runs in every later shell, outside "
				  "the sandbox too; ");
		else if ((tool = cache_tool(v, abs))) {
			sb_putq(b, tool);
			sb_put(b, "'s cache, shared with runs outside the "
				  "sandbox");
			sb_put(b, caches_redirected(v)
					  ? ": this run's caches are the "
					    "project's own (--dry-run shows "
					    "where), but this tool wrote the "
					    "shared one; "
					  : ": --caches on gives each project "
					    "a writable cache of its own; ");
		}
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
	case SBX_DENY_SHARED:
		sb_put(b, "the file has ");
		sb_putu(b, (uint64_t)d->size);
		sb_put(b, " hard links, and the others may lie outside the "
			  "sandbox (a package store such as uv's or pnpm's): "
			  "writing it would change them all; to change this "
			  "name alone, write a copy and rename it over it (");
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
	else if (d->verdict == SBX_DENY_READONLY &&
		 !(r->flags & SBX_RF_PROTECT) && !dated_name(abs) &&
		 cache_tool(v, abs) && !caches_redirected(v)) {
		/* a build tool's cache: --caches on redirects it */
		if (!(flags & SBX_EXPL_NO_FIX))
			sb_put(&b, "; to allow: sbxrun --caches on");
	} else if (d->verdict == SBX_DENY_READONLY &&
		   !(r->flags & SBX_RF_PROTECT))
		fix = "--allow-write ";
	else if (d->verdict == SBX_DENY_READONLY)
		/* no flag lifts a protect entry: say how it changes */
		sb_put(&b, "; no flag lifts that: to change it, use a "
			   "profile of your own without it in 'protect' "
			   "(--profile FILE)");
	if (fix && !(flags & SBX_EXPL_NO_FIX))
		put_path_fix(&b, fix, abs, flags);
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

#define HOST_MAX 320
#define HOSTILE_SHOWN 60

static const char *net_rule(uint32_t net)
{
	switch (net) {
	case SBX_NET_OFF: return "network off";
	case SBX_NET_LOOPBACK: return "network loopback";
	case SBX_NET_FILTERED: return "network filtered";
	default: return "network on";
	}
}

const char *sbx_net_why_kind(enum sbx_net_why w)
{
	switch (w) {
	case SBX_NETW_ALLOW: return "allowed";
	case SBX_NETW_NOT_LISTED: return "not-allowed";
	case SBX_NETW_PORT: return "port";
	case SBX_NETW_ADDR: return "address";
	case SBX_NETW_CLASS: return "address-class";
	case SBX_NETW_NEVER: return "never";
	case SBX_NETW_BADHOST: return "bad-host";
	case SBX_NETW_MODE: return "network-off";
	}
	return "network";
}

/* A host as it would be typed: a normalised name or address, IPv6 in
 * brackets (a port follows), or quoted when it is a name looked up;
 * anything else (a hostile client's bytes) made printable and short, and
 * quoted. */
static void put_host(struct sb *b, const char *host, int lookup)
{
	char h[HOST_MAX];
	struct sbx_ip ip;
	int kind = sbx_net_host_parse(host, h, sizeof(h), &ip);
	size_t i;

	if (kind > 0) {
		int br = !lookup && kind == 2 && ip.af == AF_INET6;

		sb_put(b, lookup ? "'" : br ? "[" : "");
		sb_put(b, h);
		sb_put(b, lookup ? "'" : br ? "]" : "");
		return;
	}
	sb_putc(b, '\'');
	for (i = 0; host[i] && i < HOSTILE_SHOWN; i++)
		sb_putc(b, host[i] > ' ' && host[i] < 127 && host[i] != '\''
				   ? host[i]
				   : '?');
	if (host[i])
		sb_put(b, "...");
	sb_putc(b, '\'');
}

static void put_target(struct sb *b, const char *host, uint16_t port)
{
	put_host(b, host, 0);
	sb_putc(b, ':');
	sb_putu(b, port);
}

void sbx_net_target(char *buf, size_t sz, const char *host, uint16_t port)
{
	struct sb b;

	sb_init(&b, buf, sz);
	put_target(&b, host, port);
}

/* An address as an allow entry writes it: 10.0.0.5, [::1]. */
static void put_entry_addr(struct sb *b, const struct sbx_ip *ip)
{
	char a[64];

	sbx_ip_format(ip, a, sizeof(a));
	if (ip->af == AF_INET6)
		sb_putc(b, '[');
	sb_put(b, a);
	if (ip->af == AF_INET6)
		sb_putc(b, ']');
}

static void put_to_allow(struct sb *b, const char *host, uint16_t port,
			 const struct sbx_ip *addr,
			 const struct sbx_net_decision *d)
{
	char h[HOST_MAX];
	struct sbx_ip ip;
	int kind = sbx_net_host_parse(host, h, sizeof(h), &ip);

	if (kind < 0 || d->why == SBX_NETW_NEVER ||
	    d->why == SBX_NETW_BADHOST || d->why == SBX_NETW_ALLOW)
		return;
	if (d->why == SBX_NETW_MODE && d->cls == SBX_AC_LOOPBACK) {
		sb_put(b, "loopback");
		return;
	}
	sb_put(b, "allow:");
	if (addr && (d->why == SBX_NETW_ADDR || d->why == SBX_NETW_CLASS))
		put_entry_addr(b, addr);
	else if (kind == 2)
		put_entry_addr(b, &ip);
	else
		sb_put(b, h);
	/* an address, or a name listed for another port: this port */
	if ((kind == 2 || addr || d->why == SBX_NETW_PORT) &&
	    d->why != SBX_NETW_MODE && port) {
		sb_putc(b, ':');
		sb_putu(b, port);
	}
}

void sbx_net_to_allow(char *buf, size_t sz, const char *host, uint16_t port,
		      const struct sbx_ip *addr,
		      const struct sbx_net_decision *d)
{
	struct sb b;

	sb_init(&b, buf, sz);
	put_to_allow(&b, host, port, addr, d);
}

/* "allowed: a, b:443, @npm, ..." (a preset's entries shown once, by
 * name), or "allowed: nothing". */
static void put_allow_list(struct sb *b, const struct sbx_cpol *v)
{
	const char *last = NULL;
	unsigned shown = 0;

	sb_put(b, "allowed: ");
	for (uint32_t i = 0; i < v->hdr->nallow; i++) {
		const char *preset = str(v, v->allow[i].preset);

		if (*preset && last && strcmp(preset, last) == 0)
			continue;
		last = preset;
		if (shown++ == ALLOW_SHOWN) {
			sb_put(b, ", ...");
			return;
		}
		if (shown > 1)
			sb_put(b, ", ");
		if (*preset)
			sb_putc(b, '@');
		sb_putq(b, *preset ? preset : str(v, v->allow[i].text));
	}
	if (!shown)
		sb_put(b, "nothing");
}

/* The rule of a network refusal: the allow entry ("example.com:443",
 * "registry.npmjs.org:443 (@npm)") or the network mode, and its source. */
static void net_rule_src(const struct sbx_cpol *v,
			 const struct sbx_net_decision *d, struct sbx_expl *e)
{
	const struct sbx_cpol_allow *r = d->rule;

	e->rule = r ? str(v, r->text) : net_rule(v->hdr->net);
	if (r)
		set_src(e, str(v, r->src_file), r->src_line);
	else
		set_src(e, str(v, v->hdr->net_src_file), v->hdr->net_src_line);
}

static void put_net_rule(struct sb *b, const struct sbx_cpol *v,
			 const struct sbx_net_decision *d,
			 const struct sbx_expl *e)
{
	const char *preset = d->rule ? str(v, d->rule->preset) : "";

	sb_put(b, "rule ");
	sb_putq(b, e->rule);
	if (*preset) {
		sb_put(b, " (@");
		sb_putq(b, preset);
		sb_putc(b, ')');
	}
	sb_put(b, " from ");
	sb_put(b, e->src);
	sb_putc(b, ')');
}

/* "resolves to ADDR, CLASS" or "CLASS" */
static void put_class(struct sb *b, const struct sbx_ip *addr,
		      const struct sbx_net_decision *d)
{
	char a[64];

	if (addr) {
		sbx_ip_format(addr, a, sizeof(a));
		sb_put(b, "resolves to ");
		sb_put(b, a);
		sb_put(b, ", ");
	}
	sb_put(b, sbx_addr_class_text(d->cls));
}

static const char *mode_reason(uint32_t net)
{
	switch (net) {
	case SBX_NET_OFF: return "network access is off in this sandbox (";
	case SBX_NET_LOOPBACK:
		return "only loopback is reachable in this sandbox (";
	default: return "the filtering proxy serves network filtered only (";
	}
}

/* "REASON (DETAIL; rule RULE from SRC)"; never and bad hosts have no
 * rule that could be changed, and say so without one. */
static void put_net_reason(struct sb *b, const struct sbx_cpol *v,
			   const struct sbx_ip *addr,
			   const struct sbx_net_decision *d,
			   const struct sbx_expl *e)
{
	static const char unlisted[] = "not in the network allow-list of this "
				       "sandbox (";

	switch (d->why) {
	case SBX_NETW_MODE: sb_put(b, mode_reason(v->hdr->net)); break;
	case SBX_NETW_NOT_LISTED:
		sb_put(b, unlisted);
		put_allow_list(b, v);
		sb_put(b, "; ");
		break;
	case SBX_NETW_PORT:
		sb_put(b, unlisted);
		sb_put(b, "listed for port ");
		sb_putu(b, d->rule->port);
		sb_put(b, " only; ");
		break;
	case SBX_NETW_ADDR:
		sb_put(b, unlisted);
		sb_put(b, "addresses must be listed by address; ");
		put_allow_list(b, v);
		sb_put(b, "; ");
		break;
	case SBX_NETW_CLASS:
		put_class(b, addr, d);
		sb_put(b, ", reachable only when listed by address (");
		break;
	case SBX_NETW_NEVER:
		put_class(b, addr, d);
		sb_put(b, ", never reachable from the sandbox");
		return;
	case SBX_NETW_BADHOST:
		sb_put(b, "not a host name or address the sandbox accepts");
		return;
	case SBX_NETW_ALLOW: return;
	}
	put_net_rule(b, v, d, e);
}

static const char *net_op(const char *verb)
{
	return verb[0] == 'c' ? "connect" : verb[0] == 's' ? "send" : "resolve";
}

void sbx_explain_net(const struct sbx_cpol *v, const char *verb,
		     const char *host, uint16_t port, const struct sbx_ip *addr,
		     const struct sbx_net_decision *d, unsigned flags,
		     struct sbx_expl *e)
{
	const char *op = net_op(verb);
	struct sb b, fix;
	char fixbuf[HOST_MAX + 80];

	expl_init(e, &b, op, sbx_net_why_kind(d->why), "");
	net_rule_src(v, d, e);
	sb_put(&b, "sbxrun: cannot ");
	sb_put(&b, verb);
	sb_putc(&b, ' ');
	if (op[0] == 'r')
		put_host(&b, host, 1);
	else
		put_target(&b, host, port);
	sb_put(&b, ": ");
	put_net_reason(&b, v, addr, d, e);
	sb_init(&fix, fixbuf, sizeof(fixbuf));
	put_to_allow(&fix, host, port, addr, d);
	if (fixbuf[0] && !(flags & SBX_EXPL_NO_FIX))
		put_fix(&b, "--net ", fixbuf);
}

void sbx_explain_proxy_only(const struct sbx_cpol *v, const char *host,
			    struct sbx_expl *e)
{
	struct sb b;

	expl_init(e, &b, "resolve", "proxy-only", net_rule(v->hdr->net));
	set_src(e, str(v, v->hdr->net_src_file), v->hdr->net_src_line);
	sb_put(&b, "sbxrun: cannot resolve ");
	put_host(&b, host, 1);
	sb_put(&b, ": in a filtered network names are resolved by sbxrun's "
		   "proxy, not inside the sandbox: reach it through "
		   "HTTP_PROXY, HTTPS_PROXY or ALL_PROXY (rule ");
	sb_put(&b, e->rule);
	sb_put(&b, " from ");
	sb_put(&b, e->src);
	sb_putc(&b, ')');
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

/* ------------------------------------------------------------ syscalls */

/* Why the seccomp baseline refuses a call (tools/gen_seccomp.c), by the
 * call's name: one line each, the calls separated by spaces. */
static const struct {
	const char *calls;
	const char *why;
} sc_why[] = {
	{ " mount umount2 pivot_root chroot unshare setns clone ",
	  "namespaces and mounts cannot be changed inside the sandbox" },
	{ " ptrace process_vm_readv process_vm_writev pidfd_getfd ",
	  "other processes cannot be traced or read from the sandbox" },
	{ " prlimit64 setpriority ioprio_set sched_setscheduler "
	  "sched_setparam sched_setattr sched_setaffinity migrate_pages "
	  "move_pages ",
	  "the limits and scheduling of other processes cannot be changed "
	  "from the sandbox" },
	{ " shmget shmat shmctl msgget msgsnd msgrcv msgctl semget semop "
	  "semctl semtimedop ",
	  "the host's System V IPC is closed to the sandbox" },
	{ " personality ", "foreign execution personalities are refused" },
	{ " seccomp ", "a seccomp listener of the program's own could undo the "
		       "sandbox's filter" },
	{ " chmod fchmod fchmodat fchmodat2 creat open openat ",
	  "set-uid and set-gid files would keep their power outside the "
	  "sandbox" },
	{ " mknod mknodat ", "device nodes would work outside the sandbox" },
	{ " ioctl ", "typing into a terminal (TIOCSTI, TIOCLINUX) is refused" },
	{ " sendto sendmsg sendmmsg setsockopt ",
	  "TCP Fast Open would connect past the sandbox's proxy" },
	{ " socket socketpair ",
	  "raw and packet sockets, MPTCP and SCTP are not available in "
	  "this sandbox" },
};

static const char *syscall_why(const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; n && i < sizeof(sc_why) / sizeof(sc_why[0]); i++) {
		const char *p = sc_why[i].calls;

		while ((p = strstr(p + 1, name)) != NULL)
			if (p[-1] == ' ' && p[n] == ' ')
				return sc_why[i].why;
	}
	return "a kernel interface closed to sandboxed programs";
}

void sbx_explain_syscall(const struct sbx_cpol *v, const char *name, int family,
			 const char *program, long pid, unsigned flags,
			 struct sbx_expl *e)
{
	int inet = family == AF_INET || family == AF_INET6;
	int off = inet && v->hdr->net == SBX_NET_OFF;
	struct sb b;

	if (off) {
		expl_init(e, &b, "socket", "network-off",
			  net_rule(v->hdr->net));
		set_src(e, str(v, v->hdr->net_src_file), v->hdr->net_src_line);
	} else {
		expl_init(e, &b, "syscall", "syscall", "seccomp");
		set_src(e, NULL, 0);
	}
	sb_put(&b, "sbxrun: blocked ");
	sb_putq(&b, name);
	sb_put(&b, " by ");
	sb_putq(&b, program && *program ? program : "?");
	sb_put(&b, " (pid ");
	sb_putu(&b, (uint64_t)(pid > 0 ? pid : 0));
	sb_put(&b, "): ");
	if (off)
		sb_put(&b, "network access is off in this sandbox");
	else if (inet && v->hdr->net == SBX_NET_FILTERED)
		sb_put(&b, "only TCP connections to the network proxy are "
			   "open in this sandbox (no UDP, no raw sockets)");
	else
		sb_put(&b, syscall_why(name));
	sb_put(&b, " (rule ");
	sb_put(&b, e->rule);
	sb_put(&b, " from ");
	sb_put(&b, e->src);
	sb_putc(&b, ')');
	if (off && !(flags & SBX_EXPL_NO_FIX))
		put_fix(&b, "--net ", "on");
}

size_t sbx_expl_record(char *buf, size_t sz, const struct sbx_expl *e,
		       const char *target, const char *comm)
{
	const char *f[SBX_REC_NFIELDS];

	f[SBX_REC_OP] = e->op;
	f[SBX_REC_TARGET] = target;
	f[SBX_REC_KIND] = e->kind;
	f[SBX_REC_RULE] = e->rule;
	f[SBX_REC_SRC] = e->src;
	f[SBX_REC_COMM] = comm;
	f[SBX_REC_MSG] = e->msg;
	return sbx_rec_encode(buf, sz, f);
}
