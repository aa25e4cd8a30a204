/*
 * decide.h - the one decision of the sandbox policy, over the compiled
 * policy (cpol.h): may this path be read, written or run, may this
 * program be started, may this host be reached.
 *
 * Every caller decides here: the shim inside its hooks, libsbx's queries
 * and sbxrun --check (over the policy they compile with sbx_cpol_build),
 * the launcher when the kernel refused to start the command, and the
 * filtering network proxy (launcher/kernel/linux/proxy*.c).  The
 * explanation of a decision is explain.h's job.
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
#include "netaddr.h"

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
/* changes the contents of an existing file: refused when the file has
 * other hard links, which may lie outside the writable roots (a package
 * manager's store: PERS-02) */
#define SBX_Q_LINKS 0x20u

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
	/* Number of hard links of the existing regular file, or 0; NULL:
	 * not known (never refused for it). */
	int64_t (*links)(const struct sbx_path_q *q);
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
 * missing; nor a hidden path missing at launch, SBX_RF_GONE) -- and only
 * for EACCES, EPERM, EROFS and ENOENT; and for EBUSY and EXDEV, which
 * full mode's mounts give a rename, unlink or link of a protected or
 * hidden path or of a directory holding a protected one, only a
 * read-only or hidden verdict.  verdict is SBX_ALLOW when the policy has
 * nothing to say.
 */
struct sbx_path_decision sbx_decide_failure(const struct sbx_cpol *v,
					    const char *path, enum sbx_op op,
					    int err);

/* ------------------------------------------------------------ programs */

/*
 * A program about to start.  path is what will run (absolute, or the
 * bare name when not found), argv its arguments (argv[0] as the caller
 * gave it).  cwd (absolute, or NULL) resolves relative arguments of rm;
 * root_dirs, asked only for a recursive rm whose every operand is
 * directly below "/", writes the names of the directories directly
 * below "/" into buf, each ended by a NUL, and returns the bytes used (0:
 * not known).
 */
struct sbx_exec_q {
	const char *path;
	char *const *argv;
	const char *cwd;
	size_t (*root_dirs)(char *buf, size_t sz);
};

/*
 * The exec deny rule that refuses this program, or NULL.  A program is
 * judged by what it runs too: the dynamic loader invoked directly
 * ("/lib64/ld-linux-x86-64.so.2 /usr/bin/ssh") by the program it loads,
 * a multi-call program ("busybox ssh") by its applet, and a recursive rm
 * whose operands cover every directory directly below "/" (what the
 * shell makes of "rm -rf /" followed by a star) as "rm -rf /".  *at
 * (may be NULL) gets the index in argv of the program the rule refused
 * (0: argv[0] itself).
 */
const struct sbx_cpol_exec *sbx_decide_exec_q(const struct sbx_cpol *v,
					      const struct sbx_exec_q *q,
					      size_t *at);
/* Shorthand without cwd and root_dirs. */
const struct sbx_cpol_exec *
sbx_decide_exec(const struct sbx_cpol *v, const char *path, char *const argv[]);
/* The index in argv of the program that argv[0] runs in its place (the
 * loader's program, a multi-call program's applet), or 0 when none. */
size_t sbx_exec_runs(const char *path, char *const argv[]);

/* ------------------------------------------------------------ network */

/*
 * A destination is decided in two steps, because the name is all a
 * client gives and the address is what is actually reached:
 *
 *   1. sbx_decide_host(): the host as the client asked for it, a name or
 *      an address literal, and the port.  A name must be listed by name
 *      ("example.com", "*.example.com"); a literal by address
 *      ("10.1.2.3", "10.0.0.0/8").  A name no entry lists is refused
 *      before anything is resolved, so the proxy's resolver never carries
 *      a name the policy did not allow (no DNS exfiltration, NET-02).
 *   2. sbx_decide_addr(): each address a listed name resolved to.  Public
 *      addresses pass; loopback, private, shared (CGNAT), unique local,
 *      unspecified, multicast and reserved ones only when an entry lists
 *      them by address at least as narrowly as their range (so a name
 *      cannot be pointed at the host's own services: DNS rebinding,
 *      NET-09); link-local and cloud metadata addresses never (NET-08).
 *      The caller connects to exactly the address it checked.
 *
 * The filtering proxy, outside the sandbox, takes both steps for every
 * connection.  sbx_decide_net() is the same decision seen from inside
 * the sandbox (the shim), where the network mode comes first and the
 * sandbox's own loopback is its own.
 */

enum sbx_net_why {
	SBX_NETW_ALLOW = 0,
	SBX_NETW_NOT_LISTED, /* no entry names this host */
	SBX_NETW_PORT, /* listed, but for other ports (rule: one of them) */
	SBX_NETW_ADDR, /* an address literal that no entry lists */
	SBX_NETW_CLASS, /* an address of a class that must be listed by
			 * address, and is not (cls) */
	SBX_NETW_NEVER, /* link-local or metadata (cls) */
	SBX_NETW_BADHOST, /* not a host name or address */
	SBX_NETW_MODE, /* the network mode refuses it: off; loopback, for
			* anything but the loopback; for the proxy, any
			* mode but filtered */
};

struct sbx_net_decision {
	enum sbx_net_why why;
	enum sbx_addr_class cls;
	/* ALLOW: the entry that allowed it (NULL when a resolved public
	 * address passed on the strength of the name, or the mode allows
	 * everything); PORT: an entry for the host on another port. */
	const struct sbx_cpol_allow *rule;
};

/* Step 1: the host as requested (any spelling; normalised here: it may
 * come from a hostile client) and the port (1-65535). */
struct sbx_net_decision sbx_decide_host(const struct sbx_cpol *v,
					const char *host, uint16_t port);
/* Step 2: one address that a host allowed by name resolved to. */
struct sbx_net_decision sbx_decide_addr(const struct sbx_cpol *v,
					const struct sbx_ip *ip, uint16_t port);

/*
 * From inside the sandbox: may a program reach ip:port (connect, send),
 * which it looked up as name (NULL when not known), or look up name (ip
 * NULL; port 0: any port)?  Network off refuses everything; loopback
 * allows the loopback only; on allows everything; filtered allows the
 * sandbox's own loopback in full mode (a network namespace of its own)
 * and otherwise decides as the proxy would: the name in step 1 when it is
 * known, else the address as a literal, then the address in step 2.
 */
struct sbx_net_decision sbx_decide_net(const struct sbx_cpol *v,
				       const char *name,
				       const struct sbx_ip *ip, uint16_t port);

#endif
