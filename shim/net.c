/*
 * net.c - explaining refused network calls:
 *
 *   sbxrun: cannot connect to example.com:443: network access is off in this sandbox; to allow: sbxrun --net allow:example.com
 *
 * The kernel enforces the network mode (Landlock TCP rules, seccomp on
 * socket families, a network namespace); the shim only names what was
 * refused.  To name a host rather than an address it remembers what
 * getaddrinfo answered, in a small fixed ring (no allocation, lock-free).
 * Addresses are formatted by hand: inet_ntop may go through stdio.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <strings.h>
#include <sys/un.h>

#include "net.h"
#include "sb.h"
#include "shim.h"

#define MSG_MAX 1024

/* ------------------------------------------------------------ targets */

static const unsigned char v4mapped[12] = { 0, 0, 0, 0, 0,    0,
					    0, 0, 0, 0, 0xff, 0xff };

int shim_net_target(const struct sockaddr *sa, socklen_t len,
		    struct shim_net_target *t)
{
	memset(t, 0, sizeof(*t));
	if (!sa || len < (socklen_t)sizeof(sa_family_t))
		return -1;
	if (sa->sa_family == AF_INET &&
	    len >= (socklen_t)sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const void *)sa;

		t->family = AF_INET;
		memcpy(t->addr, &in->sin_addr, 4);
		t->port = ntohs(in->sin_port);
	} else if (sa->sa_family == AF_INET6 &&
		   len >= (socklen_t)sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = (const void *)sa;

		t->port = ntohs(in6->sin6_port);
		if (memcmp(&in6->sin6_addr, v4mapped, 12) == 0) {
			t->family = AF_INET;
			memcpy(t->addr, (const char *)&in6->sin6_addr + 12, 4);
		} else {
			t->family = AF_INET6;
			memcpy(t->addr, &in6->sin6_addr, 16);
		}
	} else {
		return -1;
	}
	t->loopback = t->family == AF_INET
			      ? t->addr[0] == 127
			      : memcmp(t->addr, &in6addr_loopback, 16) == 0;
	return 0;
}

/* ------------------------------------------------------------ ring */

/*
 * Name -> address memory.  Each slot is a seqlock: the writer makes seq
 * odd, copies, makes it even; a reader that sees seq move ignores the
 * slot.  Two writers only meet on one slot after RING_SLOTS newer
 * answers, and then the worst outcome is a wrong host name in a message.
 */
#define RING_SLOTS 64
struct ring_slot {
	unsigned seq;
	int family;
	unsigned char addr[16];
	char name[256];
};
static struct ring_slot ring[RING_SLOTS];
static unsigned ring_next;

static void ring_put(int family, const unsigned char *addr, const char *name)
{
	unsigned i = __atomic_fetch_add(&ring_next, 1, __ATOMIC_RELAXED);
	struct ring_slot *s = &ring[i % RING_SLOTS];
	unsigned seq = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);
	size_t n = strnlen(name, sizeof(s->name) - 1);

	__atomic_store_n(&s->seq, seq | 1, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	s->family = family;
	memcpy(s->addr, addr, 16);
	memcpy(s->name, name, n);
	s->name[n] = '\0';
	__atomic_store_n(&s->seq, (seq | 1) + 1, __ATOMIC_RELEASE);
}

void shim_net_remember(const char *node, const struct addrinfo *res)
{
	int kept = 0;

	for (; res && kept < 8; res = res->ai_next) {
		struct shim_net_target t;

		if (shim_net_target(res->ai_addr, res->ai_addrlen, &t) == 0) {
			ring_put(t.family, t.addr, node);
			kept++;
		}
	}
}

/* The newest name that resolved to t's address, into name. */
static int ring_get(const struct shim_net_target *t, char *name, size_t sz)
{
	unsigned last = __atomic_load_n(&ring_next, __ATOMIC_RELAXED);

	for (unsigned k = 0; k < RING_SLOTS; k++) {
		const struct ring_slot *s = &ring[(last - 1 - k) % RING_SLOTS];
		unsigned seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
		size_t n;

		if ((seq & 1) || !seq || s->family != t->family ||
		    memcmp(s->addr, t->addr, 16) != 0)
			continue;
		n = strnlen(s->name, sizeof(s->name) - 1);
		if (n >= sz)
			continue;
		memcpy(name, s->name, n);
		name[n] = '\0';
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&s->seq, __ATOMIC_RELAXED) == seq && n)
			return 0;
	}
	return -1;
}

/* ------------------------------------------------------------ formatting */

