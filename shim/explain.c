/*
 * explain.c - the delivery of explanations: one line on stderr and one
 * record to the launcher for each refusal, whether the shim refused the
 * call or the kernel did and the policy explains why.  The words are the
 * one explainer's (core/explain.h), the same that sbxrun --check, libsbx
 * and the launcher give; what is the shim's own is saying each one once
 * per process and getting it out without stdio or allocation.
 *
 * Everything here runs on failure paths only, inside a hook: stack
 * buffers, raw syscalls, errno saved and restored by shim_emit.
 */
#include <errno.h>
#include <string.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/un.h>
#include <sys/uio.h>

#include "record.h"
#include "shim.h"
#include "sys.h"

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

int shim_seen(uint64_t key)
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

/* ------------------------------------------------------------ the run */

/*
 * The same refusal from several processes of one run (a shell script
 * running cat twice, make's compilers) is said on stderr once for the
 * run; each process still sends its record, so the summary counts them.
 * The lines already said are a table in a file of the run's own
 * (/tmp/.sbxrun-seen-<the report socket's unguessable name>: full mode's
 * /tmp is private, and the launcher removes it at exit), mapped shared
 * on the first refusal of a process -- never on the hot path.  The
 * sandbox can write it, but only to mute or repeat its own lines; the
 * records and the summary do not depend on it.
 */
#define RUN_SLOTS 4096
static uint64_t *run_seen; /* NULL: not mapped yet; RUN_NONE: cannot */
#define RUN_NONE ((uint64_t *)1)

static uint64_t *run_table(void)
{
	const struct sockaddr_un *sun = (const void *)&shim_g.report_addr;
	uint64_t *t = __atomic_load_n(&run_seen, __ATOMIC_ACQUIRE), *exp = NULL;
	size_t off = offsetof(struct sockaddr_un, sun_path), n;
	char path[160] = "/tmp/.sbxrun-seen-";
	size_t pl = strlen(path);
	struct stat st;
	void *m = MAP_FAILED;
	int fd;

	if (t)
		return t;
	n = shim_g.report_len > off + 1 ? shim_g.report_len - off - 1 : 0;
	if (n && sun->sun_path[0] == '\0' && pl + n < sizeof(path)) {
		for (size_t i = 0; i < n; i++) {
			char c = sun->sun_path[1 + i];

			path[pl + i] = (c >= 'a' && c <= 'z') ||
						       (c >= '0' && c <= '9') ||
						       c == '-'
					       ? c
					       : '_';
		}
		path[pl + n] = '\0';
		fd = (int)syscall(SYS_openat, AT_FDCWD, path,
				  O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
				  0600);
		if (fd >= 0) {
			if (syscall(SYS_fstat, fd, &st) == 0 &&
			    S_ISREG(st.st_mode) &&
			    (st.st_size == RUN_SLOTS * 8 ||
			     syscall(SYS_ftruncate, fd, RUN_SLOTS * 8) == 0))
				m = (void *)syscall(SYS_mmap, NULL,
						    RUN_SLOTS * 8,
						    PROT_READ | PROT_WRITE,
						    MAP_SHARED, fd, 0);
			sys_close(fd);
		}
	}
	t = m == MAP_FAILED ? RUN_NONE : m;
	if (!__atomic_compare_exchange_n(&run_seen, &exp, t, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		if (t != RUN_NONE)
			syscall(SYS_munmap, t, RUN_SLOTS * 8);
		t = exp;
	}
	return t;
}

/* First time in this run that key is said?  1 when not known. */
static int run_first(uint64_t key)
{
	uint64_t *t = run_table();

	if (t == RUN_NONE)
		return 1;
	key = key ? key : 1;
	for (unsigned i = 0; i < SEEN_PROBES; i++) {
		uint64_t *s = &t[(key + i) & (RUN_SLOTS - 1)];
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

/* ------------------------------------------------------------ delivery */

/*
 * One datagram per record on a fresh socket: refusals are rare, and a
 * cached fd could have been closed or dup2'ed over by the program, so we
 * might write into someone else's file.  MSG_DONTWAIT: a full queue at
 * the launcher drops the record instead of blocking the program.
 */
static void send_record(const struct sbx_expl *e, const char *target)
{
	char buf[SBX_REC_MAX], comm[17] = { 0 };
	size_t len;
	int fd;

	if (!shim_g.report_len)
		return;
	syscall(SYS_prctl, PR_GET_NAME, comm, 0, 0, 0);
	len = sbx_expl_record(buf, sizeof(buf), e, target, comm);
	if (!len)
		return;
	fd = (int)syscall(SYS_socket, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	syscall(SYS_sendto, fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL,
		&shim_g.report_addr, shim_g.report_len);
	sys_close(fd);
}

void shim_emit(const struct sbx_expl *e, const char *target, uint64_t key)
{
	int saved = errno;

	if (seen_first(key)) {
		if (!shim_g.quiet && run_first(key)) {
			/* one writev, so lines from threads do not mix */
			struct iovec iov[2] = {
				{ (void *)e->msg, strlen(e->msg) },
				{ (void *)"\n", 1 },
			};

			syscall(SYS_writev, 2, iov, 2);
		}
		send_record(e, target);
	}
	errno = saved;
}

/* ------------------------------------------------------------ refusals */

/* A path refusal, the kernel's or the shim's; the message is built
 * only the first time (op, path) is refused in this process. */
void shim_explain_fs(const char *shown, const char *abs, enum sbx_op op,
		     const struct sbx_path_decision *d, unsigned eflags)
{
	struct sbx_expl e;
	/* A hidden path is one refusal whatever is tried on it (bash reads
	 * its history at start and writes it at exit): said once. */
	uint64_t key = shim_key(d->verdict == SBX_DENY_HIDDEN ? "hidden"
							      : sbx_op_word(op),
				abs);

	if (d->verdict == SBX_ALLOW || shim_seen(key))
		return;
	sbx_explain_path(&shim_g.pol, shown, abs, op, d, eflags, &e);
	shim_emit(&e, abs, key);
}

void shim_explain_exec(const char *shown, const char *abs,
		       const struct sbx_cpol_exec *x)
{
	struct sbx_expl e;

	sbx_explain_exec(&shim_g.pol, shown, x, 0, &e);
	/* one message per program as named and rule: a search through
	 * PATH refused in several directories is one refusal */
	shim_emit(&e, abs,
		  shim_key(e.rule, sbx_basename(shown)) ^
			  (uint64_t)(x - shim_g.pol.exec));
}
