/*
 * supnet.c - the supervisor's side of network = filtered: the proxy
 * engine (proxy.h) on the listening socket it was handed (full mode: by
 * pid 1, from inside the sandbox's network namespace; landlock-only: by
 * the library, made by proxy_open() before the launch), driven from the
 * supervisor's poll loop, deciding over the run's compiled policy.
 *
 * Each refusal goes two ways: into the run's report as a record (the
 * shape the shim sends, process "sbxrun-proxy", pid 0) and, once per
 * line, where the command's stderr goes (sbxrun's own stderr unless the
 * caller captures it), as the shim's explanations do (not with --quiet).  The line is the
 * one explainer's (core/explain.c), made by the engine.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proxy.h"
#include "record.h"
#include "spawn.h"

#define SAID_MAX 256

struct supnet {
	struct sbx_proxy *px;
	struct sbx_cpol cpol;
	char *said[SAID_MAX]; /* lines already shown */
	size_t nsaid;
};

/* Once per line: a client retrying must not fill the terminal. */
static int said_before(struct supnet *n, const char *line)
{
	for (size_t i = 0; i < n->nsaid; i++)
		if (!strcmp(n->said[i], line))
			return 1;
	if (n->nsaid < SAID_MAX && (n->said[n->nsaid] = strdup(line)))
		n->nsaid++;
	return 0;
}

static void say(struct sup *s, const char *line)
{
	const struct sbx_launch *l = s->l;
	size_t len = strlen(line);
	char buf[2048];
	int fd = l->fd_err >= 0 ? l->fd_err : 2;

	if (len > sizeof buf - 2)
		len = sizeof buf - 2;
	memcpy(buf, line, len);
	buf[len++] = '\n';
	if (l->fd_err == -2) {
		if (l->on_output)
			l->on_output(l->output_ctx, 2, buf, len);
		return;
	}
	if (write(fd, buf, len) < 0)
		return; /* nowhere to say it: the report still has it */
}

static void on_event(void *ctx, const struct sbx_proxy_event *ev)
{
	struct sup *s = ctx;
	char rec[SBX_REC_MAX];
	size_t n = sbx_proxy_record(s->net->px, ev, rec, sizeof rec);

	if (n && s->l->on_report)
		s->l->on_report(s->l->report_ctx, 0, rec, n);
	if (s->net->cpol.hdr->flags &
	    (SBX_CPOL_F_QUIET | SBX_CPOL_F_REPORT_ONLY))
		return; /* --quiet: the report only, as the shim does */
	if (ev->msg && !said_before(s->net, ev->msg))
		say(s, ev->msg);
}

int sbx_supnet_start(struct sup *s, int fd)
{
	const struct sbx_launch *l = s->l;
	struct sbx_proxy_conf c = { .listen_fd = fd };
	struct supnet *n;
	const char *why = "no compiled policy";

	if (s->net) {
		close(fd);
		return 0; /* one proxy per run; a second socket is noise */
	}
	n = calloc(1, sizeof *n);
	if (!n) {
		close(fd);
		return sbx_errf(s->err, errno, "network proxy");
	}
	s->net = n;
	if (!l->cpol || sbx_cpol_view(l->cpol, l->cpol_len, &n->cpol, &why)) {
		close(fd);
		return sbx_errf(s->err, 0, "network proxy: %s", why);
	}
	c.pol = &n->cpol;
	c.secret = l->proxy && l->proxy->secret[0] ? l->proxy->secret : NULL;
	c.on_event = on_event;
	c.event_ctx = s;
	return sbx_proxy_new(&c, &n->px, s->err);
}

int sbx_supnet_fd(const struct sup *s)
{
	return s->net && s->net->px ? sbx_proxy_fd(s->net->px) : -1;
}

int sbx_supnet_timeout(const struct sup *s, int t)
{
	int pt;

	if (!s->net || !s->net->px)
		return t;
	pt = sbx_proxy_timeout(s->net->px);
	if (pt < 0)
		return t;
	return t < 0 || pt < t ? pt : t;
}

void sbx_supnet_run(struct sup *s)
{
	if (s->net && s->net->px)
		sbx_proxy_run(s->net->px, 0);
}

void sbx_supnet_stop(struct sup *s)
{
	struct supnet *n = s->net;

	if (!n)
		return;
	sbx_proxy_free(n->px);
	for (size_t i = 0; i < n->nsaid; i++)
		free(n->said[i]);
	free(n);
	s->net = NULL;
}
