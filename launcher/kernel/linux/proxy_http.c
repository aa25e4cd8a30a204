/*
 * proxy_http.c - the HTTP request head for the filtering proxy: CONNECT
 * host:port, and absolute-form requests for plain HTTP, which are sent on
 * with an origin-form target, a Host header taken from the request target
 * (never the client's: a proxy must not let Host name another site than
 * the one it checked), no Proxy-* or hop-by-hop headers, and
 * "Connection: close" so that every request on the upstream connection
 * is the one that was decided.  Whatever follows the head (a body, early
 * TLS bytes) goes to the same checked address untouched.
 *
 * Parsing is nodejs's http_parser (Debian's libhttp-parser 2.9.4): a
 * small, strict, long-fuzzed C parser, packaged with a static archive
 * for the static sbxrun.  Its successor llhttp is not packaged for
 * Debian 12, picohttpparser not at all; libhtp is an IDS normaliser
 * that accepts what servers accept, the opposite of what a boundary
 * wants.  http_parser is archived upstream (Debian still carries its
 * security fixes), so the input it sees is narrowed first, here: one
 * complete head of at most max bytes, CRLF line ends only, no control
 * bytes, no obsolete line folding, an upper-case method -- and it is
 * only asked for the request line and header spans, never for bodies.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <http_parser.h>

#include "proxy_proto.h"

#define MAX_HEADERS 100
#define MAX_METHOD 20

struct span {
	const char *p;
	size_t n;
};

struct head {
	struct span url;
	struct span name[MAX_HEADERS], value[MAX_HEADERS];
	int nh, last, overflow;
};

/* ------------------------------------------------------------ scan */

static int fail(struct px_http *r, int status, const char *why)
{
	r->status = status;
	r->why = why;
	return PX_ERR;
}

/* Find the end of the head (CRLF CRLF) and refuse what http_parser would
 * be lenient about.  Resumes where the previous call stopped. */
static int scan(const char *buf, size_t len, size_t max, struct px_http *r)
{
	size_t i = r->scanned, lim = len < max ? len : max;

	for (; i < lim; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (!r->past_method && c != ' ') {
			if (c < 'A' || c > 'Z' || i >= MAX_METHOD)
				return fail(r, 400, "not an HTTP request");
			continue;
		}
		r->past_method = 1;
		if (c == '\r') {
			if (i + 1 >= len)
				break; /* wait for the LF */
			if (buf[i + 1] != '\n')
				return fail(r, 400, "bare CR in the head");
			if (i + 2 < len &&
			    (buf[i + 2] == ' ' || buf[i + 2] == '\t'))
				return fail(r, 400, "obsolete line folding");
			if (i + 3 < len && buf[i + 2] == '\r' &&
			    buf[i + 3] == '\n') {
				r->head_len = i + 4;
				return PX_OK;
			}
			if (i + 3 >= len)
				break; /* cannot tell yet */
			i++; /* the LF */
			continue;
		}
		if (c == '\n')
			return fail(r, 400, "bare LF in the head");
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return fail(r, 400, "control byte in the head");
	}
	r->scanned = i;
	if (len >= max)
		return fail(r, 431, "request head too large");
	return PX_MORE;
}

/* ------------------------------------------------------------ parse */

static int extend(struct span *s, const char *at, size_t n)
{
	if (!s->p)
		s->p = at;
	s->n = (size_t)(at + n - s->p);
	return 0;
}

static int on_url(http_parser *p, const char *at, size_t n)
{
	struct head *h = p->data;

	return extend(&h->url, at, n);
}

static int on_field(http_parser *p, const char *at, size_t n)
{
	struct head *h = p->data;

	if (h->last != 1) {
		if (h->nh == MAX_HEADERS) {
			h->overflow = 1;
			return 1;
		}
		h->nh++;
	}
	h->last = 1;
	return extend(&h->name[h->nh - 1], at, n);
}

static int on_value(http_parser *p, const char *at, size_t n)
{
	struct head *h = p->data;

	h->last = 2;
	return extend(&h->value[h->nh - 1], at, n);
}

static int name_is(struct span s, const char *name)
{
	return s.n == strlen(name) && strncasecmp(s.p, name, s.n) == 0;
}

static struct span trim(struct span s)
{
	while (s.n && (s.p[0] == ' ' || s.p[0] == '\t')) {
		s.p++;
		s.n--;
	}
	while (s.n && (s.p[s.n - 1] == ' ' || s.p[s.n - 1] == '\t'))
		s.n--;
	return s;
}

/* Is token (case-insensitive) in the comma-separated list v? */
static int list_has(struct span v, const char *token, size_t tn)
{
	const char *p = v.p, *end = v.p + v.n;

	while (p < end) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		struct span t = { p, (size_t)((c ? c : end) - p) };

		t = trim(t);
		if (t.n == tn && strncasecmp(t.p, token, tn) == 0)
			return 1;
		p = c ? c + 1 : end;
	}
	return 0;
}

