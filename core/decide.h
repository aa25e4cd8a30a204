/*
 * decide.h - the one decision of the sandbox policy, over the compiled
 * policy (cpol.h): may this path be read, written or run, may this
 * program be started, may this host be reached.
 *
 * Every caller decides here: the shim inside its hooks, libsbx's queries
 * and sbxrun --check (over the policy they compile with sbx_cpol_build),
 * the launcher when the kernel refused to start the command, and the
 * network proxy.  The explanation of a decision is explain.h's job.
 *
 * No allocation and no system calls: the shim calls this inside hooks,
 * in vfork children and in signal handlers.  What only a system call can
 * tell (the size of an existing file, whether the object that gets a name
 * is a regular file) the caller supplies through the query, and is asked
 * for only when a rule needs it.
 */
#ifndef SBX_DECIDE_H
#define SBX_DECIDE_H

#include <stddef.h>
#include <stdint.h>

#include "cpol.h"

/* ------------------------------------------------------------ paths */

/*
 * What a call does to its path, beyond its sbx_op.  A query about a path
 * (libsbx, --check) asks everything its op implies (sbx_q_plain); the
 * shim passes what each hook does.
 */
/* gives a file this name: suffix rules */
#define SBX_Q_NAME 0x1u
/* modifies the path */
#define SBX_Q_MODIFY 0x2u
/* removes or moves the path and all below it: a read-only hole below it
 * refuses the call */
#define SBX_Q_TREE 0x4u
/* keeps the contents of an existing file: its size counts against a size
 * limit */
#define SBX_Q_SIZE 0x8u
/* changes only attributes (mode, owner, times): Landlock has no right
 * for these, so in landlock-only mode any refusal is the shim's */
#define SBX_Q_ATTR 0x10u

struct sbx_path_q;

/* Facts about the object, asked only when a rule needs them.  NULL: not
 * known (a suffix rule then applies; no size). */
struct sbx_path_facts {
	/* 1: the object that gets the name is a file (or will be made as
	 * one), so the suffix rule applies; 0: it is not (a directory,
	 * a device) or does not exist, and the call fails or succeeds on
	 * its own. */
	int (*is_file)(const struct sbx_path_q *q);
	/* Size of the existing regular file, or -1. */
	int64_t (*file_size)(const struct sbx_path_q *q);
};

struct sbx_path_q {
	const char *path; /* absolute and normalised */
	enum sbx_op op;
	unsigned chk; /* SBX_Q_* */
	int64_t size; /* the size the call gives the file, or -1 */
	const struct sbx_path_facts *facts; /* may be NULL */
	const void *ctx; /* for the facts */
};

struct sbx_path_decision {
	enum sbx_verdict verdict;
	const struct sbx_cpol_rule *rule; /* the deciding rule, or NULL */
	int64_t size; /* SBX_DENY_SIZE: the size over the limit */
	/* 1 when only the application layer (the shim) can enforce the
	 * refusal: suffixes, sizes, read-only rules the kernel cannot hold
	 * in this mode (sbx_rule_app_readonly), and in landlock-only mode
	 * attribute changes (SBX_Q_ATTR).  0 when it is the kernel's to
	 * refuse, and the shim only explains. */
	int app;
};

/*
 * Is r a read-only rule only the application layer can hold?  In
 * landlock-only mode (SBX_CPOL_F_SHIM_PROTECT) Landlock cannot make a
 * read-only hole in a writable tree (launcher/kernel/linux/landlock.c):
 * protect entries, and any read-only rule right below a writable root,
 * are the shim's to enforce.  In full mode read-only bind mounts hold
 * them.  A protected path missing at launch is held by neither
 * (SBX_RF_ABSENT: reported after the run).
 */
int sbx_rule_app_readonly(const struct sbx_cpol *v,
			  const struct sbx_cpol_rule *r);

/* The checks a path query implies for op: for a write, the name, the
 * modification and the size; for a read or a run, the size. */
unsigned sbx_q_plain(enum sbx_op op);

