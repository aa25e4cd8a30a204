/*
 * proxy_conn.c - one connection of the filtering proxy, from the first
 * byte to the relay: sniff (0x05 is SOCKS5, an upper-case letter HTTP,
 * anything else is dropped), read the request, decide the host, resolve
 * it, decide every address, connect to one that passed, and hand over to
 * the relay; or answer the refusal and report it.
 *
 * The decision is taken twice by the one decider (core/decide.h): on the
 * host as asked, before anything is looked up, and on each address it
 * resolved to.  The socket connects to the very address that passed the
 * second step.  Refusals are explained by the one explainer
 * (core/explain.h), in the words the shim uses.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "explain.h"
#include "proxy_int.h"
#include "record.h"

static const char *proto_name(enum px_proto p)
{
	return p == PR_SOCKS ? "socks5" : p == PR_CONNECT ? "connect" : "http";
}

static void emit(struct px_conn *c, enum sbx_proxy_ev_kind kind,
		 struct sbx_net_decision d, const char *addr, const char *msg,
		 const char *fix)
{
	struct sbx_proxy *px = c->px;
	struct sbx_proxy_event ev = {
		kind, proto_name(c->proto), c->host, c->port, d, addr, msg, fix
	};

	if (px->conf.on_event)
		px->conf.on_event(px->conf.event_ctx, &ev);
}

size_t sbx_proxy_record(const struct sbx_proxy *px,
			const struct sbx_proxy_event *ev, char *buf, size_t sz)
{
	char tgt[400];
	const char *f[SBX_REC_NFIELDS];
	struct sbx_expl e;

	sbx_net_target(tgt, sizeof(tgt), ev->host, ev->port);
	f[SBX_REC_KIND] = "unreachable";
	f[SBX_REC_RULE] = f[SBX_REC_SRC] = "";
	if (ev->kind == SBX_PXE_REFUSED) {
		/* the explanation's own rule, source and kind */
		sbx_explain_net(px->conf.pol, "connect to", ev->host, ev->port,
				NULL, &ev->d, SBX_EXPL_NO_FIX, &e);
		f[SBX_REC_KIND] = e.kind;
		f[SBX_REC_RULE] = e.rule;
		f[SBX_REC_SRC] = e.src;
	}
	f[SBX_REC_OP] = "connect";
	f[SBX_REC_TARGET] = tgt;
	f[SBX_REC_COMM] = "sbxrun-proxy";
	f[SBX_REC_MSG] = ev->msg;
	return sbx_rec_encode(buf, sz, f);
}

/* ------------------------------------------------------------ replies */

/* Small replies go out in one send: the socket buffer is empty then. */
static int say(struct px_conn *c, const void *p, size_t n)
{
	return send(c->cfd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)n
		       ? 0
		       : -1;
}

/* After a final answer: no more writing, and read what the client still
 * sends until it closes (or a short deadline), so that the answer is not
 * lost to a reset from unread data. */
static void linger(struct px_conn *c)
{
	struct sbx_proxy *px = c->px;

	if (c->ufd >= 0) {
		close(c->ufd);
		c->ufd = -1;
	}
	shutdown(c->cfd, SHUT_WR);
	c->st = S_LINGER;
	px_watch(px, c->cfd, TAG_CLIENT, c, &c->cev, EPOLLIN);
	px_timer_set(c, T_LINGER);
}

static void http_answer(struct px_conn *c, int status, const char *line)
{
	char buf[2560];
	size_t n = px_http_reply(buf, sizeof(buf), status, line, status == 407);

	say(c, buf, n);
	linger(c);
}

static void socks_answer(struct px_conn *c, unsigned char rep)
{
	unsigned char b[10];

	say(c, b, px_socks_reply(b, rep));
	linger(c);
}

/* The policy said no: answer on the wire, report, close. */
static void refuse(struct px_conn *c, struct sbx_net_decision d,
		   const struct sbx_ip *addr)
{
	struct sbx_expl e;
	char fix[400], a[64] = "";

	sbx_explain_net(c->px->conf.pol, "connect to", c->host, c->port, addr,
			&d, 0, &e);
	sbx_net_to_allow(fix, sizeof(fix), c->host, c->port, addr, &d);
	if (addr)
		sbx_ip_format(addr, a, sizeof(a));
	c->px->st.refused++;
	emit(c, SBX_PXE_REFUSED, d, addr ? a : NULL, e.msg, fix);
	if (c->proto == PR_SOCKS)
		socks_answer(c, PX_REP_RULESET);
	else
		http_answer(c, 403, e.msg);
}

