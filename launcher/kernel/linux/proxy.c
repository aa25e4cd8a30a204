/*
 * proxy.c - the filtering proxy's engine: one epoll set, the listening
 * socket, deadlines, and the life of a connection (proxy.h has the
 * model; proxy_conn.c the protocol states, proxy_relay.c the relay,
 * proxy_dns.c the resolver).
 *
 * Nothing here blocks: every socket is non-blocking, the resolver runs on
 * the same loop, and a busy connection gets a bounded amount of work per
 * wake-up.  A hostile client is held by limits, not by luck: a deadline
 * for the whole request head (slow headers), a size for it, a deadline
 * for resolving and connecting, a cap on connections (beyond it new ones
 * are closed at once), and accept() pauses briefly when the process is
 * out of descriptors instead of spinning on a listening socket that stays
 * readable.
 *
 * One cleanup idiom in these files: close into the graveyard (proxy_int.h)
 * and free after the batch.
 */
#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "proxy_int.h"

#define DEF_MAX_CONNS 4096u
#define DEF_MAX_HEAD 16384u
#define DEF_HEAD_MS 10000u
#define DEF_DIAL_MS 30000u
#define LINGER_MS 2000u
#define ACCEPT_PAUSE_MS 100u
#define ACCEPT_BATCH 64
#define EVENT_BATCH 128
/* descriptors one relayed connection may hold: 2 sockets, 2 pipes */
#define FDS_PER_CONN 6u
/* connections at once after which an idle engine gives the heap back */
#define TRIM_AFTER 64u

uint64_t px_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint64_t tagged(void *ptr, int tag)
{
	return (uint64_t)(uintptr_t)ptr | (uint64_t)tag;
}

void px_watch(struct sbx_proxy *px, int fd, int tag, void *ptr, uint32_t *cur,
	      uint32_t want)
{
	struct epoll_event ev = { .events = want };

	if (fd < 0 || *cur == want)
		return;
	ev.data.u64 = tagged(ptr, tag);
	if (epoll_ctl(px->ep, EPOLL_CTL_MOD, fd, &ev) == 0)
		*cur = want;
}

/* ------------------------------------------------------------ timers */

static void timer_unlink(struct px_conn *c)
{
	struct sbx_proxy *px = c->px;

	if (c->tlist == T_NONE)
		return;
	if (c->tprev)
		c->tprev->tnext = c->tnext;
	else
		px->thead[c->tlist] = c->tnext;
	if (c->tnext)
		c->tnext->tprev = c->tprev;
	else
		px->ttail[c->tlist] = c->tprev;
	c->tprev = c->tnext = NULL;
	c->tlist = T_NONE;
}

/* Every member of a list joined it with the same duration, so appending
 * keeps each list in deadline order. */
void px_timer_set(struct px_conn *c, int list)
{
	struct sbx_proxy *px = c->px;

	timer_unlink(c);
	if (list == T_NONE)
		return;
	c->deadline = px_now_ms() + px->tms[list];
	c->tlist = list;
	c->tprev = px->ttail[list];
	if (c->tprev)
		c->tprev->tnext = c;
	else
		px->thead[list] = c;
	px->ttail[list] = c;
}

static void expire(struct sbx_proxy *px)
{
	uint64_t now = px_now_ms();

	for (int l = 0; l < T_N; l++)
		while (px->thead[l] && px->thead[l]->deadline <= now) {
			struct px_conn *c = px->thead[l];

			timer_unlink(c);
			px_conn_timeout(c);
		}
}

int sbx_proxy_timeout(const struct sbx_proxy *px)
{
	uint64_t now = px_now_ms(), best = UINT64_MAX;
	int d = px_dns_timeout((struct sbx_proxy *)px);

	for (int l = 0; l < T_N; l++)
		if (px->thead[l] && px->thead[l]->deadline < best)
			best = px->thead[l]->deadline;
	if (px->accept_pause_until && px->accept_pause_until < best)
		best = px->accept_pause_until;
	if (best != UINT64_MAX) {
		uint64_t ms = best > now ? best - now : 0;

		if (d < 0 || ms < (uint64_t)d)
			d = ms > 60000 ? 60000 : (int)ms;
	}
	return d;
}

