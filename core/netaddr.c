/*
 * netaddr.c - addresses for the one network decision: strict parsing,
 * normalisation (IPv4-mapped IPv6 is IPv4, THREATS NET-07) and the class
 * table that keeps a name from being pointed at the host's own services
 * or the cloud's metadata endpoint (NET-08, NET-09).  See netaddr.h.
 * Linked into the shim: no allocation, no stdio.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "netaddr.h"
#include "sb.h"

static const unsigned char v4mapped[12] = { 0, 0, 0, 0, 0,    0,
					    0, 0, 0, 0, 0xff, 0xff };

/* An IPv4-mapped IPv6 address is the IPv4 address. */
static void normalise(struct sbx_ip *ip)
{
	if (ip->af == AF_INET6 && memcmp(ip->a, v4mapped, 12) == 0) {
		memmove(ip->a, ip->a + 12, 4);
		memset(ip->a + 4, 0, 12);
		ip->af = AF_INET;
	}
}

int sbx_ip_parse(const char *s, struct sbx_ip *ip)
{
	char buf[64];
	size_t n = strlen(s);

	memset(ip, 0, sizeof(*ip));
	if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
		s++;
		n -= 2;
	}
	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	/* inet_pton is strict: dotted quad only, no zone ids ("%eth0") */
	if (inet_pton(AF_INET, buf, ip->a) == 1) {
		ip->af = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, buf, ip->a) == 1) {
		ip->af = AF_INET6;
		normalise(ip);
		return 0;
	}
	return -1;
}

int sbx_ip_from_sockaddr(const struct sockaddr *sa, size_t len,
			 struct sbx_ip *ip, uint16_t *port)
{
	memset(ip, 0, sizeof(*ip));
	if (!sa || len < sizeof(sa_family_t))
		return -1;
	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const void *)sa;

		ip->af = AF_INET;
		memcpy(ip->a, &in->sin_addr, 4);
		if (port)
			*port = ntohs(in->sin_port);
		return 0;
	}
	if (sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = (const void *)sa;

		ip->af = AF_INET6;
		memcpy(ip->a, &in6->sin6_addr, 16);
		if (port)
			*port = ntohs(in6->sin6_port);
		normalise(ip);
		return 0;
	}
	return -1;
}

/* ------------------------------------------------------------ text */