/* Allowed, but not reachable: 502/504, SOCKS 0x03-0x06.  The line has
 * the refusals' shape without a rule: the policy did not refuse it. */
static void unreachable(struct px_conn *c, const char *why, int status,
			unsigned char rep)
{
	char msg[1024], tgt[400];
	struct sbx_net_decision ok = { SBX_NETW_ALLOW, SBX_AC_PUBLIC, NULL };

	sbx_net_target(tgt, sizeof(tgt), c->host, c->port);
	snprintf(msg, sizeof(msg), "sbxrun: cannot connect to %s: %s", tgt,
		 why);
	c->px->st.failed++;
	emit(c, SBX_PXE_FAILED, ok, NULL, msg, "");
	if (c->proto == PR_SOCKS)
		socks_answer(c, rep);
	else
		http_answer(c, status, msg);
}

/* ------------------------------------------------------------ dial */

static int open_upstream(struct px_conn *c, const struct sbx_ip *ip)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *in = (void *)&ss;
	struct sockaddr_in6 *in6 = (void *)&ss;
	struct epoll_event ev = { .events = EPOLLOUT };
	socklen_t len;
	int fd, one = 1;

	memset(&ss, 0, sizeof(ss));
	if (ip->af == AF_INET) {
		in->sin_family = AF_INET;
		in->sin_port = htons(c->port);
		memcpy(&in->sin_addr, ip->a, 4);
		len = sizeof(*in);
	} else {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(c->port);
		memcpy(&in6->sin6_addr, ip->a, 16);
		len = sizeof(*in6);
	}
	fd = socket(ip->af, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&ss, len) < 0 &&
	    errno != EINPROGRESS) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	ev.data.u64 = (uint64_t)(uintptr_t)c | TAG_UP;
	if (epoll_ctl(c->px->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
		close(fd);
		return -1;
	}
	c->ufd = fd;
	c->uev = EPOLLOUT;
	return 0;
}

/* The next checked address; one that fails at once is skipped. */
static void dial(struct px_conn *c)
{
	int e = EHOSTUNREACH;

	c->st = S_CONNECT;
	px_watch(c->px, c->cfd, TAG_CLIENT, c, &c->cev, 0);
	for (; c->iaddr < c->naddr; c->iaddr++) {
		if (open_upstream(c, &c->addrs[c->iaddr]) == 0)
			return;
		e = errno;
	}
	unreachable(c, strerror(e), 502,
		    e == ECONNREFUSED ? PX_REP_REFUSED : PX_REP_NETUNREACH);
}

static void queue_first(struct px_conn *c)
{
	unsigned char rep[10];
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	size_t head = c->proto == PR_SOCKS ? 0 : c->http.head_len;
	int r = 0;

	if (c->proto == PR_HTTP)
		r |= px_dir_queue(&c->up, c->http.fwd, c->http.fwd_len);
	else if (c->proto == PR_CONNECT)
		r |= px_dir_queue(&c->down, ok, sizeof(ok) - 1);
	else
		r |= px_dir_queue(&c->down, rep,
				  px_socks_reply(rep, PX_REP_OK));
	/* what the client sent after its request goes first upstream */
	if (c->inlen > head)
		r |= px_dir_queue(&c->up, c->in + head, c->inlen - head);
	if (r)
		px_conn_close(c);
}

static void connected(struct px_conn *c)
{
	int e = 0;
	socklen_t len = sizeof(e);

	if (getsockopt(c->ufd, SOL_SOCKET, SO_ERROR, &e, &len) < 0)
		e = errno;
	if (e == EINPROGRESS)
		return;
	if (e) {
		close(c->ufd);
		c->ufd = -1;
		c->iaddr++;
		if (c->iaddr < c->naddr) {
			dial(c);
			return;
		}
		unreachable(c, strerror(e), 502,
			    e == ECONNREFUSED ? PX_REP_REFUSED
					      : PX_REP_HOSTUNREACH);
		return;
	}
	px_timer_set(c, T_NONE);
	c->px->st.relayed++;
	queue_first(c);
	if (c->st != S_DEAD)
		px_relay_start(c);
}

/* ------------------------------------------------------------ decide */

/* Step 1, on the host as asked; names go to the resolver, literals
 * (already decided by address) straight to connect. */
