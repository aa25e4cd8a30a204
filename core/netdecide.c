/*
 * netdecide.c - the host:port decision of the network allow-list and its
 * one-line explanation (netallow.h has the model).  Pure: no I/O, no
 * allocation; the filtering proxy calls it for every connection, and the
 * one decider (core/decide.c) is meant to call it too.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "explain.h"
#include "netallow.h"

/* "*.github.com" matches any name below github.com, not github.com. */
static int name_match(const char *pat, const char *name)
{
	size_t nl = strlen(name), pl = strlen(pat);

	if (pat[0] == '*' && pat[1] == '.')
		return nl > pl - 1 &&
		       strcasecmp(name + nl - (pl - 1), pat + 1) == 0;
	return strcasecmp(name, pat) == 0;
}

static int port_ok(const struct sbx_net_allow *r, uint16_t port)
{
	return r->port == 0 || r->port == port;
}

/* Does an address entry contain ip?  *eff is its prefix length in ip's
 * family (an IPv4-mapped entry "::ffff:10.0.0.0/104" is 10.0.0.0/8; an
 * IPv6 entry shorter than /96 covers the mapped IPv4 space with a
 * negative effective prefix, which lists no special address). */
static int rule_has(const struct sbx_net_allow *r, const struct sbx_ip *ip,
		    int *eff)
{
	static const unsigned char mapped[12] = { [10] = 0xff, [11] = 0xff };
	struct sbx_ip net = { 0 }, m;

	net.af = strchr(r->host, ':') ? AF_INET6 : AF_INET;
	if (!r->is_cidr || inet_pton(net.af, r->host, net.a) != 1)
		return 0;
	if (net.af == AF_INET6 && ip->af == AF_INET) {
		m.af = AF_INET6;
		memcpy(m.a, mapped, 12);
		memcpy(m.a + 12, ip->a, 4);
		*eff = r->prefix - 96;
		return sbx_ip_in(&m, &net, r->prefix);
	}
	*eff = r->prefix;
	return sbx_ip_in(ip, &net, r->prefix);
}

static struct sbx_net_decision verdict(enum sbx_net_why why,
				       enum sbx_addr_class cls,
				       const struct sbx_net_allow *rule)
{
	struct sbx_net_decision d = { why, cls, rule };

	return d;
}

/* An address, listed by an address entry?  Special classes need an entry
 * at least as specific as their range; link-local and metadata never. */
static struct sbx_net_decision by_address(const struct sbx_policy *p,
					  const struct sbx_ip *ip,
					  uint16_t port, int resolved)
{
	const struct sbx_net_allow *other_port = NULL;
	int cpfx, eff;
	enum sbx_addr_class cls = sbx_ip_class(ip, &cpfx);

	if (cls == SBX_AC_LINKLOCAL || cls == SBX_AC_METADATA)
		return verdict(SBX_NETW_NEVER, cls, NULL);
	if (resolved && cls == SBX_AC_PUBLIC)
		return verdict(SBX_NETW_ALLOW, cls, NULL);
	for (size_t i = 0; i < p->nallow; i++) {
		const struct sbx_net_allow *r = &p->allow[i];

		if (!rule_has(r, ip, &eff) ||
		    (cls != SBX_AC_PUBLIC && eff < cpfx))
			continue;
		if (port_ok(r, port))
			return verdict(SBX_NETW_ALLOW, cls, r);
		other_port = r;
	}
	if (other_port && !resolved)
		return verdict(SBX_NETW_PORT, cls, other_port);
	return verdict(cls == SBX_AC_PUBLIC ? SBX_NETW_ADDR : SBX_NETW_CLASS,
		       cls, NULL);
}

