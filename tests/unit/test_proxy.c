/*
 * test_proxy.c - the filtering proxy's wire protocols as pure functions
 * (launcher/kernel/linux/proxy_http.c, proxy_socks.c):
 *
 *  - request heads as a table: what is accepted (CONNECT, absolute-form
 *    http://, IPv6 literals), what is refused and with which status
 *    (origin-form, https:// without CONNECT, bare LF, obsolete folding,
 *    control bytes, oversized heads, too many fields, a wrong or missing
 *    secret);
 *  - the head sent upstream: origin-form target, Host from the request
 *    target (not the client's Host), Proxy-* and hop-by-hop headers and
 *    whatever Connection names removed, the body framing kept;
 *  - heads that arrive a byte at a time parse as in one piece;
 *  - SOCKS5: methods with and without a secret, RFC 1929 credentials,
 *    CONNECT by name / IPv4 / IPv6, BIND and UDP refused, a NUL in a
 *    name refused;
 *  - the command's proxy environment, the per-run secret, the listening
 *    socket helper (proxy_env.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux/proxy.h"
#include "linux/proxy_proto.h"

static int parse(const char *req, size_t max, const char *auth,
		 struct px_http *r)
{
	memset(r, 0, sizeof(*r));
	return px_http_parse(req, strlen(req), max, auth, r);
}

static const struct hrow {
	const char *req;
	int result, status, connect;
	const char *host;
	uint16_t port;
} hrows[] = {
	{ "CONNECT allowed.test:443 HTTP/1.1\r\nHost: allowed.test:443\r\n\r\n",
	  PX_OK, 0, 1, "allowed.test", 443 },
	{ "CONNECT [2001:db8::1]:8443 HTTP/1.1\r\n\r\n", PX_OK, 0, 1,
	  "2001:db8::1", 8443 },
	{ "GET http://allowed.test/x HTTP/1.1\r\nHost: allowed.test\r\n\r\n",
	  PX_OK, 0, 0, "allowed.test", 80 },
	{ "GET HTTP://Allowed.Test:8080 HTTP/1.0\r\n\r\n", PX_OK, 0, 0,
	  "Allowed.Test", 8080 },
	{ "POST http://[::1]:81/p HTTP/1.1\r\nContent-Length: 0\r\n\r\n", PX_OK,
	  0, 0, "::1", 81 },
	/* incomplete */
	{ "CONNECT allowed.test:443 HTTP/1.1\r\n", PX_MORE, 0, 0, NULL, 0 },
	{ "CONNECT allowed.test:443 HTTP/1.1\r\n\r", PX_MORE, 0, 0, NULL, 0 },
	{ "GET", PX_MORE, 0, 0, NULL, 0 },
	/* refused */
	{ "GET /x HTTP/1.1\r\nHost: allowed.test\r\n\r\n", PX_ERR, 400, 0, NULL,
	  0 },
	{ "GET https://allowed.test/ HTTP/1.1\r\n\r\n", PX_ERR, 400, 0, NULL,
	  0 },
	{ "GET ftp://allowed.test/ HTTP/1.1\r\n\r\n", PX_ERR, 400, 0, NULL, 0 },
	{ "CONNECT allowed.test HTTP/1.1\r\n\r\n", PX_ERR, 400, 0, NULL, 0 },
	{ "CONNECT allowed.test:0 HTTP/1.1\r\n\r\n", PX_ERR, 400, 0, NULL, 0 },
	{ "CONNECT allowed.test:99999 HTTP/1.1\r\n\r\n", PX_ERR, 400, 0, NULL,
	  0 },
	{ "GET http://allowed.test/ HTTP/1.1\nHost: x\n\n", PX_ERR, 400, 0,
	  NULL, 0 },
	{ "GET http://allowed.test/ HTTP/1.1\r\nA: b\r\n c\r\n\r\n", PX_ERR,
	  400, 0, NULL, 0 },
	{ "GET http://allowed.test/ HTTP/1.1\r\nA: b\x01\r\n\r\n", PX_ERR, 400,
	  0, NULL, 0 },
	{ "GET http://allowed.test/ HTTP/1.1\r\nA: b\rc\r\n\r\n", PX_ERR, 400,
	  0, NULL, 0 },
	{ "\r\nGET http://allowed.test/ HTTP/1.1\r\n\r\n", PX_ERR, 400, 0, NULL,
	  0 },
	{ "get http://allowed.test/ HTTP/1.1\r\n\r\n", PX_ERR, 400, 0, NULL,
	  0 },
	{ "\x16\x03\x01\x02\x00", PX_ERR, 400, 0, NULL, 0 },
	{ "GET http://allowed.test/ HTTP/2.0\r\n\r\n", PX_ERR, 400, 0, NULL,
	  0 },
	{ "GET http://allowed.test/ HTTP/1.1\r\nBad Name: x\r\n\r\n", PX_ERR,
	  400, 0, NULL, 0 },
	{ "GET http://a b/ HTTP/1.1\r\n\r\n", PX_ERR, 400, 0, NULL, 0 },
	{ "BREW http://allowed.test/ HTTP/1.1\r\n\r\n", PX_ERR, 400, 0, NULL,
	  0 },
};

