/*
 * test_netallow.c - the network allow-list beyond parsing (core/netaddr.c,
 * the one network decision of core/decide.c and its explanation in
 * core/explain.c, over the compiled policy as the proxy and the shim see
 * it; the presets in core/netallow.c and conf.c):
 *
 *  - address classes as a table, in every spelling that reaches the same
 *    address (IPv4-mapped, NAT64, 6to4; THREATS NET-07/08/09);
 *  - requested host names: normalised, and numbers that resolvers would
 *    read as addresses refused;
 *  - decisions as a table of (allow-list, host, port, resolved address,
 *    expected verdict): names by name, literals by address, special
 *    classes only when listed by address, link-local and metadata never;
 *  - the one-line explanations and their "to allow" fixes, and that the
 *    fix, added to the policy, makes the same decision pass;
 *  - allow entries inside link-local or metadata space refused;
 *  - presets: the shipped ones, "@name" from a conf file and --net, and
 *    file:line errors for unknown presets and bad entries.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "conf.h"
#include "cpol.h"
#include "decide.h"
#include "explain.h"
#include "netallow.h"
#include "policy.h"
#include "testutil.h"

/* A policy compiled, as the proxy and the shim decide over it. */
struct compiled {
	void *buf;
	size_t len;
	struct sbx_cpol v;
};

static void compile(const struct sbx_policy *p, struct compiled *c)
{
	struct sbx_err err;
	const char *why;

	if (sbx_cpol_build(p, SBX_KMODE_FULL, 0, &c->buf, &c->len, &err) < 0)
		fail_msg("compile: %s", err.msg);
	assert_int_equal(sbx_cpol_view(c->buf, c->len, &c->v, &why), 0);
}

/* ------------------------------------------------------------ classes */

static const struct crow {
	const char *addr;
	enum sbx_addr_class cls;
} crows[] = {
	{ "8.8.8.8", SBX_AC_PUBLIC },
	{ "1.1.1.1", SBX_AC_PUBLIC },
	{ "203.0.113.10", SBX_AC_PUBLIC }, /* documentation: public */
	{ "0.0.0.0", SBX_AC_UNSPEC },
	{ "0.1.2.3", SBX_AC_UNSPEC },
	{ "127.0.0.1", SBX_AC_LOOPBACK },
	{ "127.255.255.254", SBX_AC_LOOPBACK },
	{ "10.0.0.1", SBX_AC_PRIVATE },
	{ "172.16.0.1", SBX_AC_PRIVATE },
	{ "172.31.255.255", SBX_AC_PRIVATE },
	{ "172.32.0.1", SBX_AC_PUBLIC },
	{ "172.15.255.255", SBX_AC_PUBLIC },
	{ "192.168.1.1", SBX_AC_PRIVATE },
	{ "198.18.0.1", SBX_AC_PRIVATE },
	{ "198.19.255.255", SBX_AC_PRIVATE },
	{ "198.20.0.1", SBX_AC_PUBLIC },
	{ "100.64.0.1", SBX_AC_CGNAT },
	{ "100.127.255.255", SBX_AC_CGNAT },
	{ "100.128.0.1", SBX_AC_PUBLIC },
	{ "100.100.100.200", SBX_AC_METADATA },
	{ "169.254.0.1", SBX_AC_LINKLOCAL },
	{ "169.254.169.254", SBX_AC_METADATA },
	{ "192.0.0.192", SBX_AC_METADATA }, /* Oracle */
	{ "192.0.0.193", SBX_AC_RESERVED },
	{ "168.63.129.16", SBX_AC_METADATA }, /* Azure WireServer (N-06) */
	{ "168.63.129.17", SBX_AC_PUBLIC },
	{ "169.254.170.2", SBX_AC_LINKLOCAL }, /* ECS task metadata */
	{ "::ffff:168.63.129.16", SBX_AC_METADATA },
	{ "224.0.0.1", SBX_AC_MULTICAST },
	{ "239.255.255.250", SBX_AC_MULTICAST },
	{ "240.0.0.1", SBX_AC_RESERVED },
	{ "255.255.255.255", SBX_AC_RESERVED },
	{ "::", SBX_AC_UNSPEC },
	{ "::1", SBX_AC_LOOPBACK },
	{ "[::1]", SBX_AC_LOOPBACK },
	{ "::2", SBX_AC_RESERVED },
	{ "::ffff:127.0.0.1", SBX_AC_LOOPBACK },
	{ "::ffff:7f00:1", SBX_AC_LOOPBACK },
	{ "::ffff:169.254.169.254", SBX_AC_METADATA },
	{ "::ffff:a9fe:a9fe", SBX_AC_METADATA },
	{ "::ffff:10.1.2.3", SBX_AC_PRIVATE },
	{ "::ffff:8.8.8.8", SBX_AC_PUBLIC },
	{ "64:ff9b::7f00:1", SBX_AC_LOOPBACK }, /* NAT64 of 127.0.0.1 */
	{ "64:ff9b::a9fe:a9fe", SBX_AC_METADATA },
	{ "64:ff9b::808:808", SBX_AC_PUBLIC },
	{ "64:ff9b:1::1", SBX_AC_PRIVATE },
	{ "2002:7f00:1::1", SBX_AC_LOOPBACK }, /* 6to4 of 127.0.0.1 */
	{ "2002:a9fe:a9fe::1", SBX_AC_METADATA },
	{ "2002:808:808::1", SBX_AC_PUBLIC },
	{ "2001::1", SBX_AC_RESERVED }, /* Teredo */
	{ "2001:db8::1", SBX_AC_PUBLIC }, /* documentation: public */
	{ "2606:4700::1111", SBX_AC_PUBLIC },
	{ "100::1", SBX_AC_RESERVED },
	{ "fc00::1", SBX_AC_ULA },
	{ "fd00::1", SBX_AC_ULA },
	{ "fdff:ffff::1", SBX_AC_ULA },
	{ "fd00:ec2::254", SBX_AC_METADATA },
	{ "fe80::1", SBX_AC_LINKLOCAL },
	{ "febf::1", SBX_AC_LINKLOCAL },
	{ "fec0::1", SBX_AC_PRIVATE },
	{ "ff02::1", SBX_AC_MULTICAST },
};

