/*
 * init.c - finding the real functions, loading the compiled policy and
 * capturing the variables the exec wrappers put back.
 *
 * Init runs from our constructor and, lazily, from the first hook that
 * finds it not done (another library's constructor may call open before
 * ours ran).  It takes no lock: exactly one thread, the one that wins a
 * compare-and-swap, loads the policy.  The real-function pointers are not
 * part of init: each is looked up when its hook first needs it, by
 * whichever thread gets there (dlsym is thread-safe and the result is
 * the same for everyone).  A hook that runs on another thread
 * while that load is in progress passes its call through unexamined,
 * which can lose an explanation but never widen access.
 */
#include <dlfcn.h>
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/un.h>

#include "shim.h"
#include "sys.h"

struct shim_state shim_g;
int shim_ready;
__thread int shim_depth __attribute__((tls_model("initial-exec")));

void *shim_real[SHIM_NHOOKS];

/*
 * What a pointer resolves to when libc lacks the function, or when
 * dlsym(RTLD_NEXT) hands back our own hook, which would recurse forever:
 * a stub that fails with ENOSYS.
 */
#define SBX_HOOK(ret, name, params, fail) \
	static ret stub_##name params     \
	{                                 \
		errno = ENOSYS;           \
		return fail;              \
	}
#include "hooks.def"
#undef SBX_HOOK

static void complain_self(const char *sym)
{
	static const char a[] = "sbxrun: shim: dlsym(RTLD_NEXT, \"";
	static const char b[] = "\") returned the shim itself; that call "
				"will fail with ENOSYS (broken build)\n";

	sys_write_all(2, a, sizeof(a) - 1);
	sys_write_all(2, sym, strlen(sym));
	sys_write_all(2, b, sizeof(b) - 1);
}

/*
 * dlsym may call back into a hook (a malloc replacement that opens a
 * file while dlsym allocates, or a signal handler), whose pointer may not
 * be resolved yet either.  The loader's lock is recursive, so a nested
 * lookup works; the depth limit only stops a pathological cycle, and the
 * call that hits it fails with ENOSYS without caching anything.
 */
#define RESOLVE_DEPTH 3
static __thread int resolving __attribute__((tls_model("initial-exec")));

static void *resolve_one(enum shim_hook h, const char *sym, void *self,
			 void *stub)
{
	int saved = errno;
	void *p;

	if (resolving >= RESOLVE_DEPTH)
		return stub;
	resolving++;
	p = dlsym(RTLD_NEXT, sym);
	resolving--;
	if (p && p == self) {
		complain_self(sym);
		p = NULL;
	}
	if (!p)
		p = stub;
	/* Racing threads store the same value. */
	__atomic_store_n(&shim_real[h], p, __ATOMIC_RELEASE);
	errno = saved;
	return p;
}

/* A switch rather than a table of names and addresses: it needs no
 * relocations, so it costs nothing at load time. */
