/*
 * gen_seccomp.c - the seccomp-bpf layer's filters, built at build time.
 *
 * A build tool, not part of sbxrun: it builds each variant of the filter
 * with libseccomp and prints them as C arrays (seccomp_bpf.h), which
 * launcher/kernel/linux/seccomp.c loads with one seccomp(2) call.  Building a filter
 * with libseccomp costs about 0.3 ms and a library in every launch; a
 * precompiled program costs neither.  The filter depends only on the
 * architecture and libseccomp, both fixed at build time, and on the
 * network (open, closed, TCP only) and the pid namespace, which give the
 * variants; each comes plain and with user notification (sc_action), and
 * the names of the notified calls follow (sbx_sc_names).
 *
 *   gen_seccomp > seccomp_bpf.h
 *
 * A deny list over an allow-by-default filter (THREATS.md, "Seccomp
 * baseline"): the kernel attack surface and the escape routes that
 * Landlock and the namespaces do not close.  Three kinds of refusal:
 *
 *  - ENOSYS for calls whose arguments hide behind pointers (clone3,
 *    openat2) or that bypass the syscall filter altogether (io_uring), so
 *    libc and runtimes fall back to calls we can see;
 *  - EPERM for what a sandbox must never do;
 *  - the socket family/protocol errnos a kernel without that support
 *    would give, so programs take their normal fallback paths.
 *
 * Foreign ABIs: seccomp_init() puts only the native architecture in the
 * filter and SCMP_FLTATR_ACT_BADARCH kills the process for any other.
 * That covers the ia32 entry (int $0x80 reports AUDIT_ARCH_I386) and, on
 * x86_64, x32 numbers (__X32_SYSCALL_BIT): libseccomp routes them to the
 * bad-arch action when x32 is not in the filter.  With no 32-bit ABI
 * there is no socketcall(2) to hide socket arguments behind a pointer.
 *
 * Known limit of an allow-default filter: a syscall newer than this table
 * is allowed.  libseccomp cannot express "every number above N"; an
 * allow-list filter is the cure and a later change.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <linux/seccomp.h>
#include <seccomp.h>

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/filter.h>

#include "compat.h"
#include "inside.h"

#ifndef TCP_FASTOPEN_CONNECT
#define SC_TCP_FASTOPEN_CONNECT 30
#else
#define SC_TCP_FASTOPEN_CONNECT TCP_FASTOPEN_CONNECT
#endif

/* open_tree_attr(2) (6.15) is newer than libseccomp 2.5's table, and
 * like mount_setattr it reaches do_mount_setattr() without an LSM hook,
 * so Landlock does not see it.  New syscalls share one number on x86_64
 * and arm64. */
#if defined(__x86_64__) || defined(__aarch64__)
#define SC_NR_OPEN_TREE_ATTR 467
#define SC_NR_FCHMODAT2 452 /* 6.6; newer than libseccomp 2.5's table */
#define SC_NR_SETXATTRAT 463 /* 6.13 */
#define SC_NR_REMOVEXATTRAT 466
#else
#define SC_NR_SETXATTRAT __NR_SCMP_ERROR
#define SC_NR_REMOVEXATTRAT __NR_SCMP_ERROR
#define SC_NR_OPEN_TREE_ATTR __NR_SCMP_ERROR
#define SC_NR_FCHMODAT2 __NR_SCMP_ERROR
#endif

/* The bit that makes O_TMPFILE (which is it | O_DIRECTORY). */
#ifdef __O_TMPFILE
#define SC_O_TMPFILE __O_TMPFILE
#else
#define SC_O_TMPFILE 020000000
#endif

/* When a rule applies, from the network policy. */
enum sc_when {
	SC_ALWAYS = 0,
	SC_NET_CLOSED, /* no internet sockets at all */
	SC_NET_OPEN, /* internet sockets allowed, minus the odd ones */
	SC_NO_PIDNS, /* landlock-only: no pid/ipc namespace around us */
	SC_NET_TCP, /* TCP only: the filtered network without a network
		     * namespace (landlock-only), where Landlock limits
		     * connect to the proxy's port and nothing else would
		     * stop UDP (DNS exfiltration, NET-02) or a TCP Fast Open
		     * connect that Landlock's hook does not see (NET-06) */
};

