/*
 * proxy_dns.c - name resolution for the filtering proxy, on its own loop.
 *
 * c-ares (Debian's libc-ares): an asynchronous resolver whose sockets and
 * timeouts join the proxy's epoll set, so a slow or dead DNS server holds
 * up only the connection that asked.  The alternatives were weighed:
 * getaddrinfo_a runs every lookup on a thread of its own, and any
 * getaddrinfo needs NSS, which the static sbxrun binary deliberately does
 * without (confmgmt.c home_dir); a resolver thread or worker process
 * would be the same NSS plus a second thing to supervise.  c-ares reads
 * /etc/resolv.conf and /etc/hosts itself, has no threads, links
 * statically, and is kept up (curl uses it).  What it does not do is
 * consult other NSS sources (mDNS, nss-resolve without its stub
 * listener); a name only those know is "not found".
 *
 * For tests, a hosts file can replace it altogether (no resolver, no
 * packet), or a single server can be named (a fake DNS server on a test
 * namespace's loopback) -- see proxy.h.
 *
 * The system resolver's channel is made at the first lookup, not when the
 * proxy starts: a run that never names a host keeps no resolver state
 * (the channel's ~75 KiB of heap and its code pages count against the
 * idle supervisor's resident memory).  If it cannot be made then, that
 * lookup fails ("cannot resolve"), and the next one tries again.
 */
#include <ares.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/time.h>

#include "proxy_int.h"

#define DNS_TIMEOUT_MS 3000
#define DNS_TRIES 2
#define MAX_HOSTS 4096

struct hent {
	char *name;
	struct sbx_ip ip;
};

struct px_dns {
	ares_channel ch;
	int have_ch;
	struct hent *hosts; /* tests: the hosts file */
	size_t nhosts;
	int table;
};

/* ------------------------------------------------------------ table */

static int add_host(struct px_dns *d, const char *name, const struct sbx_ip *ip)
{
	struct hent *h;

	if (d->nhosts == MAX_HOSTS)
		return -1;
	h = realloc(d->hosts, (d->nhosts + 1) * sizeof(*h));
	if (!h)
		return -1;
	d->hosts = h;
	h[d->nhosts].name = strdup(name);
	h[d->nhosts].ip = *ip;
	if (!h[d->nhosts].name)
		return -1;
	for (char *p = h[d->nhosts].name; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p + 32);
	d->nhosts++;
	return 0;
}

/* hosts(5): "address name [alias...]", '#' starts a comment. */
static int load_hosts(struct px_dns *d, const char *path, struct sbx_err *err)
{
	char line[1024];
	FILE *f = fopen(path, "re");
	int n = 0;

	if (!f)
		return sbx_errf(err, errno, "proxy: %s", path);
	while (fgets(line, sizeof(line), f)) {
		char *save = NULL, *tok;
		struct sbx_ip ip;

		n++;
		line[strcspn(line, "#\n")] = '\0';
		tok = strtok_r(line, " \t", &save);
		if (!tok)
			continue;
		if (sbx_ip_parse(tok, &ip) < 0) {
			fclose(f);
			return sbx_errf(err, 0, "proxy: %s:%d: not an address",
					path, n);
		}
		while ((tok = strtok_r(NULL, " \t", &save)))
			if (add_host(d, tok, &ip) < 0) {
				fclose(f);
				return sbx_errf(err, ENOMEM, "proxy: %s", path);
			}
	}
	fclose(f);
	d->table = 1;
	return 0;
}

static void table_lookup(struct px_dns *d, struct px_conn *c, const char *name)
{
	struct sbx_ip a[PX_MAX_ADDRS];
	int n = 0;

	for (size_t i = 0; i < d->nhosts && n < PX_MAX_ADDRS; i++)
		if (strcmp(d->hosts[i].name, name) == 0)
			a[n++] = d->hosts[i].ip;
	c->dns_pending = 0;
	px_conn_resolved(c, n ? 0 : ARES_ENOTFOUND, a, n);
}

/* ------------------------------------------------------------ c-ares */

static void sock_state(void *data, ares_socket_t fd, int readable, int writable)
{
	struct sbx_proxy *px = data;
	struct epoll_event ev = { 0 };

	ev.data.u64 = ((uint64_t)(unsigned)fd << 2) | TAG_DNS;
	if (!readable && !writable) {
		epoll_ctl(px->ep, EPOLL_CTL_DEL, fd, &ev);
		return;
	}
	ev.events = (readable ? EPOLLIN : 0) | (writable ? EPOLLOUT : 0);
	if (epoll_ctl(px->ep, EPOLL_CTL_MOD, fd, &ev) < 0 && errno == ENOENT)
		epoll_ctl(px->ep, EPOLL_CTL_ADD, fd, &ev);
}

/* The supervisor forks; its resolver sockets must not follow. */
static int sock_created(ares_socket_t fd, int type, void *data)
{
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	return 0;
}