/* Constant time over the expected value. */
static int same(const char *a, size_t an, const char *want)
{
	size_t wn = strlen(want);
	unsigned char d = an != wn;

	for (size_t i = 0; i < wn; i++)
		d |= (unsigned char)(want[i] ^ (i < an ? a[i] : 0));
	return d == 0;
}

static int auth_matches(const struct head *h, const char *auth)
{
	int ok = 0;

	for (int i = 0; i < h->nh; i++) {
		struct span v = trim(h->value[i]);

		if (!name_is(h->name[i], "proxy-authorization") || v.n < 6 ||
		    strncasecmp(v.p, "basic ", 6) != 0)
			continue;
		v.p += 6;
		v.n -= 6;
		v = trim(v);
		ok |= same(v.p, v.n, auth);
	}
	return ok;
}

static int get_target(struct px_http *r, const struct head *h,
		      struct http_parser_url *u, int connect)
{
	size_t hn;

	http_parser_url_init(u);
	if (!h->url.p ||
	    http_parser_parse_url(h->url.p, h->url.n, connect, u) != 0)
		return fail(r, 400, "bad request target");
	if (!(u->field_set & (1 << UF_HOST)))
		return fail(r, 400,
			    "not a proxy request (absolute-form http:// or "
			    "CONNECT host:port)");
	if (!connect) {
		const char *sch = h->url.p + u->field_data[UF_SCHEMA].off;
		size_t sn = u->field_data[UF_SCHEMA].len;

		if (sn == 5 && strncasecmp(sch, "https", 5) == 0)
			return fail(r, 400, "https:// needs CONNECT");
		if (sn != 4 || strncasecmp(sch, "http", 4) != 0)
			return fail(r, 400, "only http:// and CONNECT");
	}
	hn = u->field_data[UF_HOST].len;
	if (hn == 0 || hn >= sizeof(r->host))
		return fail(r, 400, "bad host in the request target");
	memcpy(r->host, h->url.p + u->field_data[UF_HOST].off, hn);
	r->host[hn] = '\0';
	r->port = (u->field_set & (1 << UF_PORT)) ? u->port : 80;
	if (r->port == 0)
		return fail(r, 400, "bad port in the request target");
	return 0;
}

/* ------------------------------------------------------------ forward */

struct out {
	char *p;
	size_t n, cap;
	int oom;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->oom)
		return;
	if (o->n + n + 1 > o->cap) {
		size_t nc = (o->n + n + 1) * 2;
		char *np = realloc(o->p, nc);

		if (!np) {
			o->oom = 1;
			return;
		}
		o->p = np;
		o->cap = nc;
	}
	memcpy(o->p + o->n, s, n);
	o->n += n;
	o->p[o->n] = '\0';
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

/* Hop-by-hop headers, Proxy-*, Host, and whatever Connection names --
 * except the ones that frame the body, which goes on unchanged. */
static int dropped(const struct head *h, int i, struct span conn, int upgrade)
{
	struct span n = h->name[i];

	if (name_is(n, "content-length") || name_is(n, "transfer-encoding"))
		return 0;
	if (name_is(n, "host") || name_is(n, "connection") ||
	    name_is(n, "keep-alive") || name_is(n, "te") ||
	    name_is(n, "trailer") ||
	    (n.n >= 6 && !strncasecmp(n.p, "proxy-", 6)))
		return 1;
	if (name_is(n, "upgrade"))
		return !upgrade;
	return conn.p && list_has(conn, n.p, n.n);
}

static void forward_head(struct px_http *r, const struct head *h,
			 const http_parser *hp, const struct http_parser_url *u)
{
	struct out o = { 0 };
	struct span conn = { 0 };
	char line[PX_HOST_MAX + 64];
	int upgrade;

	for (int i = 0; i < h->nh; i++)
		if (name_is(h->name[i], "connection"))
			conn = h->value[i]; /* the last one; all are dropped */
	upgrade = hp->upgrade && conn.p && list_has(conn, "upgrade", 7);
	puts_(&o, http_method_str((enum http_method)hp->method));
	puts_(&o, " ");
	if (u->field_set & (1 << UF_PATH))
		put(&o, h->url.p + u->field_data[UF_PATH].off,
		    u->field_data[UF_PATH].len);
	else
		puts_(&o, "/");
	if (u->field_set & (1 << UF_QUERY)) {
		puts_(&o, "?");
		put(&o, h->url.p + u->field_data[UF_QUERY].off,
		    u->field_data[UF_QUERY].len);
	}
	snprintf(line, sizeof(line),
		 strchr(r->host, ':') ? " HTTP/1.%d\r\nHost: [%s]"
				      : " HTTP/1.%d\r\nHost: %s",
		 hp->http_minor ? 1 : 0, r->host);
	puts_(&o, line);
	if (r->port != 80) {
		snprintf(line, sizeof(line), ":%u", r->port);
		puts_(&o, line);
	}
	puts_(&o, "\r\n");
	for (int i = 0; i < h->nh; i++) {
		if (dropped(h, i, conn, upgrade))
			continue;
		put(&o, h->name[i].p, h->name[i].n);
		puts_(&o, ": ");
		put(&o, trim(h->value[i]).p, trim(h->value[i]).n);
		puts_(&o, "\r\n");
	}
	puts_(&o, upgrade ? "Connection: upgrade\r\n\r\n"
			  : "Connection: close\r\n\r\n");
	if (o.oom) {
		free(o.p);
		o.p = NULL;
		o.n = 0;
	}
	r->fwd = o.p;
	r->fwd_len = o.n;
}