/* The network variants: [0] open, [1] closed, [2] TCP only. */
enum { NET_OPEN = 0, NET_CLOSED = 1, NET_TCP = 2, NET_N = 3 };

struct sc_rule {
	int nr; /* negative: not on this architecture */
	int err; /* errno the call fails with */
	enum sc_when when;
	unsigned ncmp;
	struct scmp_arg_cmp cmp[2];
};

#define CMP(i, o, a, b)                                               \
	{                                                             \
		.arg = (i), .op = (o), .datum_a = (a), .datum_b = (b) \
	}
#define NOSYS(name)                                 \
	{                                           \
		.nr = SCMP_SYS(name), .err = ENOSYS \
	}
#define DENY(name)                                 \
	{                                          \
		.nr = SCMP_SYS(name), .err = EPERM \
	}
/* clone(2) takes its flags in arg 0 on x86_64 and arm64 (not on s390). */
#define CLONE_NS(flag)                                                \
	{                                                             \
		.nr = SCMP_SYS(clone), .err = EPERM, .ncmp = 1,       \
		.cmp = { CMP(0, SCMP_CMP_MASKED_EQ, (flag), (flag)) } \
	}
/* The kernel reads an ioctl request as 32 bits: compare only those, or
 * (1 << 32) | TIOCSTI slips past (CVE-2019-10063, TTY-02). */
#define IOCTL(req)                                                        \
	{                                                                 \
		.nr = SCMP_SYS(ioctl), .err = EPERM, .ncmp = 1,           \
		.cmp = { CMP(1, SCMP_CMP_MASKED_EQ, 0xffffffffu, (req)) } \
	}
#define SOCK(e, when_, i, o, a, b)                                   \
	{                                                            \
		.nr = SCMP_SYS(socket), .err = (e), .when = (when_), \
		.ncmp = 1,                                           \
		.cmp = { CMP(i, o, a, b) }                           \
	}

/*
 * personality(2): allow only PER_LINUX (0) and the query 0xffffffff.
 * libseccomp allows one comparison per argument and lets an unconditional
 * rule override conditional ones, so "not 0 and not ~0" is spelled as:
 * some bit i is 1 and the next bit (cyclically) is 0.  A 32-bit value has
 * such a pair exactly when it is neither all zeros nor all ones, so 32
 * masked rules cover it; one more refuses anything above 32 bits.
 */
/* A call aimed at another process (pid argument i non-zero). */
#define OTHER_PID(name, i, when_)                                    \
	{                                                            \
		.nr = SCMP_SYS(name), .err = EPERM, .when = (when_), \
		.ncmp = 1,                                           \
		.cmp = { CMP(i, SCMP_CMP_NE, 0, 0) }                 \
	}
#define NO_PIDNS(name)                                                  \
	{                                                               \
		.nr = SCMP_SYS(name), .err = EPERM, .when = SC_NO_PIDNS \
	}

/*
 * PERS-01: a set-uid or set-gid file made inside stays on the host, where
 * any local user runs it as the caller (as root: a root shell for all).
 * no_new_privs only makes the bits inert *inside*.  Refuse every way of
 * setting them: the chmod family (mode in argument i), and files created
 * with them by open, openat and creat (O_CREAT or O_TMPFILE in argument
 * f, mode in m).  One rule per bit: libseccomp ANDs the comparisons of a
 * rule, so "either bit" takes two.  write(2) to a set-uid file clears
 * the bits (the command has no CAP_FSETID), but not every way of filling
 * a file is a write(2), so creation with the bits is refused too.
 */
#define SETID(name, i, bit)                                         \
	{                                                           \
		.nr = SCMP_SYS(name), .err = EPERM, .ncmp = 1,      \
		.cmp = { CMP(i, SCMP_CMP_MASKED_EQ, (bit), (bit)) } \
	}