static int channel(struct sbx_proxy *px, struct px_dns *d, struct sbx_err *err)
{
	struct ares_options o;
	int mask = ARES_OPT_SOCK_STATE_CB | ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES;
	int r;

	memset(&o, 0, sizeof(o));
	o.sock_state_cb = sock_state;
	o.sock_state_cb_data = px;
	o.timeout = DNS_TIMEOUT_MS;
	o.tries = DNS_TRIES;
	if (px->conf.dns_server) {
		o.lookups = (char *)"b"; /* that server, not /etc/hosts */
		mask |= ARES_OPT_LOOKUPS;
	}
	r = ares_library_init(ARES_LIB_INIT_ALL);
	if (r == ARES_SUCCESS)
		r = ares_init_options(&d->ch, &o, mask);
	if (r != ARES_SUCCESS)
		return sbx_errf(err, 0, "proxy: resolver: %s",
				ares_strerror(r));
	d->have_ch = 1;
	ares_set_socket_callback(d->ch, sock_created, NULL);
	if (px->conf.dns_server &&
	    (r = ares_set_servers_ports_csv(d->ch, px->conf.dns_server)) !=
		    ARES_SUCCESS)
		return sbx_errf(err, 0, "proxy: resolver %s: %s",
				px->conf.dns_server, ares_strerror(r));
	return 0;
}

int px_dns_new(struct sbx_proxy *px, struct sbx_err *err)
{
	struct px_dns *d = calloc(1, sizeof(*d));

	if (!d)
		return sbx_errf(err, errno, "proxy");
	px->dns = d;
	if (px->conf.hosts_file)
		return load_hosts(d, px->conf.hosts_file, err);
	/* a named server is checked now: a mistake there is the caller's */
	return px->conf.dns_server ? channel(px, d, err) : 0;
}

void px_dns_free(struct sbx_proxy *px)
{
	struct px_dns *d = px->dns;

	if (!d)
		return;
	if (d->have_ch) {
		ares_destroy(d->ch); /* pending lookups call back, destroyed */
		ares_library_cleanup();
	}
	for (size_t i = 0; i < d->nhosts; i++)
		free(d->hosts[i].name);
	free(d->hosts);
	free(d);
	px->dns = NULL;
}

static void resolved(void *arg, int status, int timeouts,
		     struct ares_addrinfo *res)
{
	struct px_conn *c = arg;
	struct sbx_ip a[PX_MAX_ADDRS];
	int n = 0;

	for (struct ares_addrinfo_node *p = res ? res->nodes : NULL;
	     p && n < PX_MAX_ADDRS; p = p->ai_next)
		if (sbx_ip_from_sockaddr(p->ai_addr, p->ai_addrlen, &a[n],
					 NULL) == 0)
			n++;
	if (res)
		ares_freeaddrinfo(res);
	c->dns_pending = 0;
	px_conn_resolved(c, status == ARES_SUCCESS ? 0 : status, a, n);
}

void px_dns_lookup(struct px_conn *c, const char *name)
{
	struct px_dns *d = c->px->dns;
	struct ares_addrinfo_hints h;

	if (d->table) {
		table_lookup(d, c, name);
		return;
	}
	if (!d->have_ch) {
		struct sbx_err e;

		if (channel(c->px, d, &e) < 0) {
			if (d->have_ch) /* made, but not as asked */
				ares_destroy(d->ch);
			d->have_ch = 0;
			px_conn_resolved(c, ARES_ENOTINITIALIZED, NULL, 0);
			return;
		}
	}
	memset(&h, 0, sizeof(h));
	h.ai_family = AF_UNSPEC;
	h.ai_socktype = SOCK_STREAM;
	c->dns_pending = 1;
	ares_getaddrinfo(d->ch, name, NULL, &h, resolved, c);
}

void px_dns_event(struct sbx_proxy *px, int fd, uint32_t ev)
{
	struct px_dns *d = px->dns;

	if (!d->have_ch)
		return;
	ares_process_fd(
		d->ch,
		(ev & (EPOLLIN | EPOLLERR | EPOLLHUP)) ? fd : ARES_SOCKET_BAD,
		(ev & EPOLLOUT) ? fd : ARES_SOCKET_BAD);
}

int px_dns_timeout(struct sbx_proxy *px)
{
	struct px_dns *d = px->dns;
	struct timeval tv, *t;

	if (!d || !d->have_ch)
		return -1;
	t = ares_timeout(d->ch, NULL, &tv);
	if (!t)
		return -1;
	return (int)(t->tv_sec * 1000 + (t->tv_usec + 999) / 1000);
}

void px_dns_tick(struct sbx_proxy *px)
{
	struct px_dns *d = px->dns;

	if (d->have_ch)
		ares_process_fd(d->ch, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
}

const char *px_dns_strerror(int err)
{
	return ares_strerror(err);
}
