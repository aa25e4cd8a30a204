/*
 * proxy_env.c - what surrounds the proxy engine for the supervisor: the
 * listening socket and the per-run secret.  The command's environment
 * (HTTP_PROXY and the rest) is made by the one builder, launcher/lib/env.c.
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