#define SETID_NR(nr_, i, bit)                                       \
	{                                                           \
		.nr = (nr_), .err = EPERM, .ncmp = 1,               \
		.cmp = { CMP(i, SCMP_CMP_MASKED_EQ, (bit), (bit)) } \
	}
#define SETID_CREATE(name, f, m, how, bit)                          \
	{                                                           \
		.nr = SCMP_SYS(name), .err = EPERM, .ncmp = 2,      \
		.cmp = { CMP(f, SCMP_CMP_MASKED_EQ, (how), (how)),  \
			 CMP(m, SCMP_CMP_MASKED_EQ, (bit), (bit)) } \
	}
#define SETID_BOTH(mac, ...) \
	mac(__VA_ARGS__, S_ISUID), mac(__VA_ARGS__, S_ISGID)
/* Device nodes (mode in argument i): the mounts are nodev and the command
 * has no CAP_MKNOD, but a node left in a writable root works on the host
 * for whoever may use it there. */
#define MKDEV(name, i, type)                                          \
	{                                                             \
		.nr = SCMP_SYS(name), .err = EPERM, .ncmp = 1,        \
		.cmp = { CMP(i, SCMP_CMP_MASKED_EQ, S_IFMT, (type)) } \
	}

#define PERS(i)                                                          \
	{                                                                \
		.nr = SCMP_SYS(personality), .err = EPERM, .ncmp = 1,    \
		.cmp = { CMP(0, SCMP_CMP_MASKED_EQ,                      \
			     (1ULL << (i)) | (1ULL << (((i) + 1) % 32)), \
			     1ULL << (i)) }                              \
	}
#define PERS4(i) PERS(i), PERS((i) + 1), PERS((i) + 2), PERS((i) + 3)
#define PERS16(i) PERS4(i), PERS4((i) + 4), PERS4((i) + 8), PERS4((i) + 12)