static void test_heads(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(hrows) / sizeof(hrows[0]); i++) {
		const struct hrow *h = &hrows[i];
		struct px_http r;
		int res = parse(h->req, 4096, NULL, &r);

		if (res != h->result ||
		    (res == PX_ERR && r.status != h->status) ||
		    (res == PX_OK &&
		     (r.connect != h->connect || strcmp(r.host, h->host) ||
		      r.port != h->port))) {
			print_error("head row %zu: %d status %d host '%s' port "
				    "%u (%s)\n",
				    i, res, r.status, r.host, r.port,
				    r.why ? r.why : "");
			bad++;
		}
		px_http_clear(&r);
	}
	if (bad)
		fail_msg("%d head rows failed", bad);
}

static void test_limits(void **state)
{
	char big[40000];
	struct px_http r;
	size_t n;

	(void)state;
	/* a head that does not end within the limit: 431, not a wait */
	n = (size_t)snprintf(big, sizeof(big),
			     "GET http://a.test/ HTTP/1.1\r\n");
	while (n < 20000)
		n += (size_t)snprintf(big + n, sizeof(big) - n,
				      "X-Pad: %0100d\r\n", 0);
	assert_int_equal(px_http_parse(big, n, 16384, NULL, &r), PX_ERR);
	assert_int_equal(r.status, 431);
	px_http_clear(&r);
	/* 101 header fields */
	n = (size_t)snprintf(big, sizeof(big),
			     "GET http://a.test/ HTTP/1.1\r\n");
	for (int i = 0; i < 101; i++)
		n += (size_t)snprintf(big + n, sizeof(big) - n, "X-%d: 1\r\n",
				      i);
	n += (size_t)snprintf(big + n, sizeof(big) - n, "\r\n");
	assert_int_equal(parse(big, 16384, NULL, &r), PX_ERR);
	assert_int_equal(r.status, 431);
	px_http_clear(&r);
}

static void test_forwarded(void **state)
{
	static const char req[] =
		"POST http://user:pw@allowed.test:8080/a/b?c=d#frag HTTP/1.1\r\n"
		"Host: evil.test\r\n"
		"Proxy-Authorization: Basic c2J4OnNlY3JldA==\r\n"
		"Proxy-Connection: keep-alive\r\n"
		"Connection: keep-alive, X-Hop\r\n"
		"Keep-Alive: 300\r\n"
		"TE: trailers\r\n"
		"X-Hop: 1\r\n"
		"Content-Length: 3\r\n"
		"User-Agent:   curl/7.88  \r\n"
		"\r\nabc";
	struct px_http r;
	char auth[64];

	(void)state;
	px_base64("sbx:secret", auth, sizeof(auth));
	assert_string_equal(auth, "c2J4OnNlY3JldA==");
	assert_int_equal(parse(req, 4096, auth, &r), PX_OK);
	assert_int_equal(r.head_len, sizeof(req) - 1 - 3);
	assert_string_equal(r.fwd, "POST /a/b?c=d HTTP/1.1\r\n"
				   "Host: allowed.test:8080\r\n"
				   "Content-Length: 3\r\n"
				   "User-Agent: curl/7.88\r\n"
				   "Connection: close\r\n\r\n");
	assert_int_equal(r.fwd_len, strlen(r.fwd));
	px_http_clear(&r);
	/* an upgrade is passed on as one */
	assert_int_equal(parse("GET http://[2001:db8::1]/ws HTTP/1.1\r\n"
			       "Connection: Upgrade\r\nUpgrade: websocket\r\n"
			       "\r\n",
			       4096, NULL, &r),
			 PX_OK);
	assert_string_equal(r.fwd, "GET /ws HTTP/1.1\r\nHost: [2001:db8::1]\r\n"
				   "Upgrade: websocket\r\n"
				   "Connection: upgrade\r\n\r\n");
	px_http_clear(&r);
	/* Connection cannot drop the body's framing */
	assert_int_equal(parse("PUT http://a.test/ HTTP/1.1\r\n"
			       "Connection: content-length, transfer-encoding"
			       "\r\nTransfer-Encoding: chunked\r\n\r\n",
			       4096, NULL, &r),
			 PX_OK);
	assert_non_null(strstr(r.fwd, "Transfer-Encoding: chunked\r\n"));
	px_http_clear(&r);
}