void *shim_resolve(enum shim_hook h)
{
	switch (h) {
#define SBX_HOOK(ret, name, params, fail) \
	case SHIM_HOOK_##name:            \
		return resolve_one(h, #name, (void *)name, (void *)stub_##name);
#include "hooks.def"
#undef SBX_HOOK
	case SHIM_NHOOKS: break;
	}
	return NULL;
}

/*
 * Before fork, resolve everything still unresolved.  The child of a
 * multithreaded parent must not call dlsym (another thread may have held
 * the loader's lock when fork copied it), and it may well call a hook for
 * the first time (a shell opening a redirection, then exec).  This runs
 * in the parent, once per program at most: the child inherits the
 * pointers.  vfork runs no fork handlers: see resolve_vfork_set().
 */
static void before_fork(void)
{
	for (int h = 0; h < SHIM_NHOOKS; h++)
		if (!__atomic_load_n(&shim_real[h], __ATOMIC_ACQUIRE))
			shim_resolve((enum shim_hook)h);
}

/*
 * What a vfork child calls before exec (Python's subprocess, posix_spawn
 * users): resolved up front, so that no dlsym ever runs on the parent's
 * stack in a child that shares its memory.  Only the real functions the
 * hooks call: execv, execvp, execl, execlp and execle are wrappers that
 * call the real execve or execvpe (hooks_exec.c), so their own pointers
 * are never used.  Six lookups, about 3 us.
 */
static void resolve_vfork_set(void)
{
	static const enum shim_hook early[] = {
		SHIM_HOOK_execve,   SHIM_HOOK_execvpe, SHIM_HOOK_fexecve,
		SHIM_HOOK_execveat, SHIM_HOOK_chdir,   SHIM_HOOK_fchdir,
	};

	for (size_t i = 0; i < sizeof(early) / sizeof(early[0]); i++)
		if (!__atomic_load_n(&shim_real[early[i]], __ATOMIC_ACQUIRE))
			shim_resolve(early[i]);
}

/* ------------------------------------------------------------ policy */

/*
 * Read the compiled policy into a private anonymous mapping and make it
 * read-only before validating it.  A copy rather than a mapping of the
 * file: a file that changes or shrinks under a MAP_PRIVATE mapping could
 * turn validated offsets into SIGBUS later; a sealed private copy cannot
 * change after sbx_cpol_view() checked it.  MAP_POPULATE: the read fills
 * every page anyway, and one population costs less than a fault per page
 * (7 fewer page faults per program for the default profile).
 */
static void *read_policy(const char *path, size_t *len)
{
	struct stat st;
	void *buf = MAP_FAILED;
	size_t got = 0;
	/* O_NONBLOCK: a FIFO named here must not hang the program (only a
	 * regular file is read) */
	int fd = sys_openat(AT_FDCWD, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (sys_fstatat(fd, "", &st, AT_EMPTY_PATH) == 0 &&
	    S_ISREG(st.st_mode) &&
	    st.st_size >= (off_t)sizeof(struct sbx_cpol_hdr) &&
	    st.st_size <= (off_t)SBX_CPOL_MAX_BYTES)
		buf = sys_mmap_anon((size_t)st.st_size, MAP_POPULATE);
	while (buf != MAP_FAILED && got < (size_t)st.st_size) {
		ssize_t n = sys_read(fd, (char *)buf + got,
				     (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	sys_close(fd);
	if (buf == MAP_FAILED)
		return NULL;
	if (got != (size_t)st.st_size || sys_mprotect_ro(buf, got) != 0) {
		sys_munmap(buf, (size_t)st.st_size);
		return NULL;
	}
	*len = got;
	return buf;
}

/* What the hot path needs to know about the rules, computed once. */
static void summarise_rules(void)
{
	const struct sbx_cpol_hdr *h = shim_g.pol.hdr;

	shim_g.quiet =
		(h->flags & (SBX_CPOL_F_QUIET | SBX_CPOL_F_REPORT_ONLY)) != 0;
	for (uint32_t i = 0; i < h->nrules; i++) {
		const struct sbx_cpol_rule *r = &shim_g.pol.rules[i];

		if (r->nsuffixes && r->mode == SBX_RW)
			shim_g.app |= CHK_NAME;
		/* PERS-02: a write to a hard-linked file in a writable root */
		if (r->mode == SBX_RW)
			shim_g.app |= CHK_LINKS;
		if (r->max_file_bytes) {
			shim_g.app |= CHK_SIZE;
			if (!shim_g.min_limit ||
			    r->max_file_bytes < shim_g.min_limit)
				shim_g.min_limit = r->max_file_bytes;
		}
		if (r->mode == SBX_RO && /* the only mode it can hold */
		    sbx_rule_app_readonly(&shim_g.pol, r))
			shim_g.protect = 1;
	}
	if (shim_g.protect)
		shim_g.app |= CHK_MODIFY | CHK_TREE | CHK_NAME;
	/* landlock-only: Landlock has no attribute rights, the shim holds
	 * chmod, chown and utimes outside writable roots */
	if (h->flags & SBX_CPOL_F_SHIM_PROTECT)
		shim_g.app |= CHK_ATTR;
}

/* On a failure the shim passes file calls through (the kernel layers
 * still decide them) but refuses to start programs: it can no longer
 * check the exec rules, and a policy that went missing or bad under a
 * running sandbox is a fault or an attack (exec.c says which). */
static void load_policy(const char *path)
{
	const char *why;
	size_t len = 0;
	void *buf = read_policy(path, &len);

	if (!buf) {
		shim_g.broken = 1;
		return;
	}
	if (sbx_cpol_view(buf, len, &shim_g.pol, &why) < 0) {
		sys_munmap(buf, len);
		shim_g.broken = 1;
		return;
	}
	summarise_rules();
	shim_g.active = 1;
}

/* ------------------------------------------------------------ variables */

static const char *const var_names[SHIM_NVARS] = {
	[SHIM_VAR_PRELOAD] = "LD_PRELOAD",
	[SHIM_VAR_POLICY] = "SBXRUN_POLICY",
	[SHIM_VAR_REPORT] = "SBXRUN_REPORT",
	[SHIM_VAR_SBXRUN] = "SBXRUN",
	[SHIM_VAR_NET] = "SBXRUN_NET",
};

/*
 * The copies live end to end in one buffer rather than in a slot of
 * SHIM_VAR_MAX each: the usual few hundred bytes then touch one page,
 * not five, and every page the constructor touches is a page fault in
 * every program started.
 */
static char var_store[SHIM_NVARS * SHIM_VAR_MAX];
static size_t var_used;

static void capture_one(struct shim_var_copy *c, const char *name,
			const char *val, size_t vlen)
{
	size_t nl = strlen(name);
	char *t = var_store + var_used;

	c->name = name;
	c->namelen = nl;
	if (!val || nl + 1 + vlen + 1 > SHIM_VAR_MAX)
		return;
	memcpy(t, name, nl);
	t[nl] = '=';
	memcpy(t + nl + 1, val, vlen);
	t[nl + 1 + vlen] = '\0';
	var_used += nl + 1 + vlen + 1;
	c->text = t;
	c->present = 1;
}

/* The captured value of variable i, or NULL. */
static const char *var_value(enum shim_var i)
{
	const struct shim_var_copy *c = &shim_g.var[i];

	return c->present ? c->text + c->namelen + 1 : NULL;
}

static void capture_vars(void)
{
	for (int i = 0; i < SHIM_NVARS; i++) {
		const char *v = getenv(var_names[i]);
		size_t vlen = v ? strlen(v) : 0;

		if (i == SHIM_VAR_PRELOAD && v &&
		    shim_preload_find(v, &v, &vlen) < 0)
			v = NULL;
		capture_one(&shim_g.var[i], var_names[i], v, vlen);
	}
	if (shim_g.var[SHIM_VAR_PRELOAD].present)
		shim_g.preload_entry = var_value(SHIM_VAR_PRELOAD);
	shim_g.repair = shim_g.var[SHIM_VAR_POLICY].present;
}

/* SBXRUN_REPORT=@name is an abstract socket, anything else a path. */
static void prepare_report(void)
{
	struct sockaddr_un *sun = (struct sockaddr_un *)&shim_g.report_addr;
	const char *v = var_value(SHIM_VAR_REPORT);
	size_t n = v ? strlen(v) : 0;

	if (n < 2 || n >= sizeof(sun->sun_path))
		return;
	sun->sun_family = AF_UNIX;
	memcpy(sun->sun_path, v, n);
	if (v[0] == '@')
		sun->sun_path[0] = '\0';
	shim_g.report_len =
		(socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
}

/* ------------------------------------------------------------ init */

/* glibc's registration behind pthread_atfork; called directly because
 * pthread_atfork itself needs __dso_handle, which -nostartfiles drops. */
extern int __register_atfork(void (*prepare)(void), void (*parent)(void),
			     void (*child)(void), void *dso);

static void after_fork_child(void)
{
	shim_g.pid = sys_getpid();
}

static void load_all(void)
{
	const char *pol;

	shim_g.pid = sys_getpid();
	capture_vars();
	prepare_report();
	/* named, even empty: it loads or programs are refused (an empty
	 * SBXRUN_POLICY= must not switch the rules off) */
	pol = var_value(SHIM_VAR_POLICY);
	if (pol)
		load_policy(pol);
	resolve_vfork_set();
	__register_atfork(before_fork, NULL, after_fork_child, NULL);
}

/* Returns the state after this call: SHIM_READY, or 1 while another
 * thread (or an outer frame of this one) is still loading. */
int shim_init(void)
{
	int expect = 0;
	int saved = errno;

	if (__atomic_compare_exchange_n(&shim_ready, &expect, 1, 0,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		load_all();
		__atomic_store_n(&shim_ready, SHIM_READY, __ATOMIC_RELEASE);
		expect = SHIM_READY;
	}
	errno = saved;
	return expect;
}

__attribute__((constructor)) static void shim_ctor(void)
{
	shim_init();
}