static const struct sc_rule sc_rules[] = {
	/* Fall back to calls the filter can read (SCF-04, -05, -06). */
	NOSYS(clone3),
	NOSYS(openat2),
	NOSYS(open_tree),
	NOSYS(move_mount),
	NOSYS(fsopen),
	NOSYS(fsconfig),
	NOSYS(fsmount),
	NOSYS(fspick),
	NOSYS(mount_setattr),
	{ .nr = SC_NR_OPEN_TREE_ATTR, .err = ENOSYS },
	NOSYS(io_uring_setup),
	NOSYS(io_uring_enter),
	NOSYS(io_uring_register),

	/* Namespaces and mounts (NS-01..03). */
	DENY(unshare),
	DENY(setns),
	DENY(mount),
	DENY(umount2),
	DENY(pivot_root),
	DENY(chroot),
	CLONE_NS(CLONE_NEWNS),
	CLONE_NS(CLONE_NEWCGROUP),
	CLONE_NS(CLONE_NEWUTS),
	CLONE_NS(CLONE_NEWIPC),
	CLONE_NS(CLONE_NEWUSER),
	CLONE_NS(CLONE_NEWPID),
	CLONE_NS(CLONE_NEWNET),

	/* Kernel attack surface (NS-04, PROC-06). */
	DENY(bpf),
	DENY(perf_event_open),
	DENY(userfaultfd),
	DENY(keyctl),
	DENY(add_key),
	DENY(request_key),
	DENY(kexec_load),
	DENY(kexec_file_load),
	DENY(init_module),
	DENY(finit_module),
	DENY(delete_module),
	DENY(open_by_handle_at),
	DENY(name_to_handle_at),
	DENY(acct),
	DENY(quotactl),
	DENY(swapon),
	DENY(swapoff),
	DENY(reboot),
	DENY(syslog),
	DENY(iopl),
	DENY(ioperm),
	DENY(lookup_dcookie),
	DENY(vhangup),
	DENY(nfsservctl),
	DENY(uselib),

	/* Other processes (PROC-03, SCF-09). */
	DENY(ptrace),
	DENY(process_vm_readv),
	DENY(process_vm_writev),
	DENY(pidfd_getfd),
	/* Limits, priority and scheduling of other processes: RLIMIT_CPU=1
	 * on the agent kills it past the signal scope; PRIO_USER and
	 * IOPRIO_WHO_USER reach every process of the uid, namespace or not. */
	OTHER_PID(prlimit64, 0, SC_ALWAYS),
	OTHER_PID(setpriority, 0, SC_ALWAYS), /* which != PRIO_PROCESS */
	OTHER_PID(setpriority, 1, SC_NO_PIDNS),
	{ .nr = SCMP_SYS(ioprio_set),
	  .err = EPERM,
	  .ncmp = 1,
	  .cmp = { CMP(0, SCMP_CMP_NE, 1 /* IOPRIO_WHO_PROCESS */, 0) } },
	OTHER_PID(ioprio_set, 1, SC_NO_PIDNS),
	OTHER_PID(sched_setscheduler, 0, SC_NO_PIDNS),
	OTHER_PID(sched_setparam, 0, SC_NO_PIDNS),
	OTHER_PID(sched_setattr, 0, SC_NO_PIDNS),
	OTHER_PID(sched_setaffinity, 0, SC_NO_PIDNS),
	OTHER_PID(migrate_pages, 0, SC_NO_PIDNS),
	OTHER_PID(move_pages, 0, SC_NO_PIDNS),
	/* SysV IPC of the host (IPC-07): no ipc namespace in landlock-only
	 * mode, and ids can be guessed without *get. */
	NO_PIDNS(shmget),
	NO_PIDNS(shmat),
	NO_PIDNS(shmctl),
	NO_PIDNS(msgget),
	NO_PIDNS(msgsnd),
	NO_PIDNS(msgrcv),
	NO_PIDNS(msgctl),
	NO_PIDNS(semget),
	NO_PIDNS(semop),
	NO_PIDNS(semctl),
	NO_PIDNS(semtimedop),

	/* Foreign personalities (SCF-02). */
	PERS16(0),
	PERS16(16),
	{ .nr = SCMP_SYS(personality),
	  .err = EPERM,
	  .ncmp = 1,
	  .cmp = { CMP(0, SCMP_CMP_GT, 0xffffffffu, 0) } },

	/* A notify listener of the payload's own could answer CONTINUE for
	 * calls a later filter means to refuse (SCF-08). */
	{ .nr = SCMP_SYS(seccomp),
	  .err = EPERM,
	  .ncmp = 2,
	  .cmp = { CMP(0, SCMP_CMP_EQ, SECCOMP_SET_MODE_FILTER, 0),
		   CMP(1, SCMP_CMP_MASKED_EQ, SECCOMP_FILTER_FLAG_NEW_LISTENER,
		       SECCOMP_FILTER_FLAG_NEW_LISTENER) } },

	/* The sandbox's own mark (inside.h): sbxrun-sh asks it to know
	 * whether it already runs inside a sandbox. */
	{ .nr = SCMP_SYS(prctl),
	  .err = SBX_INSIDE_ERRNO,
	  .ncmp = 1,
	  .cmp = { CMP(0, SCMP_CMP_EQ, SBX_PRCTL_INSIDE, 0) } },

	/* Set-uid and set-gid files, device nodes (PERS-01). */
	SETID_BOTH(SETID, chmod, 1),
	SETID_BOTH(SETID, fchmod, 1),
	SETID_BOTH(SETID, fchmodat, 2),
	SETID_BOTH(SETID_NR, SC_NR_FCHMODAT2, 2),
	SETID_BOTH(SETID, creat, 1),
	SETID_BOTH(SETID_CREATE, open, 1, 2, O_CREAT),
	SETID_BOTH(SETID_CREATE, open, 1, 2, SC_O_TMPFILE),
	SETID_BOTH(SETID_CREATE, openat, 2, 3, O_CREAT),
	SETID_BOTH(SETID_CREATE, openat, 2, 3, SC_O_TMPFILE),
	/* ... and made with them by mknod (a regular file) or mkdir (W-14) */
	SETID_BOTH(SETID, mknod, 1),
	SETID_BOTH(SETID, mknodat, 2),
	SETID_BOTH(SETID, mkdir, 1),
	SETID_BOTH(SETID, mkdirat, 2),
	MKDEV(mknod, 1, S_IFCHR),
	MKDEV(mknod, 1, S_IFBLK),
	MKDEV(mknodat, 2, S_IFCHR),
	MKDEV(mknodat, 2, S_IFBLK),

	/* Attribute changes in landlock-only mode (E-16, FS-11): Landlock
	 * has no right for them, so without read-only mounts a chmod of a
	 * hidden ~/.ssh/id_rsa would work.  The notify variant sends them
	 * to the supervisor, which does them only on objects in writable
	 * paths (attr.c); the plain one, with no listener, refuses them. */
	NO_PIDNS(chmod),
	NO_PIDNS(fchmod),
	NO_PIDNS(fchmodat),
	{ .nr = SC_NR_FCHMODAT2, .err = EPERM, .when = SC_NO_PIDNS },
	NO_PIDNS(chown),
	NO_PIDNS(fchown),
	NO_PIDNS(lchown),
	NO_PIDNS(fchownat),
	NO_PIDNS(setxattr),
	NO_PIDNS(lsetxattr),
	NO_PIDNS(fsetxattr),
	NO_PIDNS(removexattr),
	NO_PIDNS(lremovexattr),
	NO_PIDNS(fremovexattr),
	NO_PIDNS(utime),
	NO_PIDNS(utimes),
	NO_PIDNS(futimesat),
	NO_PIDNS(utimensat),
	/* not done by the supervisor: refused (their arguments are a
	 * struct behind a pointer) */
	{ .nr = SC_NR_SETXATTRAT, .err = EPERM, .when = SC_NO_PIDNS },
	{ .nr = SC_NR_REMOVEXATTRAT, .err = EPERM, .when = SC_NO_PIDNS },

	/* Typing into the terminal (TTY-01..03). */
	IOCTL(TIOCSTI),
	IOCTL(TIOCLINUX),

	/* Sockets (NET-01, -04, -05).  Network closed: unix only. */
	SOCK(EAFNOSUPPORT, SC_NET_CLOSED, 0, SCMP_CMP_NE, AF_UNIX, 0),
	{ .nr = SCMP_SYS(socketpair),
	  .err = EAFNOSUPPORT,
	  .ncmp = 1,
	  .cmp = { CMP(0, SCMP_CMP_NE, AF_UNIX, 0) } },
	/* Network open: no link-layer or raw sockets, and no MPTCP or SCTP,
	 * which Landlock's TCP rules do not cover. */
	SOCK(EAFNOSUPPORT, SC_NET_OPEN, 0, SCMP_CMP_EQ, AF_PACKET, 0),
	SOCK(EPERM, SC_NET_OPEN, 1, SCMP_CMP_MASKED_EQ, 0xf, SOCK_RAW),
	SOCK(EPERM, SC_NET_OPEN, 1, SCMP_CMP_MASKED_EQ, 0xf, SOCK_PACKET),
	SOCK(EPROTONOSUPPORT, SC_NET_OPEN, 2, SCMP_CMP_EQ, IPPROTO_MPTCP, 0),
	SOCK(EPROTONOSUPPORT, SC_NET_OPEN, 2, SCMP_CMP_EQ, IPPROTO_SCTP, 0),
	/* TCP only: stream sockets, and no connect that bypasses connect(2)
	 * (the filters' arguments are ANDed: not unix and a datagram). */
	{ .nr = SCMP_SYS(socket),
	  .err = EPERM,
	  .when = SC_NET_TCP,
	  .ncmp = 2,
	  .cmp = { CMP(0, SCMP_CMP_NE, AF_UNIX, 0),
		   CMP(1, SCMP_CMP_MASKED_EQ, 0xf, SOCK_DGRAM) } },
	{ .nr = SCMP_SYS(socket),
	  .err = EPERM,
	  .when = SC_NET_TCP,
	  .ncmp = 2,
	  .cmp = { CMP(0, SCMP_CMP_NE, AF_UNIX, 0),
		   CMP(1, SCMP_CMP_MASKED_EQ, 0xf, SOCK_SEQPACKET) } },
	{ .nr = SCMP_SYS(socket),
	  .err = EPERM,
	  .when = SC_NET_TCP,
	  .ncmp = 2,
	  .cmp = { CMP(0, SCMP_CMP_NE, AF_UNIX, 0),
		   CMP(1, SCMP_CMP_MASKED_EQ, 0xf, SOCK_DCCP) } },
	{ .nr = SCMP_SYS(sendto),
	  .err = EPERM,
	  .when = SC_NET_TCP,
	  .ncmp = 1,
	  .cmp = { CMP(3, SCMP_CMP_MASKED_EQ, MSG_FASTOPEN, MSG_FASTOPEN) } },
	{ .nr = SCMP_SYS(sendmsg),
	  .err = EPERM,
	  .when = SC_NET_TCP,
	  .ncmp = 1,
	  .cmp = { CMP(2, SCMP_CMP_MASKED_EQ, MSG_FASTOPEN, MSG_FASTOPEN) } },
	{ .nr = SCMP_SYS(sendmmsg),
	  .err = EPERM,
	  .when = SC_NET_TCP,
	  .ncmp = 1,
	  .cmp = { CMP(3, SCMP_CMP_MASKED_EQ, MSG_FASTOPEN, MSG_FASTOPEN) } },
	{ .nr = SCMP_SYS(setsockopt),
	  .err = EPERM,
	  .when = SC_NET_TCP,
	  .ncmp = 2,
	  .cmp = { CMP(1, SCMP_CMP_EQ, IPPROTO_TCP, 0),
		   CMP(2, SCMP_CMP_EQ, SC_TCP_FASTOPEN_CONNECT, 0) } },
};