static void test_classes(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(crows) / sizeof(crows[0]); i++) {
		struct sbx_ip ip;
		enum sbx_addr_class c;

		if (sbx_ip_parse(crows[i].addr, &ip) < 0) {
			print_error("class row %zu: %s does not parse\n", i,
				    crows[i].addr);
			bad++;
			continue;
		}
		c = sbx_ip_class(&ip, NULL);
		if (c != crows[i].cls) {
			print_error("class row %zu: %s is %s, want %s\n", i,
				    crows[i].addr, sbx_addr_class_text(c),
				    sbx_addr_class_text(crows[i].cls));
			bad++;
		}
	}
	if (bad)
		fail_msg("%d class rows failed", bad);
}

/* Odd spellings are not addresses (a resolver would read some of them as
 * numbers: the host parser refuses those as names too). */
static void test_ip_parse(void **state)
{
	static const char *const no[] = {
		"0x7f.1", "2130706433", "127.1", "127.0.0.1.", "fe80::1%eth0",
		"[::1",	  "1.2.3.4/8",	"",	 "[]",	       "01.02.03.04x"
	};
	struct sbx_ip ip;
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6,
				   .sin6_port = htons(443) };
	struct sockaddr_un {
		unsigned short f;
	} su = { AF_UNIX };
	uint16_t port = 0;
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (sbx_ip_parse(no[i], &ip) == 0)
			fail_msg("'%s' parsed as an address", no[i]);
	/* v4-mapped from a sockaddr normalises to IPv4 */
	inet_pton(AF_INET6, "::ffff:127.0.0.1", &s6.sin6_addr);
	assert_int_equal(
		sbx_ip_from_sockaddr((void *)&s6, sizeof(s6), &ip, &port), 0);
	assert_int_equal(ip.af, AF_INET);
	assert_int_equal(port, 443);
	sbx_ip_format(&ip, buf, sizeof(buf));
	assert_string_equal(buf, "127.0.0.1");
	assert_int_equal(
		sbx_ip_from_sockaddr((void *)&su, sizeof(su), &ip, NULL), -1);
	/* a short address is no address */
	assert_int_equal(sbx_ip_from_sockaddr((void *)&s6, sizeof(s6) - 1, &ip,
					      NULL),
			 -1);
}

/* sbx_ip_format writes by hand (the shim cannot use inet_ntop) exactly
 * what inet_ntop writes. */