static void put_hex16(struct sb *b, unsigned v)
{
	static const char hex[] = "0123456789abcdef";
	char d[4];
	int n = 0;

	do {
		d[n++] = hex[v & 15];
		v >>= 4;
	} while (v);
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

/* The host as people would name it: the resolved name, else the
 * address ([v6] in brackets, as in host:port). */
static void put_host(struct sb *b, const struct shim_net_target *t)
{
	char name[256];

	if (ring_get(t, name, sizeof(name)) == 0) {
		sb_putq(b, name);
	} else if (t->family == AF_INET) {
		for (int i = 0; i < 4; i++) {
			if (i)
				sb_putc(b, '.');
			sb_putu(b, t->addr[i]);
		}
	} else {
		sb_putc(b, '[');
		put_ip6(b, t->addr);
		sb_putc(b, ']');
	}
}

/* ------------------------------------------------------------ allow-list */

static int addr_in(const struct shim_net_target *t, const char *host,
		   unsigned prefix)
{
	unsigned char a[16];
	int fam = strchr(host, ':') ? AF_INET6 : AF_INET;
	unsigned bits = fam == AF_INET ? 32 : 128;

	if (fam != t->family || inet_pton(fam, host, a) != 1)
		return 0;
	if (!prefix || prefix > bits)
		prefix = bits;
	if (memcmp(a, t->addr, prefix / 8) != 0)
		return 0;
	if (prefix % 8 == 0)
		return 1;
	return ((a[prefix / 8] ^ t->addr[prefix / 8]) &
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

/* Does the allow-list let t (or the name) through?  Port 0 is any. */
int shim_net_allowed(const struct shim_net_target *t, const char *name)
{
	const struct sbx_cpol *p = &shim_g.pol;

	for (uint32_t i = 0; i < p->hdr->nallow; i++) {
		const struct sbx_cpol_allow *a = &p->allow[i];
		const char *host = sbx_cpol_str(p, a->host);

		if (t && a->port && a->port != t->port)
			continue;
		if (t && addr_in(t, host, a->is_cidr ? a->prefix : 0))
			return 1;
		if (name && *name && name_in(name, host))
			return 1;
	}
	return 0;
}

static void put_allow_list(struct sb *b)
{
	const struct sbx_cpol *p = &shim_g.pol;

	for (uint32_t i = 0; i < p->hdr->nallow && i < 8; i++) {
		if (i)
			sb_put(b, ", ");
		sb_putq(b, sbx_cpol_str(p, p->allow[i].text));
	}
	if (p->hdr->nallow > 8)
		sb_put(b, ", ...");
}

/* ------------------------------------------------------------ reasons */

/* Why the network mode refuses this target (t may be NULL for a name
 * lookup), or 0 when the mode does not explain the failure. */
static int put_reason(struct sb *b, const struct shim_net_target *t,
		      const char *name)
{
	int loop = t && t->loopback;

	switch (shim_g.pol.hdr->net) {
	case SBX_NET_OFF:
		sb_put(b, "network access is off in this sandbox");
		return 1;
	case SBX_NET_LOOPBACK:
		if (loop)
			return 0;
		sb_put(b, "only loopback is reachable in this sandbox");
		return 1;
	case SBX_NET_FILTERED:
		if (loop || shim_net_allowed(t, name))
			return 0;
		sb_put(b,
		       "not in the network allow-list of this sandbox (allowed: ");
		put_allow_list(b);
		sb_putc(b, ')');
		return 1;
	default: return 0;
	}
}

static const char *net_mode_name(uint32_t net)
{
	switch (net) {
	case SBX_NET_OFF: return "network off";
	case SBX_NET_LOOPBACK: return "network loopback";
	case SBX_NET_FILTERED: return "network filtered";
	default: return "network on";
	}
}

static void emit_net(const char *msg, const char *op, const char *target)
{
	struct shim_rec rec = {
		.op = op,
		.target = target,
		.kind = "network-off",
		.rule = net_mode_name(shim_g.pol.hdr->net),
		.src = "",
		.msg = msg,
	};

	shim_emit(&rec, shim_key(op, target));
}

/* connect/sendto/sendmsg failed with err: explain when the network mode
 * is why.  verb is "connect to" or "send to". */
void shim_net_failed(const struct sockaddr *sa, socklen_t len, int err,
		     const char *verb)
{
	char msg[MSG_MAX], host[300];
	struct shim_net_target t;
	struct sb b, h;

	if (err != ENETUNREACH && err != EACCES && err != EPERM &&
	    err != EAFNOSUPPORT && err != EHOSTUNREACH && err != EADDRNOTAVAIL)
		return;
	if (shim_net_target(sa, len, &t) < 0)
		return;
	sb_init(&h, host, sizeof(host));
	put_host(&h, &t);
	sb_init(&b, msg, sizeof(msg));
	sb_put(&b, "sbxrun: cannot ");
	sb_put(&b, verb);
	sb_putc(&b, ' ');
	sb_put(&b, host);
	sb_putc(&b, ':');
	sb_putu(&b, t.port);
	sb_put(&b, ": ");
	if (!put_reason(&b, &t, host))
		return;
	sb_put(&b, "; to allow: sbxrun --net ");
	if (t.loopback) {
		sb_put(&b, "loopback");
	} else {
		sb_put(&b, "allow:");
		sb_put(&b, host);
	}
	sb_putc(&h, ':'); /* the record's target is host:port */
	sb_putu(&h, t.port);
	emit_net(msg, verb[0] == 'c' ? "connect" : "send", host);
	errno = err;
}

/* A name lookup failed while the network mode forbids it. */
void shim_net_resolve_failed(const char *node)
{
	char msg[MSG_MAX];
	struct sb b;

	sb_init(&b, msg, sizeof(msg));
	sb_put(&b, "sbxrun: cannot resolve '");
	sb_putq(&b, node);
	sb_put(&b, "': ");
	if (!put_reason(&b, NULL, node))
		return;
	sb_put(&b, "; to allow: sbxrun --net allow:");
	sb_putq(&b, node);
	emit_net(msg, "resolve", node);
}

/* socket(AF_INET*) failed: with the network off the kernel refuses the
 * family itself. */
void shim_net_socket_failed(int domain, int err)
{
	static const char msg[] =
		"sbxrun: cannot open a network socket: "
		"network access is off in this sandbox; to allow: sbxrun --net on";

	if ((domain != AF_INET && domain != AF_INET6) ||
	    shim_g.pol.hdr->net != SBX_NET_OFF ||
	    (err != EAFNOSUPPORT && err != EACCES && err != EPERM))
		return;
	emit_net(msg, "socket", domain == AF_INET ? "inet" : "inet6");
	errno = err;
}
