/*
 * net.h - network explanations (net.c) used by the network hooks.
 */
#ifndef SBX_SHIM_NET_H
#define SBX_SHIM_NET_H

#include <netdb.h>
#include <stdint.h>
#include <sys/socket.h>

void shim_net_remember(const char *node, const struct addrinfo *res);
void shim_net_failed(const struct sockaddr *sa, socklen_t len, int err,
		     const char *verb);
void shim_net_resolve_failed(const char *node);
void shim_net_socket_failed(int domain, int err);

#endif