static void test_ip_format(void **state)
{
	static const char *const v6[] = {
		"::",
		"::1",
		"1::",
		"2001:db8::1",
		"2001:db8:0:0:1:0:0:1",
		"2001:0:0:1::1",
		"fe80::1:2:3:4",
		"1:2:3:4:5:6:7:8",
		"1:0:2:0:3:0:4:0",
		"0:0:1:0:0:0:1:0",
		"::1.2.3.4",
		"::ffff:1.2.3.4",
		"::102",
		"::ffff:0:1",
		"64:ff9b::a9fe:a9fe",
		"2002:a9fe:a9fe::",
		"ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
	};
	char want[64], got[64], tiny[6];
	struct sbx_ip ip = { AF_INET6, { 0 } };

	(void)state;
	for (size_t i = 0; i < sizeof(v6) / sizeof(v6[0]); i++) {
		assert_int_equal(inet_pton(AF_INET6, v6[i], ip.a), 1);
		inet_ntop(AF_INET6, ip.a, want, sizeof(want));
		sbx_ip_format(&ip, got, sizeof(got));
		if (strcmp(want, got) != 0)
			fail_msg("%s: inet_ntop %s, sbx_ip_format %s", v6[i],
				 want, got);
	}
	ip.af = AF_INET;
	memcpy(ip.a, "\xc0\x00\x02\xff", 4);
	sbx_ip_format(&ip, got, sizeof(got));
	assert_string_equal(got, "192.0.2.255");
	sbx_ip_format(&ip, tiny, sizeof(tiny)); /* cut, never overflowing */
	assert_int_equal(strlen(tiny), sizeof(tiny) - 1);
}

static const struct hrow {
	const char *in, *out;
	int kind;
} hrows[] = {
	{ "Example.COM", "example.com", 1 },
	{ "example.com.", "example.com", 1 },
	{ "a_b-c.example", "a_b-c.example", 1 },
	{ "[::1]", "::1", 2 },
	{ "::FFFF:127.0.0.1", "127.0.0.1", 2 },
	{ "10.0.0.1", "10.0.0.1", 2 },
	{ "2130706433", NULL, -1 },
	{ "127.1", NULL, -1 },
	{ "0x7f.1", NULL, -1 }, /* last label "1" is digits only */
	{ "1.2.3", NULL, -1 },
	{ "example.123", NULL, -1 },
	{ "123.example", "123.example", 1 },
	{ "", NULL, -1 },
	{ ".", NULL, -1 },
	{ "a..b", NULL, -1 },
	{ ".a", NULL, -1 },
	{ "a b", NULL, -1 },
	{ "a\r\nb", NULL, -1 },
	{ "*.example.com", NULL, -1 }, /* a pattern is not a host */
	{ "ex%61mple.com", NULL, -1 },
	{ "user@example.com", NULL, -1 },
	{ "example.com:443", NULL, -1 },
	{ "fe80::1%25eth0", NULL, -1 },
};

static void test_host_parse(void **state)
{
	char out[320], long_name[300];
	struct sbx_ip ip;
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(hrows) / sizeof(hrows[0]); i++) {
		int k = sbx_net_host_parse(hrows[i].in, out, sizeof(out), &ip);

		if (k != hrows[i].kind ||
		    (k > 0 && strcmp(out, hrows[i].out) != 0)) {
			print_error("host row %zu '%s': %d '%s'\n", i,
				    hrows[i].in, k, k > 0 ? out : "");
			bad++;
		}
	}
	memset(long_name, 'a', 299);
	long_name[299] = '\0';
	for (size_t i = 60; i < 299; i += 61)
		long_name[i] = '.';
	assert_int_equal(sbx_net_host_parse(long_name, out, sizeof(out), &ip),
			 -1);
	if (bad)
		fail_msg("%d host rows failed", bad);
}

/* ------------------------------------------------------------ decisions */

static void pol_with(struct sbx_policy *p, const char *entries)
{
	char *copy = strdup(entries), *save = NULL;
	struct sbx_err err;
	int line = 1;

	sbx_policy_init(p);
	p->net = SBX_NET_FILTERED;
	p->net_src = (struct sbx_src){ sbx_policy_intern(p, "t.conf"), 1 };
	for (char *e = strtok_r(copy, ",", &save); e;
	     e = strtok_r(NULL, ",", &save))
		if (sbx_policy_add_allow(p, e,
					 (struct sbx_src){ "t.conf", line++ },
					 &err) < 0)
			fail_msg("entry '%s': %s", e, err.msg);
	free(copy);
}

/* One decision: host (and port) first; when it passes by name and addr
 * is set, the resolved address second. */