/* When a rule applies, for one variant. */
static int sc_applies(const struct sc_rule *r, int net, int pidns)
{
	if (r->nr < 0)
		return 0; /* the syscall does not exist here */
	switch (r->when) {
	case SC_NET_CLOSED: return net == NET_CLOSED;
	case SC_NET_OPEN: return net != NET_CLOSED;
	case SC_NET_TCP: return net == NET_TCP;
	case SC_NO_PIDNS: return !pidns;
	case SC_ALWAYS: break;
	}
	return 1;
}

static void die(const char *what, int rc)
{
	fprintf(stderr, "gen_seccomp: %s: %s\n", what, strerror(-rc));
	exit(1);
}

/*
 * The action of a rule.  In the notify variants every refusal but the
 * ENOSYS ones goes to the supervisor's listener (SECCOMP_RET_USER_NOTIF),
 * which answers with the errno the plain variant returns and explains it;
 * ENOSYS steers libc and runtimes to calls we can see (glibc tries clone3
 * for every thread), which is no refusal to explain; nor is the
 * sandbox's own mark (inside.h), a question and no refusal.  Allowed
 * calls take the same path through both variants.
 */
static uint32_t sc_action(const struct sc_rule *r, int notif)
{
	if (notif && r->err != ENOSYS && r->err != SBX_INSIDE_ERRNO)
		return SCMP_ACT_NOTIFY;
	return SCMP_ACT_ERRNO(r->err);
}

