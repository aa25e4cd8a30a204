/*
 * proxy.h - the filtering network proxy the supervisor runs for
 * network = filtered (DESIGN 5, issue 14; THREATS NET-01/02/07/08/09/11).
 *
 * One engine, single-threaded, on one epoll set: an HTTP proxy (CONNECT
 * for TLS, absolute-form requests for plain HTTP) and SOCKS5 (CONNECT by
 * name or address) on the same listening socket, told apart by the first
 * byte.  Every connection is decided by host and port by the one decider
 * (core/decide.h, over the compiled policy, the shim's decision too):
 * a name the allow-list does not list is refused before any lookup; an
 * allowed name is resolved by the engine itself (c-ares, on the same
 * loop), each address is checked, and the engine connects to exactly the
 * address it checked, so a name cannot be rebound to the host's loopback,
 * a private network or the metadata endpoint.  Refusals are answered on
 * the wire (HTTP 403 with a one-line body, SOCKS5 reply 0x02) and
 * reported through on_event with the same line the supervisor prints,
 * in the one explainer's words (core/explain.h).
 *
 * The engine never binds or listens: it is handed a listening socket.  In
 * full mode the supervisor creates it inside the sandbox's network
 * namespace (where 127.0.0.1 is the sandbox's own loopback) and the
 * engine, outside, makes the outgoing connections from the host's
 * namespace.  In landlock-only mode the socket listens on the host's
 * loopback, where other local users can reach it: set secret, and
 * clients must present it (Proxy-Authorization: Basic, or SOCKS5
 * username/password), which they do when it is in the proxy URL.
 *
 * Use from a poll loop (the supervisor's):
 *
 *	sbx_proxy_new(&conf, &px, &err);
 *	poll on sbx_proxy_fd(px) for POLLIN, with sbx_proxy_timeout(px) as
 *	(the smaller of) the timeout; whenever it is readable or the timeout
 *	passed: sbx_proxy_run(px, 0);
 *	sbx_proxy_free(px);	(closes every connection and the socket)
 *
 * or on its own: while (running) sbx_proxy_run(px, -1).
 *
 * The engine never prints and never exits.  It writes with MSG_NOSIGNAL,
 * but splice(2) into a socket whose peer has gone raises SIGPIPE: the
 * caller must block or ignore SIGPIPE (the supervisor blocks it).  It
 * raises its own RLIMIT_NOFILE soft limit towards the hard limit (each
 * relayed connection holds two sockets and two pipes).
 */
#ifndef SBX_PROXY_H
#define SBX_PROXY_H

#include <stddef.h>
#include <stdint.h>

#include "cpol.h"
#include "decide.h"

struct sbx_proxy;

enum sbx_proxy_ev_kind {
	SBX_PXE_REFUSED = 1, /* the policy refused it (d, msg, to_allow) */
	SBX_PXE_FAILED = 2, /* allowed, but could not be reached (msg) */
};

/* One event; pointers are valid during the callback only. */
struct sbx_proxy_event {
	enum sbx_proxy_ev_kind kind;
	const char *proto; /* "http", "connect" or "socks5" */
	const char *host; /* as requested: a hostile client's bytes
			   * (msg has them sanitised) */
	uint16_t port;
	struct sbx_net_decision d; /* REFUSED: why */
	const char *addr; /* the refused resolved address, or NULL */
	const char *msg; /* one line, no newline: "sbxrun: cannot
			  * connect to example.invalid:443: not in the
			  * network allow-list of this sandbox (...); to
			  * allow: sbxrun --net allow:..." */
	const char *to_allow; /* "allow:example.invalid", or "" */
};

struct sbx_proxy_conf {
	int listen_fd; /* a listening TCP socket; the engine owns it
			* from sbx_proxy_new() on, even on failure */
	/* The compiled policy (network = filtered) whose allow-list
	 * decides; must outlive px. */
	const struct sbx_cpol *pol;
	const char *secret; /* "user:password" clients must present, or
			     * NULL (full mode: only the sandbox reaches
			     * the socket) */
	void (*on_event)(void *ctx, const struct sbx_proxy_event *ev);
	void *event_ctx;

	/* Limits; 0 takes the default. */
	unsigned max_conns; /* 4096, and what RLIMIT_NOFILE allows */
	unsigned max_head; /* 16384 bytes of request head */
	unsigned head_ms; /* 10000: whole head / SOCKS handshake */
	unsigned dial_ms; /* 30000: resolve and connect */

	/* Tests only.  hosts_file: names resolve from this file (hosts(5)
	 * format) and nowhere else -- no packet to any resolver.
	 * dns_server: "ADDR:PORT", the only server c-ares asks (no
	 * /etc/hosts).  Both NULL: the system's resolv.conf and hosts. */
	const char *hosts_file;
	const char *dns_server;
};

/* 0, or -1 with err (nothing started; listen_fd closed). */
int sbx_proxy_new(const struct sbx_proxy_conf *conf, struct sbx_proxy **out,
		  struct sbx_err *err);
/* A descriptor that polls readable when the engine has work. */
int sbx_proxy_fd(const struct sbx_proxy *px);
/* Milliseconds until sbx_proxy_run() must be called even without I/O
 * (deadlines, resolver retries), or -1. */
int sbx_proxy_timeout(const struct sbx_proxy *px);
/* Wait up to timeout_ms (-1: until something happens, bounded by the
 * engine's own deadlines; 0: not at all) and handle what is ready.
 * Returns 0, or -1 with errno when epoll itself failed. */
int sbx_proxy_run(struct sbx_proxy *px, int timeout_ms);

/* The event as a refusal record (core/record.h), the shape the shim sends
 * over the report socket, so the supervisor can hand it to the same
 * on_report path (deduplicated, counted, in the JSON report): op
 * "connect", target "host:port", kind "not-allowed", "port", "address",
 * "address-class", "never", "bad-host" or "unreachable", the deciding
 * rule and its source, process "sbxrun-proxy", the message.  Returns its
 * length, 0 when it does not fit. */
size_t sbx_proxy_record(const struct sbx_proxy *px,
			const struct sbx_proxy_event *ev, char *buf, size_t sz);

/* Full mode: the port the proxy listens on in the sandbox's own network
 * namespace (its loopback holds nothing else). */
#define SBX_PROXY_PORT 3128

/* A listening TCP socket on addr:port (port 0: any; *bound gets the
 * port), close-on-exec, with a backlog for a burst of connections: for
 * the child to make inside the sandbox's network namespace (full mode) or
 * the supervisor on the host's loopback (landlock-only).  -1 with err. */
int sbx_proxy_listen(const char *addr, uint16_t port, uint16_t *bound,
		     struct sbx_err *err);
/* A fresh per-run secret, "sbx:" and 32 hex digits from getrandom(2).
 * sz >= 37.  0 or -1 with err. */
int sbx_proxy_secret(char *buf, size_t sz, struct sbx_err *err);
struct sbx_proxy_stats {
	unsigned conns; /* open client connections */
	unsigned peak; /* most at once */
	uint64_t accepted, refused, failed, relayed, shed;
	uint64_t bytes_up, bytes_down;
};
void sbx_proxy_stats(const struct sbx_proxy *px, struct sbx_proxy_stats *st);
void sbx_proxy_free(struct sbx_proxy *px);

#endif
