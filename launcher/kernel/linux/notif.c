/*
 * notif.c - the supervisor's seccomp listener: kernel refusals of static
 * programs and raw system calls, explained (issue 13).
 *
 * The notify variant of the filter (seccomp.c) sends the calls the
 * baseline refuses -- and only those: an allowed call never leaves the
 * kernel -- to a listener the command process hands us before exec.  For
 * each we answer with the errno the plain filter gives (seccomp.c runs it
 * over the call), never SECCOMP_USER_NOTIF_FLAG_CONTINUE: the listener
 * only refuses, so a race on the caller's memory cannot widen anything.
 * Before answering, the refusal is explained by the one explainer
 * (sbx_explain_syscall) on the sandbox's stderr and sent as a record
 * through the report path, once per process and call:
 *
 *   sbxrun: blocked mount by busybox (pid 4242): namespaces and mounts cannot be changed inside the sandbox (rule seccomp from built-in)
 *
 * An internet socket refused with the network off is the shim's to
 * explain when the program called libc's socket() with the shim loaded;
 * the listener says it only for the others (static programs, raw calls).
 *
 * libseccomp's seccomp_notify_* API receives and answers.  Should the
 * listener go away, the kernel fails every refused call with ENOSYS:
 * still refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/seccomp.h>
#include <seccomp.h>

#include "attr.h"
#include "cpol.h"
#include "explain.h"
#include "record.h"
#include "spawn.h"

#define NOTIF_SEEN 512

struct sbx_notif {
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	size_t req_size;
	void *pbuf; /* the compiled policy, for the explainer */
	struct sbx_cpol v;
	int have_pol;
	struct {
		pid_t pid;
		int nr;
	} seen[NOTIF_SEEN];
	unsigned nseen;
	struct sbx_attr_res attr; /* landlock-only attribute changes */
};

static struct sbx_notif *notif_state(struct sup *s)
{
	struct seccomp_notif_sizes sz = { 0, 0, 0 };
	struct sbx_notif *n;

	if (s->notif)
		return s->notif;
	n = calloc(1, sizeof *n);
	if (!n)
		return NULL;
	if (seccomp_notify_alloc(&n->req, &n->resp) < 0) {
		free(n);
		return NULL;
	}
	/* libseccomp allocates the larger of the kernel's size and ours;
	 * the kernel wants all of its size zeroed. */
	n->req_size = sizeof *n->req;
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) == 0 &&
	    sz.seccomp_notif > n->req_size)
		n->req_size = sz.seccomp_notif;
	return s->notif = n;
}

/* The compiled policy the shim reads, else one built here. */
static int notif_policy(struct sup *s, struct sbx_notif *n)
{
	const char *why;
	struct sbx_err e;
	size_t len = 0;

	if (n->have_pol)
		return 0;
	if (sbx_cpol_build(s->l->pol, s->mode, 0, &n->pbuf, &len, &e) < 0)
		return -1;
	if (sbx_cpol_view(n->pbuf, len, &n->v, &why) < 0) {
		free(n->pbuf);
		n->pbuf = NULL;
		return -1;
	}
	n->have_pol = 1;
	return 0;
}

/* The process a thread belongs to (Tgid of /proc/TID/status): the
 * kernel names the calling thread, records name processes. */
static pid_t proc_tgid(pid_t tid)
{
	char path[64], line[128];
	pid_t tgid = tid;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return tid;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid > 0 ? tgid : tid;
}

/* The process's name (/proc/PID/comm), "?" when it is gone. */
static void proc_comm(pid_t pid, char *buf, size_t sz)
{
	char path[64];
	ssize_t r;
	int fd;

	snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
	snprintf(buf, sz, "?");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	r = read(fd, buf, sz - 1);
	close(fd);
	if (r <= 0)
		return (void)snprintf(buf, sz, "?");
	buf[r] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/*
 * Did the shim see this call?  It explains socket() refusals itself when
 * the program went through libc's socket(): the shim is mapped and the
 * call was made from libc's text.  A static program, or a raw syscall
 * instruction in the program's own code, is ours to explain.
 */
static int shim_saw(pid_t pid, uint64_t ip)
{
	char path[64], line[4096];
	int shim = 0, libc = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f)) {
		unsigned long long lo, hi;

		if (strstr(line, "libsbxshim"))
			shim = 1;
		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && ip >= lo &&
		    ip < hi && strstr(line, "/libc"))
			libc = 1;
	}
	fclose(f);
	return shim && libc;
}

/* Once per process and call: the last NOTIF_SEEN pairs are kept, so a
 * process that repeats a call after that many others is said again, at
 * most once per NOTIF_SEEN refusals. */
static int notif_seen(struct sbx_notif *n, pid_t pid, int nr)
{
	unsigned k = n->nseen < NOTIF_SEEN ? n->nseen : NOTIF_SEEN;

	for (unsigned i = 0; i < k; i++)
		if (n->seen[i].pid == pid && n->seen[i].nr == nr)
			return 1;
	n->seen[n->nseen % NOTIF_SEEN].pid = pid;
	n->seen[n->nseen % NOTIF_SEEN].nr = nr;
	n->nseen++;
	return 0;
}

/* The line, where the sandbox's stderr goes. */
static void notif_say(struct sup *s, const char *msg)
{
	const struct sbx_launch *l = s->l;
	char line[SBX_EXPL_MSG + 1];
	size_t len = (size_t)snprintf(line, sizeof line, "%s\n", msg);
	int fd = l->fd_err >= 0 ? l->fd_err : 2;

	if (len >= sizeof line)
		len = sizeof line - 1;
	if (l->pol->quiet || l->pol->explain_to_report_only)
		return; /* the record still goes, as the shim's */
	if (l->fd_err == -2) {
		if (l->on_output)
			l->on_output(l->output_ctx, 2, line, len);
		return;
	}
	if (write(fd, line, len) < 0)
		return; /* nothing to do about it */
}