static const struct drow {
	const char *allow, *host;
	uint16_t port;
	const char *addr;
	enum sbx_net_why why;
} drows[] = {
	/* names by name */
	{ "example.com", "example.com", 443, NULL, SBX_NETW_ALLOW },
	{ "example.com", "EXAMPLE.com.", 80, NULL, SBX_NETW_ALLOW },
	{ "example.com", "www.example.com", 443, NULL, SBX_NETW_NOT_LISTED },
	{ "example.com", "example.com.invalid", 443, NULL,
	  SBX_NETW_NOT_LISTED },
	{ "example.com", "notexample.com", 443, NULL, SBX_NETW_NOT_LISTED },
	{ "*.example.com", "a.b.example.com", 443, NULL, SBX_NETW_ALLOW },
	{ "*.example.com", "example.com", 443, NULL, SBX_NETW_NOT_LISTED },
	{ "*.example.com", "xexample.com", 443, NULL, SBX_NETW_NOT_LISTED },
	{ "example.com:443", "example.com", 443, NULL, SBX_NETW_ALLOW },
	{ "example.com:443", "example.com", 80, NULL, SBX_NETW_PORT },
	{ "example.com:443,example.com:80", "example.com", 80, NULL,
	  SBX_NETW_ALLOW },
	{ "example.com", "example.com", 0, NULL, SBX_NETW_BADHOST },
	{ "example.com", "exa mple.com", 443, NULL, SBX_NETW_BADHOST },
	{ "example.com", "2130706433", 80, NULL, SBX_NETW_BADHOST },
	/* a name is never allowed by an address entry (no lookup of names
	 * the policy does not list) */
	{ "10.0.0.0/8", "internal.example", 443, NULL, SBX_NETW_NOT_LISTED },
	/* resolved addresses of an allowed name */
	{ "example.com", "example.com", 443, "93.184.216.34", SBX_NETW_ALLOW },
	{ "example.com", "example.com", 443, "2606:2800::1", SBX_NETW_ALLOW },
	{ "example.com", "example.com", 443, "127.0.0.1", SBX_NETW_CLASS },
	{ "example.com", "example.com", 443, "::1", SBX_NETW_CLASS },
	{ "example.com", "example.com", 443, "::ffff:127.0.0.1",
	  SBX_NETW_CLASS },
	{ "example.com", "example.com", 443, "0.0.0.0", SBX_NETW_CLASS },
	{ "example.com", "example.com", 443, "10.1.2.3", SBX_NETW_CLASS },
	{ "example.com", "example.com", 443, "100.64.1.1", SBX_NETW_CLASS },
	{ "example.com", "example.com", 443, "fd12::1", SBX_NETW_CLASS },
	{ "example.com", "example.com", 443, "224.0.0.1", SBX_NETW_CLASS },
	{ "example.com", "example.com", 443, "64:ff9b::a00:1", SBX_NETW_CLASS },
	{ "example.com", "example.com", 80, "169.254.169.254", SBX_NETW_NEVER },
	{ "example.com", "example.com", 80, "169.254.1.1", SBX_NETW_NEVER },
	{ "example.com", "example.com", 80, "fe80::1", SBX_NETW_NEVER },
	{ "example.com", "example.com", 80, "fd00:ec2::254", SBX_NETW_NEVER },
	{ "example.com", "example.com", 80, "::ffff:169.254.169.254",
	  SBX_NETW_NEVER },
	{ "example.com", "example.com", 80, "100.100.100.200", SBX_NETW_NEVER },
	{ "example.com", "example.com", 80, "168.63.129.16", SBX_NETW_NEVER },
	{ "example.com", "example.com", 80, "192.0.0.192", SBX_NETW_NEVER },
	{ "example.com", "example.com", 80, "169.254.170.2", SBX_NETW_NEVER },
	/* ... unless listed by address, on that port */
	{ "example.com,10.1.2.3", "example.com", 443, "10.1.2.3",
	  SBX_NETW_ALLOW },
	{ "example.com,10.0.0.0/8:443", "example.com", 443, "10.1.2.3",
	  SBX_NETW_ALLOW },
	{ "example.com,10.0.0.0/8:443", "example.com", 80, "10.1.2.3",
	  SBX_NETW_CLASS },
	{ "example.com,10.0.0.0/7", "example.com", 443, "10.1.2.3",
	  SBX_NETW_CLASS }, /* wider than the private range */
	{ "example.com,0.0.0.0/0", "example.com", 443, "127.0.0.1",
	  SBX_NETW_CLASS },
	{ "example.com,::/0", "example.com", 443, "127.0.0.1", SBX_NETW_CLASS },
	{ "example.com,::ffff:10.0.0.0/104", "example.com", 443, "10.1.2.3",
	  SBX_NETW_ALLOW },
	{ "example.com,127.0.0.1:8080", "example.com", 8080, "127.0.0.1",
	  SBX_NETW_ALLOW },
	{ "example.com,::1", "example.com", 8080, "::ffff:127.0.0.1",
	  SBX_NETW_CLASS }, /* ::1 is not 127.0.0.1 */
	{ "example.com,0.0.0.0/0", "example.com", 80, "169.254.169.254",
	  SBX_NETW_NEVER },
	{ "example.com,100.64.0.0/10", "example.com", 80, "100.100.100.200",
	  SBX_NETW_NEVER },
	/* literals by address */
	{ "example.com", "93.184.216.34", 443, NULL, SBX_NETW_ADDR },
	{ "93.184.216.34", "93.184.216.34", 443, NULL, SBX_NETW_ALLOW },
	{ "93.184.216.0/24:443", "93.184.216.34", 443, NULL, SBX_NETW_ALLOW },
	{ "93.184.216.0/24:443", "93.184.216.34", 80, NULL, SBX_NETW_PORT },
	{ "0.0.0.0/0", "93.184.216.34", 443, NULL, SBX_NETW_ALLOW },
	{ "0.0.0.0/0", "127.0.0.1", 443, NULL, SBX_NETW_CLASS },
	{ "0.0.0.0/0", "[::ffff:127.0.0.1]", 443, NULL, SBX_NETW_CLASS },
	{ "127.0.0.1", "127.0.0.1", 80, NULL, SBX_NETW_ALLOW },
	{ "127.0.0.1", "::ffff:127.0.0.1", 80, NULL, SBX_NETW_ALLOW },
	{ "127.0.0.1", "[::1]", 80, NULL, SBX_NETW_CLASS },
	{ "example.com", "169.254.169.254", 80, NULL, SBX_NETW_NEVER },
	{ "0.0.0.0/0", "169.254.169.254", 80, NULL, SBX_NETW_NEVER },
	{ "2001:db8::/32", "[2001:db8::5]", 443, NULL, SBX_NETW_ALLOW },
	{ "2001:db8::/32", "2001:db9::5", 443, NULL, SBX_NETW_ADDR },
	{ "fd12::/16", "fd12::5", 443, NULL, SBX_NETW_ALLOW },
	{ "fc00::/6", "fd12::5", 443, NULL, SBX_NETW_CLASS },
};

