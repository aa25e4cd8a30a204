/*
 * proxy_relay.c - moving the bytes of an established connection, both
 * ways, with splice(2) through a pipe per direction: the data goes from
 * one socket's receive queue to the other's send queue without being
 * copied into the proxy.  A direction reads only when its pipe is empty,
 * so an EAGAIN always means what it says (nothing to read, or no room to
 * write) and each side's interest in the epoll set follows from the
 * state alone.  When no pipe can be had (out of descriptors), the
 * direction copies through a 16 KiB buffer instead; nothing fails.
 * The bytes queued before the relay (the 200 or SOCKS reply, what the
 * client sent after its request) take a buffer of their exact size,
 * freed once sent when a pipe carries the rest: an idle tunnel holds no
 * heap but its px_conn.
 *
 * End of stream is passed on as such (shutdown(SHUT_WR) on the other
 * side, once everything before it is written), so half-closed protocols
 * work; an error on either side ends both.  Each wake-up moves at most
 * PUMP_BUDGET bytes per direction, so one fast transfer cannot starve
 * the other connections on the loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proxy_int.h"

#define PIPE_BULK (1024u * 1024u)
#define BULK_AFTER (1024u * 1024u)
#define COPY_BYTES (16u * 1024u)
#define PUMP_BUDGET (1024u * 1024u)

static int again(void)
{
	return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
}

void px_dir_free(struct px_dir *d)
{
	for (int i = 0; i < 2; i++)
		if (d->pipe[i] >= 0) {
			close(d->pipe[i]);
			d->pipe[i] = -1;
		}
	free(d->buf);
	d->buf = NULL;
	d->off = d->len = d->cap = d->inpipe = 0;
}

int px_dir_queue(struct px_dir *d, const void *p, size_t n)
{
	if (!n)
		return 0;
	if (d->len + n > d->cap) {
		size_t nc = d->len + n;
		char *b = realloc(d->buf, nc);

		if (!b)
			return -1;
		d->buf = b;
		d->cap = nc;
	}
	memcpy(d->buf + d->len, p, n);
	d->len += n;
	return 0;
}

static void open_pipe(struct px_dir *d)
{
	if (pipe2(d->pipe, O_NONBLOCK | O_CLOEXEC) < 0)
		d->pipe[0] = d->pipe[1] = -1;
}

/* A direction that carries a bulk transfer gets a 1 MiB pipe: a quarter
 * of the splices, about 40 % less CPU per byte.  Only then: the kernel
 * counts a pipe's capacity, not its use, against the user's
 * pipe-user-pages-soft (64 MiB), which the sandboxed command's own pipes
 * share; past it, unprivileged pipes shrink to two pages.  Best effort:
 * the default 64 KiB works. */
static void grow_pipe(struct px_dir *d)
{
	d->grown = 1;
	fcntl(d->pipe[1], F_SETPIPE_SZ, PIPE_BULK);
}

static int pending(const struct px_dir *d)
{
	return d->inpipe > 0 || d->off < d->len;
}

static int wants_read(const struct px_dir *d)
{
	return !d->eof && !pending(d);
}

/* Write out what waits: the buffer, then the pipe.  1 when all of it
 * went, 0 when the other side is full, -1 on error. */
static int flush(struct px_dir *d, size_t *budget)
{
	ssize_t n;

	while (d->off < d->len) {
		n = send(d->to, d->buf + d->off, d->len - d->off,
			 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0)
			return again() ? 0 : -1;
		d->off += (size_t)n;
		d->bytes += (uint64_t)n;
		*budget -= *budget < (size_t)n ? *budget : (size_t)n;
	}
	d->off = d->len = 0;
	if (d->buf && d->pipe[0] >= 0) {
		free(d->buf);
		d->buf = NULL;
		d->cap = 0;
	}
	while (d->inpipe) {
		n = splice(d->pipe[0], NULL, d->to, NULL, d->inpipe,
			   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n < 0)
			return again() ? 0 : -1;
		d->inpipe -= (size_t)n;
		d->bytes += (uint64_t)n;
		*budget -= *budget < (size_t)n ? *budget : (size_t)n;
	}
	return 1;
}

/* Read more into the pipe (or buffer).  1 when something came, 0 when
 * nothing is there, -1 on error; end of stream sets eof. */
static int fetch(struct px_dir *d)
{
	ssize_t n;

	if (d->pipe[0] >= 0) {
		if (!d->grown && d->bytes >= BULK_AFTER)
			grow_pipe(d);
		n = splice(d->from, NULL, d->pipe[1], NULL, PIPE_BULK,
			   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
	} else {
		if (d->cap < COPY_BYTES) {
			char *b = realloc(d->buf, COPY_BYTES);

			if (!b)
				return -1;
			d->buf = b;
			d->cap = COPY_BYTES;
		}
		n = recv(d->from, d->buf, d->cap, MSG_DONTWAIT);
	}
	if (n == 0) {
		d->eof = 1;
		return 0;
	}
	if (n < 0)
		return again() ? 0 : -1;
	if (d->pipe[0] >= 0)
		d->inpipe = (size_t)n;
	else
		d->len = (size_t)n;
	return 1;
}

static int pump(struct px_dir *d)
{
	size_t budget = PUMP_BUDGET;
	int r;

	while (budget) {
		r = flush(d, &budget);
		if (r <= 0)
			return r;
		if (d->eof) {
			if (!d->shut && shutdown(d->to, SHUT_WR) < 0 &&
			    errno != ENOTCONN)
				return -1;
			d->shut = 1;
			return 0;
		}
		r = fetch(d);
		if (r < 0)
			return -1;
		if (r == 0 && !d->eof)
			return 0;
	}
	return 0;
}

void px_relay_event(struct px_conn *c)
{
	struct sbx_proxy *px = c->px;
	uint32_t cw, uw;

	if (pump(&c->up) < 0 || pump(&c->down) < 0) {
		px_conn_close(c);
		return;
	}
	if (c->up.shut && c->down.shut) {
		px_conn_close(c);
		return;
	}
	cw = (wants_read(&c->up) ? EPOLLIN : 0) |
	     (pending(&c->down) ? EPOLLOUT : 0);
	uw = (wants_read(&c->down) ? EPOLLIN : 0) |
	     (pending(&c->up) ? EPOLLOUT : 0);
	px_watch(px, c->cfd, TAG_CLIENT, c, &c->cev, cw);
	px_watch(px, c->ufd, TAG_UP, c, &c->uev, uw);
}

int px_relay_start(struct px_conn *c)
{
	c->up.from = c->cfd;
	c->up.to = c->ufd;
	c->down.from = c->ufd;
	c->down.to = c->cfd;
	open_pipe(&c->up);
	open_pipe(&c->down);
	free(c->in);
	c->in = NULL;
	c->inlen = c->incap = 0;
	px_http_clear(&c->http);
	c->st = S_RELAY;
	px_relay_event(c);
	return 0;
}