static void decide(struct px_conn *c)
{
	struct sbx_net_decision d =
		sbx_decide_host(c->px->conf.pol, c->host, c->port);
	struct sbx_ip ip;
	char name[320];

	if (d.why != SBX_NETW_ALLOW) {
		refuse(c, d, NULL);
		return;
	}
	px_timer_set(c, T_DIAL);
	if (sbx_net_host_parse(c->host, name, sizeof(name), &ip) == 2) {
		c->addrs[0] = ip;
		c->naddr = 1;
		dial(c);
		return;
	}
	c->st = S_RESOLVE;
	px_watch(c->px, c->cfd, TAG_CLIENT, c, &c->cev, 0);
	px_dns_lookup(c, name);
}

/* Step 2, on every address: keep those that pass; when none does, the
 * refusal names the worst one (metadata before private). */
void px_conn_resolved(struct px_conn *c, int err, const struct sbx_ip *a, int n)
{
	struct sbx_net_decision worst = { SBX_NETW_ALLOW, SBX_AC_PUBLIC, NULL };
	const struct sbx_ip *worst_ip = NULL;
	char why[160];

	if (c->st != S_RESOLVE)
		return;
	if (err || n == 0) {
		snprintf(why, sizeof(why), "cannot resolve the name: %s",
			 err ? px_dns_strerror(err) : "no address");
		unreachable(c, why, 502, PX_REP_HOSTUNREACH);
		return;
	}
	c->naddr = 0;
	for (int i = 0; i < n; i++) {
		struct sbx_net_decision d =
			sbx_decide_addr(c->px->conf.pol, &a[i], c->port);

		if (d.why == SBX_NETW_ALLOW && c->naddr < PX_MAX_ADDRS)
			c->addrs[c->naddr++] = a[i];
		else if (d.why != SBX_NETW_ALLOW &&
			 (!worst_ip || d.why == SBX_NETW_NEVER)) {
			worst = d;
			worst_ip = &a[i];
		}
	}
	if (c->naddr == 0) {
		refuse(c, worst, worst_ip);
		return;
	}
	c->iaddr = 0;
	dial(c);
}

/* ------------------------------------------------------------ requests */

static void consume(struct px_conn *c, size_t n)
{
	memmove(c->in, c->in + n, c->inlen - n);
	c->inlen -= n;
}

static void on_http(struct px_conn *c)
{
	struct sbx_proxy *px = c->px;
	int r = px_http_parse(c->in, c->inlen, px->conf.max_head,
			      px->secret ? px->auth64 : NULL, &c->http);

	if (r == PX_MORE)
		return;
	if (r == PX_ERR) {
		char line[160];

		snprintf(line, sizeof(line), "sbxrun proxy: %s", c->http.why);
		http_answer(c, c->http.status, line);
		return;
	}
	c->proto = c->http.connect ? PR_CONNECT : PR_HTTP;
	snprintf(c->host, sizeof(c->host), "%s", c->http.host);
	c->port = c->http.port;
	decide(c);
}

/* One SOCKS step; 1 when another may follow on buffered bytes. */
static int on_socks(struct px_conn *c)
{
	const unsigned char *b = (const unsigned char *)c->in;
	unsigned char m[2];
	struct px_socks_req q;
	size_t used = 0;
	int r, ok = 0;

	if (c->st == S_SOCKS_GREET) {
		r = px_socks_greet(b, c->inlen, c->px->secret != NULL, &m[1],
				   &used);
		if (r != PX_OK)
			return r == PX_ERR ? (px_conn_close(c), 0) : 0;
		consume(c, used);
		m[0] = PX_SOCKS_VER;
		if (say(c, m, 2) < 0 || m[1] == PX_SOCKS_NOMETHOD) {
			linger(c);
			return 0;
		}
		c->st = m[1] == PX_SOCKS_USERPASS ? S_SOCKS_AUTH : S_SOCKS_REQ;
		return 1;
	}
	if (c->st == S_SOCKS_AUTH) {
		r = px_socks_auth(b, c->inlen, c->px->secret, &ok, &used);
		if (r != PX_OK)
			return r == PX_ERR ? (px_conn_close(c), 0) : 0;
		consume(c, used);
		m[0] = 1;
		m[1] = ok ? 0 : 1;
		if (say(c, m, 2) < 0 || !ok) {
			linger(c);
			return 0;
		}
		c->st = S_SOCKS_REQ;
		return 1;
	}
	r = px_socks_request(b, c->inlen, &q, &used);
	if (r == PX_MORE)
		return 0;
	if (r == PX_ERR) {
		socks_answer(c, q.rep);
		return 0;
	}
	consume(c, used);
	snprintf(c->host, sizeof(c->host), "%s", q.host);
	c->port = q.port;
	decide(c);
	return 0;
}