/* Step 1 on the host; step 2 on the resolved address when step 1 passed
 * by name (the proxy's order), over the compiled policy. */
static struct sbx_net_decision decide_c(const struct sbx_cpol *v,
					const struct drow *r)
{
	struct sbx_net_decision d = sbx_decide_host(v, r->host, r->port);
	struct sbx_ip ip;

	if (d.why == SBX_NETW_ALLOW && r->addr) {
		assert_int_equal(sbx_ip_parse(r->addr, &ip), 0);
		d = sbx_decide_addr(v, &ip, r->port);
	}
	return d;
}

static struct sbx_net_decision decide(const struct sbx_policy *p,
				      const struct drow *r)
{
	struct compiled c;
	struct sbx_net_decision d;

	compile(p, &c);
	d = decide_c(&c.v, r);
	free(c.buf);
	d.rule = NULL; /* it pointed into the freed buffer */
	return d;
}

/* The same decision from inside the sandbox (the shim): a name looked up
 * and then its address connected to, or a literal connected to.  Full
 * mode, where the sandbox's own loopback is reachable: the rows that
 * reach a loopback address are the proxy's only. */
static void test_decisions_inside(void **state)
{
	int bad = 0, n = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(drows) / sizeof(drows[0]); i++) {
		const struct drow *r = &drows[i];
		struct sbx_policy p;
		struct compiled c;
		struct sbx_ip ip, *ap = NULL;
		struct sbx_net_decision d;

		if (r->port == 0 ||
		    (r->addr && sbx_ip_parse(r->addr, &ip) == 0 &&
		     sbx_ip_class(&ip, NULL) == SBX_AC_LOOPBACK))
			continue;
		if (r->addr)
			ap = &ip;
		else if (sbx_ip_parse(r->host, &ip) == 0 &&
			 sbx_ip_class(&ip, NULL) == SBX_AC_LOOPBACK)
			continue;
		pol_with(&p, r->allow);
		compile(&p, &c);
		d = sbx_decide_net(&c.v, r->host, ap, r->port);
		n++;
		if (d.why != r->why) {
			print_error("inside row %zu: [%s] %s:%u %s: %s, want "
				    "%s\n",
				    i, r->allow, r->host, r->port,
				    r->addr ? r->addr : "",
				    sbx_net_why_kind(d.why),
				    sbx_net_why_kind(r->why));
			bad++;
		}
		free(c.buf);
		sbx_policy_free(&p);
	}
	assert_true(n > 40);
	if (bad)
		fail_msg("%d inside rows failed", bad);
}

static void test_decisions(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(drows) / sizeof(drows[0]); i++) {
		const struct drow *r = &drows[i];
		struct sbx_policy p;
		struct sbx_net_decision d;

		pol_with(&p, r->allow);
		d = decide(&p, r);
		if (d.why != r->why) {
			print_error("decision row %zu: [%s] %s:%u %s: %s, "
				    "want %s\n",
				    i, r->allow, r->host, r->port,
				    r->addr ? r->addr : "",
				    sbx_net_why_kind(d.why),
				    sbx_net_why_kind(r->why));
			bad++;
		}
		sbx_policy_free(&p);
	}
	if (bad)
		fail_msg("%d decision rows failed", bad);
}

