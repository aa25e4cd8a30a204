/*
 * proxy_int.h - what the filtering proxy's files share: the engine, one
 * connection, the relay and the resolver (proxy.h has the model).
 *
 * Lifetime rule: a connection is never freed while an event batch may
 * still name it.  Closing one closes its descriptors and moves it to the
 * graveyard, freed after the batch; one with a lookup in flight stays in
 * the graveyard until c-ares calls back.
 */
#ifndef SBX_PROXY_INT_H
#define SBX_PROXY_INT_H

#include <stddef.h>
#include <stdint.h>

#include "proxy.h"
#include "proxy_proto.h"

#define PX_MAX_ADDRS 8

/* epoll_data.u64: a pointer with a tag in the low bits. */
enum { TAG_CLIENT = 0, TAG_UP = 1, TAG_LISTEN = 2, TAG_DNS = 3 };

enum px_state {
	S_SNIFF, /* nothing read yet */
	S_HTTP, /* reading the request head */
	S_SOCKS_GREET,
	S_SOCKS_AUTH,
	S_SOCKS_REQ,
	S_RESOLVE, /* waiting for the resolver */
	S_CONNECT, /* non-blocking connect in flight */
	S_RELAY,
	S_LINGER, /* reply sent, draining the client before close */
	S_DEAD,
};

enum px_proto { PR_HTTP = 1, PR_CONNECT, PR_SOCKS };

/* Timer lists: each holds connections in deadline order, because every
 * member's deadline is "when it joined + the same duration". */
enum { T_NONE = -1, T_HEAD = 0, T_DIAL, T_LINGER, T_N };

/* One direction of a relay: from -> to, through a pipe (splice) or, when
 * no pipe could be had, a buffer.  buf also carries bytes that must go
 * first (the rewritten head, the CONNECT or SOCKS reply). */
struct px_dir {
	int from, to;
	int pipe[2];
	size_t inpipe;
	char *buf;
	size_t off, len, cap;
	unsigned eof : 1, shut : 1, grown : 1;
	uint64_t bytes;
};

struct px_conn {
	struct sbx_proxy *px;
	int cfd, ufd;
	enum px_state st;
	enum px_proto proto;
	char *in; /* bytes from the client before the relay */
	size_t inlen, incap;
	struct px_http http;
	char host[PX_HOST_MAX];
	uint16_t port;
	struct sbx_ip addrs[PX_MAX_ADDRS];
	int naddr, iaddr;
	int dns_pending;
	int dns_err; /* the resolver's failure, for the message */
	struct px_dir up, down; /* client -> upstream, upstream -> client */
	uint32_t cev, uev; /* interests registered */
	uint64_t deadline;
	int tlist;
	struct px_conn *tprev, *tnext; /* timer list */
	struct px_conn *prev, *next; /* all (or graveyard) */
};

struct px_dns;

struct sbx_proxy {
	int ep, lfd;
	struct sbx_proxy_conf conf;
	char *secret; /* copy of conf.secret */
	char auth64[512]; /* base64 of the secret */
	unsigned max_conns;
	struct px_conn *all, *grave;
	struct px_conn *thead[T_N], *ttail[T_N];
	unsigned tms[T_N];
	uint64_t accept_pause_until; /* ms; 0: accepting */
	unsigned burst; /* most connections at once since the last trim */
	struct px_dns *dns;
	struct sbx_proxy_stats st;
};

/* proxy.c */
uint64_t px_now_ms(void);
void px_watch(struct sbx_proxy *px, int fd, int tag, void *ptr, uint32_t *cur,
	      uint32_t want);
void px_timer_set(struct px_conn *c, int list);
void px_conn_close(struct px_conn *c);

/* proxy_conn.c: the state machine */
void px_conn_start(struct sbx_proxy *px, int fd);
void px_conn_event(struct px_conn *c, int tag, uint32_t ev);
void px_conn_timeout(struct px_conn *c);
void px_conn_resolved(struct px_conn *c, int err, const struct sbx_ip *a,
		      int n);

/* proxy_relay.c */
int px_relay_start(struct px_conn *c);
void px_relay_event(struct px_conn *c);
void px_dir_free(struct px_dir *d);
int px_dir_queue(struct px_dir *d, const void *p, size_t n);

/* proxy_dns.c */
int px_dns_new(struct sbx_proxy *px, struct sbx_err *err);
void px_dns_free(struct sbx_proxy *px);
/* Start a lookup; px_conn_resolved() may be called before it returns. */
void px_dns_lookup(struct px_conn *c, const char *name);
void px_dns_event(struct sbx_proxy *px, int fd, uint32_t ev);
int px_dns_timeout(struct sbx_proxy *px);
void px_dns_tick(struct sbx_proxy *px);
const char *px_dns_strerror(int err);

#endif