/* Read what the client sent, up to the head limit: 0, 1 at its end of
 * stream (what came before still counts), -1 on error. */
static int fill(struct px_conn *c)
{
	size_t max = c->px->conf.max_head;

	while (c->inlen < max) {
		ssize_t n;

		if (c->inlen == c->incap) {
			size_t nc = c->incap ? c->incap * 2 : 1024;
			char *p = realloc(c->in, nc < max ? nc : max);

			if (!p)
				return -1;
			c->in = p;
			c->incap = nc < max ? nc : max;
		}
		n = recv(c->cfd, c->in + c->inlen, c->incap - c->inlen,
			 MSG_DONTWAIT);
		if (n == 0)
			return 1;
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		c->inlen += (size_t)n;
	}
	return 0;
}

static int requesting(const struct px_conn *c)
{
	return c->st == S_SNIFF || c->st == S_HTTP ||
	       (c->st >= S_SOCKS_GREET && c->st <= S_SOCKS_REQ);
}

static void on_request_bytes(struct px_conn *c)
{
	int end = fill(c);

	if (end < 0) {
		px_conn_close(c);
		return;
	}
	if (c->st == S_SNIFF && c->inlen) {
		unsigned char b = (unsigned char)c->in[0];

		if (b == PX_SOCKS_VER) {
			c->proto = PR_SOCKS;
			c->st = S_SOCKS_GREET;
		} else if (b >= 'A' && b <= 'Z') {
			c->proto = PR_HTTP;
			c->st = S_HTTP;
		} else {
			px_conn_close(c);
			return;
		}
	}
	if (c->st == S_HTTP)
		on_http(c);
	else
		while (c->st >= S_SOCKS_GREET && c->st <= S_SOCKS_REQ &&
		       on_socks(c))
			;
	/* the client stopped, or filled the buffer, before a whole request
	 * (HTTP answers 431 itself) */
	if (requesting(c) && (end == 1 || c->inlen >= c->px->conf.max_head))
		px_conn_close(c);
}

/* ------------------------------------------------------------ entry */

void px_conn_start(struct sbx_proxy *px, int fd)
{
	struct px_conn *c = calloc(1, sizeof(*c));
	struct epoll_event ev = { .events = EPOLLIN };
	int one = 1;

	if (!c) {
		close(fd);
		return;
	}
	c->px = px;
	c->cfd = fd;
	c->ufd = -1;
	c->tlist = T_NONE;
	c->up.pipe[0] = c->up.pipe[1] = c->down.pipe[0] = c->down.pipe[1] = -1;
	ev.data.u64 = (uint64_t)(uintptr_t)c | TAG_CLIENT;
	if (epoll_ctl(px->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
		close(fd);
		free(c);
		return;
	}
	c->cev = EPOLLIN;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->next = px->all;
	if (px->all)
		px->all->prev = c;
	px->all = c;
	if (++px->st.conns > px->st.peak)
		px->st.peak = px->st.conns;
	if (px->st.conns > px->burst)
		px->burst = px->st.conns;
	px_timer_set(c, T_HEAD);
}

static void drain(struct px_conn *c)
{
	char buf[4096];
	ssize_t n;

	for (int i = 0; i < 16; i++) {
		n = recv(c->cfd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n > 0)
			continue;
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			px_conn_close(c);
		return;
	}
}

void px_conn_event(struct px_conn *c, int tag, uint32_t ev)
{
	switch (c->st) {
	case S_SNIFF:
	case S_HTTP:
	case S_SOCKS_GREET:
	case S_SOCKS_AUTH:
	case S_SOCKS_REQ: on_request_bytes(c); break;
	case S_RESOLVE:
		if (ev & (EPOLLHUP | EPOLLERR))
			px_conn_close(c);
		break;
	case S_CONNECT:
		if (tag == TAG_UP)
			connected(c);
		else if (ev & (EPOLLHUP | EPOLLERR))
			px_conn_close(c);
		break;
	case S_RELAY: px_relay_event(c); break;
	case S_LINGER: drain(c); break;
	case S_DEAD: break;
	}
}

void px_conn_timeout(struct px_conn *c)
{
	switch (c->st) {
	case S_RESOLVE:
	case S_CONNECT: unreachable(c, "timed out", 504, PX_REP_TTL); break;
	default: px_conn_close(c); break;
	}
}
