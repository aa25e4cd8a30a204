/*
 * fuzz_proxy.c - libFuzzer target for what the filtering proxy reads from
 * a (hostile) client: the HTTP request head (proxy_http.c over
 * http_parser), the SOCKS5 handshake (proxy_socks.c), and the host
 * decision and explanation that follow (the one decider and explainer,
 * core/decide.c and core/explain.c, over the compiled policy).
 *
 * The first byte picks the flavour (as the proxy's sniffing does, plus
 * an authenticated HTTP run); the input is also fed in two pieces at a
 * point taken from the data, and must parse the same as in one.
 * Invariants for an accepted request:
 *  - the head ends in CRLF CRLF within the limit, the host is a C string
 *    of its full length with no control bytes, the port is not 0;
 *  - the head sent upstream has one CRLF CRLF (at its end), no bare CR or
 *    LF, exactly one Host line (the second), no Proxy-* header, and
 *    header names that are tokens;
 *  - a SOCKS5 domain name has no NUL inside;
 *  - the explanation of any decision on that host is one printable line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cpol.h"
#include "decide.h"
#include "explain.h"
#include "linux/proxy_proto.h"
#include "policy.h"

#define MAX_HEAD 4096

static struct sbx_cpol pol;

static void init(void)
{
	static int done;
	static const char *const allow[] = { "allowed.test", "*.ok.test:443",
					     "10.0.0.0/8:80", "::1" };
	struct sbx_policy p;
	struct sbx_err err;
	const char *why;
	void *buf;
	size_t len;

	if (done)
		return;
	done = 1;
	sbx_policy_init(&p);
	p.net = SBX_NET_FILTERED;
	for (size_t i = 0; i < 4; i++)
		if (sbx_policy_add_allow(&p, allow[i],
					 (struct sbx_src){ "fuzz", 1 },
					 &err) < 0)
			abort();
	if (sbx_cpol_build(&p, SBX_KMODE_FULL, 0, &buf, &len, &err) < 0 ||
	    sbx_cpol_view(buf, len, &pol, &why) < 0)
		abort(); /* buf lives as long as the fuzzer */
	sbx_policy_free(&p);
}

static void check_line(const char *m)
{
	if (!*m || strlen(m) > 4000)
		abort();
	for (const char *p = m; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			abort();
}

/* An HTTP host comes out of the parser without control bytes; a SOCKS5
 * name may hold any byte but NUL, and the decision must cope. */
static void check_host(const char *host, uint16_t port, int from_http)
{
	struct sbx_net_decision d;
	struct sbx_expl e;
	char m[4096];

	if (!*host || port == 0)
		abort();
	for (const char *p = host; from_http && *p; p++)
		if ((unsigned char)*p < 0x20)
			abort();
	d = sbx_decide_host(&pol, host, port);
	if (d.why != SBX_NETW_ALLOW) {
		sbx_explain_net(&pol, "connect to", host, port, NULL, &d, 0,
				&e);
		check_line(e.msg);
	}
	sbx_net_target(m, sizeof(m), host, port);
	check_line(m);
}

static void check_fwd(const struct px_http *r)
{
	const char *f = r->fwd, *end = strstr(f, "\r\n\r\n"), *l;
	int hosts = 0, line = 0;

	if (!end || (size_t)(end + 4 - f) != r->fwd_len ||
	    strlen(f) != r->fwd_len)
		abort();
	for (size_t i = 0; i < r->fwd_len; i++)
		if ((f[i] == '\r') !=
			    (i + 1 < r->fwd_len && f[i + 1] == '\n') ||
		    (f[i] == '\n' && (i == 0 || f[i - 1] != '\r')))
			abort();
	for (l = f; l < end; l = strstr(l, "\r\n") + 2) {
		line++;
		/* header names are tokens, followed by ": " */
		if (line > 1) {
			size_t n = strspn(l, "abcdefghijklmnopqrstuvwxyz"
					     "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					     "0123456789!#$%&'*+-.^_`|~");

			if (n == 0 || l[n] != ':' || l[n + 1] != ' ')
				abort();
		}
		if (!strncasecmp(l, "host:", 5) && (++hosts > 1 || line != 2))
			abort();
		if (!strncasecmp(l, "proxy-", 6))
			abort();
	}
	if (hosts != 1)
		abort();
}

static void check_http(const char *buf, size_t len, int r,
		       const struct px_http *h)
{
	if (r == PX_ERR) {
		if (h->status != 400 && h->status != 407 && h->status != 431 &&
		    h->status != 503)
			abort();
		return;
	}
	if (r != PX_OK)
		return;
	if (h->head_len < 4 || h->head_len > len || h->head_len > MAX_HEAD ||
	    memcmp(buf + h->head_len - 4, "\r\n\r\n", 4) != 0)
		abort();
	check_host(h->host, h->port, 1);
	if (!h->connect)
		check_fwd(h);
}

static void http(const char *buf, size_t len, const char *auth, size_t cut)
{
	struct px_http a, b;
	int ra, rb;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	ra = px_http_parse(buf, len, MAX_HEAD, auth, &a);
	check_http(buf, len, ra, &a);
	/* the same bytes in two reads */
	rb = px_http_parse(buf, cut, MAX_HEAD, auth, &b);
	if (rb == PX_MORE)
		rb = px_http_parse(buf, len, MAX_HEAD, auth, &b);
	if (rb == PX_OK && ra == PX_OK &&
	    (a.head_len != b.head_len || strcmp(a.host, b.host) != 0 ||
	     a.port != b.port))
		abort();
	if ((ra == PX_OK) != (rb == PX_OK) && len < MAX_HEAD && cut)
		abort();
	px_http_clear(&a);
	px_http_clear(&b);
}

static void socks(const unsigned char *b, size_t len)
{
	unsigned char m;
	struct px_socks_req q;
	size_t used = 0;
	int ok = 0;

	if (px_socks_greet(b, len, b[len - 1] & 1, &m, &used) != PX_OK)
		return;
	if (used > len)
		abort();
	b += used;
	len -= used;
	if (m == PX_SOCKS_USERPASS) {
		if (px_socks_auth(b, len, "sbx:secret", &ok, &used) != PX_OK)
			return;
		if (used > len)
			abort();
		b += used;
		len -= used;
	}
	if (px_socks_request(b, len, &q, &used) != PX_OK)
		return;
	if (used > len || (!q.is_addr && strlen(q.host) != b[4]))
		abort();
	if (q.port)
		check_host(q.host, q.port, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char auth[64];
	size_t cut;

	init();
	if (size < 2)
		return 0;
	cut = data[1] % (size - 1);
	switch (data[0] % 3) {
	case 0: http((const char *)data + 2, size - 2, NULL, cut); break;
	case 1:
		px_base64("sbx:secret", auth, sizeof(auth));
		http((const char *)data + 2, size - 2, auth, cut);
		break;
	default:
		if (size > 2)
			socks(data + 2, size - 2);
	}
	return 0;
}