static void test_auth(void **state)
{
	struct px_http r;
	char auth[64];

	(void)state;
	px_base64("sbx:secret", auth, sizeof(auth));
	assert_int_equal(parse("CONNECT a.test:443 HTTP/1.1\r\n\r\n", 4096,
			       auth, &r),
			 PX_ERR);
	assert_int_equal(r.status, 407);
	px_http_clear(&r);
	assert_int_equal(parse("CONNECT a.test:443 HTTP/1.1\r\n"
			       "Proxy-Authorization: Basic c2J4OnNlY3JldB==\r\n"
			       "\r\n",
			       4096, auth, &r),
			 PX_ERR);
	assert_int_equal(r.status, 407);
	px_http_clear(&r);
	assert_int_equal(
		parse("CONNECT a.test:443 HTTP/1.1\r\n"
		      "proxy-authorization: basic  c2J4OnNlY3JldA== \r\n"
		      "\r\n",
		      4096, auth, &r),
		PX_OK);
	px_http_clear(&r);
	/* the reply that asks for it */
	{
		char out[512];
		size_t n = px_http_reply(out, sizeof(out), 407, "x", 1);

		assert_int_equal(n, strlen(out));
		assert_non_null(strstr(out, "HTTP/1.1 407 "));
		assert_non_null(strstr(
			out, "Proxy-Authenticate: Basic realm=\"sbxrun\""));
		assert_non_null(strstr(out, "Content-Length: 2\r\n"));
	}
}

/* Every head, fed one byte at a time, parses as it does in one go. */
static void test_byte_at_a_time(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(hrows) / sizeof(hrows[0]); i++) {
		const char *req = hrows[i].req;
		size_t len = strlen(req), k;
		struct px_http a, b;
		int ra = parse(req, 4096, NULL, &a), rb = PX_MORE;

		memset(&b, 0, sizeof(b));
		for (k = 1; k <= len && rb == PX_MORE; k++)
			rb = px_http_parse(req, k, 4096, NULL, &b);
		assert_int_equal(ra, rb);
		if (ra == PX_OK) {
			assert_int_equal(a.head_len, b.head_len);
			assert_string_equal(a.host, b.host);
		}
		px_http_clear(&a);
		px_http_clear(&b);
	}
}