/* Every refusal that offers a fix: the fix, added as --net would add it,
 * makes the same connection pass (DESIGN: a "to allow" that works). */
static void test_fix_works(void **state)
{
	int bad = 0, fixes = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(drows) / sizeof(drows[0]); i++) {
		const struct drow *r = &drows[i];
		struct sbx_policy p;
		struct sbx_net_decision d;
		struct sbx_ip ip, *ap = NULL;
		struct sbx_err err;
		char fix[400], ov[440];

		pol_with(&p, r->allow);
		d = decide(&p, r);
		if (r->addr && d.why == SBX_NETW_CLASS) {
			sbx_ip_parse(r->addr, &ip);
			ap = &ip;
		}
		sbx_net_to_allow(fix, sizeof(fix), r->host, r->port, ap, &d);
		if (d.why == SBX_NETW_ALLOW || !fix[0]) {
			sbx_policy_free(&p);
			continue;
		}
		fixes++;
		snprintf(ov, sizeof(ov), "net=%s", fix);
		if (sbx_conf_override(&p, ov, &err) < 0) {
			print_error("row %zu: fix '%s': %s\n", i, fix, err.msg);
			bad++;
		} else if (decide(&p, r).why != SBX_NETW_ALLOW) {
			print_error("row %zu: fix '%s' does not allow %s:%u\n",
				    i, fix, r->host, r->port);
			bad++;
		}
		sbx_policy_free(&p);
	}
	assert_true(fixes > 20);
	if (bad)
		fail_msg("%d fixes failed", bad);
}

static void explain(const char *allow, const char *host, uint16_t port,
		    const char *addr, char *buf, size_t sz)
{
	struct sbx_policy p;
	struct compiled c;
	struct sbx_net_decision d;
	struct sbx_ip ip;
	struct sbx_expl e;

	pol_with(&p, allow);
	compile(&p, &c);
	d = sbx_decide_host(&c.v, host, port);
	if (addr && d.why == SBX_NETW_ALLOW) {
		sbx_ip_parse(addr, &ip);
		d = sbx_decide_addr(&c.v, &ip, port);
	}
	sbx_explain_net(&c.v, "connect to", host, port, addr ? &ip : NULL, &d,
			0, &e);
	snprintf(buf, sz, "%s", e.msg);
	free(c.buf);
	sbx_policy_free(&p);
}