/* One variant's filter, as libseccomp builds it, printed as an array. */
static void emit(int notif, int closed, int pidns)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	struct sock_filter *f;
	char *buf;
	size_t len, n;
	int fd, rc;

	if (!ctx)
		die("seccomp_init", -ENOMEM);
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
			      SCMP_ACT_KILL_PROCESS);
	if (rc < 0)
		die("the bad-arch action", rc);
	/* A binary tree of syscall numbers instead of a linear list: every
	 * allowed syscall of the command passes through this filter. */
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (rc < 0)
		die("the binary tree", rc);
	for (size_t i = 0; i < sizeof sc_rules / sizeof sc_rules[0]; i++) {
		const struct sc_rule *r = &sc_rules[i];

		if (!sc_applies(r, closed, pidns))
			continue;
		rc = seccomp_rule_add_array(ctx, sc_action(r, notif), r->nr,
					    r->ncmp, r->cmp);
		if (rc < 0)
			die("a rule", rc);
	}
	fd = memfd_create("bpf", 0);
	if (fd < 0)
		die("memfd_create", -errno);
	rc = seccomp_export_bpf(ctx, fd);
	seccomp_release(ctx);
	if (rc < 0)
		die("seccomp_export_bpf", rc);
	len = (size_t)lseek(fd, 0, SEEK_END);
	buf = malloc(len + 1);
	if (!buf || len % sizeof *f || pread(fd, buf, len, 0) != (ssize_t)len)
		die("reading the filter back", -EIO);
	close(fd);
	f = (struct sock_filter *)buf;
	n = len / sizeof *f;
	printf("static const struct sock_filter sbx_bpf_%d%d%d[%zu] = {\n",
	       notif, closed, pidns, n);
	for (size_t i = 0; i < n; i++)
		printf("\t{ 0x%02x, %u, %u, 0x%08x },\n", f[i].code, f[i].jt,
		       f[i].jf, f[i].k);
	printf("};\n\n");
	free(buf);
}