/* Say the line and send its record: one refusal, as the shim's. */
static void notif_tell(struct sup *s, pid_t pid, const struct sbx_expl *e,
		       const char *target, const char *comm)
{
	char rec[SBX_REC_MAX];
	size_t len;

	notif_say(s, e->msg);
	len = sbx_expl_record(rec, sizeof rec, e, target, comm);
	if (len && s->l->on_report)
		s->l->on_report(s->l->report_ctx, pid, rec, len);
}

static void notif_explain(struct sup *s, struct sbx_notif *n,
			  const struct seccomp_notif *q, const char *comm)
{
	pid_t pid = proc_tgid((pid_t)q->pid);
	const char *name = sbx_seccomp_name(q->data.nr);
	int sock = name &&
		   (!strcmp(name, "socket") || !strcmp(name, "socketpair"));
	int family = sock ? (int)q->data.args[0] : -1;
	char nrbuf[32];
	struct sbx_expl e;

	if (!name) {
		snprintf(nrbuf, sizeof nrbuf, "syscall %d", q->data.nr);
		name = nrbuf;
	}
	/* A routing socket (AF_NETLINK, NETLINK_ROUTE) is what getifaddrs()
	 * opens to list interfaces (node's os.networkInterfaces() on every
	 * npm run): refused, and the callers cope, but not worth a line on
	 * every run.  Nothing else about netlink is quieted. */
	if (sock && family == AF_NETLINK && q->data.args[2] == NETLINK_ROUTE)
		return;
	if (notif_seen(n, pid, q->data.nr) || notif_policy(s, n) < 0)
		return;
	sbx_explain_syscall(&n->v, name, family, comm, (long)pid, 0, &e);
	if (!strcmp(e.kind, "network-off") &&
	    shim_saw(pid, q->data.instruction_pointer))
		return;
	notif_tell(s, pid, &e,
		   strcmp(e.kind, "network-off") ? name
		   : family == AF_INET		 ? "inet"
						 : "inet6",
		   comm);
}

/* An attribute change refused by the policy (attr.c), explained as the
 * shim explains it, once per process and call. */
static void notif_explain_attr(struct sup *s, struct sbx_notif *n,
			       const struct seccomp_notif *q, const char *comm,
			       const struct sbx_attr_res *a)
{
	pid_t pid = proc_tgid((pid_t)q->pid);
	struct sbx_expl e;

	if (notif_seen(n, pid, q->data.nr))
		return;
	sbx_explain_path(&n->v, a->abs, a->abs, SBX_OP_WRITE, &a->d, 0, &e);
	notif_tell(s, pid, &e, a->abs, comm);
}

/* landlock-only: chmod, chown, xattrs and times are done for the
 * command when their object is writable (attr.c).  1: answered. */
static int notif_attr(struct sup *s, struct sbx_notif *n, int fd)
{
	struct sbx_attr_res *a = &n->attr;
	char comm[64];

	if (s->mode != SBX_KMODE_LANDLOCK || !sbx_attr_call(n->req->data.nr) ||
	    notif_policy(s, n) < 0)
		return 0;
	if (!sbx_attr_emulate(fd, n->req, &n->v, a))
		return 0;
	if (a->refused) {
		proc_comm((pid_t)n->req->pid, comm, sizeof comm);
		if (seccomp_notify_id_valid(fd, n->req->id) == 0)
			notif_explain_attr(s, n, n->req, comm, a);
	}
	memset(n->resp, 0, sizeof *n->resp);
	n->resp->id = n->req->id;
	n->resp->error = -a->err;
	n->resp->flags = 0; /* never CONTINUE */
	(void)seccomp_notify_respond(fd, n->resp);
	return 1;
}

/* A listener we cannot serve is closed: the kernel then fails every
 * refused call with ENOSYS. */
static int notif_close(struct sup *s)
{
	close(s->fd[P_NOTIF]);
	s->fd[P_NOTIF] = -1;
	return 0;
}

int sbx_notif_serve(struct sup *s)
{
	int fd = s->fd[P_NOTIF], err;
	struct sbx_notif *n;
	char comm[64];

	if (fd < 0)
		return 0;
	n = notif_state(s);
	if (!n)
		return notif_close(s);
	memset(n->req, 0, n->req_size);
	if (seccomp_notify_receive(fd, n->req) < 0)
		/* ENOENT: the caller was killed before we read it. */
		return errno == ENOENT || errno == EINTR ? 1 : notif_close(s);
	if (notif_attr(s, n, fd))
		return 1;
	err = sbx_seccomp_errno(s->l->pol, s->mode, &n->req->data);
	proc_comm((pid_t)n->req->pid, comm, sizeof comm);
	/* The pid is the caller's only while its call waits. */
	if (seccomp_notify_id_valid(fd, n->req->id) == 0)
		notif_explain(s, n, n->req, comm);
	memset(n->resp, 0, sizeof *n->resp);
	n->resp->id = n->req->id;
	n->resp->error = -err;
	n->resp->val = 0;
	n->resp->flags = 0; /* never CONTINUE */
	(void)seccomp_notify_respond(fd, n->resp);
	return 1;
}

void sbx_notif_free(struct sup *s)
{
	if (!s->notif)
		return;
	seccomp_notify_free(s->notif->req, s->notif->resp);
	free(s->notif->pbuf);
	free(s->notif);
	s->notif = NULL;
}