static void put_v4(struct sb *b, const unsigned char *a)
{
	for (int i = 0; i < 4; i++) {
		if (i)
			sb_putc(b, '.');
		sb_putu(b, a[i]);
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

/* The longest run of two or more zero groups (the first of equals), as
 * inet_ntop finds it; *len 0 when there is none. */
static int zero_run(const unsigned *g, int *len)
{
	int best = -1;

	*len = 1;
	for (int i = 0, run; i < 8; i += run ? run : 1) {
		for (run = 0; i + run < 8 && g[i + run] == 0; run++)
			;
		if (run > *len) {
			best = i;
			*len = run;
		}
	}
	if (best < 0)
		*len = 0;
	return best;
}

/* RFC 5952, and inet_ntop's "::a.b.c.d" and "::ffff:a.b.c.d" for the
 * IPv4-compatible and IPv4-mapped forms. */
static void put_v6(struct sb *b, const unsigned char *a)
{
	unsigned g[8];
	int len, best;

	for (int i = 0; i < 8; i++)
		g[i] = (unsigned)a[2 * i] << 8 | a[2 * i + 1];
	best = zero_run(g, &len);
	for (int i = 0; i < 8; i++) {
		if (i == best) {
			sb_put(b, "::");
			i += len - 1;
			continue;
		}
		if (i && i != best + len)
			sb_putc(b, ':');
		if (i == 6 && best == 0 &&
		    (len == 6 || (len == 5 && g[5] == 0xffff))) {
			put_v4(b, a + 12);
			return;
		}
		put_hex16(b, g[i]);
	}
}

void sbx_ip_format(const struct sbx_ip *ip, char *buf, size_t sz)
{
	struct sb b;

	if (!sz)
		return;
	sb_init(&b, buf, sz);
	if (ip->af == AF_INET)
		put_v4(&b, ip->a);
	else if (ip->af == AF_INET6)
		put_v6(&b, ip->a);
}

int sbx_ip_in(const struct sbx_ip *ip, const struct sbx_ip *net, int prefix)
{
	int bytes = prefix / 8, bits = prefix % 8;

	if (ip->af != net->af || prefix < 0 ||
	    prefix > (ip->af == AF_INET ? 32 : 128))
		return 0;
	if (memcmp(ip->a, net->a, (size_t)bytes) != 0)
		return 0;
	return bits == 0 ||
	       ((ip->a[bytes] ^ net->a[bytes]) & (0xff00 >> bits) & 0xff) == 0;
}

/* ------------------------------------------------------------ classes */

struct range {
	int af;
	unsigned char a[16];
	int prefix;
	enum sbx_addr_class cls;
};

/* The longest matching range decides (a metadata /32 inside the
 * link-local /16).  Anything not listed is public. */
static const struct range ranges[] = {
	{ AF_INET, { 0 }, 8, SBX_AC_UNSPEC },
	{ AF_INET, { 10 }, 8, SBX_AC_PRIVATE },
	{ AF_INET, { 100, 64 }, 10, SBX_AC_CGNAT },
	/* Alibaba Cloud's metadata endpoint lives in shared space */
	{ AF_INET, { 100, 100, 100, 200 }, 32, SBX_AC_METADATA },
	{ AF_INET, { 127 }, 8, SBX_AC_LOOPBACK },
	/* Azure's platform endpoint (WireServer: VM agent, extensions,
	 * DNS), a public address but only ever the host's (N-06) */
	{ AF_INET, { 168, 63, 129, 16 }, 32, SBX_AC_METADATA },
	{ AF_INET, { 169, 254 }, 16, SBX_AC_LINKLOCAL },
	{ AF_INET, { 169, 254, 169, 254 }, 32, SBX_AC_METADATA },
	{ AF_INET, { 172, 16 }, 12, SBX_AC_PRIVATE },
	/* IETF protocol assignments */
	{ AF_INET, { 192, 0, 0 }, 24, SBX_AC_RESERVED },
	/* Oracle Cloud's legacy metadata endpoint */
	{ AF_INET, { 192, 0, 0, 192 }, 32, SBX_AC_METADATA },
	{ AF_INET, { 192, 168 }, 16, SBX_AC_PRIVATE },
	/* benchmarking, in practice used inside networks */
	{ AF_INET, { 198, 18 }, 15, SBX_AC_PRIVATE },
	{ AF_INET, { 224 }, 4, SBX_AC_MULTICAST },
	{ AF_INET, { 240 }, 4, SBX_AC_RESERVED },
	{ AF_INET6, { 0 }, 128, SBX_AC_UNSPEC },
	{ AF_INET6, { [15] = 1 }, 128, SBX_AC_LOOPBACK },
	/* IPv4-compatible (deprecated) */
	{ AF_INET6, { 0 }, 96, SBX_AC_RESERVED },
	/* discard-only */
	{ AF_INET6, { 0x01, 0x00 }, 64, SBX_AC_RESERVED },
	/* NAT64 local use */
	{ AF_INET6, { 0x00, 0x64, 0xff, 0x9b, 0x00, 0x01 }, 48, SBX_AC_PRIVATE },
	/* Teredo */
	{ AF_INET6, { 0x20, 0x01, 0x00, 0x00 }, 32, SBX_AC_RESERVED },
	{ AF_INET6, { 0xfc }, 7, SBX_AC_ULA },
	/* the EC2 IPv6 metadata endpoint (fd00:ec2::254) and its range */
	{ AF_INET6, { 0xfd, 0x00, 0x0e, 0xc2 }, 32, SBX_AC_METADATA },
	{ AF_INET6, { 0xfe, 0x80 }, 10, SBX_AC_LINKLOCAL },
	{ AF_INET6, { 0xfe, 0xc0 }, 10, SBX_AC_PRIVATE }, /* site-local */
	{ AF_INET6, { 0xff }, 8, SBX_AC_MULTICAST },
};

static enum sbx_addr_class lookup(const struct sbx_ip *ip, int *pfx)
{
	enum sbx_addr_class c = SBX_AC_PUBLIC;
	int best = -1;

	for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
		const struct range *r = &ranges[i];
		struct sbx_ip net = { r->af, { 0 } };

		memcpy(net.a, r->a, sizeof(net.a));
		if (r->prefix > best && sbx_ip_in(ip, &net, r->prefix)) {
			best = r->prefix;
			c = r->cls;
		}
	}
	if (pfx)
		*pfx = best < 0 ? 0 : best;
	return c;
}

/* 64:ff9b::/96 (NAT64) and 2002::/16 (6to4) reach the IPv4 address they
 * embed: class them by it. */
static int embedded_v4(const struct sbx_ip *ip, struct sbx_ip *v4, int *base)
{
	static const unsigned char nat64[12] = { 0, 0x64, 0xff, 0x9b };

	memset(v4, 0, sizeof(*v4));
	v4->af = AF_INET;
	if (ip->af != AF_INET6)
		return 0;
	if (memcmp(ip->a, nat64, 12) == 0) {
		memcpy(v4->a, ip->a + 12, 4);
		*base = 96;
		return 1;
	}
	if (ip->a[0] == 0x20 && ip->a[1] == 0x02) {
		memcpy(v4->a, ip->a + 2, 4);
		*base = 16;
		return 1;
	}
	return 0;
}

enum sbx_addr_class sbx_ip_class(const struct sbx_ip *ip, int *range_prefix)
{
	struct sbx_ip n = *ip, v4;
	enum sbx_addr_class c;
	int base = 0, pfx;

	normalise(&n);
	if (embedded_v4(&n, &v4, &base)) {
		c = lookup(&v4, &pfx);
		if (c != SBX_AC_PUBLIC) {
			/* the embedded range, as a prefix of the v6 address
			 * (6to4 puts it in bits 16-47) */
			if (range_prefix)
				*range_prefix = base == 96 ? 96 + pfx
							   : 16 + pfx;
			return c;
		}
	}
	return lookup(&n, range_prefix);
}

int sbx_ip_never(const struct sbx_ip *net, int prefix)
{
	struct sbx_ip n = *net;
	enum sbx_addr_class c;
	int range;

	if (n.af == AF_INET6 && memcmp(n.a, v4mapped, 12) == 0) {
		if (prefix < 96)
			return 0;
		normalise(&n);
		prefix -= 96;
	}
	c = sbx_ip_class(&n, &range);
	return (c == SBX_AC_LINKLOCAL || c == SBX_AC_METADATA) &&
	       prefix >= range;
}

const char *sbx_addr_class_text(enum sbx_addr_class c)
{
	switch (c) {
	case SBX_AC_PUBLIC: return "a public address";
	case SBX_AC_UNSPEC: return "an unspecified address";
	case SBX_AC_LOOPBACK: return "a loopback address";
	case SBX_AC_PRIVATE: return "a private address";
	case SBX_AC_CGNAT: return "a shared (CGNAT) address";
	case SBX_AC_ULA: return "a unique local address";
	case SBX_AC_MULTICAST: return "a multicast address";
	case SBX_AC_RESERVED: return "a reserved address";
	case SBX_AC_LINKLOCAL: return "a link-local address";
	case SBX_AC_METADATA: return "a cloud metadata address";
	}
	return "an address";
}

/* ------------------------------------------------------------ hosts */

static int name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
	       c == '_';
}

/* Labels of [a-z0-9_-], 1-63 each, the last not all digits. */
static int name_ok(const char *h, size_t n)
{
	size_t label = 0, digits = 0;

	if (n == 0 || n > 253)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (h[i] == '.') {
			if (label == 0)
				return 0;
			label = digits = 0;
		} else if (name_char(h[i])) {
			if (++label > 63)
				return 0;
			digits += h[i] >= '0' && h[i] <= '9';
		} else {
			return 0;
		}
	}
	return label > 0 && digits < label;
}

int sbx_net_host_parse(const char *in, char *out, size_t sz, struct sbx_ip *ip)
{
	size_t n = strlen(in);

	if (n == 0 || n >= sz || n > 300)
		return -1;
	if (sbx_ip_parse(in, ip) == 0) {
		sbx_ip_format(ip, out, sz);
		return 2;
	}
	for (size_t i = 0; i < n; i++)
		out[i] = (in[i] >= 'A' && in[i] <= 'Z') ? (char)(in[i] + 32)
							: in[i];
	if (n > 1 && out[n - 1] == '.')
		n--;
	out[n] = '\0';
	return name_ok(out, n) ? 1 : -1;
}
