/*
 * netallow.c - parsing and validating network allow-list entries:
 *   host, *.domain, host:port, *.domain:port, ip, ip:port, ip/prefix,
 *   ip/prefix:port, [v6], [v6]:port, [v6/prefix]:port
 * and "@name" for a named preset of such entries (netallow.h).
 * Link-local and cloud metadata addresses (netaddr.h's classes) are
 * refused outright: they are never reachable through an allow-list
 * (DESIGN 5, THREATS NET-08).  Matching a destination against the list is
 * decide.c's, for the shim and the proxy alike.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netallow.h"

/* Every allow-list error names the entry as written. */
#define bad(err, e, why) \
	sbx_errf((err), 0, "bad network allow entry '%s': %s", (e), (why))

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
	struct sbx_ip net = { 0 };
	char *slash = strchr(host, '/'), *end;
	int af, max;

	if (slash)
		*slash = '\0';
	af = strchr(host, ':') ? AF_INET6 : AF_INET;
	max = af == AF_INET ? 32 : 128;
	net.af = af;
	if (inet_pton(af, host, net.a) != 1)
		return slash ? bad(err, e, "not an IP address before '/'") : 1;
	a->is_cidr = 1;
	a->prefix = max;
	if (slash) {
		long v = strtol(slash + 1, &end, 10);

		if (!slash[1] || *end || v < 0 || v > max)
			return bad(err, e, "bad prefix length");
		a->prefix = (int)v;
	}
	if (sbx_ip_never(&net, a->prefix))
		return bad(err, e,
			   "link-local and cloud metadata addresses "
			   "are never reachable from the sandbox");
	return 0;
}

/* Parse one plain entry into a (host and text not yet set). */
static int parse_entry(const char *entry, struct sbx_net_allow *a, char **copy,
		       char **host, struct sbx_err *err)
{
	int r;

	memset(a, 0, sizeof(*a));
	*copy = strdup(entry);
	if (!*copy)
		return bad(err, entry, "out of memory");
	if (split_host_port(*copy, host, &a->port) < 0) {
		free(*copy);
		return bad(err, entry,
			   "expected host, *.domain, host:port, "
			   "ip/prefix:port or @preset (ports 1-65535)");
	}
	r = parse_addr(a, *host, entry, err);
	if (r < 0 || (r == 1 && !valid_hostname(*host))) {
		free(*copy);
		return r < 0 ? -1 : bad(err, entry, "not a valid host name");
	}
	return 0;
}

static int append(struct sbx_policy *p, struct sbx_net_allow *a,
		  const char *entry, const char *host, struct sbx_src src,
		  const char *preset, struct sbx_err *err)
{
	if (p->nallow == p->capallow) {
		size_t nc = p->capallow ? p->capallow * 2 : 8;
		void *nv = realloc(p->allow, nc * sizeof(*a));

		if (!nv)
			return bad(err, entry, "out of memory");
		p->allow = nv;
		p->capallow = nc;
	}
	a->text = strdup(entry);
	a->host = strdup(host);
	if (!a->text || !a->host) {
		free(a->text);
		free(a->host);
		return bad(err, entry, "out of memory");
	}
	a->src = src;
	a->src.file = sbx_policy_intern(p, src.file);
	a->preset = preset ? sbx_policy_intern(p, preset) : NULL;
	p->allow[p->nallow++] = *a;
	return 0;
}

static int add_plain(struct sbx_policy *p, const char *entry,
		     struct sbx_src src, const char *preset,
		     struct sbx_err *err)
{
	struct sbx_net_allow a;
	char *copy, *host;
	int r;

	if (parse_entry(entry, &a, &copy, &host, err) < 0)
		return -1;
	r = append(p, &a, entry, host, src, preset, err);
	free(copy);
	return r;
}

/* ------------------------------------------------------------ presets */

int sbx_net_preset_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > 32)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') ||
		      (name[i] >= '0' && name[i] <= '9') || name[i] == '-' ||
		      name[i] == '_'))
			return 0;
	return 1;
}

const struct sbx_net_preset *sbx_net_preset_find(const struct sbx_policy *p,
						 const char *name)
{
	for (size_t i = 0; i < p->npresets; i++)
		if (strcmp(p->presets[i].name, name) == 0)
			return &p->presets[i];
	return NULL;
}