static void test_explanations(void **state)
{
	char m[2048];

	(void)state;
	explain("registry.npmjs.org:443", "example.invalid", 443, NULL, m,
		sizeof(m));
	assert_string_equal(m, "sbxrun: cannot connect to example.invalid:443: "
			       "not in the network allow-list of this sandbox "
			       "(allowed: registry.npmjs.org:443; rule network "
			       "filtered from t.conf:1); to allow: sbxrun "
			       "--net allow:example.invalid");
	explain("example.com:443", "Example.com", 80, NULL, m, sizeof(m));
	assert_string_equal(m, "sbxrun: cannot connect to example.com:80: not "
			       "in the network allow-list of this sandbox "
			       "(listed for port 443 only; rule "
			       "example.com:443 from t.conf:1); to allow: "
			       "sbxrun --net allow:example.com:80");
	explain("example.com", "example.com", 443, "127.0.0.1", m, sizeof(m));
	assert_string_equal(m, "sbxrun: cannot connect to example.com:443: "
			       "resolves to 127.0.0.1, a loopback address, "
			       "reachable only when listed by address (rule "
			       "network filtered from t.conf:1); to allow: "
			       "sbxrun --net allow:127.0.0.1:443");
	explain("example.com", "example.com", 80, "::ffff:169.254.169.254", m,
		sizeof(m));
	assert_string_equal(m, "sbxrun: cannot connect to example.com:80: "
			       "resolves to 169.254.169.254, a cloud metadata "
			       "address, never reachable from the sandbox");
	explain("example.com", "[::1]", 8080, NULL, m, sizeof(m));
	assert_string_equal(m, "sbxrun: cannot connect to [::1]:8080: a "
			       "loopback address, reachable only when listed "
			       "by address (rule network filtered from "
			       "t.conf:1); to allow: sbxrun --net "
			       "'allow:[::1]:8080'");
	explain("example.com", "93.184.216.34", 443, NULL, m, sizeof(m));
	assert_string_equal(m, "sbxrun: cannot connect to 93.184.216.34:443: "
			       "not in the network allow-list of this sandbox "
			       "(addresses must be listed by address; allowed: "
			       "example.com; rule network filtered from "
			       "t.conf:1); to allow: sbxrun --net "
			       "allow:93.184.216.34:443");
	/* a hostile client's bytes come out printable and short */
	explain("example.com", "x'\n\x01\xffy", 443, NULL, m, sizeof(m));
	assert_string_equal(m, "sbxrun: cannot connect to 'x????y':443: not a "
			       "host name or address the sandbox accepts");
	{
		char big[400];

		memset(big, 'a', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		explain("example.com", big, 443, NULL, m, sizeof(m));
		assert_true(strlen(m) < 200);
		assert_non_null(strstr(m, "...':443"));
	}
}

/* Entries that name only link-local or metadata addresses, in any
 * spelling, are refused when added; wider ones are kept (the decision
 * still never lets those addresses through). */
static void test_never_entries(void **state)
{
	static const char *const never[] = {
		"169.254.169.254",
		"169.254.0.0/16",
		"169.254.169.0/24:80",
		"100.100.100.200",
		"[fd00:ec2::254]",
		"fd00:ec2::/32",
		"fe80::/10",
		"[::ffff:169.254.169.254]:80",
		"::ffff:169.254.0.0/112",
		"64:ff9b::a9fe:a9fe",
		"2002:a9fe:a9fe::/48",
	};
	static const char *const kept[] = {
		"100.64.0.0/10", "169.0.0.0/8", "0.0.0.0/0",	"::/0",
		"fe00::/8",	 "2002::/16",	"64:ff9b::/96", "fd00::/8",
	};
	struct sbx_policy p;
	struct sbx_err err;

	(void)state;
	sbx_policy_init(&p);
	for (size_t i = 0; i < sizeof(never) / sizeof(never[0]); i++)
		if (sbx_policy_add_allow(&p, never[i], (struct sbx_src){ 0 },
					 &err) == 0 ||
		    !strstr(err.msg, "never reachable"))
			fail_msg("'%s' accepted", never[i]);
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		if (sbx_policy_add_allow(&p, kept[i], (struct sbx_src){ 0 },
					 &err) < 0)
			fail_msg("'%s' refused: %s", kept[i], err.msg);
	sbx_policy_free(&p);
}

/* ------------------------------------------------------------ presets */

static void test_shipped_presets(void **state)
{
	static const char *const want[][2] = {
		{ "@npm", "registry.npmjs.org" },
		{ "@pypi", "files.pythonhosted.org" },
		{ "@crates", "static.crates.io" },
		{ "@crates", "index.crates.io" },
		{ "@go", "sum.golang.org" },
		{ "@github", "codeload.github.com" },
		{ "@github", "objects.githubusercontent.com" },
	};
	struct sbx_policy p;
	struct sbx_err err = { "" };

	(void)state;
	sbx_policy_init(&p);
	p.project = strdup("/sbxt/p");
	p.home = strdup("/sbxt/home");
	if (sbx_conf_load_file(&p, tu_profile("default"), &err) < 0)
		fail_msg("default profile: %s", err.msg);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char ov[64];
		struct sbx_net_decision d;
		struct compiled c;
		struct sbx_expl e;

		snprintf(ov, sizeof(ov), "net=allow:%s", want[i][0]);
		assert_int_equal(sbx_conf_override(&p, ov, &err), 0);
		compile(&p, &c);
		d = sbx_decide_host(&c.v, want[i][1], 443);
		if (d.why != SBX_NETW_ALLOW)
			fail_msg("%s does not allow %s:443", want[i][0],
				 want[i][1]);
		assert_string_equal(sbx_cpol_str(&c.v, d.rule->preset),
				    want[i][0] + 1);
		assert_string_equal(sbx_cpol_str(&c.v, d.rule->src_file),
				    "--net");
		/* HTTPS only; the refusal names the preset's entry */
		d = sbx_decide_host(&c.v, want[i][1], 80);
		assert_int_equal(d.why, SBX_NETW_PORT);
		sbx_explain_net(&c.v, "connect to", want[i][1], 80, NULL, &d, 0,
				&e);
		if (!strstr(e.msg, ":443 (@") ||
		    !strstr(e.msg, ") from --net)"))
			fail_msg("%s", e.msg);
		free(c.buf);
	}
	assert_int_equal(sbx_conf_override(&p, "net=allow:@nope", &err), -1);
	assert_non_null(strstr(err.msg, "unknown network preset '@nope' "
					"(known: @npm, @pypi, @crates, @go, "
					"@github)"));
	assert_int_equal(sbx_policy_finish(&p, &err), 0);
	sbx_policy_free(&p);
}

