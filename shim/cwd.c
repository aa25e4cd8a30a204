/*
 * cwd.c - the cached working directory, for relative paths on the hot
 * path of the application-level checks (never realpath or getcwd per
 * call).
 *
 * The cache is a seqlock: a writer makes the sequence odd, copies, makes
 * it even; a reader copies and retries when the sequence moved.  Readers
 * never block and never spin for long: after a few tries, or when the
 * cache is marked stale, they ask the kernel (SYS_getcwd).  That also
 * makes the cache safe in signal handlers that interrupt a writer.
 *
 * vfork: a vfork child shares our memory but has its own cwd, so a chdir
 * in the child must not overwrite the parent's cache (Python's
 * subprocess(cwd=...) does exactly that).  The chdir hook refreshes the
 * cache only when getpid() is still the pid the cache belongs to;
 * otherwise it marks the cache stale, which costs the parent a getcwd
 * per relative path until its own next check refreshes it.
 *
 * The cache can be wrong when the cwd changes behind our back (a raw
 * chdir syscall, glibc-internal chdir in nftw(FTW_CHDIR)).  It only
 * steers the fast path: every refusal based on a relative path is
 * re-checked with a fresh getcwd first (appcheck.c), so a stale cache can
 * cost an explanation but never refuses an allowed call.
 */
#include <errno.h>
#include <string.h>

#include "shim.h"
#include "sys.h"

static char cwd_buf[PATH_MAX];
static unsigned cwd_seq; /* odd while a writer copies */
static int cwd_stale = 1;

/* Store cwd (n bytes with its NUL, absolute) in the cache, or mark the
 * cache stale when another writer is busy; only the process the cache
 * belongs to. */
static void cwd_store(const char *cwd, long n)
{
	unsigned s = __atomic_load_n(&cwd_seq, __ATOMIC_ACQUIRE);

	if (n <= 0 || cwd[0] != '/' || (s & 1) ||
	    !__atomic_compare_exchange_n(&cwd_seq, &s, s + 1, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
		__atomic_store_n(&cwd_stale, 1, __ATOMIC_RELEASE);
		return;
	}
	memcpy(cwd_buf, cwd, (size_t)n);
	__atomic_store_n(&cwd_stale, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&cwd_seq, s + 2, __ATOMIC_RELEASE);
}

/* Refresh from the kernel. */
static void cwd_refresh(void)
{
	char tmp[PATH_MAX];
	long n = sys_getcwd(tmp, sizeof(tmp));

	cwd_store(tmp, n);
}

/*
 * The cwd's standing in the policy, so that a missing relative path need
 * not be resolved to find out there is nothing to explain (appcheck.c).
 * cwd_gen counts the chdirs the hooks saw, in any process sharing this
 * memory (a vfork child's too: the parent then judges again, once);
 * cwd_judged holds (generation << 2 | 2 | plain) as last judged.  The
 * generation is read before the kernel is asked, so a chdir racing with
 * a judgement leaves it out of date, never wrong for the generation it
 * names.  A chdir the hooks cannot see (a raw syscall) leaves it stale;
 * then an explanation may be skipped, which is all it is used for.
 */
static unsigned cwd_gen;
static unsigned cwd_judged;

int shim_cwd_plain(void)
{
	char cwd[PATH_MAX];
	const struct sbx_cpol_rule *r;
	unsigned g = __atomic_load_n(&cwd_gen, __ATOMIC_ACQUIRE);
	unsigned v = __atomic_load_n(&cwd_judged, __ATOMIC_ACQUIRE);
	int saved = errno, plain = 0;

	if ((v & 2) && v >> 2 == (g & (UINT_MAX >> 2)))
		return v & 1;
	if (sys_getcwd(cwd, sizeof(cwd)) > 0 && cwd[0] == '/') {
		r = sbx_cpol_match(&shim_g.pol, cwd);
		plain = r && r->mode != SBX_HIDE;
	}
	__atomic_store_n(&cwd_judged, g << 2 | 2 | (unsigned)plain,
			 __ATOMIC_RELEASE);
	errno = saved;
	return plain;
}

/* Called by chdir/fchdir after they succeeded. */
void shim_cwd_changed(void)
{
	int saved = errno;

	__atomic_add_fetch(&cwd_gen, 1, __ATOMIC_ACQ_REL);
	if (sys_getpid() == shim_g.pid)
		cwd_refresh();
	else
		__atomic_store_n(&cwd_stale, 1, __ATOMIC_RELEASE);
	errno = saved;
}

static int cwd_fresh(char *out, size_t sz)
{
	long n = sys_getcwd(out, sz);

	return n > 0 && out[0] == '/' ? 0 : -1;
}

static int cwd_cached(char *out, size_t sz)
{
	for (int tries = 0; tries < 4; tries++) {
		unsigned s1 = __atomic_load_n(&cwd_seq, __ATOMIC_ACQUIRE);
		size_t n;

		if (s1 & 1)
			continue;
		n = strnlen(cwd_buf, sizeof(cwd_buf));
		if (n >= sz || n == sizeof(cwd_buf))
			return -1;
		memcpy(out, cwd_buf, n);
		out[n] = '\0';
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&cwd_seq, __ATOMIC_RELAXED) == s1)
			return out[0] == '/' ? 0 : -1;
	}
	return -1;
}

int shim_cwd_get(char *out, size_t sz, int fresh)
{
	int saved = errno, rc;

	if (!fresh && !__atomic_load_n(&cwd_stale, __ATOMIC_ACQUIRE) &&
	    cwd_cached(out, sz) == 0)
		return 0;
	rc = cwd_fresh(out, sz);
	/* A stale cache heals itself in the process it belongs to.  That
	 * is also how it is first filled: the constructor leaves it stale
	 * (a getcwd, and a page of cwd_buf, in every program started,
	 * most of which never check a relative path). */
	if (rc == 0 && __atomic_load_n(&cwd_stale, __ATOMIC_ACQUIRE) &&
	    sys_getpid() == shim_g.pid)
		cwd_store(out, (long)strlen(out) + 1);
	errno = saved;
	return rc;
}