/* ------------------------------------------------------------ conns */

static void list_del(struct px_conn **head, struct px_conn *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		*head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->prev = c->next = NULL;
}

static void list_add(struct px_conn **head, struct px_conn *c)
{
	c->prev = NULL;
	c->next = *head;
	if (*head)
		(*head)->prev = c;
	*head = c;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Closing removes the descriptors from the epoll set (they are never
 * duplicated); the memory waits in the graveyard until the batch that
 * may still name it is over, and any lookup in flight has called back. */
void px_conn_close(struct px_conn *c)
{
	struct sbx_proxy *px = c->px;

	if (c->st == S_DEAD)
		return;
	timer_unlink(c);
	close_fd(&c->cfd);
	close_fd(&c->ufd);
	px->st.bytes_up += c->up.bytes;
	px->st.bytes_down += c->down.bytes;
	px_dir_free(&c->up);
	px_dir_free(&c->down);
	free(c->in);
	c->in = NULL;
	px_http_clear(&c->http);
	c->st = S_DEAD;
	list_del(&px->all, c);
	list_add(&px->grave, c);
	px->st.conns--;
}

static void bury(struct sbx_proxy *px, int all)
{
	struct px_conn *c = px->grave, *next;

	for (; c; c = next) {
		next = c->next;
		if (c->dns_pending && !all)
			continue;
		list_del(&px->grave, c);
		free(c);
	}
	/* Idle again after a burst (1,000 tunnels leave ~3 MiB of free heap
	 * that malloc keeps): give it back, so the supervisor idles small.
	 * Only after a burst: a trim walks the heap, and sequential clients
	 * reach zero connections at every close. */
	if (!px->all && !px->grave && px->burst >= TRIM_AFTER) {
		px->burst = 0;
#ifdef __GLIBC__
		malloc_trim(0);
#endif
	}
}

/* ------------------------------------------------------------ accept */

static void accept_pause(struct sbx_proxy *px, int on)
{
	struct epoll_event ev = { .events = on ? 0 : EPOLLIN };

	ev.data.u64 = tagged(px, TAG_LISTEN);
	epoll_ctl(px->ep, EPOLL_CTL_MOD, px->lfd, &ev);
	px->accept_pause_until = on ? px_now_ms() + ACCEPT_PAUSE_MS : 0;
}

static void on_accept(struct sbx_proxy *px)
{
	for (int i = 0; i < ACCEPT_BATCH; i++) {
		int fd = accept4(px->lfd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == ECONNABORTED || errno == EINTR)
				continue;
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM)
				accept_pause(px, 1);
			return;
		}
		px->st.accepted++;
		if (px->st.conns >= px->max_conns) {
			px->st.shed++;
			close(fd);
			continue;
		}
		px_conn_start(px, fd);
	}
}

/* ------------------------------------------------------------ loop */

static void dispatch(struct sbx_proxy *px, const struct epoll_event *e)
{
	uint64_t u = e->data.u64;
	int tag = (int)(u & 3);
	void *ptr = (void *)(uintptr_t)(u & ~(uint64_t)3);

	switch (tag) {
	case TAG_LISTEN: on_accept(px); break;
	case TAG_DNS: px_dns_event(px, (int)(u >> 2), e->events); break;
	default: {
		struct px_conn *c = ptr;

		if (c->st != S_DEAD)
			px_conn_event(c, tag, e->events);
	}
	}
}

int sbx_proxy_run(struct sbx_proxy *px, int timeout_ms)
{
	struct epoll_event ev[EVENT_BATCH];
	int t = sbx_proxy_timeout(px), n;

	if (timeout_ms >= 0 && (t < 0 || timeout_ms < t))
		t = timeout_ms;
	n = epoll_wait(px->ep, ev, EVENT_BATCH, t);
	if (n < 0 && errno != EINTR)
		return -1;
	for (int i = 0; i < n; i++)
		dispatch(px, &ev[i]);
	px_dns_tick(px);
	expire(px);
	if (px->accept_pause_until && px_now_ms() >= px->accept_pause_until)
		accept_pause(px, 0);
	bury(px, 0);
	return 0;
}