struct sbx_net_decision sbx_net_decide_host(const struct sbx_policy *p,
					    const char *host, uint16_t port)
{
	const struct sbx_net_allow *other_port = NULL;
	char h[320];
	struct sbx_ip ip;
	int kind;

	if (p->net != SBX_NET_FILTERED)
		return verdict(SBX_NETW_MODE, SBX_AC_PUBLIC, NULL);
	kind = sbx_net_host_parse(host, h, sizeof(h), &ip);
	if (kind < 0 || port == 0)
		return verdict(SBX_NETW_BADHOST, SBX_AC_PUBLIC, NULL);
	if (kind == 2)
		return by_address(p, &ip, port, 0);
	for (size_t i = 0; i < p->nallow; i++) {
		const struct sbx_net_allow *r = &p->allow[i];

		if (r->is_cidr || !name_match(r->host, h))
			continue;
		if (port_ok(r, port))
			return verdict(SBX_NETW_ALLOW, SBX_AC_PUBLIC, r);
		other_port = r;
	}
	return verdict(other_port ? SBX_NETW_PORT : SBX_NETW_NOT_LISTED,
		       SBX_AC_PUBLIC, other_port);
}

struct sbx_net_decision sbx_net_decide_addr(const struct sbx_policy *p,
					    const struct sbx_ip *ip,
					    uint16_t port)
{
	if (p->net != SBX_NET_FILTERED)
		return verdict(SBX_NETW_MODE, SBX_AC_PUBLIC, NULL);
	return by_address(p, ip, port, 1);
}

/* ------------------------------------------------------------ messages */

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

/* host:port as it would be typed: a normalised name or address, IPv6 in
 * brackets; anything else (a hostile client's bytes) made printable and
 * short. */
void sbx_net_target(char *buf, size_t sz, const char *host, uint16_t port)
{
	char h[320], safe[80];
	struct sbx_ip ip;
	int kind = sbx_net_host_parse(host, h, sizeof(h), &ip);
	size_t j = 0;

	if (kind > 0) {
		snprintf(buf, sz,
			 kind == 2 && ip.af == AF_INET6 ? "[%s]:%u" : "%s:%u",
			 h, port);
		return;
	}
	for (size_t i = 0; host[i] && j < 60; i++)
		safe[j++] = host[i] > ' ' && host[i] < 127 && host[i] != '\''
				    ? host[i]
				    : '?';
	safe[j] = '\0';
	snprintf(buf, sz, "'%s%s':%u", safe, host[j] && j >= 60 ? "..." : "",
		 port);
}

void sbx_net_to_allow(char *buf, size_t sz, const char *host, uint16_t port,
		      const struct sbx_ip *addr, struct sbx_net_decision d)
{
	char h[320] = "", a[64] = "";
	struct sbx_ip ip = { 0 };
	int kind = sbx_net_host_parse(host, h, sizeof(h), &ip);

	buf[0] = '\0';
	if (addr) {
		sbx_ip_format(addr, a, sizeof(a));
		ip = *addr;
	} else if (kind == 2) {
		sbx_ip_format(&ip, a, sizeof(a));
	}
	switch (d.why) {
	case SBX_NETW_NOT_LISTED: snprintf(buf, sz, "allow:%s", h); break;
	case SBX_NETW_PORT:
		snprintf(buf, sz,
			 kind == 2 && ip.af == AF_INET6 ? "allow:[%s]:%u"
							: "allow:%s:%u",
			 kind == 2 ? a : h, port);
		break;
	case SBX_NETW_ADDR:
	case SBX_NETW_CLASS:
		snprintf(buf, sz,
			 ip.af == AF_INET6 ? "allow:[%s]:%u" : "allow:%s:%u", a,
			 port);
		break;
	default: break;
	}
}

/* "allowed: a, b:443, @npm, ..." (a preset's entries shown once, by name) */
static void allowed_list(char *buf, size_t sz, const struct sbx_policy *p)
{
	const char *last = NULL;
	size_t len = 0;
	int shown = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < p->nallow && len < sz; i++) {
		const struct sbx_net_allow *r = &p->allow[i];

		if (r->preset && r->preset == last)
			continue;
		last = r->preset;
		if (shown++ == 8) {
			len += (size_t)snprintf(buf + len, sz - len, ", ...");
			break;
		}
		len += (size_t)snprintf(buf + len, sz - len,
					r->preset ? "%s@%s" : "%s%s",
					shown > 1 ? ", " : "",
					r->preset ? r->preset : r->text);
	}
	if (!shown)
		snprintf(buf, sz, "nothing");
}