static void known_presets(const struct sbx_policy *p, char *buf, size_t sz)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < p->npresets && len < sz; i++)
		len += (size_t)snprintf(buf + len, sz - len, "%s@%s",
					i ? ", " : "", p->presets[i].name);
	if (!p->npresets)
		snprintf(buf, sz,
			 "none: presets are defined by "
			 "network.presets, e.g. in the profile");
}

static int unknown_preset(const struct sbx_policy *p, const char *entry,
			  struct sbx_err *err)
{
	char known[400];

	if (!sbx_net_preset_name_ok(entry + 1))
		return bad(err, entry,
			   "a preset name is @ and 1-32 of a-z, 0-9, - and _");
	known_presets(p, known, sizeof(known));
	if (err)
		snprintf(err->msg, sizeof(err->msg),
			 "unknown network preset '%s' (known: %s)", entry,
			 known);
	return -1;
}

int sbx_net_entry_check(const struct sbx_policy *p, const char *entry,
			struct sbx_err *err)
{
	struct sbx_net_allow a;
	char *copy, *host;

	if (entry[0] == '@')
		return sbx_net_preset_find(p, entry + 1)
			       ? 0
			       : unknown_preset(p, entry, err);
	if (parse_entry(entry, &a, &copy, &host, err) < 0)
		return -1;
	free(copy);
	return 0;
}

static void preset_clear(struct sbx_net_preset *ps)
{
	for (size_t i = 0; i < ps->n; i++)
		free(ps->entries[i]);
	free(ps->entries);
	free(ps->name);
	memset(ps, 0, sizeof(*ps));
}

static int preset_fill(struct sbx_net_preset *ps, const char *name,
		       const char *const *entries, size_t n)
{
	ps->name = strdup(name);
	ps->entries = calloc(n ? n : 1, sizeof(char *));
	if (!ps->name || !ps->entries)
		return -1;
	for (; ps->n < n; ps->n++)
		if (!(ps->entries[ps->n] = strdup(entries[ps->n])))
			return -1;
	return 0;
}

int sbx_net_preset_define(struct sbx_policy *p, const char *name,
			  const char *const *entries, size_t n,
			  struct sbx_src src, struct sbx_err *err)
{
	struct sbx_net_preset ps = { 0 }, *slot;
	void *nv;

	if (!sbx_net_preset_name_ok(name))
		return sbx_errf(err, 0,
				"bad network preset name '%s': 1-32 of a-z, "
				"0-9, - and _",
				name);
	if (n == 0)
		return sbx_errf(err, 0, "network preset '%s' is empty", name);
	for (size_t i = 0; i < n; i++) {
		if (entries[i][0] == '@')
			return sbx_errf(err, 0,
					"network preset '%s': '%s': a preset "
					"cannot use another preset",
					name, entries[i]);
		if (sbx_net_entry_check(p, entries[i], err) < 0)
			return -1;
	}
	if (preset_fill(&ps, name, entries, n) < 0) {
		preset_clear(&ps);
		return sbx_errf(err, 0, "out of memory");
	}
	ps.src = src;
	ps.src.file = sbx_policy_intern(p, src.file);
	slot = (struct sbx_net_preset *)sbx_net_preset_find(p, name);
	if (!slot) {
		nv = realloc(p->presets, (p->npresets + 1) * sizeof(ps));
		if (!nv) {
			preset_clear(&ps);
			return sbx_errf(err, 0, "out of memory");
		}
		p->presets = nv;
		slot = &p->presets[p->npresets++];
	} else {
		preset_clear(slot);
	}
	*slot = ps;
	return 0;
}

void sbx_net_presets_free(struct sbx_policy *p)
{
	for (size_t i = 0; i < p->npresets; i++)
		preset_clear(&p->presets[i]);
	free(p->presets);
	p->presets = NULL;
	p->npresets = 0;
}

/* "@name": every entry of the preset, each with the source of the use. */
static int add_preset(struct sbx_policy *p, const char *entry,
		      struct sbx_src src, struct sbx_err *err)
{
	const struct sbx_net_preset *ps = sbx_net_preset_find(p, entry + 1);

	if (!ps)
		return unknown_preset(p, entry, err);
	for (size_t i = 0; i < ps->n; i++)
		if (add_plain(p, ps->entries[i], src, ps->name, err) < 0)
			return -1;
	return 0;
}

int sbx_policy_add_allow(struct sbx_policy *p, const char *entry,
			 struct sbx_src src, struct sbx_err *err)
{
	if (entry[0] == '@')
		return add_preset(p, entry, src, err);
	return add_plain(p, entry, src, NULL, err);
}