int sbx_proxy_fd(const struct sbx_proxy *px)
{
	return px->ep;
}

void sbx_proxy_stats(const struct sbx_proxy *px, struct sbx_proxy_stats *st)
{
	*st = px->st;
	for (const struct px_conn *c = px->all; c; c = c->next) {
		st->bytes_up += c->up.bytes;
		st->bytes_down += c->down.bytes;
	}
}

/* ------------------------------------------------------------ setup */

/* Raise the soft descriptor limit towards what max_conns needs, and cap
 * max_conns by what the limit allows (2 sockets each at least: a relay
 * that cannot have pipes copies through a buffer instead). */
static unsigned fd_budget(unsigned want_conns)
{
	struct rlimit rl;
	rlim_t want = (rlim_t)want_conns * FDS_PER_CONN + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 64;
	if (rl.rlim_cur < want && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > want)
		return want_conns;
	return rl.rlim_cur > 96 ? (unsigned)((rl.rlim_cur - 64) / 2) : 16;
}

static int setup_conf(struct sbx_proxy *px, const struct sbx_proxy_conf *c,
		      struct sbx_err *err)
{
	px->conf = *c;
	if (!c->pol || !c->pol->hdr)
		return sbx_errf(err, 0, "proxy: no policy to decide by");
	if (c->pol->hdr->net != SBX_NET_FILTERED)
		return sbx_errf(err, 0, "proxy: the network is not filtered");
	if (c->secret) {
		if (!strchr(c->secret, ':') || strlen(c->secret) > 300)
			return sbx_errf(err, 0,
					"proxy: the secret is user:password");
		px->secret = strdup(c->secret);
		if (!px->secret)
			return sbx_errf(err, errno, "proxy");
		px->conf.secret = px->secret;
		px_base64(px->secret, px->auth64, sizeof(px->auth64));
	}
	px->conf.max_head = c->max_head ? c->max_head : DEF_MAX_HEAD;
	px->tms[T_HEAD] = c->head_ms ? c->head_ms : DEF_HEAD_MS;
	px->tms[T_DIAL] = c->dial_ms ? c->dial_ms : DEF_DIAL_MS;
	px->tms[T_LINGER] = LINGER_MS;
	px->max_conns = fd_budget(c->max_conns ? c->max_conns : DEF_MAX_CONNS);
	return 0;
}

static int setup_listen(struct sbx_proxy *px, struct sbx_err *err)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int fl = fcntl(px->lfd, F_GETFL);

	if (fl < 0 || fcntl(px->lfd, F_SETFL, fl | O_NONBLOCK) < 0)
		return sbx_errf(err, errno, "proxy: listening socket");
	fcntl(px->lfd, F_SETFD, FD_CLOEXEC);
	px->ep = epoll_create1(EPOLL_CLOEXEC);
	if (px->ep < 0)
		return sbx_errf(err, errno, "proxy: epoll_create1");
	ev.data.u64 = tagged(px, TAG_LISTEN);
	if (epoll_ctl(px->ep, EPOLL_CTL_ADD, px->lfd, &ev) < 0)
		return sbx_errf(err, errno, "proxy: epoll_ctl");
	return 0;
}

int sbx_proxy_new(const struct sbx_proxy_conf *conf, struct sbx_proxy **out,
		  struct sbx_err *err)
{
	struct sbx_proxy *px = calloc(1, sizeof(*px));

	*out = NULL;
	if (!px) {
		if (conf->listen_fd >= 0)
			close(conf->listen_fd);
		return sbx_errf(err, errno, "proxy");
	}
	px->ep = -1;
	px->lfd = conf->listen_fd;
	if (setup_conf(px, conf, err) < 0 || setup_listen(px, err) < 0 ||
	    px_dns_new(px, err) < 0) {
		sbx_proxy_free(px);
		return -1;
	}
	*out = px;
	return 0;
}

void sbx_proxy_free(struct sbx_proxy *px)
{
	if (!px)
		return;
	while (px->all)
		px_conn_close(px->all);
	px_dns_free(px); /* lookups in flight call back, and are ignored */
	bury(px, 1);
	close_fd(&px->lfd);
	close_fd(&px->ep);
	free(px->secret);
	free(px);
}
