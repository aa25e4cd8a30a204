/*
 * shim.h - internals of libsbxshim.so shared by its files.
 *
 * The shim explains refusals and enforces the application-level rules
 * the kernel cannot express (suffixes, sizes, exec deny rules, protect
 * rules in landlock-only mode).  It is never the boundary: everything it
 * refuses for security reasons the kernel refuses too, and when anything
 * goes wrong (no policy, a bad policy, a re-entered hook, a path it cannot
 * resolve) it lets the call through untouched.
 *
 * Rules every file follows:
 *  - no malloc, no stdio, no locks inside a hook: the shim runs in vfork
 *    children, in signal handlers and between fork and exec;
 *  - the shim's own file and socket access uses raw syscalls (sys.h), so
 *    it never re-enters its own hooks;
 *  - errno after a hook is exactly what the real call left, or the
 *    policy's errno when the shim refused the call.
 */
#ifndef SBX_SHIM_H
#define SBX_SHIM_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/types.h>
#include <time.h>

#include "cpol.h"
#include "decide.h"
#include "explain.h"

#define SHIM_EXPORT __attribute__((visibility("default")))
#define SHIM_LIKELY(x) __builtin_expect(!!(x), 1)
#define SHIM_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* One index per hook, into shim_real[]. */
enum shim_hook {
#define SBX_HOOK(ret, name, params, fail) SHIM_HOOK_##name,
#include "hooks.def"
#undef SBX_HOOK
	SHIM_NHOOKS
};

/* The next definition of each hook, NULL until looked up, and the
 * lookup that fills one in (init.c): it returns the function, or the
 * hook's ENOSYS stub when there is none, never NULL. */
extern void *shim_real[SHIM_NHOOKS];
void *shim_resolve(enum shim_hook h);

/*
 * Function types, our own prototypes (some of the names, such as
 * __open_2, have none in the headers without _FORTIFY_SOURCE) and the
 * accessors of shim_real[], all generated from hooks.def.
 *
 * The pointers are resolved lazily: NULL until a hook first needs its
 * real function, then one dlsym(RTLD_NEXT) (a process that never calls
 * exec or connect does not pay for looking them up at start-up; fork
 * resolves them all first, see init.c).  A resolved pointer never
 * changes again and every thread finds the same value, so the hot path
 * adds one plain load.  Call them as REAL(open)(path, flags, mode).
 */
