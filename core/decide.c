/*
 * decide.c - the one decision over the compiled policy (see decide.h).
 * Runs inside every sandboxed process: no allocation, no system calls,
 * nothing but the validated policy and what the caller passes in.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "decide.h"

/* ------------------------------------------------------------ paths */

unsigned sbx_q_plain(enum sbx_op op)
{
	return op == SBX_OP_WRITE ? SBX_Q_NAME | SBX_Q_MODIFY | SBX_Q_SIZE
				  : SBX_Q_SIZE;
}

static const char *str(const struct sbx_cpol *v, uint32_t off)
{
	return sbx_cpol_str(v, off);
}

/* The rule that decides just above r: the longest shorter root that
 * contains r's (the rules are sorted longest first). */
static const struct sbx_cpol_rule *parent_rule(const struct sbx_cpol *v,
					       const struct sbx_cpol_rule *r)
{
	for (uint32_t i = (uint32_t)(r - v->rules) + 1; i < v->hdr->nrules;
	     i++) {
		const struct sbx_cpol_rule *o = &v->rules[i];

		if (o->rootlen < r->rootlen &&
		    sbx_path_within(str(v, r->root), str(v, o->root),
				    o->rootlen))
			return o;
	}
	return NULL;
}

/* A read-only hole in a writable tree: a protect entry, or a read-only
 * rule right below a writable root.  A protected path missing at launch
 * is not held by anyone (SBX_RF_ABSENT: reported after the run). */
static int ro_hole(const struct sbx_cpol *v, const struct sbx_cpol_rule *r)
{
	const struct sbx_cpol_rule *o;

	if (r->mode != SBX_RO || (r->flags & SBX_RF_ABSENT))
		return 0;
	if (r->flags & SBX_RF_PROTECT)
		return 1;
	o = parent_rule(v, r);
	return o && o->mode == SBX_RW;
}

int sbx_rule_app_readonly(const struct sbx_cpol *v,
			  const struct sbx_cpol_rule *r)
{
	return (v->hdr->flags & SBX_CPOL_F_SHIM_PROTECT) && ro_hole(v, r);
}

/* A read-only hole at or below path: removing or moving path would take
 * it along (mv .git g). */
static const struct sbx_cpol_rule *hole_inside(const struct sbx_cpol *v,
					       const char *path)
{
	size_t n = strlen(path);

	for (uint32_t i = 0; v->hdr && i < v->hdr->nrules; i++) {
		const struct sbx_cpol_rule *r = &v->rules[i];

		if (r->mode == SBX_RO &&
		    sbx_path_within(str(v, r->root), path, n) && ro_hole(v, r))
			return r;
	}
	return NULL;
}

static int suffix_ok(const struct sbx_cpol *v, const struct sbx_cpol_rule *r,
		     const char *path)
{
	const char *sfx[SBX_MAX_SUFFIXES];

	for (uint32_t i = 0; i < r->nsuffixes; i++)
		sfx[i] = str(v, r->suffixes[i]);
	return sbx_suffix_ok(path, (char *const *)sfx, r->nsuffixes);
}

/* The object is a file for the suffix rule; unknown counts as one. */
static int names_file(const struct sbx_path_q *q)
{
	return !q->facts || !q->facts->is_file || q->facts->is_file(q);
}

/* The size the limit applies to: the call's, else the existing file's. */
static int64_t size_of(const struct sbx_path_q *q)
{
	if (q->size >= 0)
		return q->size;
	if ((q->chk & SBX_Q_SIZE) && q->facts && q->facts->file_size)
		return q->facts->file_size(q);
	return -1;
}

static struct sbx_path_decision
refuse(enum sbx_verdict v, const struct sbx_cpol_rule *r, int64_t size, int app)
{
	return (struct sbx_path_decision){ v, r, size, app };
}

struct sbx_path_decision sbx_decide_path(const struct sbx_cpol *v,
					 const struct sbx_path_q *q)
{
	const struct sbx_cpol_rule *r, *p;
	/* Landlock has no attribute rights: without mounts (landlock-only)
	 * a chmod, chown or utimes anywhere is the shim's to refuse. */
	int attr = (q->chk & SBX_Q_ATTR) && v->hdr &&
		   (v->hdr->flags & SBX_CPOL_F_SHIM_PROTECT);
	int64_t size;

	if ((q->chk & SBX_Q_TREE) && (p = hole_inside(v, q->path)))
		return refuse(SBX_DENY_READONLY, p, -1,
			      sbx_rule_app_readonly(v, p));
	r = sbx_cpol_match(v, q->path);
	if (!r)
		return refuse(SBX_DENY_NOTCOVERED, NULL, -1, attr);
	if (r->mode == SBX_HIDE)
		return refuse(SBX_DENY_HIDDEN, r, -1, attr);
	if (q->op == SBX_OP_WRITE && r->mode == SBX_RO)
		return refuse(SBX_DENY_READONLY, r, -1,
			      attr || sbx_rule_app_readonly(v, r));
	if (q->op == SBX_OP_WRITE && (q->chk & SBX_Q_NAME) && r->nsuffixes &&
	    !suffix_ok(v, r, q->path) && names_file(q))
		return refuse(SBX_DENY_SUFFIX, r, -1, 1);
	if (r->max_file_bytes && (size = size_of(q)) >= 0 &&
	    (uint64_t)size > r->max_file_bytes)
		return refuse(SBX_DENY_SIZE, r, size, 1);
	return refuse(SBX_ALLOW, r, -1, 0);
}