static void test_socks(void **state)
{
	unsigned char m;
	size_t used;
	int ok;
	struct px_socks_req q;
	static const unsigned char name[] = { 5,   1,	0,   3,	  12,  'a', 'l',
					      'l', 'o', 'w', 'e', 'd', '.', 't',
					      'e', 's', 't', 1,	  187 };
	static const unsigned char v6[] = { 5, 1, 0, 4, 0x20, 1, 0xd, 0xb8,
					    0, 0, 0, 0, 0,    0, 0,   0,
					    0, 0, 0, 1, 0,    80 };
	unsigned char nul[sizeof(name)], bind_[sizeof(name)], rep[10];

	(void)state;
	assert_int_equal(px_socks_greet((const unsigned char *)"\5\1\0", 3, 0,
					&m, &used),
			 PX_OK);
	assert_int_equal(m, PX_SOCKS_NOAUTH);
	assert_int_equal(used, 3);
	/* with a secret, no-auth is not offered back */
	assert_int_equal(px_socks_greet((const unsigned char *)"\5\1\0", 3, 1,
					&m, &used),
			 PX_OK);
	assert_int_equal(m, PX_SOCKS_NOMETHOD);
	assert_int_equal(px_socks_greet((const unsigned char *)"\5\2\0\2", 4, 1,
					&m, &used),
			 PX_OK);
	assert_int_equal(m, PX_SOCKS_USERPASS);
	assert_int_equal(px_socks_greet((const unsigned char *)"\5\2\0", 3, 1,
					&m, &used),
			 PX_MORE);
	assert_int_equal(px_socks_greet((const unsigned char *)"\4\1", 2, 0, &m,
					&used),
			 PX_ERR);
	assert_int_equal(px_socks_auth((const unsigned char *)"\1\3sbx\6secret",
				       12, "sbx:secret", &ok, &used),
			 PX_OK);
	assert_true(ok);
	assert_int_equal(used, 12);
	assert_int_equal(px_socks_auth((const unsigned char *)"\1\3sbx\6secreT",
				       12, "sbx:secret", &ok, &used),
			 PX_OK);
	assert_false(ok);
	assert_int_equal(px_socks_auth((const unsigned char *)"\1\4sbx:\5secre",
				       12, "sbx:secret", &ok, &used),
			 PX_OK);
	assert_false(ok);
	assert_int_equal(px_socks_request(name, sizeof(name), &q, &used),
			 PX_OK);
	assert_string_equal(q.host, "allowed.test");
	assert_int_equal(q.port, 443);
	assert_int_equal(used, sizeof(name));
	assert_int_equal(px_socks_request(name, sizeof(name) - 1, &q, &used),
			 PX_MORE);
	assert_int_equal(px_socks_request(v6, sizeof(v6), &q, &used), PX_OK);
	assert_string_equal(q.host, "2001:db8::1");
	assert_true(q.is_addr);
	memcpy(nul, name, sizeof(name));
	nul[12] = '\0'; /* "allowed\0test" is not "allowed" */
	assert_int_equal(px_socks_request(nul, sizeof(nul), &q, &used), PX_ERR);
	assert_int_equal(q.rep, PX_REP_RULESET);
	memcpy(bind_, name, sizeof(name));
	bind_[1] = 3; /* UDP ASSOCIATE */
	assert_int_equal(px_socks_request(bind_, sizeof(bind_), &q, &used),
			 PX_ERR);
	assert_int_equal(q.rep, PX_REP_CMD);
	bind_[1] = 1;
	bind_[3] = 9;
	assert_int_equal(px_socks_request(bind_, sizeof(bind_), &q, &used),
			 PX_ERR);
	assert_int_equal(q.rep, PX_REP_ATYP);
	assert_int_equal(px_socks_reply(rep, PX_REP_RULESET), 10);
	assert_memory_equal(rep, "\5\2\0\1\0\0\0\0\0\0", 10);
}

/* The secret and the listening socket (the environment: test_env.c). */
static void test_env(void **state)
{
	char sec[40], sec2[40];
	struct sbx_err err;
	uint16_t port = 0;
	int fd;

	(void)state;
	assert_int_equal(sbx_proxy_secret(sec, sizeof(sec), &err), 0);
	assert_int_equal(sbx_proxy_secret(sec2, sizeof(sec2), &err), 0);
	assert_int_equal(strlen(sec), 36);
	assert_int_equal(strspn(sec + 4, "0123456789abcdef"), 32);
	assert_string_not_equal(sec, sec2);
	assert_int_equal(sbx_proxy_secret(sec, 36, &err), -1);
	fd = sbx_proxy_listen("127.0.0.1", 0, &port, &err);
	assert_true(fd >= 0);
	assert_true(port > 0);
	close(fd);
	assert_int_equal(sbx_proxy_listen("localhost", 0, &port, &err), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_heads),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_forwarded),
		cmocka_unit_test(test_auth),
		cmocka_unit_test(test_byte_at_a_time),
		cmocka_unit_test(test_socks),
		cmocka_unit_test(test_env),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