/*
 * The decision for one path.  In order: a read-only hole (a protect
 * rule, a read-only rule right below a writable root) inside a tree the
 * call removes or moves (SBX_Q_TREE); no rule covers the path; a hide
 * rule; a read-only rule for a write; a suffix the rule does not allow
 * (SBX_Q_NAME, a write); a size over the rule's limit (the call's size,
 * else the existing file's with SBX_Q_SIZE).
 */
struct sbx_path_decision sbx_decide_path(const struct sbx_cpol *v,
					 const struct sbx_path_q *q);

/* Shorthand for a plain query with no facts (sbx_q_plain(op)). */
struct sbx_path_decision sbx_decide(const struct sbx_cpol *v, const char *path,
				    enum sbx_op op, int64_t size);

/*
 * The kernel refused a call on path with errno err: does the policy
 * explain it?  Only the kernel's own reasons count -- not covered,
 * hidden, read-only for a write (not for ENOENT: a missing file is just
 * missing) -- and only for EACCES, EPERM, EROFS and ENOENT.  verdict is
 * SBX_ALLOW when the policy has nothing to say.
 */
struct sbx_path_decision sbx_decide_failure(const struct sbx_cpol *v,
					    const char *path, enum sbx_op op,
					    int err);

/* ------------------------------------------------------------ programs */

/* The exec deny rule that refuses this program, or NULL.  path is what
 * will run (absolute, or the bare name when not found), argv its
 * arguments (argv[0] as the caller gave it). */
const struct sbx_cpol_exec *
sbx_decide_exec(const struct sbx_cpol *v, const char *path, char *const argv[]);

/* ------------------------------------------------------------ network */

/* A destination address (an IPv4-mapped IPv6 address is IPv4). */
struct sbx_net_addr {
	int family; /* AF_INET or AF_INET6; 0: no address (a name) */
	unsigned char addr[16];
	uint16_t port; /* 0: any, or not known (a name lookup) */
	int loopback;
};

enum sbx_net_verdict {
	SBX_NET_ALLOW = 0,
	SBX_NET_DENY_OFF = 1, /* network.mode = off */
	SBX_NET_DENY_LOOPBACK = 2, /* loopback only */
	SBX_NET_DENY_UNLISTED = 3, /* filtered, and no entry allows it */
	SBX_NET_DENY_FORBIDDEN = 4, /* link-local / cloud metadata: never */
};

struct sbx_cnet_decision {
	enum sbx_net_verdict verdict;
	const struct sbx_cpol_allow *entry; /* the allowing entry, or NULL */
};

/*
 * May the sandbox reach this destination?  name (may be NULL) is the host
 * name the program asked for, a the address it connects to (may be NULL
 * for a name lookup; port 0 matches every entry).  Loopback is always
 * reachable with loopback and filtered networks (the sandbox has its own);
 * link-local and cloud metadata addresses never through an allow-list.
 */
struct sbx_cnet_decision sbx_decide_net(const struct sbx_cpol *v,
					const char *name,
					const struct sbx_net_addr *a);

/*
 * The same for "host:port" as a proxy sees it in a CONNECT request:
 * "example.com:443", "192.0.2.1:80", "[2001:db8::1]:443".  The host is
 * taken as an address when it is one, else as a name.  Returns 0, or -1
 * when the text is not host:port (d then refuses).
 */
int sbx_decide_hostport(const struct sbx_cpol *v, const char *hostport,
			struct sbx_cnet_decision *d);

/* Fill a from a socket address (AF_INET, AF_INET6); -1 for any other. */
int sbx_net_addr_from(const void *sockaddr, size_t len, struct sbx_net_addr *a);

/* Is addr/prefix (AF_INET: 4 bytes, AF_INET6: 16) inside link-local or
 * cloud metadata space?  Such an address is never reachable through an
 * allow-list (DESIGN 5, THREATS NET-07/08). */
int sbx_net_addr_forbidden(int family, const unsigned char *addr, int prefix);

#endif
