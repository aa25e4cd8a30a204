/*
 * proxy_proto.h - the wire protocols of the filtering proxy, as pure
 * functions over a buffer (no I/O, so tests/fuzz/fuzz_proxy.c drives them
 * directly): the HTTP request head (proxy_http.c, with nodejs's
 * http_parser) and the SOCKS5 handshake (proxy_socks.c).
 */
#ifndef SBX_PROXY_PROTO_H
#define SBX_PROXY_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define PX_MORE 0 /* need more bytes */
#define PX_OK 1 /* complete */
#define PX_ERR (-1) /* refuse (status/code and why say how) */

#define PX_HOST_MAX 256

/* ------------------------------------------------------------ HTTP */

/* One parsed request head. */
struct px_http {
	int connect; /* CONNECT host:port */
	char host[PX_HOST_MAX]; /* as requested, brackets dropped */
	uint16_t port;
	size_t head_len; /* bytes of the head, final CRLF CRLF included */
	int auth_ok; /* Proxy-Authorization matched (or none needed) */
	/* plain HTTP: the head to send upstream (origin-form target, Host
	 * from the request target, Proxy-* and hop-by-hop headers removed,
	 * Connection: close); malloc'd, the caller frees */
	char *fwd;
	size_t fwd_len;
	/* PX_ERR: the status to answer and a short reason */
	int status;
	const char *why;
	/* private: how far the head has been scanned */
	size_t scanned;
	int past_method;
};

/* Parse the head at the start of buf (len bytes so far).  auth is the
 * expected "Basic ..." credentials' base64 part, or NULL when none are
 * needed.  PX_MORE until the head is complete (or max bytes arrived:
 * then PX_ERR 431); garbage is refused as soon as it is seen. */
int px_http_parse(const char *buf, size_t len, size_t max, const char *auth,
		  struct px_http *r);
void px_http_clear(struct px_http *r);
/* A complete response with a one-line text body; returns its length
 * (truncated to sz - 1 at worst). */
size_t px_http_reply(char *out, size_t sz, int status, const char *line,
		     int challenge);
/* base64 of s into out (for the expected credentials). */
void px_base64(const char *s, char *out, size_t sz);

/* ------------------------------------------------------------ SOCKS5 */

#define PX_SOCKS_VER 5
#define PX_SOCKS_NOAUTH 0x00
#define PX_SOCKS_USERPASS 0x02
#define PX_SOCKS_NOMETHOD 0xff

/* SOCKS5 reply codes (RFC 1928 6) */
#define PX_REP_OK 0x00
#define PX_REP_FAIL 0x01
#define PX_REP_RULESET 0x02 /* connection not allowed by ruleset */
#define PX_REP_NETUNREACH 0x03
#define PX_REP_HOSTUNREACH 0x04
#define PX_REP_REFUSED 0x05
#define PX_REP_TTL 0x06
#define PX_REP_CMD 0x07
#define PX_REP_ATYP 0x08

/* Greeting: VER NMETHODS METHODS.  *method is the one to answer with
 * (PX_SOCKS_NOMETHOD when the client offers none we take); *used the
 * bytes it took. */
int px_socks_greet(const unsigned char *b, size_t len, int need_auth,
		   unsigned char *method, size_t *used);
/* RFC 1929 username/password: VER(1) ULEN UNAME PLEN PASSWD.  *ok when
 * "user:pass" equals secret (constant time over the secret). */
int px_socks_auth(const unsigned char *b, size_t len, const char *secret,
		  int *ok, size_t *used);

struct px_socks_req {
	char host[PX_HOST_MAX]; /* a name, or an address literal */
	uint16_t port;
	int is_addr; /* ATYP 1 or 4 */
	unsigned char rep; /* PX_ERR: the reply code to send */
};
/* Request: VER CMD RSV ATYP DST.ADDR DST.PORT; only CONNECT. */
int px_socks_request(const unsigned char *b, size_t len, struct px_socks_req *r,
		     size_t *used);
/* The 10-byte reply (IPv4 0.0.0.0:0 as the bound address, which clients
 * ignore for CONNECT).  Returns its length. */
size_t px_socks_reply(unsigned char *out, unsigned char rep);

#endif