struct sbx_path_decision sbx_decide(const struct sbx_cpol *v, const char *path,
				    enum sbx_op op, int64_t size)
{
	struct sbx_path_q q = { path, op, sbx_q_plain(op), size, NULL, NULL };

	return sbx_decide_path(v, &q);
}

struct sbx_path_decision sbx_decide_failure(const struct sbx_cpol *v,
					    const char *path, enum sbx_op op,
					    int err)
{
	struct sbx_path_q q = { path, op, 0, -1, NULL, NULL };
	struct sbx_path_decision d;

	if (err != EACCES && err != EPERM && err != EROFS && err != ENOENT)
		return refuse(SBX_ALLOW, NULL, -1, 0);
	d = sbx_decide_path(v, &q); /* chk 0: no suffix, no size */
	if (d.verdict == SBX_DENY_READONLY && err == ENOENT)
		d.verdict = SBX_ALLOW;
	d.app = 0;
	return d;
}

/* ------------------------------------------------------------ programs */

const struct sbx_cpol_exec *
sbx_decide_exec(const struct sbx_cpol *v, const char *path, char *const argv[])
{
	for (uint32_t i = 0; v->hdr && i < v->hdr->nexec; i++) {
		const struct sbx_cpol_exec *e = &v->exec[i];
		const char *args[SBX_MAX_EXEC_ARGS];

		for (uint32_t j = 0; j < e->nargs; j++)
			args[j] = str(v, e->args[j]);
		if (sbx_exec_match(str(v, e->program), args, e->nargs, path,
				   argv))
			return e;
	}
	return NULL;
}

/* ------------------------------------------------------------ network */

static const unsigned char v4mapped[12] = { 0, 0, 0, 0, 0,    0,
					    0, 0, 0, 0, 0xff, 0xff };

int sbx_net_addr_forbidden(int family, const unsigned char *a, int prefix)
{
	if (family == AF_INET)
		return a[0] == 169 && a[1] == 254 && prefix >= 16;
	/* ::ffff:169.254.169.254 is 169.254.169.254 (THREATS NET-07) */
	if (memcmp(a, v4mapped, sizeof(v4mapped)) == 0)
		return sbx_net_addr_forbidden(AF_INET, a + 12, prefix - 96);
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80 && prefix >= 10)
		return 1;
	/* fd00:ec2::254, the IPv6 EC2 metadata endpoint */
	return a[0] == 0xfd && a[1] == 0x00 && a[2] == 0x0e && a[3] == 0xc2;
}

static void set_loopback(struct sbx_net_addr *a)
{
	a->loopback = a->family == AF_INET
			      ? a->addr[0] == 127
			      : memcmp(a->addr, &in6addr_loopback, 16) == 0;
}

int sbx_net_addr_from(const void *sockaddr, size_t len, struct sbx_net_addr *a)
{
	const struct sockaddr *sa = sockaddr;

	memset(a, 0, sizeof(*a));
	if (!sa || len < sizeof(sa_family_t))
		return -1;
	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = sockaddr;

		a->family = AF_INET;
		memcpy(a->addr, &in->sin_addr, 4);
		a->port = ntohs(in->sin_port);
	} else if (sa->sa_family == AF_INET6 &&
		   len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = sockaddr;

		a->port = ntohs(in6->sin6_port);
		if (memcmp(&in6->sin6_addr, v4mapped, 12) == 0) {
			a->family = AF_INET;
			memcpy(a->addr, (const char *)&in6->sin6_addr + 12, 4);
		} else {
			a->family = AF_INET6;
			memcpy(a->addr, &in6->sin6_addr, 16);
		}
	} else {
		return -1;
	}
	set_loopback(a);
	return 0;
}