/* "example.com:443 from conf:3" or "registry.npmjs.org:443 (@npm) from
 * --net" */
static void rule_text(char *buf, size_t sz, const struct sbx_net_allow *r)
{
	char src[600];

	sbx_src_format(src, sizeof(src), r->src);
	snprintf(buf, sz, r->preset ? "%s (@%s) from %s" : "%s%s from %s",
		 r->text, r->preset ? r->preset : "", src);
}

static void explain_refusal(char *buf, size_t sz, const struct sbx_policy *p,
			    const char *tgt, const char *addr,
			    struct sbx_net_decision d, const char *fix)
{
	char src[600], list[1024], rule[1024];
	const char *cls = sbx_addr_class_text(d.cls);

	sbx_src_format(src, sizeof(src), p->net_src);
	allowed_list(list, sizeof(list), p);
	switch (d.why) {
	case SBX_NETW_NOT_LISTED:
		snprintf(buf, sz,
			 "sbxrun: network: %s is not in the allow-list (rule: "
			 "network filtered by %s, allowed: %s); to allow: "
			 "sbxrun --net %s",
			 tgt, src, list, fix);
		break;
	case SBX_NETW_PORT:
		rule_text(rule, sizeof(rule), d.rule);
		snprintf(buf, sz,
			 "sbxrun: network: %s is not in the allow-list (rule "
			 "%s allows port %u only); to allow: sbxrun --net %s",
			 tgt, rule, d.rule->port, fix);
		break;
	case SBX_NETW_ADDR:
		snprintf(
			buf, sz,
			"sbxrun: network: %s is not in the allow-list "
			"(addresses must be listed by address; rule: network "
			"filtered by %s, allowed: %s); to allow: sbxrun --net %s",
			tgt, src, list, fix);
		break;
	case SBX_NETW_CLASS:
		snprintf(buf, sz,
			 "sbxrun: network: %s %s%s%s %s, reachable only when "
			 "listed by address (rule: network filtered by %s); to "
			 "allow: sbxrun --net %s",
			 tgt, addr ? "resolves to " : "is", addr ? addr : "",
			 addr ? "," : "", cls, src, fix);
		break;
	case SBX_NETW_NEVER:
		snprintf(buf, sz,
			 "sbxrun: network: %s %s%s%s %s, never reachable from "
			 "the sandbox",
			 tgt, addr ? "resolves to " : "is", addr ? addr : "",
			 addr ? "," : "", cls);
		break;
	case SBX_NETW_BADHOST:
		snprintf(buf, sz,
			 "sbxrun: network: %s is not a host name or address "
			 "the sandbox accepts",
			 tgt);
		break;
	case SBX_NETW_MODE:
		snprintf(buf, sz,
			 "sbxrun: network: %s: the network is %s in this "
			 "sandbox (rule from %s)",
			 tgt, sbx_net_name(p->net), src);
		break;
	case SBX_NETW_ALLOW: break;
	}
}

void sbx_net_explain(char *buf, size_t sz, const struct sbx_policy *p,
		     const char *host, uint16_t port, const struct sbx_ip *addr,
		     struct sbx_net_decision d)
{
	char tgt[400], a[64], fix[400], rule[1024];

	sbx_net_target(tgt, sizeof(tgt), host, port);
	if (addr)
		sbx_ip_format(addr, a, sizeof(a));
	sbx_net_to_allow(fix, sizeof(fix), host, port, addr, d);
	if (d.why != SBX_NETW_ALLOW) {
		explain_refusal(buf, sz, p, tgt, addr ? a : NULL, d, fix);
		return;
	}
	if (d.rule)
		rule_text(rule, sizeof(rule), d.rule);
	snprintf(buf, sz, "network: %s%s%s is allowed (%s%s)", tgt,
		 addr ? " at " : "", addr ? a : "", d.rule ? "rule " : "",
		 d.rule ? rule : "a public address of an allowed name");
}