#define SBX_HOOK(ret, name, params, fail)                                \
	typedef ret name##_fn params;                                    \
	SHIM_EXPORT ret name params;                                     \
	static inline name##_fn *shim_real_##name(void)                  \
	{                                                                \
		void *p_ = __atomic_load_n(&shim_real[SHIM_HOOK_##name], \
					   __ATOMIC_ACQUIRE);            \
		if (SHIM_UNLIKELY(!p_))                                  \
			p_ = shim_resolve(SHIM_HOOK_##name);             \
		return (name##_fn *)p_;                                  \
	}
#include "hooks.def"
#undef SBX_HOOK

#define REAL(name) (shim_real_##name())

/* ------------------------------------------------------------ state */

/* The variables the exec wrappers put back when a program removed them. */
enum shim_var {
	SHIM_VAR_PRELOAD, /* LD_PRELOAD, just our own entry */
	SHIM_VAR_POLICY, /* SBXRUN_POLICY */
	SHIM_VAR_REPORT, /* SBXRUN_REPORT */
	SHIM_VAR_SBXRUN, /* SBXRUN */
	SHIM_VAR_NET, /* SBXRUN_NET */
	SHIM_NVARS
};

/* Longest "NAME=value" captured; a longer variable is not put back. */
#define SHIM_VAR_MAX (PATH_MAX + 32)

struct shim_var_copy {
	const char *name;
	size_t namelen;
	int present; /* captured at init */
	char *text; /* "NAME=value", ready for an envp */
};

/* What a hook's call does to its path, as the decider asks it
 * (decide.h); shim_g.app holds the ones some rule makes relevant. */
#define CHK_NAME SBX_Q_NAME /* the call gives a file this name: suffixes */
#define CHK_MODIFY SBX_Q_MODIFY /* the call modifies the path */
#define CHK_TREE SBX_Q_TREE /* removes or moves the path and all below */
#define CHK_SIZE SBX_Q_SIZE /* opens an existing file: size limit */
#define CHK_ATTR SBX_Q_ATTR /* changes only attributes */
#define CHK_LINKS SBX_Q_LINKS /* writes an existing file: hard links */
/* the call makes a directory (the fix is written "PATH/"); not the
 * decider's */
#define CHK_MKDIR 0x1000u

struct shim_state {
	struct sbx_cpol pol; /* valid when active */
	int active; /* a validated policy is loaded */
	int broken; /* SBXRUN_POLICY named one that did not load:
				 * programs are refused (exec.c) */
	int repair; /* we run under sbxrun: repair exec envs */
	int quiet; /* no stderr (QUIET or REPORT_ONLY) */
	unsigned app; /* CHK_* bits some rule makes relevant;
				 * 0 keeps file hooks on the fast path */
	int protect; /* some read-only rule is the shim's to hold
				 * (sbx_rule_app_readonly: landlock-only) */
	uint64_t min_limit; /* smallest max_file_bytes, 0 if none */
	struct shim_var_copy var[SHIM_NVARS];
	const char *preload_entry; /* our entry inside var[PRELOAD] */
	/* the report socket address, prepared once */
	struct sockaddr_storage report_addr;
	socklen_t report_len;
	pid_t pid; /* getpid() of this process (fork updates) */
};

extern struct shim_state shim_g;

/* ------------------------------------------------------------ entry */

#define SHIM_READY 2
extern int shim_ready;
int shim_init(void);

/*
 * The per-thread depth guard.  Every hook raises it on entry and lowers
 * it on exit; a hook entered while it is already raised (a libc function
 * we call back into us, or a hook running inside our own bookkeeping)
 * goes straight to the real function.  It lives in initial-exec TLS, so
 * reading it is one instruction and never allocates.
 *
 * File and network hooks keep it raised across the real call, so what
 * libc or an NSS module calls back through the exported symbols (the
 * resolver's own socket/connect) is not taken for the program's doing; a
 * signal handler that runs inside such a call and calls a hook gets a
 * plain pass-through (no explanation, same result).  A handler that
 * longjmps out of a hook leaves the guard raised on that thread: its
 * hooks then pass everything through, which loses explanations only.
 *
 * vfork: a vfork child shares this memory with its parent, so a hook must
 * never leave the guard raised across a call that does not return (the
 * exec wrappers lower it before calling the real exec).
 */
extern __thread int shim_depth;

/* Lazy init (another library's constructor may call a hook before ours
 * ran) and the guard.  Returns 1 when the hook should look at the call:
 * init finished and the hook is not re-entered.  Always pair with
 * shim_leave(). */
static inline int shim_enter(void)
{
	int ready = __atomic_load_n(&shim_ready, __ATOMIC_ACQUIRE);

	if (SHIM_UNLIKELY(ready != SHIM_READY))
		ready = shim_init();
	return shim_depth++ == 0 && ready == SHIM_READY;
}

static inline void shim_leave(void)
{
	shim_depth--;
}

/* Lower the guard and fail the call with err. */
static inline int shim_refuse(int err)
{
	shim_leave();
	errno = err;
	return -1;
}

/* ------------------------------------------------------------ paths */

/* One path argument of a file call, as the checks and explanations see
 * it.  op is the sbx_op the kernel would check (read, write, exec). */
struct shim_fs {
	int dirfd;
	const char *path; /* NULL or "": nothing to look at */
	enum sbx_op op;
	unsigned chk; /* CHK_* */
	int64_t size; /* new size (truncate), or -1 */
	/* The object that receives the name (CHK_NAME): stat'ed only when
	 * the name fails, so that directories and devices are not policed.
	 * obj == NULL: the call creates it, nothing to stat, always checked;
	 * an obj that does not exist is not refused (the call fails itself). */
	int objfd;
	const char *obj;
	int objflags;
};

#define SHIM_FS(d, p, o, c)              \
	((struct shim_fs){ .dirfd = (d), \
			   .path = (p),  \
			   .op = (o),    \
			   .chk = (c),   \
			   .size = -1,   \
			   .objfd = (d), \
			   .obj = (p) })

/* Absolute, lexically normalised form of (dirfd, path).  fresh != 0 asks
 * the kernel for the cwd instead of trusting the cache.  -1 if unknown. */
int shim_abspath(int dirfd, const char *path, int fresh, char *out, size_t sz);
/* The path an fd refers to (readlink of /proc/self/fd/N), absolute only. */
int shim_fdpath(int fd, char *out, size_t sz);

/* cwd.c: the cached working directory. */
int shim_cwd_get(char *out, size_t sz, int fresh);
void shim_cwd_changed(void);
/* Is the cwd covered by a rule that does not hide it?  1 yes, 0 not
 * known; only ever used to skip an explanation, never to decide. */
int shim_cwd_plain(void);

/* ------------------------------------------------------------ checks */

/* appcheck.c: application-level rules before the real call.  0 to let
 * the call through, or the errno to refuse it with (already explained). */
int shim_app_check(const struct shim_fs *f);
int shim_app_check_fd(int fd, int64_t size);

/* The checks of up to two path arguments: 0, or the errno to refuse
 * with (already explained). */
int shim_fs_check(const struct shim_fs *a, const struct shim_fs *b);
/* A failed call: explain it when the policy does.  Keeps errno. */
void shim_fs_failed(const struct shim_fs *a, const struct shim_fs *b);

/*
 * Pre and post for file hooks.  pre enters the hook and, only when some
 * application rule exists, runs the checks; it returns -1 with errno set
 * and the guard lowered to refuse.  post explains a failure and leaves.
 * Inline, so that the pass-through of an allowed call with no
 * application rules is: init check, guard, real call, failure check.
 */
static inline int shim_fs_pre(int *look, const struct shim_fs *a,
			      const struct shim_fs *b)
{
	int err;

	*look = shim_enter();
	if (SHIM_LIKELY(!*look || !shim_g.app))
		return 0;
	err = shim_fs_check(a, b);
	return err ? shim_refuse(err) : 0;
}

static inline void shim_fs_post(int look, int failed, const struct shim_fs *a,
				const struct shim_fs *b)
{
	if (SHIM_UNLIKELY(failed) && look)
		shim_fs_failed(a, b);
	shim_leave();
}

/* One path argument: pre, real call, post. */
#define PATH_HOOK(fsval, call)                           \
	do {                                             \
		struct shim_fs f_ = (fsval);             \
		int look_, rc_;                          \
		if (shim_fs_pre(&look_, &f_, NULL))      \
			return -1;                       \
		rc_ = (call);                            \
		shim_fs_post(look_, rc_ < 0, &f_, NULL); \
		return rc_;                              \
	} while (0)

/* hooks_write.c: 0, or EFBIG when the call would grow a file past its
 * rule's max_file_bytes (explained).  end: the file's size after the
 * call if it grows it; pos_n: with end < 0, the call writes n bytes at
 * the fd's position (or its end, O_APPEND). */
int shim_grow_check(int fd, int64_t end, size_t n);

/* explain.c */

/* A failed file call: explain it when the policy does.  Keeps errno;
 * returns 1 when it explained. */
int shim_explain_failure(const struct shim_fs *f, int err);
/* A refusal of a file call, by the shim or the kernel. */
void shim_explain_fs(const char *shown, const char *abs, enum sbx_op op,
		     const struct sbx_path_decision *d, unsigned eflags);
void shim_explain_exec(const char *shown, const char *abs,
		       const struct sbx_cpol_exec *e);

/* Deliver one explanation: once per key per process, to stderr unless
 * quiet, and as a record (its fields, target) to the report socket. */
void shim_emit(const struct sbx_expl *e, const char *target, uint64_t key);
uint64_t shim_key(const char *op, const char *target);
/* Was key explained already?  Lets a repeated refusal skip building its
 * message; shim_emit still decides. */
int shim_seen(uint64_t key);

/* envfix.c: putting our variables back into an exec's environment. */
#define SHIM_ENV_MAX 65536 /* larger environments are passed as is */
#define SHIM_LD_MERGE 0x100u /* LD_PRELOAD present but without us */
/* Our entry in an LD_PRELOAD value (entries split by ':' or ' '). */
int shim_preload_find(const char *v, const char **start, size_t *len);
unsigned shim_env_missing(char *const envp[], size_t *n, size_t *ldlen);
char **shim_env_fill(char *const envp[], char **out, unsigned miss, char *ld);

/*
 * Rebuild envp on the stack when a program removed our variables (env -i,
 * subprocess(env={})).  alloca, so the copy lives until the calling hook
 * returns, which is after the real exec or spawn.  Stack only: safe in a
 * vfork child, no locks, no allocation, the caller's array is not
 * modified.
 */
#define SHIM_ENV_FIX(envp)                                                   \
	do {                                                                 \
		size_t n_, ldlen_;                                           \
		unsigned miss_;                                              \
		if (shim_g.repair &&                                         \
		    (miss_ = shim_env_missing((envp), &n_, &ldlen_)) != 0 && \
		    n_ < SHIM_ENV_MAX) {                                     \
			char **v_ = __builtin_alloca((n_ + SHIM_NVARS + 1) * \
						     sizeof(char *));        \
			char *ld_ = (miss_ & SHIM_LD_MERGE)                  \
					    ? __builtin_alloca(ldlen_)       \
					    : NULL;                          \
			(envp) = shim_env_fill((envp), v_, miss_, ld_);      \
		}                                                            \
	} while (0)

/* exec.c: 0, or the errno to refuse the exec with (explained). */
int shim_exec_check(const char *path, char *const argv[]);
int shim_exec_check_at(int dirfd, const char *path, int flags,
		       char *const argv[]);
int shim_exec_check_search(const char *file, char *const argv[]);
const char *shim_path_search(const char *file, char *out, size_t sz);
/* search != 0: path is a bare name looked up in PATH */
void shim_exec_failed(int dirfd, const char *path, int search, int err);

#endif
