/*
 * execloop - the cost of one program start, for make bench: fork +
 * execve(PROG) + wait, N times.
 *
 *   execloop N PROG [ARG...]
 *
 * Without LD_PRELOAD in the environment it does just that and prints
 * "exec=US" (microseconds per fork+exec+exit+wait).
 *
 * With LD_PRELOAD (run under sbxrun, which preloads the shim) it runs N
 * starts each of three kinds, alternating in chunks of CHUNK so that a
 * noisy machine's drift hits all three alike:
 *
 *   exec         execve through libc, so through the shim's exec wrapper
 *                when it is loaded here, with the environment as is: the
 *                child loads the shim too (the real thing)
 *   exec_load    libc's own execve (bypassing the wrapper), environment
 *                as is: the child still loads the shim
 *   exec_noshim  libc's own execve, LD_PRELOAD removed: no shim anywhere
 *
 * and prints "exec=US exec_load=US exec_noshim=US".  exec - exec_noshim
 * is what the shim costs per program start; exec_load - exec_noshim is
 * the part spent loading it in the child, exec - exec_load its wrapper.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHUNK 50

extern char **environ;

typedef int execve_fn(const char *, char *const[], char *const[]);

static execve_fn *d_execve;
static char **env_noshim;

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void one(char **argv, int kind)
{
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		if (kind == 0)
			execve(argv[0], argv, environ);
		else
			d_execve(argv[0], argv,
				 kind == 1 ? environ : env_noshim);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0) {
		fprintf(stderr, "execloop: %s failed\n", argv[0]);
		exit(1);
	}
}

static void strip_preload(void)
{
	size_t n = 0, k = 0;

	while (environ[n])
		n++;
	env_noshim = calloc(n + 1, sizeof(char *));
	if (!env_noshim)
		exit(1);
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0)
			env_noshim[k++] = environ[i];
}

int main(int argc, char **argv)
{
	int kinds = getenv("LD_PRELOAD") ? 3 : 1;
	double t[3] = { 0, 0, 0 }, t0;
	long n, done = 0;
	void *libc;

	if (argc < 3) {
		fprintf(stderr, "usage: execloop N PROG [ARG...]\n");
		return 2;
	}
	n = atol(argv[1]);
	libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	d_execve = libc ? (execve_fn *)dlsym(libc, "execve") : NULL;
	if (n <= 0 || !d_execve)
		return 2;
	strip_preload();
	for (int k = 0; k < kinds; k++) /* warm-up */
		for (int i = 0; i < 10; i++)
			one(argv + 2, k);
	for (int c = 0; done < n; c++) {
		long m = n - done < CHUNK ? n - done : CHUNK;

		for (int j = 0; j < kinds; j++) {
			int k = c % 2 ? kinds - 1 - j : j;

			t0 = now_us();
			for (long i = 0; i < m; i++)
				one(argv + 2, k);
			t[k] += now_us() - t0;
		}
		done += m;
	}
	if (kinds == 1)
		printf("exec=%.2f\n", t[0] / (double)n);
	else
		printf("exec=%.2f exec_load=%.2f exec_noshim=%.2f\n",
		       t[0] / (double)n, t[1] / (double)n, t[2] / (double)n);
	return 0;
}