/* ------------------------------------------------------------ entry */

/* Debian builds http_parser without HTTP_PARSER_STRICT, which lets a
 * space into field names: names must be tokens (RFC 9110 5.6.2). */
static int names_ok(const struct head *h)
{
	static const char tchar[] = "!#$%&'*+-.^_`|~";

	for (int i = 0; i < h->nh; i++) {
		if (!h->name[i].n)
			return 0;
		for (size_t k = 0; k < h->name[i].n; k++) {
			char c = h->name[i].p[k];

			if (!((c >= 'a' && c <= 'z') ||
			      (c >= 'A' && c <= 'Z') ||
			      (c >= '0' && c <= '9') ||
			      (c && strchr(tchar, c))))
				return 0;
		}
	}
	return 1;
}

static int run_parser(const char *buf, struct px_http *r, struct head *h,
		      http_parser *hp)
{
	http_parser_settings s;
	size_t n;

	memset(&s, 0, sizeof(s));
	s.on_url = on_url;
	s.on_header_field = on_field;
	s.on_header_value = on_value;
	http_parser_init(hp, HTTP_REQUEST);
	hp->data = h;
	n = http_parser_execute(hp, &s, buf, r->head_len);
	if (h->overflow)
		return fail(r, 431, "too many header fields");
	if (HTTP_PARSER_ERRNO(hp) != HPE_OK || n != r->head_len)
		return fail(r, 400, "malformed request head");
	if (hp->http_major != 1)
		return fail(r, 400, "only HTTP/1.x");
	if (!names_ok(h))
		return fail(r, 400, "bad header field name");
	return 0;
}

int px_http_parse(const char *buf, size_t len, size_t max, const char *auth,
		  struct px_http *r)
{
	struct head h;
	http_parser hp;
	struct http_parser_url u;
	int s = scan(buf, len, max, r);

	if (s != PX_OK)
		return s;
	memset(&h, 0, sizeof(h));
	if (run_parser(buf, r, &h, &hp) < 0)
		return PX_ERR;
	r->connect = hp.method == HTTP_CONNECT;
	if (get_target(r, &h, &u, r->connect) < 0)
		return PX_ERR;
	r->auth_ok = !auth || auth_matches(&h, auth);
	if (!r->auth_ok)
		return fail(r, 407, "proxy authentication required");
	if (!r->connect) {
		forward_head(r, &h, &hp, &u);
		if (!r->fwd)
			return fail(r, 503, "out of memory");
	}
	return PX_OK;
}

void px_http_clear(struct px_http *r)
{
	free(r->fwd);
	memset(r, 0, sizeof(*r));
}

static const char *status_text(int status)
{
	switch (status) {
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 407: return "Proxy Authentication Required";
	case 431: return "Request Header Fields Too Large";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	case 504: return "Gateway Timeout";
	}
	return "Error";
}

size_t px_http_reply(char *out, size_t sz, int status, const char *line,
		     int challenge)
{
	int n;

	if (status == 200)
		n = snprintf(out, sz,
			     "HTTP/1.1 200 Connection established\r\n\r\n");
	else
		n = snprintf(out, sz,
			     "HTTP/1.1 %d %s\r\n"
			     "Content-Type: text/plain; charset=utf-8\r\n"
			     "Content-Length: %zu\r\n"
			     "%s"
			     "Connection: close\r\n\r\n%s\n",
			     status, status_text(status), strlen(line) + 1,
			     challenge ? "Proxy-Authenticate: Basic "
					 "realm=\"sbxrun\"\r\n"
				       : "",
			     line);
	if (n < 0)
		return 0;
	return (size_t)n < sz ? (size_t)n : sz - 1;
}

void px_base64(const char *s, char *out, size_t sz)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop"
				"qrstuvwxyz0123456789+/";
	size_t n = strlen(s), o = 0;

	for (size_t i = 0; i < n && o + 5 < sz; i += 3) {
		unsigned v = (unsigned char)s[i] << 16;

		v |= i + 1 < n ? (unsigned char)s[i + 1] << 8 : 0;
		v |= i + 2 < n ? (unsigned char)s[i + 2] : 0;
		out[o++] = t[v >> 18 & 63];
		out[o++] = t[v >> 12 & 63];
		out[o++] = i + 1 < n ? t[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? t[v & 63] : '=';
	}
	out[o] = '\0';
}
