/*
 * proxy_socks.c - the SOCKS5 handshake for the filtering proxy (RFC 1928,
 * username/password from RFC 1929): greeting, optional authentication,
 * and a CONNECT request by name or address.  BIND and UDP ASSOCIATE are
 * refused (0x07): UDP would carry DNS and anything else past the
 * allow-list (THREATS NET-02).  A domain name with a NUL byte is refused
 * outright, before it could be read as a shorter C string.
 */
#include <arpa/inet.h>
#include <string.h>

#include "proxy_proto.h"

int px_socks_greet(const unsigned char *b, size_t len, int need_auth,
		   unsigned char *method, size_t *used)
{
	size_t n;
	int noauth = 0, userpass = 0;

	if (len < 2)
		return PX_MORE;
	if (b[0] != PX_SOCKS_VER || b[1] == 0)
		return PX_ERR;
	n = b[1];
	if (len < 2 + n)
		return PX_MORE;
	for (size_t i = 0; i < n; i++) {
		noauth |= b[2 + i] == PX_SOCKS_NOAUTH;
		userpass |= b[2 + i] == PX_SOCKS_USERPASS;
	}
	if (need_auth)
		*method = userpass ? PX_SOCKS_USERPASS : PX_SOCKS_NOMETHOD;
	else
		*method = noauth     ? PX_SOCKS_NOAUTH
			  : userpass ? PX_SOCKS_USERPASS
				     : PX_SOCKS_NOMETHOD;
	*used = 2 + n;
	return PX_OK;
}

/* user ":" pass against secret, in time that depends on secret only. */
static int creds_match(const unsigned char *u, size_t un,
		       const unsigned char *p, size_t pn, const char *secret)
{
	size_t sn = strlen(secret);
	unsigned char d = (unsigned char)(un + 1 + pn != sn);

	for (size_t i = 0; i < sn; i++) {
		unsigned char c = i < un	    ? u[i]
				  : i == un	    ? ':'
				  : i - un - 1 < pn ? p[i - un - 1]
						    : 0;

		d |= (unsigned char)(c ^ (unsigned char)secret[i]);
	}
	return d == 0;
}

int px_socks_auth(const unsigned char *b, size_t len, const char *secret,
		  int *ok, size_t *used)
{
	size_t un, pn;

	if (len < 2)
		return PX_MORE;
	if (b[0] != 1)
		return PX_ERR;
	un = b[1];
	if (len < 2 + un + 1)
		return PX_MORE;
	pn = b[2 + un];
	if (len < 3 + un + pn)
		return PX_MORE;
	*ok = secret && creds_match(b + 2, un, b + 3 + un, pn, secret);
	*used = 3 + un + pn;
	return PX_OK;
}

static int req_fail(struct px_socks_req *r, unsigned char rep)
{
	r->rep = rep;
	return PX_ERR;
}

int px_socks_request(const unsigned char *b, size_t len, struct px_socks_req *r,
		     size_t *used)
{
	size_t alen;

	memset(r, 0, sizeof(*r));
	if (len < 5)
		return PX_MORE;
	if (b[0] != PX_SOCKS_VER || b[2] != 0)
		return req_fail(r, PX_REP_FAIL);
	switch (b[3]) {
	case 1: alen = 4; break;
	case 4: alen = 16; break;
	case 3: alen = 1 + (size_t)b[4]; break;
	default: return req_fail(r, PX_REP_ATYP);
	}
	if (len < 4 + alen + 2)
		return PX_MORE;
	*used = 4 + alen + 2;
	if (b[1] != 1) /* CONNECT only */
		return req_fail(r, PX_REP_CMD);
	r->port = (uint16_t)(b[4 + alen] << 8 | b[5 + alen]);
	if (b[3] == 3) {
		if (b[4] == 0 || memchr(b + 5, '\0', b[4]))
			return req_fail(r, PX_REP_RULESET);
		memcpy(r->host, b + 5, b[4]);
		r->host[b[4]] = '\0';
		return PX_OK;
	}
	r->is_addr = 1;
	inet_ntop(b[3] == 1 ? AF_INET : AF_INET6, b + 4, r->host,
		  sizeof(r->host));
	return PX_OK;
}

size_t px_socks_reply(unsigned char *out, unsigned char rep)
{
	static const unsigned char tail[7] = { 0, 1, 0, 0, 0, 0, 0 };

	out[0] = PX_SOCKS_VER;
	out[1] = rep;
	memcpy(out + 2, tail, sizeof(tail)); /* RSV, ATYP 1, 0.0.0.0:0 */
	out[9] = 0;
	return 10;
}
