/*
 * proxyd.c - test harness for the filtering proxy engine
 * (launcher/kernel/linux/proxy.h): runs it on a listening socket it makes,
 * with an allow-list from the command line, the way the supervisor will:
 * a poll loop over sbx_proxy_fd() with sbx_proxy_timeout(), plus a
 * signalfd.  Refusals are printed on stderr as the supervisor prints them.
 *
 *   proxyd --listen ADDR:PORT --allow a.test,*.b.test:443,@npm
 *          [--conf FILE] [--hosts FILE | --dns ADDR:PORT] [--secret U:P]
 *          [--max-conns N] [--max-head N] [--head-ms N] [--dial-ms N]
 *          [--events FILE]
 *
 * Prints "port N" on stdout once it listens, then the environment the
 * command would get ("env NAME=value", from launcher/lib/env.c).  SIGUSR1 prints a stats line
 * on stderr ("proxyd: stats conns=... rss_kb=..."), as does SIGTERM
 * before it exits 0.  --conf loads a conf file first (the default profile,
 * for its presets).  --hosts resolves names from a hosts file only: the
 * tests never send a packet to a resolver.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "conf.h"
#include "env.h"
#include "explain.h"
#include "linux/proxy.h"
#include "policy.h"
#include "record.h"

static FILE *events;
static struct sbx_proxy *the_px;

/* "refused PROTO KIND FIX | op|target|kind|rule|source|process": the
 * event, and the record the supervisor will pass on (sbx_proxy_record) */
static void on_event(void *ctx, const struct sbx_proxy_event *ev)
{
	char rec[SBX_REC_MAX + 1];
	const char *f[SBX_REC_NFIELDS];
	size_t n;

	(void)ctx;
	fprintf(stderr, "%s\n", ev->msg);
	if (!events)
		return;
	fprintf(events, "%s %s %s %s |",
		ev->kind == SBX_PXE_REFUSED ? "refused" : "failed", ev->proto,
		sbx_net_why_kind(ev->d.why),
		ev->to_allow[0] ? ev->to_allow : "-");
	n = sbx_proxy_record(the_px, ev, rec, sizeof(rec) - 1);
	if (n && sbx_rec_decode(rec, n, f) == 0 &&
	    strcmp(f[SBX_REC_MSG], ev->msg) == 0)
		for (int i = 0; i < SBX_REC_MSG; i++)
			fprintf(events, "%s%s", i ? "|" : " ", f[i]);
	else
		fprintf(events, " bad record");
	fprintf(events, "\n");
	fflush(events);
}

/* ADDR:PORT through sbx_proxy_listen(); prints "port N" and the command
 * environment the supervisor will set ("env NAME=value" lines). */
static int listen_on(const char *spec, const char *secret,
		     const struct sbx_policy *pol)
{
	struct sbx_env_vars vars = { 0 };
	struct sbx_env env;
	char host[64];
	const char *colon = strrchr(spec, ':');
	struct sbx_err err;
	uint16_t port;
	int fd;

	if (!colon || (size_t)(colon - spec) >= sizeof(host))
		return -1;
	memcpy(host, spec, (size_t)(colon - spec));
	host[colon - spec] = '\0';
	fd = sbx_proxy_listen(host, (uint16_t)atoi(colon + 1), &port, &err);
	if (fd < 0) {
		fprintf(stderr, "proxyd: %s\n", err.msg);
		return -1;
	}
	printf("port %u\n", port);
	vars.proxy_addr = host;
	vars.proxy_port = port;
	vars.proxy_secret = secret;
	vars.proxy_direct_loopback = 1;
	if (sbx_env_build(&env, pol, NULL, &vars, &err) < 0)
		return -1;
	for (size_t i = 0; i < env.n; i++)
		if (strncmp(env.v[i], "SBXRUN=", 7) &&
		    strncmp(env.v[i], "SBXRUN_NET=", 11))
			printf("env %s\n", env.v[i]);
	sbx_env_free(&env);
	fflush(stdout);
	return fd;
}

static long rss_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "VmRSS:", 6) == 0)
			kb = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return kb;
}

static void stats(const struct sbx_proxy *px)
{
	struct sbx_proxy_stats st;

	sbx_proxy_stats(px, &st);
	fprintf(stderr,
		"proxyd: stats conns=%u peak=%u accepted=%llu refused=%llu "
		"failed=%llu relayed=%llu shed=%llu up=%llu down=%llu "
		"rss_kb=%ld\n",
		st.conns, st.peak, (unsigned long long)st.accepted,
		(unsigned long long)st.refused, (unsigned long long)st.failed,
		(unsigned long long)st.relayed, (unsigned long long)st.shed,
		(unsigned long long)st.bytes_up,
		(unsigned long long)st.bytes_down, rss_kb());
}

