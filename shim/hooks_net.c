/*
 * hooks_net.c - socket, connect, sendto, sendmsg and getaddrinfo.
 *
 * The network hooks never refuse anything themselves: the kernel holds
 * the network mode.  They explain its refusals and remember what names
 * resolved to.  getaddrinfo keeps the depth guard raised across the real
 * call, so the resolver's own sockets (libresolv and NSS modules call the
 * exported socket/connect/sendto) are not explained as if the program
 * had made them.
 */
#include <arpa/inet.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>
#include <sys/un.h>

#include "net.h"
#include "shim.h"

/* A pathname unix socket the kernel refused: explained when the policy
 * hides the path or does not cover it. */
static void unix_failed(const struct sockaddr *sa, socklen_t len, int err)
{
	const struct sockaddr_un *un = (const void *)sa;
	char path[sizeof(un->sun_path) + 1];
	size_t off = offsetof(struct sockaddr_un, sun_path), n;
	struct shim_fs f;

	if (len <= off || un->sun_path[0] == '\0')
		return; /* unnamed or abstract */
	n = len - off < sizeof(un->sun_path) ? len - off : sizeof(un->sun_path);
	memcpy(path, un->sun_path, n);
	path[n] = '\0';
	f = SHIM_FS(AT_FDCWD, path, SBX_OP_READ, 0);
	shim_explain_failure(&f, err);
}

static void addr_failed(const struct sockaddr *sa, socklen_t len,
			const char *verb)
{
	int err = errno;

	if (sa && len >= sizeof(sa_family_t) && sa->sa_family == AF_UNIX)
		unix_failed(sa, len, err);
	else
		shim_net_failed(sa, len, err, verb);
	errno = err;
}

int socket(int domain, int type, int protocol)
{
	int look = shim_enter();
	int fd = REAL(socket)(domain, type, protocol);

	if (SHIM_UNLIKELY(fd < 0) && look && shim_g.active)
		shim_net_socket_failed(domain, errno);
	shim_leave();
	return fd;
}

int connect(int fd, __CONST_SOCKADDR_ARG addr, socklen_t len)
{
	int look = shim_enter();
	int rc = REAL(connect)(fd, addr, len);

	if (SHIM_UNLIKELY(rc < 0) && look && shim_g.active)
		addr_failed(addr.__sockaddr__, len, "connect to");
	shim_leave();
	return rc;
}

/* A datagram with an address, or a TCP Fast Open connect. */
static const char *send_verb(int flags)
{
	return (flags & MSG_FASTOPEN) ? "connect to" : "send to";
}

ssize_t sendto(int fd, const void *buf, size_t n, int flags,
	       __CONST_SOCKADDR_ARG addr, socklen_t len)
{
	int look = shim_enter();
	ssize_t rc = REAL(sendto)(fd, buf, n, flags, addr, len);

	if (SHIM_UNLIKELY(rc < 0) && look && shim_g.active && addr.__sockaddr__)
		addr_failed(addr.__sockaddr__, len, send_verb(flags));
	shim_leave();
	return rc;
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	int look = shim_enter();
	ssize_t rc = REAL(sendmsg)(fd, msg, flags);

	if (SHIM_UNLIKELY(rc < 0) && look && shim_g.active && msg &&
	    msg->msg_name)
		addr_failed(msg->msg_name, msg->msg_namelen, send_verb(flags));
	shim_leave();
	return rc;
}

/* ------------------------------------------------------------ names */

/* Names whose lookup never needs the network. */
static int local_name(const char *node)
{
	unsigned char a[16];
	size_t n = strlen(node);

	return inet_pton(AF_INET, node, a) == 1 ||
	       inet_pton(AF_INET6, node, a) == 1 ||
	       strcasecmp(node, "localhost") == 0 ||
	       (n > 10 && strcasecmp(node + n - 10, ".localhost") == 0);
}

/* The answers a lookup gives when the network is out of reach. */
static int lookup_refused(int rc)
{
	return rc == EAI_AGAIN || rc == EAI_FAIL || rc == EAI_SYSTEM ||
	       rc == EAI_NONAME || rc == EAI_NODATA || rc == EAI_ADDRFAMILY;
}

int getaddrinfo(const char *node, const char *service,
		const struct addrinfo *hints, struct addrinfo **res)
{
	int look = shim_enter();
	int rc = REAL(getaddrinfo)(node, service, hints, res);
	int err = errno;

	if (look && shim_g.active && node && !local_name(node)) {
		if (rc == 0)
			shim_net_remember(node, *res);
		else if (lookup_refused(rc))
			shim_net_resolve_failed(node);
	}
	errno = err;
	shim_leave();
	return rc;
}
