/*
 * explain.c - one line on stderr and one record to the launcher for each
 * refusal, whether the shim refused the call or the kernel did and the
 * policy explains why.  Shapes (DESIGN 8):
 *
 *   sbxrun: cannot write '/etc/hosts': read-only in this sandbox (writable: /p, /tmp); to allow: sbxrun --allow-write /etc/hosts
 *   sbxrun: cannot read '/h/.ssh/id_rsa': hidden by the sandbox policy (secrets) (rule ~/.ssh from /x/default.conf:12)
 *   sbxrun: cannot write 'notes/x.exe': suffix '.exe' not allowed under /p/notes (allowed: .md, .pdf)
 *   sbxrun: cannot read 'data/big.csv': 12345678 bytes, over the 10000000-byte limit for /p/data
 *   sbxrun: refused to run 'sudo': privilege escalation is not available in this sandbox
 *
 * Everything here runs on failure paths only, inside a hook: stack
 * buffers, raw syscalls, errno saved and restored by shim_emit.
 */
#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>

#include "record.h"
#include "sb.h"
#include "shim.h"
#include "sys.h"

#define MSG_MAX 2048
#define WRITABLE_SHOWN 5

/* ------------------------------------------------------------ once */

/*
 * The set of explanations already given, so each path and operation is
 * explained once per process.  Open addressing over a fixed table with
 * compare-and-swap inserts: no lock, safe in signal handlers.  When the
 * neighbourhood is full the message is given again rather than lost.
 */
#define SEEN_SLOTS 512
#define SEEN_PROBES 32
static uint64_t seen[SEEN_SLOTS];

static int seen_first(uint64_t key)
{
	key = key ? key : 1;
	for (unsigned i = 0; i < SEEN_PROBES; i++) {
		uint64_t *s = &seen[(key + i) & (SEEN_SLOTS - 1)];
		uint64_t cur = __atomic_load_n(s, __ATOMIC_ACQUIRE);

		if (cur == key)
			return 0;
		if (cur == 0 && __atomic_compare_exchange_n(s, &cur, key, 0,
							    __ATOMIC_ACQ_REL,
							    __ATOMIC_ACQUIRE))
			return 1;
		if (cur == key)
			return 0;
	}
	return 1;
}

/* Was key explained already?  Lets a repeated refusal skip building its
 * message; seen_first still decides. */
static int seen_already(uint64_t key)
{
	key = key ? key : 1;
	for (unsigned i = 0; i < SEEN_PROBES; i++) {
		uint64_t cur = __atomic_load_n(
			&seen[(key + i) & (SEEN_SLOTS - 1)], __ATOMIC_ACQUIRE);

		if (cur == key)
			return 1;
		if (cur == 0)
			return 0;
	}
	return 0;
}

