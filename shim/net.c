/*
 * net.c - explaining refused network calls:
 *
 *   sbxrun: cannot connect to example.com:443: network access is off in this sandbox (rule network off from .../default.conf:70); to allow: sbxrun --net allow:example.com
 *
 * The kernel enforces the network mode (Landlock TCP rules, seccomp on
 * socket families, a network namespace); the shim only names what was
 * refused, with the one decider's verdict (sbx_decide_net, the same
 * decision the filtering proxy takes) in the one explainer's words.  To
 * name a host rather than an address it remembers what getaddrinfo
 * answered, in a small fixed ring (no allocation, lock-free).  Addresses
 * are formatted by hand (netaddr.c): inet_ntop may go through stdio.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <strings.h>
#include <sys/un.h>

#include "net.h"
#include "shim.h"

/* ------------------------------------------------------------ ring */

/*
 * Name -> address memory.  Each slot is a seqlock: the writer makes seq
 * odd, copies, makes it even; a reader that sees seq move ignores the
 * slot.  Two writers only meet on one slot after RING_SLOTS newer
 * answers, and then the worst outcome is a wrong host name in a message.
 */
#define RING_SLOTS 64
struct ring_slot {
	unsigned seq;
	struct sbx_ip ip;
	char name[256];
};
static struct ring_slot ring[RING_SLOTS];
static unsigned ring_next;

static void ring_put(const struct sbx_ip *ip, const char *name)
{
	unsigned i = __atomic_fetch_add(&ring_next, 1, __ATOMIC_RELAXED);
	struct ring_slot *s = &ring[i % RING_SLOTS];
	unsigned seq = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);
	size_t n = strnlen(name, sizeof(s->name) - 1);

	__atomic_store_n(&s->seq, seq | 1, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	s->ip = *ip;
	memcpy(s->name, name, n);
	s->name[n] = '\0';
	__atomic_store_n(&s->seq, (seq | 1) + 1, __ATOMIC_RELEASE);
}

void shim_net_remember(const char *node, const struct addrinfo *res)
{
	int kept = 0;

	for (; res && kept < 8; res = res->ai_next) {
		struct sbx_ip ip;

		if (sbx_ip_from_sockaddr(res->ai_addr, res->ai_addrlen, &ip,
					 NULL) == 0) {
			ring_put(&ip, node);
			kept++;
		}
	}
}

/* The newest name that resolved to ip, into name. */
static int ring_get(const struct sbx_ip *ip, char *name, size_t sz)
{
	unsigned last = __atomic_load_n(&ring_next, __ATOMIC_RELAXED);

	for (unsigned k = 0; k < RING_SLOTS; k++) {
		const struct ring_slot *s = &ring[(last - 1 - k) % RING_SLOTS];
		unsigned seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
		size_t n;

		if ((seq & 1) || !seq || s->ip.af != ip->af ||
		    memcmp(s->ip.a, ip->a, 16) != 0)
			continue;
		n = strnlen(s->name, sizeof(s->name) - 1);
		if (n >= sz)
			continue;
		memcpy(name, s->name, n);
		name[n] = '\0';
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&s->seq, __ATOMIC_RELAXED) == seq && n)
			return 0;
	}
	return -1;
}

/* ------------------------------------------------------------ refusals */

/* connect/sendto/sendmsg failed with err: explain when the policy is
 * why.  verb is "connect to" or "send to".  The host is the name the
 * program looked up, when the ring remembers one, else the address. */
void shim_net_failed(const struct sockaddr *sa, socklen_t len, int err,
		     const char *verb)
{
	char name[256], addr[64], target[320];
	struct sbx_ip ip;
	uint16_t port;
	int named;
	struct sbx_net_decision d;
	struct sbx_expl e;

	if (err != ENETUNREACH && err != EACCES && err != EPERM &&
	    err != EAFNOSUPPORT && err != EHOSTUNREACH && err != EADDRNOTAVAIL)
		return;
	if (sbx_ip_from_sockaddr(sa, len, &ip, &port) < 0)
		return;
	named = ring_get(&ip, name, sizeof(name)) == 0;
	d = sbx_decide_net(&shim_g.pol, named ? name : NULL, &ip, port);
	if (d.why == SBX_NETW_ALLOW)
		return;
	sbx_ip_format(&ip, addr, sizeof(addr));
	sbx_net_target(target, sizeof(target), named ? name : addr, port);
	if (shim_seen(shim_key(verb, target)))
		return;
	sbx_explain_net(&shim_g.pol, verb, named ? name : addr, port,
			named ? &ip : NULL, &d, 0, &e);
	shim_emit(&e, target, shim_key(verb, target));
	errno = err;
}

/* A name lookup failed while the policy forbids it, or, in a filtered
 * network, for an allowed name: only the proxy resolves names there. */
void shim_net_resolve_failed(const char *node)
{
	struct sbx_net_decision d = sbx_decide_net(&shim_g.pol, node, NULL, 0);
	struct sbx_expl e;

	if (d.why == SBX_NETW_ALLOW && shim_g.pol.hdr->net != SBX_NET_FILTERED)
		return;
	if (shim_seen(shim_key("resolve", node)))
		return;
	if (d.why == SBX_NETW_ALLOW)
		sbx_explain_proxy_only(&shim_g.pol, node, &e);
	else
		sbx_explain_net(&shim_g.pol, "resolve", node, 0, NULL, &d, 0,
				&e);
	shim_emit(&e, node, shim_key("resolve", node));
}

/* socket(AF_INET*) failed: with the network off the kernel refuses the
 * family itself. */
void shim_net_socket_failed(int domain, int err)
{
	struct sbx_expl e;
	const char *target = domain == AF_INET ? "inet" : "inet6";

	if ((domain != AF_INET && domain != AF_INET6) ||
	    shim_g.pol.hdr->net != SBX_NET_OFF ||
	    (err != EAFNOSUPPORT && err != EACCES && err != EPERM))
		return;
	sbx_explain_socket(&shim_g.pol, domain, 0, &e);
	shim_emit(&e, target, shim_key("socket", target));
	errno = err;
}