/* The names of the calls the notify variants send to the listener, by
 * number (so the listener needs no libseccomp table at run time). */
static void emit_names(void)
{
	int seen[1024] = { 0 };

	printf("static const struct sbx_sc_name sbx_sc_names[] = {\n");
	for (size_t i = 0; i < sizeof sc_rules / sizeof sc_rules[0]; i++) {
		const struct sc_rule *r = &sc_rules[i];
		char *n;

		if (r->nr < 0 || r->err == ENOSYS ||
		    r->err == SBX_INSIDE_ERRNO || r->nr >= 1024 ||
		    seen[r->nr]++)
			continue;
		n = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, r->nr);
		printf("\t{ %d, \"%s\" },\n", r->nr,
		       n			       ? n
		       : r->nr == SC_NR_FCHMODAT2      ? "fchmodat2"
		       : r->nr == SC_NR_OPEN_TREE_ATTR ? "open_tree_attr"
		       : r->nr == SC_NR_SETXATTRAT     ? "setxattrat"
		       : r->nr == SC_NR_REMOVEXATTRAT  ? "removexattrat"
						       : "?");
		free(n);
	}
	printf("};\n\n");
}

int main(void)
{
	printf("/* Generated by tools/gen_seccomp.c with libseccomp %u.%u.%u: "
	       "do not edit. */\n\n",
	       SCMP_VER_MAJOR, SCMP_VER_MINOR, SCMP_VER_MICRO);
	for (int notif = 0; notif < 2; notif++)
		for (int closed = 0; closed < NET_N; closed++)
			for (int pidns = 0; pidns < 2; pidns++)
				emit(notif, closed, pidns);
	emit_names();
	printf("/* [notify][network: 0 open, 1 closed, 2 TCP only][in a pid "
	       "namespace] */\n"
	       "static const struct sock_fprog sbx_bpf[2][3][2] = {\n");
	for (int notif = 0; notif < 2; notif++)
		for (int closed = 0; closed < NET_N; closed++)
			for (int pidns = 0; pidns < 2; pidns++)
				printf("\t[%d][%d][%d] = { sizeof sbx_bpf_%d%d%d / "
				       "sizeof sbx_bpf_%d%d%d[0], (struct "
				       "sock_filter *)sbx_bpf_%d%d%d },\n",
				       notif, closed, pidns, notif, closed,
				       pidns, notif, closed, pidns, notif,
				       closed, pidns);
	printf("};\n");
	return ferror(stdout) ? 1 : 0;
}
