/*
 * shimloop - the cost of one file call, for make bench.
 *
 *   shimloop N_OPEN N_OTHER ALLOWED REFUSED MISSING
 *
 * Four operations, each timed two ways in the same process:
 *
 *   via libc   the ordinary symbol (&openat as the program sees it),
 *              which is the shim's interposer when LD_PRELOAD loaded it;
 *   direct     the same function looked up in libc.so.6 itself, which
 *              bypasses any interposer.
 *
 * Both ways run the very same loop, calling through a function pointer,
 * so only the target of the call differs.
 *
 * The two alternate in chunks of CHUNK calls, so that the drift of a
 * noisy machine (a virtual CPU, frequency changes) hits both alike, and
 * each figure is the median over chunks, which a burst of noise does not
 * move; the difference is what the interposer costs per call.  Without
 * the shim both ways call libc and the difference is noise (a control).
 *
 *   openat   openat(AT_FDCWD, ALLOWED, O_RDONLY) + close, N_OPEN pairs
 *            in all (half each way): the shim's pass-through path
 *   stat     stat(ALLOWED), N_OTHER calls: not interposed, a control
 *   refused  open(REFUSED, O_RDONLY) that the sandbox refuses (a hidden
 *            file), N_OTHER calls: the shim explains the first one (in
 *            the warm-up) and looks up the policy on every later one
 *   missing  open(MISSING, O_RDONLY) of a relative path that does not
 *            exist (ENOENT), N_OTHER calls: what compilers and
 *            interpreters do all day while searching their paths
 *
 * Prints one line, nanoseconds per call (per open+close pair for openat),
 * each the median over chunks:
 *
 *   openat=NS openat_direct=NS stat=NS stat_direct=NS refused=NS
 *   refused_direct=NS missing=NS missing_direct=NS
 *
 * An open expected to fail that succeeds is closed and counted as is
 * (outside a sandbox nothing is refused).
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CHUNK 500

typedef int openat_fn(int, const char *, int, ...);
typedef int open_fn(const char *, int, ...);
typedef int stat_fn(const char *, struct stat *);

/* [0]: the symbol as this program binds it; [1]: libc.so.6's own */
static openat_fn *volatile f_openat[2];
static open_fn *volatile f_open[2];
static stat_fn *volatile f_stat[2];

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void op_openat(const char *path, long n, int direct)
{
	for (long i = 0; i < n; i++) {
		int fd = f_openat[direct](AT_FDCWD, path, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			die(path);
		close(fd);
	}
}

static void op_stat(const char *path, long n, int direct)
{
	struct stat st;

	for (long i = 0; i < n; i++)
		if (f_stat[direct](path, &st) < 0)
			die(path);
}

static void op_fail(const char *path, long n, int direct)
{
	for (long i = 0; i < n; i++) {
		int fd = f_open[direct](path, O_RDONLY | O_CLOEXEC);

		if (fd >= 0)
			close(fd);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, long n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * total calls, half each way, alternating in chunks (ABBA order); the
 * result is the median over chunks of the time per call, which a burst
 * of noise in a few chunks does not move.
 */
static void timed(void (*fn)(const char *, long, int), const char *path,
		  long total, double *via, double *direct)
{
	long half = total / 2, nchunks = (half + CHUNK - 1) / CHUNK;
	double *t[2], t0;

	t[0] = calloc((size_t)nchunks, sizeof(double));
	t[1] = calloc((size_t)nchunks, sizeof(double));
	if (!t[0] || !t[1])
		die("calloc");
	fn(path, CHUNK, 0); /* warm caches, and the shim's first-refusal */
	fn(path, CHUNK, 1); /* explanation, out of the measurement */
	for (long k = 0; k < nchunks; k++) {
		long n = half - k * CHUNK < CHUNK ? half - k * CHUNK : CHUNK;

		for (int j = 0; j < 2; j++) {
			int d = (int)((k + j) % 2);

			t0 = now_ns();
			fn(path, n, d);
			t[d][k] = (now_ns() - t0) / (double)n;
		}
	}
	*via = median(t[0], nchunks);
	*direct = median(t[1], nchunks);
	free(t[0]);
	free(t[1]);
}

int main(int argc, char **argv)
{
	long nopen, nother;
	double r[8];
	void *libc;

	if (argc != 6) {
		fprintf(stderr,
			"usage: shimloop N_OPEN N_OTHER ALLOWED REFUSED "
			"MISSING\n");
		return 2;
	}
	nopen = atol(argv[1]);
	nother = atol(argv[2]);
	libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	if (nopen < 2 || nother < 2 || !libc)
		return 2;
	f_openat[0] = openat;
	f_open[0] = open;
	f_stat[0] = stat;
	f_openat[1] = (openat_fn *)dlsym(libc, "openat");
	f_open[1] = (open_fn *)dlsym(libc, "open");
	f_stat[1] = (stat_fn *)dlsym(libc, "stat");
	if (!f_openat[1] || !f_open[1] || !f_stat[1])
		return 2;
	timed(op_openat, argv[3], nopen, &r[0], &r[1]);
	timed(op_stat, argv[3], nother, &r[2], &r[3]);
	timed(op_fail, argv[4], nother, &r[4], &r[5]);
	timed(op_fail, argv[5], nother, &r[6], &r[7]);
	printf("openat=%.1f openat_direct=%.1f stat=%.1f stat_direct=%.1f "
	       "refused=%.1f refused_direct=%.1f missing=%.1f "
	       "missing_direct=%.1f\n",
	       r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
	return 0;
}
