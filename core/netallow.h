/*
 * netallow.h - the network allow-list beyond parsing: named presets
 * ("@npm"), address classes, and the host:port decision that the filtering
 * proxy makes for every connection (DESIGN 5, THREATS NET-01/02/07/08/09).
 *
 * A connection is decided in two steps, because the name is all a client
 * gives and the address is what is actually reached:
 *
 *   1. sbx_net_decide_host(): the host as the client asked for it, a name
 *      or an address literal, and the port.  A name must be listed by name
 *      ("example.com", "*.example.com"); a literal must be listed by
 *      address ("10.1.2.3", "10.0.0.0/8").  A name that no entry lists is
 *      refused before anything is resolved, so the proxy's resolver never
 *      carries a name the policy did not allow (no DNS exfiltration
 *      through the proxy, NET-02).
 *   2. sbx_net_decide_addr(): each address a listed name resolved to.
 *      Public addresses pass; loopback, private, shared (CGNAT), unique
 *      local, unspecified, multicast and reserved ones only when an entry
 *      lists them by address (so a name cannot be pointed at the host's
 *      own services: DNS rebinding, NET-09); link-local and cloud metadata
 *      addresses never (NET-08).  The caller connects to exactly the
 *      address it checked.
 *
 * Addresses are compared normalised: an IPv4-mapped IPv6 address is the
 * IPv4 address (NET-07); NAT64 and 6to4 addresses are classed by the IPv4
 * address they embed.  The documentation ranges (192.0.2/24,
 * 198.51.100/24, 203.0.113/24, 2001:db8::/32) count as public: they are
 * never routed and never name an internal service, and the tests use them
 * as stand-ins for public hosts inside their own network namespaces.
 *
 * Everything here is pure: no I/O, and the decisions do not allocate.
 */
#ifndef SBX_NETALLOW_H
#define SBX_NETALLOW_H

#include <stddef.h>
#include <stdint.h>

#include "policy.h"

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
	SBX_AC_METADATA, /* 169.254.169.254, fd00:ec2::254, ...: never */
};

/* Parse an address literal strictly: dotted-quad IPv4 (inet_pton, so no
 * "0x7f.1" or "2130706433") or IPv6, optionally in brackets, no zone id.
 * Returns 0 or -1. */
int sbx_ip_parse(const char *s, struct sbx_ip *ip);
/* From a socket address (AF_INET/AF_INET6); port in host order if port is
 * not NULL.  Returns 0 or -1 for other families. */
struct sockaddr;
int sbx_ip_from_sockaddr(const struct sockaddr *sa, struct sbx_ip *ip,
			 uint16_t *port);
/* "127.0.0.1", "::1" (no brackets). */
void sbx_ip_format(const struct sbx_ip *ip, char *buf, size_t sz);
/* Is ip inside net/prefix (same family after normalisation)? */
int sbx_ip_in(const struct sbx_ip *ip, const struct sbx_ip *net, int prefix);
/* The class of an address and, in *range_prefix (may be NULL), the prefix
 * length of the range that gave it: an entry lists the address "by
 * address" only with a prefix at least that long. */
enum sbx_addr_class sbx_ip_class(const struct sbx_ip *ip, int *range_prefix);
/* "a loopback address", "a cloud metadata address", ... */
const char *sbx_addr_class_text(enum sbx_addr_class c);

/* A requested host, normalised into out: lower case, one trailing dot
 * dropped, brackets dropped from an IPv6 literal.  Returns 1 for a name,
 * 2 for an address literal (ip filled), -1 for neither: bad characters,
 * empty labels, a last label of digits only (which resolvers read as a
 * number: "2130706433", "127.1"), too long. */
int sbx_net_host_parse(const char *in, char *out, size_t sz, struct sbx_ip *ip);

enum sbx_net_why {
	SBX_NETW_ALLOW = 0,
	SBX_NETW_NOT_LISTED, /* no entry names this host */
	SBX_NETW_PORT, /* listed, but for other ports (rule: one of them) */
	SBX_NETW_ADDR, /* an address literal that no entry lists */
	SBX_NETW_CLASS, /* an address of a class that must be listed by
			 * address, and is not (cls) */
	SBX_NETW_NEVER, /* link-local or metadata (cls) */
	SBX_NETW_BADHOST, /* not a host name or address */
	SBX_NETW_MODE, /* the network mode is not "filtered" */
};

struct sbx_net_decision {
	enum sbx_net_why why;
	enum sbx_addr_class cls;
	/* ALLOW: the entry that allowed it (NULL when a resolved public
	 * address passed on the strength of the name); PORT: an entry for
	 * the host on another port. */
	const struct sbx_net_allow *rule;
};

/* Step 1: the host as requested (any spelling; normalised here) and the
 * port (1-65535). */
struct sbx_net_decision sbx_net_decide_host(const struct sbx_policy *p,
					    const char *host, uint16_t port);
/* Step 2: one address that a host allowed by name resolved to. */
struct sbx_net_decision sbx_net_decide_addr(const struct sbx_policy *p,
					    const struct sbx_ip *ip,
					    uint16_t port);

/* The one-line explanation of a refusal (DESIGN 8 shape), or of an
 * allowed connection for --check style answers:
 *   sbxrun: network: example.invalid:443 is not in the allow-list (rule:
 *   ...); to allow: sbxrun --net allow:example.invalid
 * host is as requested (it is sanitised here: it may come from a hostile
 * client); addr is the resolved address for a step-2 refusal, else NULL.
 * "to allow" is set in *to_allow (may be NULL, size sz) when there is one:
 * the --net argument, e.g. "allow:example.invalid". */
void sbx_net_explain(char *buf, size_t sz, const struct sbx_policy *p,
		     const char *host, uint16_t port, const struct sbx_ip *addr,
		     struct sbx_net_decision d);
/* "example.com:443", "[::1]:80", or a hostile host made printable and
 * short, quoted: "'x??y':443". */
void sbx_net_target(char *buf, size_t sz, const char *host, uint16_t port);
/* Only the --net argument that would allow it ("allow:host[:port]"), or
 * "" when nothing can (metadata, bad host, mode). */
void sbx_net_to_allow(char *buf, size_t sz, const char *host, uint16_t port,
		      const struct sbx_ip *addr, struct sbx_net_decision d);
/* A short word for records: "not-allowed", "port", "address", "never",
 * "bad-host", "network-off". */
const char *sbx_net_why_kind(enum sbx_net_why w);

/* Presets: named lists of allow entries, defined by "network.presets" in a
 * conf file (the shipped ones in profiles/default.conf) and used as
 * "@name" wherever an allow entry is accepted.  A later definition of the
 * same name replaces the earlier one for later uses.  Entries are
 * validated here; a preset cannot use another preset. */
int sbx_net_preset_define(struct sbx_policy *p, const char *name,
			  const char *const *entries, size_t n,
			  struct sbx_src src, struct sbx_err *err);
const struct sbx_net_preset *sbx_net_preset_find(const struct sbx_policy *p,
						 const char *name);
/* Validate one entry without adding it ("@name" is checked against the
 * presets defined so far).  Returns 0 or -1 with err. */
int sbx_net_entry_check(const struct sbx_policy *p, const char *entry,
			struct sbx_err *err);
/* Is name a valid preset name ([a-z0-9_-], 1-32 characters)? */
int sbx_net_preset_name_ok(const char *name);
void sbx_net_presets_free(struct sbx_policy *p);

#endif
