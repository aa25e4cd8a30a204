/*
 * explain.h - the one explanation format, for every refusal of the
 * sandbox: printed by the shim, by sbxrun --check and by the launcher,
 * returned by libsbx (struct sbx_answer.reason), carried in the report.
 *
 *   sbxrun: cannot <op> '<what>': <reason> (<detail>; rule <rule> from <file:line>); to allow: <fix>
 *   sbxrun: refused to run '<program>': <reason> (rule <program> from <file:line>)
 *   sbxrun: cannot connect to <host>:<port>: <reason> (<detail>; rule <entry or network mode> from <file:line>); to allow: <fix>
 *   sbxrun: cannot resolve '<name>': <reason> (...); to allow: <fix>
 *
 * The detail is left out when there is none, the parenthesis when there
 * is neither detail nor rule (a path no rule covers, a link-local or
 * metadata address, a host that is no host), and the fix when there is
 * no flag that would allow the call (suffixes, sizes, exec deny rules,
 * link-local and metadata addresses) or the caller asks for none
 * (SBX_EXPL_NO_FIX).  A rule under
 * the home directory is written "~/...".  Names from the program (paths,
 * hosts) have the characters a terminal acts on replaced by '?' (sb.h), and
 * a fix names its path or host as one shell word (sb_putsh), so a message is
 * always one line.
 *
 * Allocation-free and syscall-free (the shim builds messages inside
 * hooks); a message that does not fit ends in "...".
 */
#ifndef SBX_EXPLAIN_H
#define SBX_EXPLAIN_H

#include <stddef.h>
#include <stdint.h>

#include "decide.h"
#include "sb.h"

#define SBX_EXPL_MSG 2048
#define SBX_EXPL_SRC 512

/* Leave out the "; to allow: ..." part. */
#define SBX_EXPL_NO_FIX 0x1u
/* The refused call makes a directory (mkdir): a fix that names a path
 * that may not exist ends in '/', which --allow-write creates as a
 * directory. */
#define SBX_EXPL_DIR 0x2u

/*
 * One explanation: the line as printed and the fields of its refusal
 * record (record.h).  The const char * fields point at static strings or
 * into the compiled policy.
 */
struct sbx_expl {
	const char *op; /* "read", "write", "run"; "exec"; "connect", "send",
			 * "resolve", "socket" */
	const char *kind; /* "hidden", "read-only", "suffix", "size",
			   * "not-covered", "exec-denied"; network:
			   * sbx_net_why_kind() */
	const char *rule; /* the deciding rule's root (absolute), the exec
			   * program, the allow entry, or "network <mode>";
			   * "" if none */
	char src[SBX_EXPL_SRC]; /* "file:line" of the rule, or "" */
	char msg[SBX_EXPL_MSG];
};

/* The refusal record (record.h) of e for target, seen in process comm:
 * its length in buf, 0 when it does not fit.  No allocation (the shim's
 * and the supervisor's one encoder). */
size_t sbx_expl_record(char *buf, size_t sz, const struct sbx_expl *e,
		       const char *target, const char *comm);

/* The op word of a path operation: "read", "write", "run". */
const char *sbx_op_word(enum sbx_op op);
/* The record kind of a verdict: "hidden", ..., "" for SBX_ALLOW. */
const char *sbx_verdict_kind(enum sbx_verdict v);

/* A refused path operation.  shown is the path as the program gave it,
 * abs its absolute form (the fix names abs).  d->verdict != SBX_ALLOW. */
void sbx_explain_path(const struct sbx_cpol *v, const char *shown,
		      const char *abs, enum sbx_op op,
		      const struct sbx_path_decision *d, unsigned flags,
		      struct sbx_expl *e);

/* A program refused by exec deny rule x; shown as the caller named it. */
void sbx_explain_exec(const struct sbx_cpol *v, const char *shown,
		      const struct sbx_cpol_exec *x, unsigned flags,
		      struct sbx_expl *e);

/*
 * A refused network destination.  verb is "connect to", "send to" or
 * "resolve"; host the host as the program or the proxy's client asked for
 * it, a name or an address literal (shown normalised; hostile bytes made
 * printable, short and quoted), port its port (not shown for "resolve");
 * addr the address the name resolved to when the refusal is of that
 * address (sbx_decide_addr, or sbx_decide_net with a name), else NULL.
 * d->why != SBX_NETW_ALLOW.  The fix, when there is one, is a --net
 * argument (sbx_net_to_allow).
 */
void sbx_explain_net(const struct sbx_cpol *v, const char *verb,
		     const char *host, uint16_t port, const struct sbx_ip *addr,
		     const struct sbx_net_decision *d, unsigned flags,
		     struct sbx_expl *e);
/* network = filtered: the program resolved an allowed name itself, which
 * nothing inside the sandbox can (names are the proxy's to resolve).  Op
 * "resolve", kind "proxy-only", no fix (the name is allowed already). */
void sbx_explain_proxy_only(const struct sbx_cpol *v, const char *host,
			    struct sbx_expl *e);
/* host:port as the messages and records name it: "example.com:443",
 * "[::1]:80", "'x??y':443". */
void sbx_net_target(char *buf, size_t sz, const char *host, uint16_t port);
/* Only the --net argument of the fix ("allow:example.com",
 * "allow:10.0.0.5:5432", "loopback"), or "" when nothing can allow it
 * (link-local and metadata, a bad host). */
void sbx_net_to_allow(char *buf, size_t sz, const char *host, uint16_t port,
		      const struct sbx_ip *addr,
		      const struct sbx_net_decision *d);
/* The record kind of a network decision: "not-allowed", "port",
 * "address", "address-class", "never", "bad-host", "network-off". */
const char *sbx_net_why_kind(enum sbx_net_why w);

/* An internet socket refused because the network is off. */
void sbx_explain_socket(const struct sbx_cpol *v, int family, unsigned flags,
			struct sbx_expl *e);

/*
 * A system call the seccomp baseline refused, for the supervisor's
 * listener (launcher/kernel/linux/notif.c): name the call, program its
 * process's name, pid its pid as the supervisor sees it, family the
 * first argument of socket/socketpair (else -1), which makes an internet
 * socket with the network off the same refusal the shim explains (kind
 * "network-off", op "socket"); every other is op and kind "syscall",
 * rule "seccomp", built in:
 *
 *   sbxrun: blocked mount by busybox (pid 4242): namespaces and mounts cannot be changed inside the sandbox (rule seccomp from built-in)
 *   sbxrun: blocked socket by nc (pid 4243): network access is off in this sandbox (rule network off from --net); to allow: sbxrun --net on
 */
void sbx_explain_syscall(const struct sbx_cpol *v, const char *name, int family,
			 const char *program, long pid, unsigned flags,
			 struct sbx_expl *e);

/* What sbxrun --check says of an allowed path operation:
 * "'/etc/hosts' can be read: read-only (rule / ro from file:line)". */
void sbx_explain_allowed(const struct sbx_cpol *v, const char *abs,
			 enum sbx_op op, const struct sbx_path_decision *d,
			 char *buf, size_t sz);

/* "file:line" of a rule, "file" when the line is unknown, "built-in"
 * when no file set it. */
void sbx_put_src(struct sb *b, const char *file, uint32_t line);
/* The same for a rule of the in-memory policy (sbxrun --list-paths). */
void sbx_src_format(char *buf, size_t sz, struct sbx_src src);

#endif
