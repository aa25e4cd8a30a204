/*
 * netallow.c - parsing and validating network allow-list entries:
 *   host, *.domain, host:port, *.domain:port, ip, ip:port, ip/prefix,
 *   ip/prefix:port, [v6], [v6]:port, [v6/prefix]:port
 * Link-local and cloud metadata addresses are refused outright: they are
 * never reachable through an allow-list (DESIGN 5, THREATS NET-08).
 * Matching a destination against the list is decide.c's
 * (sbx_decide_net), for the shim and the proxy alike.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide.h"

static int bad(struct sbx_err *err, const char *e, const char *why)
{
	if (err)
		snprintf(err->msg, sizeof(err->msg),
			 "bad network allow entry '%s': %s", e, why);
	return -1;
}

static int parse_port(const char *s, uint16_t *port)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v == 0 || v > 65535)
		return -1;
	*port = (uint16_t)v;
	return 0;
}

static int valid_hostname(const char *h)
{
	size_t label = 0, n = strlen(h);

	if (n == 0 || n > 253)
		return 0;
	if (h[0] == '*') {
		if (h[1] != '.' || !h[2])
			return 0;
		h += 2;
	}
	for (; *h; h++) {
		if (*h == '.') {
			if (label == 0)
				return 0;
			label = 0;
		} else if ((*h >= 'a' && *h <= 'z') ||
			   (*h >= 'A' && *h <= 'Z') ||
			   (*h >= '0' && *h <= '9') || *h == '-' || *h == '_') {
			if (++label > 63)
				return 0;
		} else {
			return 0;
		}
	}
	return label > 0;
}

/* Split "host[:port]" or "[v6][:port]" into host and port. */
static int split_host_port(char *s, char **host, uint16_t *port)
{
	char *c;

	*port = 0;
	if (s[0] == '[') {
		c = strchr(s, ']');
		if (!c)
			return -1;
		*c = '\0';
		*host = s + 1;
		if (c[1] == ':')
			return parse_port(c + 2, port);
		return c[1] ? -1 : 0;
	}
	c = strchr(s, ':');
	if (c && strchr(c + 1, ':')) /* bare IPv6, no port */
		c = NULL;
	if (c) {
		*c = '\0';
		if (parse_port(c + 1, port) < 0)
			return -1;
	}
	*host = s;
	return 0;
}

static int parse_addr(struct sbx_net_allow *a, char *host, const char *e,
		      struct sbx_err *err)
{
	unsigned char buf[16];
	char *slash = strchr(host, '/'), *end;
	int af, max;

	if (slash)
		*slash = '\0';
	af = strchr(host, ':') ? AF_INET6 : AF_INET;
	max = af == AF_INET ? 32 : 128;
	if (inet_pton(af, host, buf) != 1)
		return slash ? bad(err, e, "not an IP address before '/'") : 1;
	a->is_cidr = 1;
	a->prefix = max;
	if (slash) {
		long v = strtol(slash + 1, &end, 10);

		if (!slash[1] || *end || v < 0 || v > max)
			return bad(err, e, "bad prefix length");
		a->prefix = (int)v;
	}
	if (sbx_net_addr_forbidden(af, buf, a->prefix))
		return bad(err, e,
			   "link-local and cloud metadata addresses "
			   "are never reachable from the sandbox");
	return 0;
}

int sbx_policy_add_allow(struct sbx_policy *p, const char *entry,
			 struct sbx_src src, struct sbx_err *err)
{
	struct sbx_net_allow a = { 0 };
	char *copy = strdup(entry), *host = NULL;
	int r;

	if (!copy)
		return bad(err, entry, "out of memory");
	if (split_host_port(copy, &host, &a.port) < 0) {
		free(copy);
		return bad(err, entry,
			   "expected host, *.domain, host:port or "
			   "ip/prefix:port (ports 1-65535)");
	}
	r = parse_addr(&a, host, entry, err);
	if (r < 0 || (r == 1 && !valid_hostname(host))) {
		free(copy);
		return r < 0 ? -1 : bad(err, entry, "not a valid host name");
	}
	if (p->nallow == p->capallow) {
		size_t nc = p->capallow ? p->capallow * 2 : 8;
		void *nv = realloc(p->allow, nc * sizeof(a));

		if (!nv) {
			free(copy);
			return bad(err, entry, "out of memory");
		}
		p->allow = nv;
		p->capallow = nc;
	}
	a.text = strdup(entry);
	a.host = strdup(host);
	a.src = src;
	a.src.file = sbx_policy_intern(p, src.file);
	p->allow[p->nallow++] = a;
	free(copy);
	return 0;
}
