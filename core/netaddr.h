/*
 * netaddr.h - network addresses for the one network decision (decide.h):
 * strict parsing, normalisation and the class table that keeps a name
 * from being pointed at the host's own services or the cloud's metadata
 * endpoint (DESIGN 5, THREATS NET-07/08/09).
 *
 * Addresses are compared normalised: an IPv4-mapped IPv6 address is the
 * IPv4 address (NET-07); NAT64 and 6to4 addresses are classed by the IPv4
 * address they embed.  The documentation ranges (192.0.2/24,
 * 198.51.100/24, 203.0.113/24, 2001:db8::/32) count as public: they are
 * never routed and never name an internal service, and the tests use them
 * as stand-ins for public hosts inside their own network namespaces.
 *
 * No allocation, no stdio, no system calls: the shim uses these inside
 * its hooks (addresses are formatted by hand, not with inet_ntop).
 */
#ifndef SBX_NETADDR_H
#define SBX_NETADDR_H

#include <stddef.h>
#include <stdint.h>

/* An address, normalised (IPv4-mapped IPv6 is AF_INET). */
struct sbx_ip {
	int af; /* AF_INET or AF_INET6 */
	unsigned char a[16]; /* AF_INET: a[0..3] */
};

enum sbx_addr_class {
	SBX_AC_PUBLIC = 0,
	SBX_AC_UNSPEC, /* 0.0.0.0/8, :: */
	SBX_AC_LOOPBACK, /* 127/8, ::1 */
	SBX_AC_PRIVATE, /* RFC 1918, 198.18/15, fec0::/10, 64:ff9b:1::/48 */
	SBX_AC_CGNAT, /* 100.64/10 (shared address space) */
	SBX_AC_ULA, /* fc00::/7 */
	SBX_AC_MULTICAST, /* 224/4, ff00::/8 */
	SBX_AC_RESERVED, /* 240/4, 192.0.0/24, ::/96, 100::/64, Teredo */
	SBX_AC_LINKLOCAL, /* 169.254/16, fe80::/10: never */
	SBX_AC_METADATA, /* 169.254.169.254, 100.100.100.200,
			  * fd00:ec2::/32: never */
};

/* Parse an address literal strictly: dotted-quad IPv4 (inet_pton, so no
 * "0x7f.1" or "2130706433") or IPv6, optionally in brackets, no zone id.
 * Returns 0 or -1. */
int sbx_ip_parse(const char *s, struct sbx_ip *ip);
/* From a socket address of len bytes (AF_INET/AF_INET6); port in host
 * order if port is not NULL.  Returns 0, or -1 for other families and
 * short addresses. */
struct sockaddr;
int sbx_ip_from_sockaddr(const struct sockaddr *sa, size_t len,
			 struct sbx_ip *ip, uint16_t *port);
/* "127.0.0.1", "::1" (no brackets; RFC 5952, as inet_ntop writes it). */
void sbx_ip_format(const struct sbx_ip *ip, char *buf, size_t sz);
/* Is ip inside net/prefix (same family after normalisation)? */
int sbx_ip_in(const struct sbx_ip *ip, const struct sbx_ip *net, int prefix);
/* The class of an address and, in *range_prefix (may be NULL), the prefix
 * length of the range that gave it: an entry lists the address "by
 * address" only with a prefix at least that long. */
enum sbx_addr_class sbx_ip_class(const struct sbx_ip *ip, int *range_prefix);
/* "a loopback address", "a cloud metadata address", ... */
const char *sbx_addr_class_text(enum sbx_addr_class c);
/* Does net/prefix lie wholly inside link-local or cloud metadata space?
 * Such an allow entry is refused: those are never reachable. */
int sbx_ip_never(const struct sbx_ip *net, int prefix);

/* A requested host, normalised into out: lower case, one trailing dot
 * dropped, brackets dropped from an IPv6 literal.  Returns 1 for a name,
 * 2 for an address literal (ip filled), -1 for neither: bad characters,
 * empty labels, a last label of digits only (which resolvers read as a
 * number: "2130706433", "127.1"), too long. */
int sbx_net_host_parse(const char *in, char *out, size_t sz, struct sbx_ip *ip);

#endif