/* Is a inside the entry's address or network? */
static int addr_in(const struct sbx_net_addr *a, const char *host,
		   unsigned prefix)
{
	unsigned char e[16];
	int fam = strchr(host, ':') ? AF_INET6 : AF_INET;
	unsigned bits = fam == AF_INET ? 32 : 128;

	if (fam != a->family || inet_pton(fam, host, e) != 1)
		return 0;
	if (!prefix || prefix > bits)
		prefix = bits;
	if (memcmp(e, a->addr, prefix / 8) != 0)
		return 0;
	if (prefix % 8 == 0)
		return 1;
	return ((e[prefix / 8] ^ a->addr[prefix / 8]) &
		(0xff00 >> (prefix % 8))) == 0;
}

/* "*.github.com" matches any name below github.com, not github.com. */
static int name_in(const char *name, const char *host)
{
	size_t nl = strlen(name), hl = strlen(host);

	if (host[0] == '*' && host[1] == '.')
		return nl > hl - 1 &&
		       strcasecmp(name + nl - (hl - 1), host + 1) == 0;
	return strcasecmp(name, host) == 0;
}

/* The allow-list entry that lets the destination through, or NULL.
 * Port 0 on either side matches any port. */
static const struct sbx_cpol_allow *allowing_entry(const struct sbx_cpol *v,
						   const char *name,
						   const struct sbx_net_addr *a)
{
	uint16_t port = a ? a->port : 0;

	for (uint32_t i = 0; i < v->hdr->nallow; i++) {
		const struct sbx_cpol_allow *e = &v->allow[i];
		const char *host = str(v, e->host);

		if (port && e->port && e->port != port)
			continue;
		if (a && a->family &&
		    addr_in(a, host, e->is_cidr ? e->prefix : 0))
			return e;
		if (name && *name && name_in(name, host))
			return e;
	}
	return NULL;
}

static struct sbx_cnet_decision net(enum sbx_net_verdict v,
				    const struct sbx_cpol_allow *e)
{
	return (struct sbx_cnet_decision){ v, e };
}

struct sbx_cnet_decision sbx_decide_net(const struct sbx_cpol *v,
					const char *name,
					const struct sbx_net_addr *a)
{
	int loop = a && a->family && a->loopback;
	const struct sbx_cpol_allow *e;

	switch (v->hdr->net) {
	case SBX_NET_OFF: return net(SBX_NET_DENY_OFF, NULL);
	case SBX_NET_LOOPBACK:
		return net(loop ? SBX_NET_ALLOW : SBX_NET_DENY_LOOPBACK, NULL);
	case SBX_NET_FILTERED:
		if (loop)
			return net(SBX_NET_ALLOW, NULL);
		if (a && a->family &&
		    sbx_net_addr_forbidden(a->family, a->addr,
					   a->family == AF_INET ? 32 : 128))
			return net(SBX_NET_DENY_FORBIDDEN, NULL);
		e = allowing_entry(v, name, a);
		return net(e ? SBX_NET_ALLOW : SBX_NET_DENY_UNLISTED, e);
	default: return net(SBX_NET_ALLOW, NULL);
	}
}

/* Split "host:port" or "[v6]:port" into host (copied into out) and port. */
static int split_hostport(const char *s, char *out, size_t sz, uint16_t *port)
{
	const char *end, *colon;
	unsigned long p = 0;
	size_t n;

	if (s[0] == '[') {
		end = strchr(s, ']');
		if (!end || end[1] != ':')
			return -1;
		s++;
		colon = end + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon || memchr(s, ':', (size_t)(colon - s)))
			return -1; /* a bare IPv6 address needs brackets */
		end = colon;
	}
	n = (size_t)(end - s);
	if (n == 0 || n >= sz || !colon[1])
		return -1;
	for (const char *c = colon + 1; *c; c++) {
		if (*c < '0' || *c > '9' ||
		    (p = p * 10 + (unsigned)(*c - '0')) > 65535)
			return -1;
	}
	if (p == 0)
		return -1;
	memcpy(out, s, n);
	out[n] = '\0';
	*port = (uint16_t)p;
	return 0;
}

int sbx_decide_hostport(const struct sbx_cpol *v, const char *hostport,
			struct sbx_cnet_decision *d)
{
	char host[256];
	struct sbx_net_addr a = { 0 };

	*d = net(SBX_NET_DENY_UNLISTED, NULL);
	if (!hostport ||
	    split_hostport(hostport, host, sizeof(host), &a.port) < 0)
		return -1;
	if (inet_pton(AF_INET, host, a.addr) == 1)
		a.family = AF_INET;
	else if (inet_pton(AF_INET6, host, a.addr) == 1)
		a.family = AF_INET6;
	if (a.family == AF_INET6 && memcmp(a.addr, v4mapped, 12) == 0) {
		memmove(a.addr, a.addr + 12, 4);
		memset(a.addr + 4, 0, 12);
		a.family = AF_INET;
	}
	if (a.family)
		set_loopback(&a);
	*d = sbx_decide_net(v, a.family ? NULL : host, &a);
	return 0;
}