/* A conf defines and uses presets; the use carries its own file:line. */
static void test_conf_presets(void **state)
{
	static const char conf[] =
		"network = {\n"
		"  allow = [ \"@corp\", \"x.org\" ];\n" /* 2 */
		"  mode = \"filtered\";\n"
		"  presets = {\n"
		"    corp = [ \"git.corp.example\",\n" /* 5 */
		"             \"*.pkgs.corp.example:443\" ];\n"
		"  };\n"
		"};\n";
	struct sbx_policy p;
	struct sbx_err err = { "" };
	char m[2048];

	(void)state;
	sbx_policy_init(&p);
	if (sbx_conf_load_string(&p, conf, "c.conf", &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(p.nallow, 3);
	assert_string_equal(p.allow[0].host, "git.corp.example");
	assert_string_equal(p.allow[0].preset, "corp");
	assert_int_equal(p.allow[0].src.line, 2);
	assert_int_equal(p.allow[1].port, 443);
	assert_null(p.allow[2].preset);
	assert_int_equal(p.presets[0].src.line, 5);
	/* the allowed list in a refusal shows the preset once, by name */
	{
		struct compiled c;
		struct sbx_net_decision d;
		struct sbx_expl e;

		compile(&p, &c);
		d = sbx_decide_host(&c.v, "a.invalid", 443);
		sbx_explain_net(&c.v, "connect to", "a.invalid", 443, NULL, &d,
				0, &e);
		snprintf(m, sizeof(m), "%s", e.msg);
		free(c.buf);
	}
	assert_non_null(strstr(m, "(allowed: @corp, x.org; rule network "
				  "filtered from c.conf:3)"));
	/* redefined: later uses get the new entries, earlier ones stay */
	assert_int_equal(
		sbx_conf_load_string(&p,
				     "network = { presets = { corp = "
				     "[ \"mirror.example\" ]; }; allow = "
				     "[ \"@corp\" ]; };\n",
				     "d.conf", &err),
		0);
	assert_int_equal(p.nallow, 4);
	assert_string_equal(p.allow[3].host, "mirror.example");
	sbx_policy_free(&p);
}

static const struct perow {
	const char *conf;
	int line;
	const char *msg;
} perows[] = {
	{ "network = { allow = [ \"@nope\" ]; };\n", 1,
	  "unknown network preset '@nope' (known: none" },
	{ "network = {\n presets = { a = [ \"ok.example\" ]; };\n"
	  " allow = [ \"x.org\",\n \"@b\" ];\n};\n",
	  4, "unknown network preset '@b' (known: @a)" },
	{ "network = { presets = {\n a = [ \"ok.example\",\n"
	  " \"169.254.169.254\" ]; }; };\n",
	  3, "network preset 'a': bad network allow entry '169.254.169.254'" },
	{ "network = { presets = {\n a = [ \"x.org:0\" ]; }; };\n", 2,
	  "network preset 'a': bad network allow entry 'x.org:0'" },
	{ "network = { presets = { a = [ \"x.org\" ];\n b = [ \"@a\" ]; }; };\n",
	  2, "a preset cannot use another preset" },
	{ "network = { presets = {\n a = [ ]; }; };\n", 2, "needs 1 to 64" },
	{ "network = { presets = {\n a = \"x.org\"; }; };\n", 2,
	  "must be an array" },
	{ "network = { presets = [ \"x.org\" ]; };\n", 1, "must be a group" },
	{ "network = { presets = {\n A = [ \"x.org\" ]; }; };\n", 2,
	  "bad network preset name 'A'" },
	{ "network = { allow = [\n \"@\" ]; };\n", 2,
	  "a preset name is @ and" },
	{ "network = { allow = [\n \"@a.b\" ]; };\n", 2,
	  "a preset name is @ and" },
};

static void test_preset_errors(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(perows) / sizeof(perows[0]); i++) {
		struct sbx_policy p;
		struct sbx_err err = { "" };
		char want[64];

		sbx_policy_init(&p);
		snprintf(want, sizeof(want), "e.conf:%d: ", perows[i].line);
		if (sbx_conf_load_string(&p, perows[i].conf, "e.conf", &err) ==
			    0 ||
		    strncmp(err.msg, want, strlen(want)) != 0 ||
		    !strstr(err.msg, perows[i].msg)) {
			print_error("preset row %zu: '%s', want '%s...%s'\n", i,
				    err.msg, want, perows[i].msg);
			bad++;
		}
		sbx_policy_free(&p);
	}
	if (bad)
		fail_msg("%d preset error rows failed", bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_ip_parse),
		cmocka_unit_test(test_ip_format),
		cmocka_unit_test(test_host_parse),
		cmocka_unit_test(test_decisions),
		cmocka_unit_test(test_decisions_inside),
		cmocka_unit_test(test_fix_works),
		cmocka_unit_test(test_explanations),
		cmocka_unit_test(test_never_entries),
		cmocka_unit_test(test_shipped_presets),
		cmocka_unit_test(test_conf_presets),
		cmocka_unit_test(test_preset_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