static int loop(struct sbx_proxy *px)
{
	sigset_t set;
	struct pollfd p[2];
	struct signalfd_siginfo si;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGPIPE); /* the engine's contract: blocked */
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigdelset(&set, SIGPIPE);
	p[0].fd = signalfd(-1, &set, SFD_CLOEXEC);
	p[1].fd = sbx_proxy_fd(px);
	p[0].events = p[1].events = POLLIN;
	for (;;) {
		if (poll(p, 2, sbx_proxy_timeout(px)) < 0 && errno != EINTR)
			return -1;
		if ((p[0].revents & POLLIN) &&
		    read(p[0].fd, &si, sizeof(si)) == sizeof(si)) {
			stats(px);
			if (si.ssi_signo != SIGUSR1)
				return 0;
		}
		if (sbx_proxy_run(px, 0) < 0)
			return -1;
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: proxyd --listen ADDR:PORT --allow LIST "
			"[--conf FILE] [--hosts FILE | --dns ADDR:PORT] "
			"[--secret U:P] [--max-conns N] [--max-head N] "
			"[--head-ms N] [--dial-ms N] [--events FILE]\n");
	exit(2);
}

static void options(int argc, char **argv, struct sbx_proxy_conf *c,
		    struct sbx_policy *p, const char **listen_spec)
{
	static const struct option o[] = {
		{ "listen", 1, 0, 'l' },    { "allow", 1, 0, 'a' },
		{ "conf", 1, 0, 'c' },	    { "hosts", 1, 0, 'H' },
		{ "dns", 1, 0, 'd' },	    { "secret", 1, 0, 's' },
		{ "max-conns", 1, 0, 'm' }, { "max-head", 1, 0, 'M' },
		{ "head-ms", 1, 0, 't' },   { "dial-ms", 1, 0, 'T' },
		{ "events", 1, 0, 'e' },    { 0, 0, 0, 0 }
	};
	struct sbx_err err;
	char ov[4096];
	int ch;

	while ((ch = getopt_long(argc, argv, "", o, NULL)) != -1) {
		switch (ch) {
		case 'l': *listen_spec = optarg; break;
		case 'a':
			snprintf(ov, sizeof(ov), "net=allow:%s", optarg);
			if (sbx_conf_override(p, ov, &err) < 0) {
				fprintf(stderr, "proxyd: %s\n", err.msg);
				exit(2);
			}
			break;
		case 'c':
			if (sbx_conf_load_file(p, optarg, &err) < 0) {
				fprintf(stderr, "proxyd: %s\n", err.msg);
				exit(2);
			}
			break;
		case 'H': c->hosts_file = optarg; break;
		case 'd': c->dns_server = optarg; break;
		case 's': c->secret = optarg; break;
		case 'm': c->max_conns = (unsigned)atoi(optarg); break;
		case 'M': c->max_head = (unsigned)atoi(optarg); break;
		case 't': c->head_ms = (unsigned)atoi(optarg); break;
		case 'T': c->dial_ms = (unsigned)atoi(optarg); break;
		case 'e': events = fopen(optarg, "a"); break;
		default: usage();
		}
	}
}

int main(int argc, char **argv)
{
	struct sbx_policy pol;
	struct sbx_cpol cpol;
	void *cbuf = NULL;
	size_t clen;
	const char *why;
	struct sbx_proxy_conf c = { .on_event = on_event };
	struct sbx_proxy *px;
	struct sbx_err err;
	const char *spec = NULL;
	int r;

	sbx_policy_init(&pol);
	pol.project = strdup("/");
	pol.home = strdup(getenv("HOME") ? getenv("HOME") : "/");
	options(argc, argv, &c, &pol, &spec);
	if (!spec || pol.net != SBX_NET_FILTERED)
		usage();
	/* the proxy decides over the compiled policy, as the shim does */
	if (sbx_cpol_build(&pol, SBX_KMODE_FULL, 0, &cbuf, &clen, &err) < 0 ||
	    sbx_cpol_view(cbuf, clen, &cpol, &why) < 0) {
		fprintf(stderr, "proxyd: cannot compile the policy: %s\n",
			err.msg);
		return 1;
	}
	c.pol = &cpol;
	c.listen_fd = listen_on(spec, c.secret, &pol);
	if (c.listen_fd < 0)
		return 1;
	if (sbx_proxy_new(&c, &px, &err) < 0) {
		fprintf(stderr, "proxyd: %s\n", err.msg);
		return 1;
	}
	the_px = px;
	r = loop(px);
	sbx_proxy_free(px);
	free(cbuf);
	sbx_policy_free(&pol);
	return r < 0 ? 1 : 0;
}