/* FNV-1a over op, a separator and the target. */
uint64_t shim_key(const char *op, const char *target)
{
	uint64_t h = 1469598103934665603ull;

	for (const char *s = op; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	h = (h ^ 0xff) * 1099511628211ull;
	for (const char *s = target ? target : ""; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* ------------------------------------------------------------ delivery */

/*
 * One datagram per record on a fresh socket: refusals are rare, and a
 * cached fd could have been closed or dup2'ed over by the program, so we
 * might write into someone else's file.  MSG_DONTWAIT: a full queue at
 * the launcher drops the record instead of blocking the program.
 */
static void send_record(const struct shim_rec *rec)
{
	char buf[SBX_REC_MAX], comm[17] = { 0 };
	const char *f[SBX_REC_NFIELDS];
	size_t len;
	int fd;

	if (!shim_g.report_len)
		return;
	syscall(SYS_prctl, PR_GET_NAME, comm, 0, 0, 0);
	f[SBX_REC_OP] = rec->op;
	f[SBX_REC_TARGET] = rec->target;
	f[SBX_REC_KIND] = rec->kind;
	f[SBX_REC_RULE] = rec->rule;
	f[SBX_REC_SRC] = rec->src;
	f[SBX_REC_COMM] = comm;
	f[SBX_REC_MSG] = rec->msg;
	len = sbx_rec_encode(buf, sizeof(buf), f);
	if (!len)
		return;
	fd = (int)syscall(SYS_socket, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	syscall(SYS_sendto, fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL,
		&shim_g.report_addr, shim_g.report_len);
	sys_close(fd);
}

void shim_emit(const struct shim_rec *rec, uint64_t key)
{
	int saved = errno;

	if (seen_first(key)) {
		if (!shim_g.quiet) {
			/* one writev, so lines from threads do not mix */
			struct iovec iov[2] = {
				{ (void *)rec->msg, strlen(rec->msg) },
				{ (void *)"\n", 1 },
			};

			syscall(SYS_writev, 2, iov, 2);
		}
		send_record(rec);
	}
	errno = saved;
}

/* ------------------------------------------------------------ pieces */

static const char *str(uint32_t off)
{
	return sbx_cpol_str(&shim_g.pol, off);
}

/* A root as people write it: "~/.ssh" under the home directory. */
static void put_root(struct sb *b, const char *root)
{
	const char *home = str(shim_g.pol.hdr->home);
	size_t hl = strlen(home);

	if (hl > 1 && strncmp(root, home, hl) == 0 &&
	    (root[hl] == '/' || root[hl] == '\0')) {
		sb_putc(b, '~');
		sb_putq(b, root + hl);
		return;
	}
	sb_putq(b, root);
}

/* "file:line" of a rule, or just the file when the line is unknown. */
static void put_src(struct sb *b, uint32_t file, uint32_t line)
{
	sb_putq(b, *str(file) ? str(file) : "built-in");
	if (line) {
		sb_putc(b, ':');
		sb_putu(b, line);
	}
}

static void put_rule(struct sb *b, const struct sbx_cpol_rule *r)
{
	sb_put(b, " (rule ");
	put_root(b, str(r->root));
	sb_put(b, " from ");
	put_src(b, r->src_file, r->src_line);
	sb_putc(b, ')');
}

static int is_writable(const struct sbx_cpol_rule *r)
{
	return r->mode == SBX_RW && !(r->flags & SBX_RF_PROTECT);
}

/* A writable root inside another writable root adds nothing to the list
 * (notes/ inside the project); the project itself is always listed. */
static int inside_writable(const struct sbx_cpol_rule *r)
{
	for (uint32_t i = 0; i < shim_g.pol.hdr->nrules; i++) {
		const struct sbx_cpol_rule *o = &shim_g.pol.rules[i];

		if (o != r && is_writable(o) && o->rootlen < r->rootlen &&
		    sbx_path_within(str(r->root), str(o->root), o->rootlen))
			return 1;
	}
	return 0;
}

/* The writable roots, the project first, at most WRITABLE_SHOWN. */
static void put_writable(struct sb *b)
{
	const struct sbx_cpol_hdr *h = shim_g.pol.hdr;
	unsigned shown = 0;

	sb_put(b, "writable: ");
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < h->nrules; i++) {
			const struct sbx_cpol_rule *r = &shim_g.pol.rules[i];
			int project = (r->flags & SBX_RF_PROJECT) != 0;

			if (!is_writable(r) || project != (pass == 0) ||
			    (!project && inside_writable(r)))
				continue;
			if (shown++ == WRITABLE_SHOWN) {
				sb_put(b, ", ...");
				return;
			}
			if (shown > 1)
				sb_put(b, ", ");
			sb_putq(b, str(r->root));
		}
	}
	if (!shown)
		sb_put(b, "none");
}

static void put_suffixes(struct sb *b, const struct sbx_cpol_rule *r)
{
	for (uint32_t i = 0; i < r->nsuffixes; i++) {
		if (i)
			sb_put(b, ", ");
		sb_putq(b, str(r->suffixes[i]));
	}
}

/* "suffix '.exe' not allowed", or for a name without a dot "no allowed
 * suffix in 'Makefile'". */
static void put_bad_suffix(struct sb *b, const char *abs)
{
	const char *base = sbx_basename(abs);
	const char *dot = strrchr(base, '.');

	if (dot && dot != base) {
		sb_put(b, "suffix '");
		sb_putq(b, dot);
		sb_put(b, "' not allowed");
	} else {
		sb_put(b, "no allowed suffix in '");
		sb_putq(b, base);
		sb_putc(b, '\'');
	}
}

/* ------------------------------------------------------------ file refusals */

static const char *op_name(enum sbx_op op)
{
	return op == SBX_OP_READ    ? "read"
	       : op == SBX_OP_WRITE ? "write"
				    : "run";
}

static const char *kind_name(enum sbx_verdict v)
{
	switch (v) {
	case SBX_DENY_HIDDEN: return "hidden";
	case SBX_DENY_READONLY: return "read-only";
	case SBX_DENY_SUFFIX: return "suffix";
	case SBX_DENY_SIZE: return "size";
	case SBX_DENY_NOTCOVERED: return "not-covered";
	case SBX_ALLOW: break;
	}
	return "";
}

static void put_to_allow(struct sb *b, const char *flag, const char *abs)
{
	sb_put(b, "; to allow: sbxrun ");
	sb_put(b, flag);
	sb_putc(b, ' ');
	sb_putq(b, abs);
}

/* The reason part after "cannot OP 'PATH': ". */
static void put_reason(struct sb *b, const char *abs, enum sbx_op op,
		       enum sbx_verdict v, const struct sbx_cpol_rule *r,
		       int64_t size)
{
	switch (v) {
	case SBX_DENY_HIDDEN:
		sb_put(b, "hidden by the sandbox policy");
		if (r->flags & SBX_RF_SECRET)
			sb_put(b, " (secrets)");
		put_rule(b, r);
		break;
	case SBX_DENY_READONLY:
		if (r->flags & SBX_RF_PROTECT) {
			sb_put(b, "protected (read-only) in this sandbox");
			put_rule(b, r);
		} else {
			sb_put(b, "read-only in this sandbox (");
			put_writable(b);
			sb_putc(b, ')');
		}
		put_to_allow(b, "--allow-write", abs);
		break;
	case SBX_DENY_SUFFIX:
		put_bad_suffix(b, abs);
		sb_put(b, " under ");
		sb_putq(b, str(r->root));
		sb_put(b, " (allowed: ");
		put_suffixes(b, r);
		sb_putc(b, ')');
		break;
	case SBX_DENY_SIZE:
		sb_putu(b, (uint64_t)size);
		sb_put(b, " bytes, over the ");
		sb_putu(b, r->max_file_bytes);
		sb_put(b, "-byte limit for ");
		sb_putq(b, str(r->root));
		break;
	case SBX_DENY_NOTCOVERED:
		sb_put(b, "not covered by any rule of the sandbox policy");
		put_to_allow(b,
			     op == SBX_OP_WRITE ? "--allow-write"
						: "--allow-read",
			     abs);
		break;
	case SBX_ALLOW: break;
	}
}

void shim_explain_fs(const char *shown, const char *abs, enum sbx_op op,
		     enum sbx_verdict v, const struct sbx_cpol_rule *r,
		     int64_t size)
{
	char msg[MSG_MAX], src[512];
	struct sb b, s;
	struct shim_rec rec = { .op = op_name(op),
				.target = abs,
				.kind = kind_name(v),
				.rule = "",
				.src = "" };

	if (v == SBX_ALLOW || (!r && v != SBX_DENY_NOTCOVERED))
		return;
	if (seen_already(shim_key(rec.op, abs)))
		return;
	sb_init(&b, msg, sizeof(msg));
	sb_put(&b, "sbxrun: cannot ");
	sb_put(&b, op_name(op));
	sb_put(&b, " '");
	sb_putq(&b, shown);
	sb_put(&b, "': ");
	put_reason(&b, abs, op, v, r, size);
	if (r) {
		sb_init(&s, src, sizeof(src));
		put_src(&s, r->src_file, r->src_line);
		rec.rule = str(r->root);
		rec.src = src;
	}
	rec.msg = msg;
	shim_emit(&rec, shim_key(rec.op, abs));
}

void shim_explain_exec(const char *shown, const char *abs,
		       const struct sbx_cpol_exec *e)
{
	char msg[MSG_MAX], src[512];
	struct sb b, s;
	struct shim_rec rec = { .op = "exec",
				.target = abs,
				.kind = "exec-denied",
				.rule = str(e->program),
				.src = src,
				.msg = msg };

	sb_init(&b, msg, sizeof(msg));
	sb_put(&b, "sbxrun: refused to run '");
	sb_putq(&b, shown);
	sb_put(&b, "': ");
	sb_putq(&b, *str(e->reason) ? str(e->reason)
				    : "denied by the sandbox policy");
	sb_init(&s, src, sizeof(src));
	put_src(&s, e->src_file, e->src_line);
	/* one message per program and rule */
	shim_emit(&rec, shim_key(str(e->program), abs) ^
				(uint64_t)(e - shim_g.pol.exec));
}
