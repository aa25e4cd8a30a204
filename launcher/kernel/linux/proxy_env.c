/*
 * proxy_env.c - what surrounds the proxy engine for the supervisor: the
 * listening socket, the per-run secret, and the environment that makes
 * the sandboxed command's tools use the proxy without configuration.
 *
 * The environment, and why each name:
 *   http_proxy, HTTP_PROXY     curl (lower case only, for http://), git,
 *                              pip (requests), python urllib, Go, cargo
 *   https_proxy, HTTPS_PROXY   the same for https:// (a CONNECT tunnel)
 *   all_proxy, ALL_PROXY       SOCKS5 with names resolved by the proxy,
 *                              for libcurl and tools that only know SOCKS
 *   no_proxy, NO_PROXY         the sandbox's own loopback goes direct
 *   npm_config_proxy, npm_config_https_proxy, npm_config_noproxy
 *                              npm and pnpm; environment beats a
 *                              project's .npmrc
 *   YARN_HTTP_PROXY, YARN_HTTPS_PROXY   yarn 2+
 *   CARGO_HTTP_PROXY           cargo; beats a project's .cargo/config
 *   NODE_USE_ENV_PROXY=1       node's own fetch/http (node 24, 22.21)
 *   SBXRUN_PROXY               for agents and scripts that ask
 * The HTTP URL serves https too: clients CONNECT through it.
 */
#include <errno.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proxy.h"

int sbx_proxy_listen(const char *addr, uint16_t port, uint16_t *bound,
		     struct sbx_err *err)
{
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in s4 = { .sin_family = AF_INET };
	int v6 = strchr(addr, ':') != NULL, fd;
	struct sockaddr *sa = v6 ? (void *)&s6 : (void *)&s4;
	socklen_t len = v6 ? sizeof(s6) : sizeof(s4);

	if (v6 ? inet_pton(AF_INET6, addr, &s6.sin6_addr) != 1
	       : inet_pton(AF_INET, addr, &s4.sin_addr) != 1)
		return sbx_errf(err, 0, "proxy: '%s' is not an address", addr);
	s6.sin6_port = s4.sin_port = htons(port);
	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return sbx_errf(err, errno, "proxy: socket");
	if (bind(fd, sa, len) < 0 || listen(fd, 4096) < 0 ||
	    getsockname(fd, sa, &len) < 0) {
		sbx_errf(err, errno, "proxy: listen on %s port %u", addr, port);
		close(fd);
		return -1;
	}
	if (bound)
		*bound = ntohs(v6 ? s6.sin6_port : s4.sin_port);
	return fd;
}

int sbx_proxy_secret(char *buf, size_t sz, struct sbx_err *err)
{
	unsigned char r[16];

	if (sz < 37)
		return sbx_errf(err, 0, "proxy: secret buffer too small");
	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return sbx_errf(err, errno, "proxy: getrandom");
	memcpy(buf, "sbx:", 4);
	for (size_t i = 0; i < sizeof(r); i++)
		snprintf(buf + 4 + 2 * i, 3, "%02x", r[i]);
	return 0;
}

void sbx_proxy_env_free(char **env)
{
	for (char **e = env; e && *e; e++)
		free(*e);
	free(env);
}

static const char *const http_names[] = {
	"http_proxy",	   "HTTP_PROXY",       "https_proxy",
	"HTTPS_PROXY",	   "npm_config_proxy", "npm_config_https_proxy",
	"YARN_HTTP_PROXY", "YARN_HTTPS_PROXY", "CARGO_HTTP_PROXY",
	"SBXRUN_PROXY",
};
static const char *const socks_names[] = { "all_proxy", "ALL_PROXY" };
static const char *const fixed[] = {
	"no_proxy=localhost,127.0.0.1,::1",
	"NO_PROXY=localhost,127.0.0.1,::1",
	"npm_config_noproxy=localhost,127.0.0.1,::1",
	"NODE_USE_ENV_PROXY=1",
};
#define N_HTTP (sizeof(http_names) / sizeof(http_names[0]))
#define N_SOCKS (sizeof(socks_names) / sizeof(socks_names[0]))
#define N_FIXED (sizeof(fixed) / sizeof(fixed[0]))

char **sbx_proxy_env(const char *addr, uint16_t port, const char *secret)
{
	char **env = calloc(N_HTTP + N_SOCKS + N_FIXED + 1, sizeof(char *));
	const char *at = secret ? "@" : "", *cred = secret ? secret : "";
	int v6 = strchr(addr, ':') != NULL;
	char host[80];
	size_t k = 0;

	if (!env)
		return NULL;
	snprintf(host, sizeof(host), v6 ? "[%s]" : "%s", addr);
	for (size_t i = 0; i < N_HTTP; i++)
		if (asprintf(&env[k++], "%s=http://%s%s%s:%u", http_names[i],
			     cred, at, host, port) < 0)
			goto oom;
	for (size_t i = 0; i < N_SOCKS; i++)
		if (asprintf(&env[k++], "%s=socks5h://%s%s%s:%u",
			     socks_names[i], cred, at, host, port) < 0)
			goto oom;
	for (size_t i = 0; i < N_FIXED; i++)
		if (!(env[k++] = strdup(fixed[i])))
			goto oom;
	return env;
oom:
	env[k - 1] = NULL;
	sbx_proxy_env_free(env);
	return NULL;
}
