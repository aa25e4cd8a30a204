/*
 * net.h - network explanations (net.c) used by the network hooks.
 */
#ifndef SBX_SHIM_NET_H
#define SBX_SHIM_NET_H

#include <netdb.h>
#include <stdint.h>
#include <sys/socket.h>

struct shim_net_target {
	int family; /* AF_INET (also for v4-mapped v6) or AF_INET6 */
	unsigned char addr[16];
	uint16_t port;
	int loopback;
};

int shim_net_target(const struct sockaddr *sa, socklen_t len,
		    struct shim_net_target *t);
int shim_net_allowed(const struct shim_net_target *t, const char *name);
void shim_net_remember(const char *node, const struct addrinfo *res);
void shim_net_failed(const struct sockaddr *sa, socklen_t len, int err,
		     const char *verb);
void shim_net_resolve_failed(const char *node);
void shim_net_socket_failed(int domain, int err);

#endif
